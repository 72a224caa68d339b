// A kernel's name as fuselab names it, as the C++ expression of its address,
// which each backend's compiler resolves: "ns::k" and "k<float, 256>" as
// &ns::k and &k<float, 256>; an overload named with its parameter types,
// "k<32>(float*, int)", as static_cast<void (*)(float*, int)>(&k<32>), which
// picks that overload as NVRTC's name expressions and a C++ compiler pick it.
#ifndef FUSELAB_KERNEL_NAME_H
#define FUSELAB_KERNEL_NAME_H

#include <string>

namespace fl {

inline std::string kernel_address(const std::string& name) {
  if (name.empty() || name.back() != ')') return "&" + name;
  int depth = 0;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') depth++;
    if (name[i] == '(' && --depth == 0)
      return "static_cast<void (*)" + name.substr(i) + ">(&" + name.substr(0, i) + ")";
  }
  return "&" + name;
}

// One line of module_compile's kernel_names (backend.h): "<name>", or "<name>\tcooperative"
// for a kernel that syncs its grid. False, with *error saying why, for another mark.
inline bool read_kernel_line(const std::string& line, std::string* name, bool* cooperative, std::string* error) {
  const size_t tab = line.find('\t');
  if (tab != std::string::npos && line.compare(tab + 1, std::string::npos, "cooperative") != 0) {
    *error = "module_compile: kernel_names must mark a kernel \"<name>\\tcooperative\", got \"" + line + "\"";
    return false;
  }
  *cooperative = tab != std::string::npos;
  *name = line.substr(0, tab);  // last: `name` may be `line` itself
  return true;
}

}  // namespace fl

#endif
