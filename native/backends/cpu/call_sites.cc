#include "call_sites.h"

#include "assembly.h"

#include <cctype>
#include <map>
#include <sstream>
#include <vector>

namespace fl::cpu {
namespace {

// The quoted operands of a line, each as written (its quotes and escapes kept).
std::vector<std::string> quoted_operands(const std::string& text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size(); i++) {
    if (text[i] != '"') continue;
    size_t j = i + 1;
    while (j < text.size() && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
    if (j >= text.size()) break;
    out.push_back(text.substr(i, j - i + 1));
    i = j;
  }
  return out;
}

bool starts_with(const std::string& text, const char* word) {
  const std::string w(word);
  return text.compare(0, w.size(), w) == 0 && (text.size() == w.size() || std::isspace(static_cast<unsigned char>(text[w.size()])));
}

// A file of the source or of a project's headers: fl.compile names them by
// relative names (#line); the emulator's headers and the system's have absolute ones.
bool is_source_file(const std::string& quoted) {
  return quoted.size() > 2 && quoted[1] != '/' && quoted[1] != '<';
}

struct location {
  int file = -1;  // index into the file table
  unsigned line = 0;
};

}  // namespace

std::string with_call_sites(const std::string& assembly) {
  std::map<std::string, int> file_numbers;   // the assembler's .file number: index into `files`
  std::vector<std::string> files;            // quoted names, as the assembly spells them
  std::vector<bool> source_file;
  std::vector<std::pair<std::string, location>> calls;
  location last, last_in_source;
  const std::string out = assembly::with_lines_after(assembly, [&](const std::string& text, std::string& after) {
    if (starts_with(text, ".file")) {
      // ".file N "name"" or ".file N "folder" "name" [md5 ...]": the last quoted operand is the name.
      std::istringstream words(text.substr(5));
      std::string number;
      words >> number;
      const std::vector<std::string> names = quoted_operands(text);
      if (names.empty() || number.empty() || !std::isdigit(static_cast<unsigned char>(number[0]))) return;
      const std::string& name = names.size() >= 2 ? names[1] : names[0];
      int index = -1;
      for (size_t i = 0; i < files.size(); i++)
        if (files[i] == name) index = static_cast<int>(i);
      if (index < 0) {
        index = static_cast<int>(files.size());
        files.push_back(name);
        source_file.push_back(is_source_file(name));
      }
      file_numbers[number] = index;
    } else if (starts_with(text, ".loc")) {
      std::istringstream words(text.substr(4));
      std::string number;
      unsigned n = 0;
      words >> number >> n;
      const auto found = file_numbers.find(number);
      if (found == file_numbers.end()) return;
      last = {found->second, n};
      if (source_file[found->second]) last_in_source = last;
    } else if (starts_with(text, ".cfi_startproc")) {
      last_in_source = {};
    } else if (starts_with(text, "call") || starts_with(text, "callq") || starts_with(text, "bl") || starts_with(text, "blr")) {
      const std::string label = ".Lfuselab_call" + std::to_string(calls.size());
      after += label + ":\n";
      calls.push_back({label, last_in_source.file >= 0 ? last_in_source : last});
    }
  });
  std::ostringstream table;
  table << "\t.section\t.data.rel.ro,\"aw\"\n\t.balign 8\n\t.globl fl_emu_call_sites\n\t.hidden fl_emu_call_sites\n"
        << "fl_emu_call_sites:\n";
  for (const auto& [label, where] : calls)
    table << "\t.quad " << label << "\n\t.long " << where.line << ", " << where.file << "\n";
  table << "\t.globl fl_emu_call_site_files\n\t.hidden fl_emu_call_site_files\nfl_emu_call_site_files:\n";
  for (size_t i = 0; i < files.size(); i++) table << "\t.quad .Lfuselab_file" << i << "\n";
  table << "\t.globl fl_emu_call_site_count\n\t.hidden fl_emu_call_site_count\nfl_emu_call_site_count:\n\t.long "
        << calls.size() << "\n";
  table << "\t.section\t.rodata\n";
  for (size_t i = 0; i < files.size(); i++) table << ".Lfuselab_file" << i << ":\n\t.string " << files[i] << "\n";
  return out + table.str();
}

}  // namespace fl::cpu
