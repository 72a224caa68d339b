#include "loops.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>
#include <vector>

namespace fl::cpu {
namespace {

std::string trimmed(const std::string& line) {
  size_t begin = 0, end = line.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(line[begin]))) begin++;
  while (end > begin && std::isspace(static_cast<unsigned char>(line[end - 1]))) end--;
  return line.substr(begin, end - begin);
}

bool is_local_label(const std::string& word) {
  if (word.size() < 3 || word.compare(0, 2, ".L") != 0) return false;
  return std::all_of(word.begin() + 2, word.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$'; });
}

// The label a branch instruction goes to, or "" for any other line: x86's
// j<cc> and jmp, AArch64's b, b.<cc>, cbz, cbnz, tbz and tbnz, whose last
// operand is the label.
std::string branch_target(const std::string& instruction) {
  const size_t space = instruction.find_first_of(" \t");
  if (space == std::string::npos) return "";
  const std::string mnemonic = instruction.substr(0, space);
  const bool x86 = mnemonic.size() >= 2 && mnemonic[0] == 'j';
  const bool arm = mnemonic == "b" || mnemonic.compare(0, 2, "b.") == 0 || mnemonic == "cbz" || mnemonic == "cbnz" ||
                   mnemonic == "tbz" || mnemonic == "tbnz";
  if (!x86 && !arm) return "";
  std::string operand = trimmed(instruction.substr(instruction.find_last_of(", \t") + 1));
  return is_local_label(operand) ? operand : "";
}

// The section a directive line switches to, or "" where it switches none.
std::string section_of(const std::string& directive, const std::string& previous) {
  if (directive == ".text" || directive == ".data" || directive == ".bss") return directive;
  if (directive.compare(0, 9, ".section ") == 0 || directive.compare(0, 9, ".section\t") == 0) {
    std::string name = trimmed(directive.substr(9));
    return name.substr(0, name.find_first_of(", \t"));
  }
  if (directive == ".previous") return previous;
  return "";
}

}  // namespace

std::string with_loop_table(const std::string& assembly) {
  struct loop {
    std::string start, end;
  };
  std::map<std::string, std::string> labels;  // label: its section
  std::vector<loop> loops;
  std::string section = ".text", previous = ".text", out;
  out.reserve(assembly.size() + assembly.size() / 16);
  std::istringstream in(assembly);
  std::string line;
  while (std::getline(in, line)) {
    out += line;
    out += '\n';
    const std::string text = trimmed(line);
    const size_t colon = text.find(':');
    if (colon != std::string::npos && is_local_label(text.substr(0, colon))) {
      labels[text.substr(0, colon)] = section;
      continue;
    }
    if (!text.empty() && text[0] == '.') {
      const std::string next = section_of(text, previous);
      if (!next.empty()) {
        previous = section;
        section = next;
      }
      continue;
    }
    const std::string target = branch_target(text);
    const auto found = labels.find(target);
    if (target.empty() || found == labels.end() || found->second != section) continue;
    const std::string end = ".Lfuselab_loop_end" + std::to_string(loops.size());
    out += end + ":\n";
    loops.push_back({target, end});
  }
  std::ostringstream table;
  table << "\t.section\t.data.rel.ro,\"aw\"\n\t.balign 8\n\t.globl fl_emu_loops\n\t.hidden fl_emu_loops\nfl_emu_loops:\n";
  for (const loop& l : loops) table << "\t.quad " << l.start << ", " << l.end << "\n";
  table << "\t.globl fl_emu_loop_count\n\t.hidden fl_emu_loop_count\nfl_emu_loop_count:\n\t.long "
        << loops.size() << "\n";
  return out + table.str();
}

}  // namespace fl::cpu
