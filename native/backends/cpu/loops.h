// Lock step's map of a module's loops (emulator/runtime.h, goes_before): the
// compiler's assembly, with a table of the loops it holds.
#ifndef FUSELAB_CPU_LOOPS_H
#define FUSELAB_CPU_LOOPS_H

#include <string>

namespace fl::cpu {

// `assembly` with a label after each backward jump to a label of its section,
// and a table fl_emu_loops of {the label jumped to, the label after the jump}
// pairs, with their count fl_emu_loop_count: each pair is a loop's code, from
// its first instruction to past its jump back.
std::string with_loop_table(const std::string& assembly);

}  // namespace fl::cpu

#endif
