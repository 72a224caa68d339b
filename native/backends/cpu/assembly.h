// Reading a compiler's assembly line by line (loops.cc, twin.cc): GCC's and
// clang's directives for x86-64 and AArch64.
#ifndef FUSELAB_CPU_ASSEMBLY_H
#define FUSELAB_CPU_ASSEMBLY_H

#include <string>
#include <utility>
#include <vector>

namespace fl::cpu::assembly {

// `line` without the white space around it.
std::string trimmed(const std::string& line);

// `assembly`, line by line, with what `after(trimmed line, out)` appends to
// `out` after each line (labels, say).
template <typename After>
std::string with_lines_after(const std::string& assembly, After after) {
  std::string out;
  out.reserve(assembly.size() + assembly.size() / 8);
  size_t start = 0;
  while (start < assembly.size()) {
    size_t end = assembly.find('\n', start);
    if (end == std::string::npos) end = assembly.size();
    const std::string line = assembly.substr(start, end - start);
    out += line;
    out += '\n';
    after(trimmed(line), out);
    start = end + 1;
  }
  return out;
}

// Which section is current after each line: .text, .data, .bss, .section NAME,
// .previous, .pushsection and .popsection.
class section_tracker {
 public:
  // Takes a trimmed line; true where it switched the section.
  bool read(const std::string& line);
  const std::string& name() const { return name_; }
  // The flags its .section gave ("" where none were given).
  const std::string& flags() const { return flags_; }

 private:
  using section = std::pair<std::string, std::string>;  // name, flags
  void enter(section next);
  std::string name_ = ".text", flags_;
  section previous_{".text", ""};
  std::vector<section> pushed_;
};

}  // namespace fl::cpu::assembly

#endif
