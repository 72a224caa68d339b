#include "loops.h"

#include "assembly.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>
#include <vector>

namespace fl::cpu {
namespace {

using assembly::trimmed;

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

}  // namespace

std::string with_loop_table(const std::string& assembly) {
  struct loop {
    std::string start, end;
  };
  std::map<std::string, std::string> labels;  // label: its section
  std::vector<loop> loops;
  assembly::section_tracker section;
  const std::string out = assembly::with_lines_after(assembly, [&](const std::string& text, std::string& after) {
    const size_t colon = text.find(':');
    if (colon != std::string::npos && is_local_label(text.substr(0, colon))) {
      labels[text.substr(0, colon)] = section.name();
      return;
    }
    if (!text.empty() && text[0] == '.') {
      section.read(text);
      return;
    }
    const std::string target = branch_target(text);
    const auto found = labels.find(target);
    if (target.empty() || found == labels.end() || found->second != section.name()) return;
    const std::string end = ".Lfuselab_loop_end" + std::to_string(loops.size());
    after += end + ":\n";
    loops.push_back({target, end});
  });
  std::ostringstream table;
  table << "\t.section\t.data.rel.ro,\"aw\"\n\t.balign 8\n\t.globl fl_emu_loops\n\t.hidden fl_emu_loops\nfl_emu_loops:\n";
  for (const loop& l : loops) table << "\t.quad " << l.start << ", " << l.end << "\n";
  table << "\t.globl fl_emu_loop_count\n\t.hidden fl_emu_loop_count\nfl_emu_loop_count:\n\t.long "
        << loops.size() << "\n";
  return out + table.str();
}

}  // namespace fl::cpu
