// A module in lock step, built twice and linked into one shared object: plainly,
// for the blocks that run without lock step, and instrumented (emulator/lockstep.h),
// for those that run with it. The instrumented build is the plain one's twin: it
// defines none of the program's data (its __device__, __constant__ and
// __shared__ variables, the run time's state), but uses the plain build's, and
// keeps its code to itself.
#ifndef FUSELAB_CPU_TWIN_H
#define FUSELAB_CPU_TWIN_H

#include <string>

namespace fl::cpu {

// Rewrites the two builds' assembly (one source, compiled by one compiler) to be
// linked together: the twin's writable data that the plain build also defines
// becomes the plain build's, every other symbol the twin defines becomes its own
// (local, out of any COMDAT group) but for the fl_emu_twin_block_ functions the
// plain build calls, and its static constructors no longer run (the plain
// build's construct the shared data). False, with *error, where the two disagree
// on a shared object's size.
bool make_twins(std::string* plain, std::string* twin, std::string* error);

}  // namespace fl::cpu

#endif
