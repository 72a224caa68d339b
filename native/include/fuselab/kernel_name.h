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

// One line of module_compile's kernel_names (backend.h): "<name>", then a tab
// and a mark for each of: "cooperative" (it syncs its grid), "c-linkage"
// (declared extern "C": its symbol is its unqualified name). False, with
// *error saying why, for another mark.
struct kernel_line {
  std::string name;
  bool cooperative = false;
  bool c_linkage = false;
};

inline bool read_kernel_line(const std::string& line, kernel_line* out, std::string* error) {
  size_t tab = line.find('\t');
  *out = kernel_line{line.substr(0, tab)};
  while (tab != std::string::npos) {
    const size_t next = line.find('\t', tab + 1);
    const std::string mark = line.substr(tab + 1, next == std::string::npos ? std::string::npos : next - tab - 1);
    if (mark == "cooperative") {
      out->cooperative = true;
    } else if (mark == "c-linkage") {
      out->c_linkage = true;
    } else {
      *error = "module_compile: kernel_names must mark a kernel \"<name>\\tcooperative\" or \"<name>\\tc-linkage\", got \"" +
               line + "\"";
      return false;
    }
    tab = next;
  }
  return true;
}

}  // namespace fl

#endif
