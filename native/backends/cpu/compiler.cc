#include "compiler.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "fuselab/emulator/abi.h"

extern char** environ;

namespace fl {
namespace cpu {

namespace {

namespace fs = std::filesystem;

std::vector<std::string> split_spaces(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  std::string word;
  while (in >> word) words.push_back(word);
  return words;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item))
    if (!item.empty()) items.push_back(item);
  return items;
}

// A kernel name expression: "k", "ns::k", "k<float, 256>". Nothing that could
// end the export statement or start a comment or directive.
bool is_name_expression(const std::string& s) {
  if (s.empty() || !(isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  if (s.find("//") != std::string::npos || s.find("/*") != std::string::npos) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return isalnum(static_cast<unsigned char>(c)) || strchr("_:<>,() +-*/%&|^~!.=", c) != nullptr;
  });
}

// 128 bits from two FNV-1a streams with different starting points: enough to
// name cache files.
struct hasher {
  uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
  void add(const std::string& s) {
    for (unsigned char c : s) {
      a = (a ^ c) * 0x100000001b3ull;
      b = (b ^ c) * 0x100000001b3ull + 1;
    }
    a = (a ^ 0xff) * 0x100000001b3ull;  // separates consecutive fields
    b = (b ^ 0xfe) * 0x100000001b3ull;
  }
  std::string hex() const {
    char text[33];
    snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(a), static_cast<unsigned long long>(b));
    return text;
  }
};

bool read_file(const fs::path& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  *out = text.str();
  return true;
}

// The fuselab headers under each include folder: a module compiled against
// older headers is not reused.
void add_headers(hasher& h, const std::vector<std::string>& flags) {
  for (size_t i = 0; i < flags.size(); i++) {
    std::string dir;
    if (flags[i] == "-I" && i + 1 < flags.size()) dir = flags[i + 1];
    else if (flags[i].rfind("-I", 0) == 0) dir = flags[i].substr(2);
    if (dir.empty()) continue;
    std::error_code ec;
    fs::path root = fs::path(dir) / "fuselab";
    if (!fs::is_directory(root, ec)) continue;
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_regular_file(ec)) files.push_back(it->path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      std::string text;
      if (!read_file(f, &text)) continue;
      h.add(f.string());
      h.add(text);
    }
  }
}

std::string find_on_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0 ? program : "";
  const char* path = getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

bool make_folders(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  return fs::is_directory(path, ec);
}

}  // namespace

std::string compiler_command() {
  const char* cxx = getenv("CXX");
  return cxx && *cxx ? cxx : "c++";
}

std::string cache_folder() {
  const char* cache = getenv("FUSELAB_CACHE");
  if (cache && *cache) return cache;
  const char* home = getenv("HOME");
  if (!home || !*home) {
    const passwd* user = getpwuid(getuid());
    home = user ? user->pw_dir : "/tmp";
  }
  return std::string(home) + "/.cache/fuselab/cpu";
}

std::string compiler_note() {
  std::vector<std::string> words = split_spaces(compiler_command());
  if (words.empty()) return "run-time compilation: unavailable ($CXX is blank)";
  std::string found = find_on_path(words[0]);
  if (found.empty())
    return "run-time compilation: unavailable ('" + words[0] + "' not found; install g++ or set $CXX)";
  return "run-time compilation: " + compiler_command() + " (" + found + "), cache " + cache_folder();
}

compile_result compile_module(const std::string& source, const std::string& kernel_names, const std::string& options) {
  compile_result result;
  std::vector<std::string> command = split_spaces(compiler_command());
  if (command.empty()) {
    result.error = "run-time compilation: $CXX is blank";
    return result;
  }
  for (const char* flag : {"-std=c++17", "-O2", "-shared", "-fPIC", "-DFL_TARGET_CPU", "-fvisibility=hidden",
                           // kernels read float* memory as float4, as GPU code does
                           "-fno-strict-aliasing",
                           // the emulator longjmps across stacks, which fortified longjmp refuses
                           "-U_FORTIFY_SOURCE"})
    command.push_back(flag);
  for (const std::string& option : split_spaces(options)) command.push_back(option);

  std::string text = source + "\n#line 1 \"<fuselab exports>\"\n";
  int exported = 0;
  for (const std::string& name : split_lines(kernel_names)) {
    if (!is_name_expression(name)) {
      result.error = "run-time compilation: kernel name '" + name + "' is not a C++ name expression";
      return result;
    }
    text += "FL_KERNEL_EXPORT_AS(" + std::to_string(exported++) + ", \"" + name + "\", " + name + ")\n";
  }
  text += "FL_EMU_MODULE_ENTRY()\n";

  hasher h;
  h.add(text);
  for (const std::string& word : command) h.add(word);
  h.add(std::to_string(FL_EMU_ABI));
  add_headers(h, command);
  std::string key = h.hex();

  std::string folder = cache_folder();
  if (!make_folders(folder)) {
    result.error = "run-time compilation: cannot create the cache folder " + folder + ": " + strerror(errno);
    return result;
  }
  result.library = folder + "/" + key + ".so";
  if (access(result.library.c_str(), R_OK) == 0) {
    result.ok = true;
    return result;
  }

  // Build in a private folder, then rename into place: renaming is atomic, so
  // processes compiling the same source at once never see half a file.
  std::string work_template = folder + "/build-" + key + "-XXXXXX";
  std::vector<char> work_name(work_template.begin(), work_template.end());
  work_name.push_back('\0');
  if (!mkdtemp(work_name.data())) {
    result.error = "run-time compilation: cannot create a folder in " + folder + ": " + strerror(errno);
    return result;
  }
  std::string work = work_name.data();
  std::string source_path = work + "/cell.cc", output_path = work + "/module.so", log_path = work + "/log.txt";
  {
    std::ofstream out(source_path, std::ios::binary);
    out << text;
    if (!out) {
      result.error = "run-time compilation: cannot write " + source_path;
      std::error_code ec;
      fs::remove_all(work, ec);
      return result;
    }
  }
  command.insert(command.end(), {"-x", "c++", "cell.cc", "-o", "module.so"});

  std::vector<char*> argv;
  for (std::string& word : command) argv.push_back(&word[0]);
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // Run in the build folder so that the log names the source "cell.cc".
  posix_spawn_file_actions_addchdir_np(&actions, work.c_str());
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t child = 0;
  int spawn_error = posix_spawnp(&child, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (spawn_error == 0) {
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
  }
  read_file(log_path, &result.log);
  if (spawn_error != 0) {
    result.error = "run-time compilation: cannot run '" + command[0] + "': " + strerror(spawn_error) +
                   " (install g++ or set $CXX)";
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    result.error = "run-time compilation failed (" + command[0] + ")";
  } else if (rename(output_path.c_str(), result.library.c_str()) != 0) {
    result.error = "run-time compilation: cannot move the module into " + folder + ": " + strerror(errno);
  } else {
    result.ok = true;
  }
  std::error_code ec;
  fs::remove_all(work, ec);
  return result;
}

}  // namespace cpu
}  // namespace fl
