// What a source's volatile shared objects become on the CPU (src/volatile-steps.ts
// rewrites `__shared__ volatile T` to stepped<T>, `volatile T*` to stepped_ptr<T>): each
// load and store first waits for the block's other ready threads to reach
// their next wait (runtime.h's volatile_step), so the lanes of a warp make the
// accesses of warp-synchronous code in step, as a GPU's warp does. Same size
// and alignment as T, so arrays and pointers into them keep their layout; no
// constructor from T, so `cond ? v[0] : x` converts v[0] to T alone.
#ifndef FUSELAB_EMULATOR_STEPPED_H
#define FUSELAB_EMULATOR_STEPPED_H
#include <cstddef>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "instrumented.h"

namespace fl {
namespace emu {

// Before the access: in a module in lock step, which keeps its frame pointers, from
// where in the code the lane is (lanes of a branch's two sides meet again after it).
#if defined(FL_EMU_LOCKSTEP)
#define FL_EMU_VOLATILE_STEP() step_from(current_block(), static_cast<void* const*>(__builtin_frame_address(0)))
#else
#define FL_EMU_VOLATILE_STEP() volatile_step()
#endif

// Check mode's race check (racecheck.h) notes the access, as the compiler's calls
// note the others, from the kernel's call of the operator (never inlined there).
#if defined(FL_EMU_RACECHECK)
void note_shared_access(const void* address, size_t bytes, bool write, void* caller);
#define FL_EMU_STEPPED_ACCESS FL_EMU_UNINSTRUMENTED __attribute__((noinline))
#define FL_EMU_NOTE_VOLATILE(write) note_shared_access(&value, sizeof(T), write, __builtin_return_address(0))
#else
#define FL_EMU_STEPPED_ACCESS FL_EMU_UNINSTRUMENTED
#define FL_EMU_NOTE_VOLATILE(write) ((void)0)
#endif

// The stepped type and the functions argument-dependent lookup finds for it, in a
// namespace of their own: the run time's code in fl::emu keeps seeing <cmath>'s.
namespace steps {
template <typename T, bool = std::is_class<T>::value>
struct stepped {
  T value;

  // Uninstrumented, so lock step's hooks (lockstep.h) do not see the access: the step before it gave it its turn.
  FL_EMU_STEPPED_ACCESS operator T() const {
    FL_EMU_VOLATILE_STEP();
    FL_EMU_NOTE_VOLATILE(false);
    return *const_cast<const volatile T*>(&value);
  }
  FL_EMU_STEPPED_ACCESS stepped& operator=(const T& v) {
    FL_EMU_VOLATILE_STEP();
    FL_EMU_NOTE_VOLATILE(true);
    *const_cast<volatile T*>(&value) = v;
    return *this;
  }
  stepped& operator=(const stepped& other) { return *this = static_cast<T>(other); }
  // From a volatile object of the source's own (kaolin's `volatile float v = ...; shm[i] = v;`).
  stepped& operator=(const volatile T& v) { return *this = static_cast<T>(v); }

  // A compound assignment is a load, then a store: two steps, as the GPU's two instructions.
  template <typename U> stepped& operator+=(const U& x) { return *this = static_cast<T>(static_cast<T>(*this) + x); }
  template <typename U> stepped& operator-=(const U& x) { return *this = static_cast<T>(static_cast<T>(*this) - x); }
  template <typename U> stepped& operator*=(const U& x) { return *this = static_cast<T>(static_cast<T>(*this) * x); }
  template <typename U> stepped& operator/=(const U& x) { return *this = static_cast<T>(static_cast<T>(*this) / x); }
  template <typename U> stepped& operator%=(const U& x) { return *this = static_cast<T>(static_cast<T>(*this) % x); }
  template <typename U> stepped& operator&=(const U& x) { return *this = static_cast<T>(static_cast<T>(*this) & x); }
  template <typename U> stepped& operator|=(const U& x) { return *this = static_cast<T>(static_cast<T>(*this) | x); }
  template <typename U> stepped& operator^=(const U& x) { return *this = static_cast<T>(static_cast<T>(*this) ^ x); }
  template <typename U> stepped& operator<<=(const U& x) { return *this = static_cast<T>(static_cast<T>(*this) << x); }
  template <typename U> stepped& operator>>=(const U& x) { return *this = static_cast<T>(static_cast<T>(*this) >> x); }
  stepped& operator++() { return *this += 1; }
  stepped& operator--() { return *this -= 1; }
  T operator++(int) {
    const T old = *this;
    *this = static_cast<T>(old + 1);
    return old;
  }
  T operator--(int) {
    const T old = *this;
    *this = static_cast<T>(old - 1);
    return old;
  }
};

// A volatile struct or vector (`volatile __shared__ float2 s[64]`): its members are
// reached as nvcc reaches a volatile object's (`s[t].x += s[t + 32].x`), each access
// one of its own, which lock step's hooks see as they see every access not marked volatile.
template <typename T>
struct stepped<T, true> : T {
  stepped& operator=(const T& v) {
    static_cast<T&>(*this) = v;
    return *this;
  }
};

// A math function of two or three arguments, one a volatile shared value and another of
// another type (Kilosort's `copysign(1.0f, sWup[t])` of a volatile double): nvcc reads the
// value and picks <cmath>'s overload of the promoted types; the stepped value, a class,
// would leave g++ two equally good conversions. Found by argument-dependent lookup, these
// read it and call that overload.
template <typename T> struct is_stepped : std::false_type {};
template <typename T, bool B> struct is_stepped<stepped<T, B>> : std::true_type {};
template <typename T> inline const T& loaded(const T& v) { return v; }
template <typename T, bool B> inline T loaded(const stepped<T, B>& v) { return static_cast<T>(v); }
template <typename... A> constexpr bool any_stepped = (is_stepped<std::remove_cv_t<std::remove_reference_t<A>>>::value || ...);
#define FL_EMU_STEPPED_MATH(name)                                                                                       \
  template <typename... A, typename = std::enable_if_t<any_stepped<A...> && (sizeof...(A) >= 2)>>                    \
  inline auto name(const A&... args) -> decltype(std::name(loaded(args)...)) {                                        \
    return std::name(loaded(args)...);                                                                                \
  }
FL_EMU_STEPPED_MATH(atan2) FL_EMU_STEPPED_MATH(copysign) FL_EMU_STEPPED_MATH(fdim) FL_EMU_STEPPED_MATH(fma)
FL_EMU_STEPPED_MATH(fmax) FL_EMU_STEPPED_MATH(fmin) FL_EMU_STEPPED_MATH(fmod) FL_EMU_STEPPED_MATH(hypot)
FL_EMU_STEPPED_MATH(nextafter) FL_EMU_STEPPED_MATH(pow) FL_EMU_STEPPED_MATH(remainder)
#undef FL_EMU_STEPPED_MATH
}  // namespace steps
using steps::stepped;

// A pointer to volatile T: indexing and dereferencing give stepped<T>, member
// access goes straight to the T.
template <typename T>
struct stepped_ptr {
  stepped<T>* p;

  stepped_ptr() = default;
  stepped_ptr(std::nullptr_t) : p(nullptr) {}
  stepped_ptr(T* q) : p(reinterpret_cast<stepped<T>*>(q)) {}
  stepped_ptr(const T* q) : p(reinterpret_cast<stepped<T>*>(const_cast<T*>(q))) {}
  stepped_ptr(const volatile T* q) : p(reinterpret_cast<stepped<T>*>(const_cast<T*>(q))) {}  // a thread's own volatile array
  stepped_ptr(stepped<T>* q) : p(q) {}
  // A cast from another pointer (`(volatile int*)flags` of a void* or an unsigned*).
  template <typename U> explicit stepped_ptr(U* q) : p(reinterpret_cast<stepped<T>*>(const_cast<typename std::remove_cv<U>::type*>(q))) {}
  explicit stepped_ptr(uintptr_t address) : p(reinterpret_cast<stepped<T>*>(address)) {}
  // A cast from another pointer to volatile (MIOpen's `(volatile unsigned*)((volatile char*)addr - offset)`).
  template <typename U> explicit stepped_ptr(const stepped_ptr<U>& q) : p(reinterpret_cast<stepped<T>*>(q.p)) {}

  stepped<T>& operator*() const { return *p; }
  stepped<T>& operator[](std::ptrdiff_t i) const { return p[i]; }
  T* operator->() const { return reinterpret_cast<T*>(p); }
  // Where the source passes it on as a pointer to volatile T (its own parameter, a recursion).
  operator volatile T*() const { return reinterpret_cast<volatile T*>(p); }
  explicit operator T*() const { return reinterpret_cast<T*>(p); }
  template <typename U> explicit operator U*() const { return reinterpret_cast<U*>(p); }
  explicit operator uintptr_t() const { return reinterpret_cast<uintptr_t>(p); }

  stepped_ptr operator+(std::ptrdiff_t i) const { return stepped_ptr(p + i); }
  stepped_ptr operator-(std::ptrdiff_t i) const { return stepped_ptr(p - i); }
  std::ptrdiff_t operator-(const stepped_ptr& o) const { return p - o.p; }
  stepped_ptr& operator+=(std::ptrdiff_t i) { p += i; return *this; }
  stepped_ptr& operator-=(std::ptrdiff_t i) { p -= i; return *this; }
  stepped_ptr& operator++() { ++p; return *this; }
  stepped_ptr& operator--() { --p; return *this; }
  stepped_ptr operator++(int) { stepped_ptr old = *this; ++p; return old; }
  stepped_ptr operator--(int) { stepped_ptr old = *this; --p; return old; }
  bool operator==(const stepped_ptr& o) const { return p == o.p; }
  bool operator!=(const stepped_ptr& o) const { return p != o.p; }
  bool operator<(const stepped_ptr& o) const { return p < o.p; }
};
template <typename T> stepped_ptr<T> operator+(std::ptrdiff_t i, const stepped_ptr<T>& q) { return q + i; }

// A source's const_cast and reinterpret_cast, where it has volatile pointers: the cast of
// a pointer to volatile T, which is a stepped_ptr<T> here, to a plain pointer
// (MIOpen's `atomicAdd(const_cast<float*>(addr), v)` of a `volatile float* addr`) or an
// integer, as the cast of the pointer it stands for; any other operand as the cast itself.
template <typename T> struct is_stepped_ptr : std::false_type {};
template <typename T> struct is_stepped_ptr<stepped_ptr<T>> : std::true_type {};

template <typename To, typename From>
constexpr To volatile_const_cast(From&& from) {
  if constexpr (is_stepped_ptr<std::remove_cv_t<std::remove_reference_t<From>>>::value) return reinterpret_cast<To>(from.p);
  else return const_cast<To>(static_cast<From&&>(from));
}
template <typename To, typename From>
To volatile_reinterpret_cast(From&& from) {
  if constexpr (is_stepped_ptr<std::remove_cv_t<std::remove_reference_t<From>>>::value) return reinterpret_cast<To>(from.p);
  else return reinterpret_cast<To>(static_cast<From&&>(from));
}

}  // namespace emu
}  // namespace fl

#endif
