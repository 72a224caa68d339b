#include "twin.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "assembly.h"

namespace fl::cpu {
namespace {

using assembly::trimmed;

// What an assembly defines: each symbol's section, whether it is an object
// (data), its size, and whether it is global.
struct definition {
  std::string section, flags;
  bool object = false, global = false, common = false;
  std::string size;
};

struct directive {
  std::string name;      // ".globl", ".type", ... or "" for a label line
  std::string symbol;    // the first operand, or the label
  std::string operands;  // all of them
};

bool is_symbol_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$'; }

// The directive or label of a trimmed line; an empty name and symbol for any other.
directive read_directive(const std::string& text) {
  directive d;
  size_t end = 0;
  while (end < text.size() && is_symbol_char(text[end])) end++;
  if (end == 0) return d;
  if (end < text.size() && text[end] == ':' && text[0] != '.') {
    // A label, alone on its line but for a comment (clang's "# @name").
    const std::string after = trimmed(text.substr(end + 1));
    if (after.empty() || after[0] == '#' || after.compare(0, 2, "//") == 0) d.symbol = text.substr(0, end);
    return d;
  }
  if (text[0] != '.') return d;
  d.name = text.substr(0, end);
  // Without a comment after them (clang's "# @name").
  d.operands = trimmed(text.substr(end, std::min(text.find('#', end), text.find("//", end)) - end));
  size_t symbol_end = 0;
  while (symbol_end < d.operands.size() && is_symbol_char(d.operands[symbol_end])) symbol_end++;
  d.symbol = d.operands.substr(0, symbol_end);
  return d;
}

// The operand after the first comma (.type's kind, .size's size), trimmed.
std::string second_operand(const std::string& operands) {
  const size_t comma = operands.find(',');
  if (comma == std::string::npos) return "";
  const std::string rest = trimmed(operands.substr(comma + 1));
  return rest.substr(0, rest.find(','));
}

bool is_object_kind(const std::string& kind) {
  return kind.size() > 1 && (kind[0] == '@' || kind[0] == '%') &&
         (kind.compare(1, std::string::npos, "object") == 0 || kind.compare(1, std::string::npos, "gnu_unique_object") == 0 ||
          kind.compare(1, std::string::npos, "tls_object") == 0);
}

// Whether a program may write what lies in a section: its flags say so, or
// where none were given, its name (.data.rel.ro is written only by the loader).
bool is_writable(const std::string& section, const std::string& flags) {
  if (section.compare(0, 12, ".data.rel.ro") == 0) return false;
  if (!flags.empty()) return flags.find('w') != std::string::npos;
  for (const char* prefix : {".data", ".bss", ".tdata", ".tbss", ".ldata", ".lbss"})
    if (section.compare(0, std::string(prefix).size(), prefix) == 0) return true;
  return false;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::map<std::string, definition> definitions_in(const std::vector<std::string>& lines) {
  std::map<std::string, definition> defined;
  std::map<std::string, definition> declared;  // what .globl, .type and .size said, by symbol
  std::set<std::string> labelled;
  assembly::section_tracker section;
  for (const std::string& line : lines) {
    const std::string text = trimmed(line);
    if (section.read(text)) continue;
    const directive d = read_directive(text);
    if (d.symbol.empty()) continue;
    definition& facts = declared[d.symbol];
    if (d.name.empty()) {
      facts.section = section.name();
      facts.flags = section.flags();
      labelled.insert(d.symbol);
    } else if (d.name == ".globl" || d.name == ".global" || d.name == ".weak") {
      facts.global = true;
    } else if (d.name == ".type") {
      facts.object = is_object_kind(second_operand(d.operands));
    } else if (d.name == ".size") {
      facts.size = second_operand(d.operands);
    } else if (d.name == ".comm") {
      facts.section = ".bss";
      facts.object = facts.common = true;
      facts.size = second_operand(d.operands);
      labelled.insert(d.symbol);
    } else if (d.name == ".set" || d.name == ".equ") {
      labelled.insert(d.symbol);
    }
  }
  for (const std::string& symbol : labelled) defined[symbol] = declared[symbol];
  return defined;
}

bool is_shared_data(const definition& d) { return d.object && is_writable(d.section, d.flags); }

// A .section line without its COMDAT group: `.section NAME,"awG",@nobits,GROUP,comdat` -> `.section NAME,"aw",@nobits`.
std::string without_group(const std::string& line) {
  const size_t comdat = line.rfind(",comdat");
  const size_t open = line.find('"'), close = open == std::string::npos ? open : line.find('"', open + 1);
  if (comdat == std::string::npos || close == std::string::npos) return line;
  std::string flags = line.substr(open + 1, close - open - 1);
  const size_t g = flags.find('G');
  if (g != std::string::npos) flags.erase(g, 1);
  // The kind (@progbits) follows the flags; the group's name follows the kind.
  const size_t kind_end = line.find(',', close + 2);
  if (kind_end == std::string::npos || kind_end > comdat) return line;
  return line.substr(0, open + 1) + flags + line.substr(close, kind_end - close);
}

bool is_constructor_section(const std::string& name) {
  for (const char* prefix : {".init_array", ".fini_array", ".ctors", ".dtors"})
    if (name.compare(0, std::string(prefix).size(), prefix) == 0) return true;
  return false;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

}  // namespace

bool make_twins(std::string* plain, std::string* twin, std::string* error) {
  std::vector<std::string> plain_lines = lines_of(*plain), twin_lines = lines_of(*twin);
  const std::map<std::string, definition> plain_defined = definitions_in(plain_lines);
  const std::map<std::string, definition> twin_defined = definitions_in(twin_lines);

  // The data the twin uses from the plain build.
  std::set<std::string> shared;
  for (const auto& [symbol, facts] : twin_defined) {
    const auto found = plain_defined.find(symbol);
    if (found == plain_defined.end() || !is_shared_data(facts) || !is_shared_data(found->second)) continue;
    if (facts.size != found->second.size) {
      *error = "the module's two builds (plain and in lock step) give " + symbol + " different sizes (" + found->second.size +
               " and " + facts.size + " bytes)";
      return false;
    }
    shared.insert(symbol);
  }

  // The plain build's local data the twin uses: global, and hidden, so the twin's references reach it.
  std::set<std::string> exported;
  for (std::string& line : plain_lines) {
    const directive d = read_directive(trimmed(line));
    if (d.name == ".local" && shared.count(d.symbol) && !plain_defined.at(d.symbol).global) {
      line = "\t.globl\t" + d.symbol + "\n\t.hidden\t" + d.symbol;
      exported.insert(d.symbol);
    }
  }
  for (const std::string& symbol : shared)
    if (!plain_defined.at(symbol).global && !exported.count(symbol)) plain_lines.push_back("\t.globl\t" + symbol + "\n\t.hidden\t" + symbol);

  std::vector<std::string> out;
  out.reserve(twin_lines.size());
  assembly::section_tracker section;
  int unused = 0;
  for (const std::string& line : twin_lines) {
    const std::string text = trimmed(line);
    if (section.read(text)) {
      // Static constructors: the plain build's construct the shared data once.
      out.push_back(is_constructor_section(section.name()) ? "\t.section\t.data.rel.ro.fuselab_twin_constructors,\"aw\""
                                                           : without_group(line));
      continue;
    }
    const directive d = read_directive(text);
    if (d.symbol.empty() || !twin_defined.count(d.symbol)) {
      out.push_back(line);
      continue;
    }
    const bool global_directive = d.name == ".globl" || d.name == ".global" || d.name == ".weak";
    if (shared.count(d.symbol)) {
      // Its definition stays, unnamed and unused; the name is the plain build's.
      if (d.name.empty()) out.push_back(".Lfuselab_twin_unused" + std::to_string(unused++) + ":");
      else if (!(global_directive || d.name == ".local" || d.name == ".hidden" || d.name == ".type" || d.name == ".size" ||
                 d.name == ".comm"))
        out.push_back(line);
      continue;
    }
    // The twin's own: local, but for the functions the plain build's launches call.
    if (global_directive && d.symbol.compare(0, 18, "fl_emu_twin_block_") != 0) continue;
    out.push_back(line);
  }
  *plain = joined(plain_lines);
  *twin = joined(out);
  return true;
}

}  // namespace fl::cpu
