// Check mode's map from a return address to the source line of its call
// (emulator/racecheck.h names the lines of the two accesses of a race): the
// compiler's assembly, built with line tables, with a table of its calls.
#ifndef FUSELAB_CPU_CALL_SITES_H
#define FUSELAB_CPU_CALL_SITES_H

#include <string>

namespace fl::cpu {

// `assembly` with a label after each call instruction and a table
// fl_emu_call_sites of {that label, line, file} entries (fl_emu_call_site_count
// of them; file indexes fl_emu_call_site_files, a list of names). A call's line
// is the last one of the source or a project header before it in its function:
// the emulator's own headers, whose code is inlined into the kernel's, stand
// for the line that called them. Where a function has none, its own.
std::string with_call_sites(const std::string& assembly);

}  // namespace fl::cpu

#endif
