#include "assembly.h"

#include <cctype>

namespace fl::cpu::assembly {

std::string trimmed(const std::string& line) {
  size_t begin = 0, end = line.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(line[begin]))) begin++;
  while (end > begin && std::isspace(static_cast<unsigned char>(line[end - 1]))) end--;
  return line.substr(begin, end - begin);
}

namespace {

// The directive's operands: "NAME" or "NAME,"FLAGS",..." after `.section `.
std::pair<std::string, std::string> named_section(const std::string& operands) {
  const std::string text = trimmed(operands);
  const size_t end = text.find_first_of(", \t");
  std::string flags;
  const size_t quote = text.find('"', end == std::string::npos ? text.size() : end);
  if (quote != std::string::npos) {
    const size_t close = text.find('"', quote + 1);
    if (close != std::string::npos) flags = text.substr(quote + 1, close - quote - 1);
  }
  return {text.substr(0, end), flags};
}

bool starts_with_word(const std::string& line, const char* word, std::string* rest) {
  const std::string w(word);
  if (line.compare(0, w.size(), w) != 0) return false;
  if (line.size() > w.size() && !std::isspace(static_cast<unsigned char>(line[w.size()]))) return false;
  *rest = line.substr(w.size());
  return true;
}

}  // namespace

void section_tracker::enter(section next) {
  previous_ = {name_, flags_};
  name_ = std::move(next.first);
  flags_ = std::move(next.second);
}

bool section_tracker::read(const std::string& line) {
  if (line.empty() || line[0] != '.') return false;
  std::string rest;
  if (line == ".text" || line == ".data" || line == ".bss") {
    enter({line, ""});
  } else if (starts_with_word(line, ".section", &rest)) {
    enter(named_section(rest));
  } else if (starts_with_word(line, ".pushsection", &rest)) {
    pushed_.push_back({name_, flags_});
    enter(named_section(rest));
  } else if (line == ".popsection" && !pushed_.empty()) {
    enter(pushed_.back());
    pushed_.pop_back();
  } else if (line == ".previous") {
    enter(previous_);
  } else {
    return false;
  }
  return true;
}

}  // namespace fl::cpu::assembly
