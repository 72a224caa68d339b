// Switching between fibers: each GPU thread of a block that uses barriers or
// warp operations runs on its own small stack, and the run time switches
// between those stacks on one OS thread.
//
// A switch saves the registers the C calling convention asks a function to
// preserve on the current stack, stores the stack pointer, loads the other
// fiber's stack pointer and restores its registers: a few nanoseconds. Written
// in assembly for x86-64 and aarch64; other machines use ucontext (slower: it
// also saves the signal mask with a system call).
#ifndef FUSELAB_EMULATOR_CONTEXT_H
#define FUSELAB_EMULATOR_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "instrumented.h"

#if !defined(__x86_64__) && !defined(__aarch64__)
#include <ucontext.h>
#endif

namespace fl::emu {

using fiber_entry = void (*)(void* arg);

#if defined(__x86_64__) || defined(__aarch64__)

// A suspended fiber is just its stack pointer; its registers sit on its stack.
struct context {
  void* sp;
};

extern "C" void fl_emu_switch_context(void** save_sp, void* load_sp);
extern "C" void fl_emu_fiber_start();

// The symbols are weak and hidden: every module carries a copy, the linker keeps
// one per module, and modules never see each other's.
#if defined(__x86_64__)
// rdi: where to save the current stack pointer; rsi: the stack pointer to load.
// A new fiber's stack holds six register slots (r12 = entry argument, r13 =
// entry function) and then the address of fl_emu_fiber_start as the return
// address.
asm(R"(
  .text
  .weak fl_emu_switch_context
  .hidden fl_emu_switch_context
  .type fl_emu_switch_context, @function
fl_emu_switch_context:
  .cfi_startproc
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .cfi_endproc
  .size fl_emu_switch_context, .-fl_emu_switch_context

  .weak fl_emu_fiber_start
  .hidden fl_emu_fiber_start
  .type fl_emu_fiber_start, @function
fl_emu_fiber_start:
  .cfi_startproc
  .cfi_undefined rip
  movq %r12, %rdi
  callq *%r13
  ud2
  .cfi_endproc
  .size fl_emu_fiber_start, .-fl_emu_fiber_start
)");

FL_EMU_UNINSTRUMENTED inline void context_prepare(context* c, void* stack, size_t bytes, fiber_entry entry, void* arg) {
  // The top, 16-byte aligned; the call in fl_emu_fiber_start then finds the
  // stack aligned as the ABI requires.
  uintptr_t top = (reinterpret_cast<uintptr_t>(stack) + bytes) & ~uintptr_t(15);
  void** sp = reinterpret_cast<void**>(top - 72);
  sp[0] = nullptr;                                  // r15
  sp[1] = nullptr;                                  // r14
  sp[2] = reinterpret_cast<void*>(entry);           // r13
  sp[3] = arg;                                      // r12
  sp[4] = nullptr;                                  // rbx
  sp[5] = nullptr;                                  // rbp
  sp[6] = reinterpret_cast<void*>(&fl_emu_fiber_start);  // return address
  c->sp = sp;
}

#else  // __aarch64__
// x0: where to save the current stack pointer; x1: the stack pointer to load.
// Saved: x19-x30 and d8-d15 (160 bytes). A new fiber's frame holds x19 = entry
// argument, x20 = entry function, x30 = fl_emu_fiber_start.
asm(R"(
  .text
  .weak fl_emu_switch_context
  .hidden fl_emu_switch_context
  .type fl_emu_switch_context, %function
fl_emu_switch_context:
  sub sp, sp, #160
  stp x19, x20, [sp, #0]
  stp x21, x22, [sp, #16]
  stp x23, x24, [sp, #32]
  stp x25, x26, [sp, #48]
  stp x27, x28, [sp, #64]
  stp x29, x30, [sp, #80]
  stp d8, d9, [sp, #96]
  stp d10, d11, [sp, #112]
  stp d12, d13, [sp, #128]
  stp d14, d15, [sp, #144]
  mov x9, sp
  str x9, [x0]
  mov sp, x1
  ldp x19, x20, [sp, #0]
  ldp x21, x22, [sp, #16]
  ldp x23, x24, [sp, #32]
  ldp x25, x26, [sp, #48]
  ldp x27, x28, [sp, #64]
  ldp x29, x30, [sp, #80]
  ldp d8, d9, [sp, #96]
  ldp d10, d11, [sp, #112]
  ldp d12, d13, [sp, #128]
  ldp d14, d15, [sp, #144]
  add sp, sp, #160
  ret
  .size fl_emu_switch_context, .-fl_emu_switch_context

  .weak fl_emu_fiber_start
  .hidden fl_emu_fiber_start
  .type fl_emu_fiber_start, %function
fl_emu_fiber_start:
  mov x29, #0
  mov x0, x19
  blr x20
  brk #0
  .size fl_emu_fiber_start, .-fl_emu_fiber_start
)");

FL_EMU_UNINSTRUMENTED inline void context_prepare(context* c, void* stack, size_t bytes, fiber_entry entry, void* arg) {
  uintptr_t top = (reinterpret_cast<uintptr_t>(stack) + bytes) & ~uintptr_t(15);
  void** frame = reinterpret_cast<void**>(top - 160);
  for (int i = 0; i < 20; i++) frame[i] = nullptr;
  frame[0] = arg;                                          // x19
  frame[1] = reinterpret_cast<void*>(entry);               // x20
  frame[11] = reinterpret_cast<void*>(&fl_emu_fiber_start); // x30
  c->sp = frame;
}
#endif

FL_EMU_UNINSTRUMENTED inline void context_switch(context* save, context* load) { fl_emu_switch_context(&save->sp, load->sp); }

// Where a switch to c reads first: worth prefetching.
FL_EMU_UNINSTRUMENTED inline const void* context_memory(const context& c) { return c.sp; }

#else  // portable fallback

struct context {
  ucontext_t uc;
};

// makecontext passes int arguments only: the entry and its argument travel in
// four halves.
FL_EMU_UNINSTRUMENTED inline void context_trampoline(unsigned e_lo, unsigned e_hi, unsigned a_lo, unsigned a_hi) {
  auto join = [](unsigned lo, unsigned hi) { return (static_cast<uintptr_t>(hi) << 16 << 16) | lo; };
  reinterpret_cast<fiber_entry>(join(e_lo, e_hi))(reinterpret_cast<void*>(join(a_lo, a_hi)));
  __builtin_trap();
}

FL_EMU_UNINSTRUMENTED inline void context_prepare(context* c, void* stack, size_t bytes, fiber_entry entry, void* arg) {
  getcontext(&c->uc);
  c->uc.uc_stack.ss_sp = stack;
  c->uc.uc_stack.ss_size = bytes;
  c->uc.uc_link = nullptr;
  uintptr_t e = reinterpret_cast<uintptr_t>(entry), a = reinterpret_cast<uintptr_t>(arg);
  makecontext(&c->uc, reinterpret_cast<void (*)()>(&context_trampoline), 4, unsigned(e), unsigned(e >> 16 >> 16),
              unsigned(a), unsigned(a >> 16 >> 16));
}

FL_EMU_UNINSTRUMENTED inline void context_switch(context* save, context* load) { swapcontext(&save->uc, &load->uc); }

FL_EMU_UNINSTRUMENTED inline const void* context_memory(const context& c) { return &c.uc; }

#endif

}  // namespace fl::emu

#endif
