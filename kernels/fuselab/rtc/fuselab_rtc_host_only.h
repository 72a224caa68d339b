// What the C++ library's host-only headers (<vector>, <string>, <chrono>,
// <random> ...) stand for under NVRTC and hiprtc: sources include them for
// their main() and host helpers, which fl.compile leaves out of what the
// run-time compiler reads (src/host-code.ts). Device code cannot use them, so
// they declare nothing; a use left in device code is reported as undeclared.
// Only the namespaces, for the `using namespace std;` and `using namespace
// std::chrono;` of such sources, and `namespace fs = std::filesystem;`.
#ifndef FUSELAB_RTC_HOST_ONLY_H
#define FUSELAB_RTC_HOST_ONLY_H
namespace std {
namespace chrono {}
namespace filesystem {}
}  // namespace std
#endif
