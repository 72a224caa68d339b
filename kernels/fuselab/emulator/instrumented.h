#ifndef FUSELAB_EMULATOR_INSTRUMENTED_H
#define FUSELAB_EMULATOR_INSTRUMENTED_H

// Which of the emulator's functions the compiler's instrumentation leaves out.
// A module in lock step (lockstep.h), or in check mode (its race check,
// racecheck.h, and its check of buffers' ends), is compiled with -fsanitize=thread, whose
// calls before every load and store belong in the kernel's code alone: the run
// time's own functions and lambdas (context.h, runtime.h, stepped.h) are marked
// to be left out, but for tls(), which kernels inline.
#if defined(FL_EMU_LOCKSTEP) || defined(FL_EMU_RACECHECK) || defined(FL_EMU_BOUNDS_CHECK)
#define FL_EMU_UNINSTRUMENTED __attribute__((no_sanitize_thread))
#else
#define FL_EMU_UNINSTRUMENTED
#endif

#endif
