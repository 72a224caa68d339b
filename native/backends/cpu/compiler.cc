#include "compiler.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <cxxabi.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "call_sites.h"
#include "compiler_process.h"
#include "fuselab/emulator/abi.h"
#include "fuselab/kernel_name.h"
#include "loops.h"
#include "module_cache.h"
#include "sha256.h"
#include "twin.h"

#ifndef FUSELAB_VERSION
#error "FUSELAB_VERSION (package.json's version) must be defined by the build"
#endif

extern char** environ;

namespace fl::cpu {

namespace {

namespace fs = std::filesystem;

// The static __shared__ memory a kernel may declare: a block's shared memory, 64 KiB.
constexpr size_t kStaticSharedPerKernel = 64 * 1024;
// The checks a compiled module passed before it was cached, part of its key.
constexpr const char* kCheckedAs = "directives; static __shared__ per kernel";

const uint64_t kDefaultCacheMegabytes = 512;

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

bool read_file(const fs::path& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  *out = text.str();
  return static_cast<bool>(in) || in.eof();
}

std::string find_on_path(const std::string& program, const std::string& path) {
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0 ? program : "";
  std::istringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::string environment_value(const char* name) {
  const char* value = getenv(name);
  return value ? value : "";
}

// What compiles use, read once when the backend loads, before any kernel runs:
// kernel code runs inside this process, and must not be able to choose the
// compiler, the cache or the compiler's environment of later compiles by
// changing environment variables.
struct settings {
  std::vector<std::string> compiler;  // $CXX split into words, else {"c++"}
  std::string program;                // compiler[0] found on $PATH; empty when not found
  std::string cache_folder;           // $FUSELAB_CACHE, else ~/.cache/fuselab/cpu
  uint64_t cache_bytes = kDefaultCacheMegabytes << 20;
  std::string problem;                // a setting that makes compiling impossible
  // The compiler's whole environment: only what locates programs and words
  // messages, so that nothing else (CPATH, GCC_EXEC_PREFIX, LD_PRELOAD, ...)
  // changes what is compiled behind the cache's back.
  std::vector<std::string> environment;
};

settings read_settings() {
  settings s;
  const std::string cxx = environment_value("CXX");
  s.compiler = split_spaces(cxx.empty() ? "c++" : cxx);
  const std::string path = getenv("PATH") ? environment_value("PATH") : "/usr/bin:/bin";
  if (s.compiler.empty()) s.problem = "$CXX is blank";
  else if ((s.program = find_on_path(s.compiler[0], path)).empty())
    s.problem = "'" + s.compiler[0] + "' not found; install g++ or set $CXX";

  s.cache_folder = environment_value("FUSELAB_CACHE");
  if (s.cache_folder.empty()) {
    std::string home = environment_value("HOME");
    if (home.empty()) {
      const passwd* user = getpwuid(geteuid());
      home = user ? user->pw_dir : "/tmp";
    }
    s.cache_folder = home + "/.cache/fuselab/cpu";
  }
  const std::string megabytes = environment_value("FUSELAB_CACHE_MAX_MB");
  if (!megabytes.empty()) {
    char* end = nullptr;
    const double value = strtod(megabytes.c_str(), &end);
    const bool plain = std::all_of(megabytes.begin(), megabytes.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
    if (plain && *end == '\0' && value >= 0 && value <= 1e9) s.cache_bytes = static_cast<uint64_t>(value * 1048576.0);
    else if (s.problem.empty())
      s.problem = "FUSELAB_CACHE_MAX_MB must be a size in megabytes (a number from 0 to 1e9, such as 512 or 0.5), got '" + megabytes + "'";
  }
  s.environment.push_back("PATH=" + path);
  for (const char* name : {"HOME", "LANG", "LC_ALL", "LC_MESSAGES", "LC_CTYPE"})
    if (getenv(name)) s.environment.push_back(std::string(name) + "=" + environment_value(name));
  return s;
}

// Initialised when the plugin is loaded.
const settings kSettings = read_settings();

std::string command_text() {
  std::string text;
  for (const std::string& word : kSettings.compiler) text += (text.empty() ? "" : " ") + word;
  return text;
}

std::vector<std::string> environment_in(const std::string& folder) {
  std::vector<std::string> environment = kSettings.environment;
  environment.push_back("TMPDIR=" + folder);  // the compiler's temporary files stay in the private build folder
  return environment;
}

// The folders of the compiler's "#include ... search starts here:" lists (from -v).
std::vector<std::string> search_folders(const std::string& text) {
  std::vector<std::string> folders;
  std::istringstream lines(text);
  std::string line;
  bool inside = false;
  while (std::getline(lines, line)) {
    if (line.rfind("#include ", 0) == 0 && line.find("search starts here:") != std::string::npos) inside = true;
    else if (line.rfind("End of search list.", 0) == 0) inside = false;
    else if (inside && line.size() > 1 && line[0] == ' ') {
      std::string folder = line.substr(1);
      const size_t note = folder.find(" (framework directory)");
      if (note != std::string::npos) folder.erase(note);
      std::error_code ec;
      folders.push_back(fs::weakly_canonical(folder, ec).string());
    }
  }
  return folders;
}

// What identifies the compiler without running it: its file, its size and its
// times (a package update changes them). A process that may no longer start
// processes (a grader's sandbox, once locked) computes the same key, and so
// finds the module another process built.
std::string compiler_identity() {
  std::error_code ec;
  std::string identity = fs::weakly_canonical(kSettings.program, ec).string() + "\n";
  struct stat st;
  if (stat(identity.substr(0, identity.size() - 1).c_str(), &st) == 0) {
    identity += std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
                std::to_string(st.st_mtim.tv_nsec) + " " + std::to_string(st.st_ctim.tv_sec) + "\n";
  }
  return identity;
}

// The compiler's own include folders (as `-v` lists them), asked once, when a
// module is first built.
const std::vector<std::string>& compiler_include_folders(const std::vector<std::string>& flags, const std::string& folder) {
  static std::mutex lock;
  static std::vector<std::string> folders;
  static bool known = false;
  std::lock_guard<std::mutex> guard(lock);
  if (known) return folders;
  process_limits limits;
  limits.timeout_ms = 60000;
  const std::string output = folder + "/compiler.txt";
  std::vector<std::string> command = kSettings.compiler;
  command.insert(command.end(), flags.begin(), flags.end());
  command.insert(command.end(), {"-x", "c++", "-E", "-v", "/dev/null", "-o", "/dev/null"});
  process_result run = run_process(kSettings.program, command, environment_in(folder), folder, output, limits);
  std::string said;
  if (run.outcome == process_outcome::exited && run.code == 0 && read_file(output, &said)) {
    folders = search_folders(said);
    known = true;
  }
  unlink(output.c_str());
  return folders;
}

// The headers a compile opened, from -H's lines (". path", one dot a level),
// and the log without them.
void split_header_lines(const std::string& log, std::vector<std::string>* headers, std::string* rest) {
  std::istringstream lines(log);
  std::string line;
  bool guard_list = false;  // -H's closing "Multiple include guards may be useful for:" list
  while (std::getline(lines, line)) {
    size_t dots = 0;
    while (dots < line.size() && line[dots] == '.') dots++;
    if (dots > 0 && dots + 1 < line.size() && line[dots] == ' ') {
      headers->push_back(line.substr(dots + 1));
      guard_list = false;
    } else if (line == "Multiple include guards may be useful for:") {
      guard_list = true;
    } else if (guard_list && std::find(headers->begin(), headers->end(), line) != headers->end()) {
      // a header already listed
    } else {
      guard_list = false;
      *rest += line + "\n";
    }
  }
}

// Whether `file` lies inside one of `folders` (all canonical).
bool inside_any(const std::string& file, const std::vector<std::string>& folders) {
  return std::any_of(folders.begin(), folders.end(), [&file](const std::string& folder) {
    return file.size() > folder.size() && file.compare(0, folder.size(), folder) == 0 &&
           (folder.back() == '/' || file[folder.size()] == '/');
  });
}

// The folders named by -I, -isystem, -iquote and -idirafter in `command`, canonical.
std::vector<std::string> named_include_folders(const std::vector<std::string>& command) {
  std::vector<std::string> folders;
  for (size_t i = 0; i < command.size(); i++) {
    for (const char* flag : {"-I", "-isystem", "-iquote", "-idirafter"}) {
      const std::string prefix = flag;
      if (command[i].rfind(prefix, 0) != 0) continue;
      std::string folder = command[i].size() > prefix.size() ? command[i].substr(prefix.size())
                                                             : (i + 1 < command.size() ? command[i + 1] : "");
      std::error_code ec;
      if (!folder.empty()) folders.push_back(fs::weakly_canonical(folder, ec).string());
      break;
    }
  }
  return folders;
}

// The first assembler directive in `assembly` (the compiler's output, every
// macro and constant of the source already expanded) that reads a file
// (.incbin, .include), builds directives a reading cannot see (.macro, .irp,
// .irpc, .rept, .altmacro, MRI mode) or names libraries for the linker to load
// (.deplibs): "" when there is none. Read without regard to case, lines joined.
std::string file_reading_directive(const std::string& assembly) {
  std::string text;
  text.reserve(assembly.size());
  for (size_t i = 0; i < assembly.size(); i++) {
    if (assembly[i] == '\\' && i + 1 < assembly.size() && assembly[i + 1] == '\n') {
      i++;
      continue;
    }
    text += static_cast<char>(tolower(static_cast<unsigned char>(assembly[i])));
  }
  static const char* const kDirectives[] = {".incbin", ".include", ".macro", ".irp", ".irpc", ".rept", ".altmacro",
                                            ".mri", ".deplibs", "llvm_dependent_libraries"};
  for (const char* directive : kDirectives) {
    const size_t length = strlen(directive);
    for (size_t at = text.find(directive); at != std::string::npos; at = text.find(directive, at + 1)) {
      const char after = at + length < text.size() ? text[at + length] : ' ';
      if (!(isalnum(static_cast<unsigned char>(after)) || after == '_')) return directive;
    }
  }
  return "";
}

// The symbols a line of assembly names ("_ZZ6kernelPfE3shr" of
// "leaq _ZZ6kernelPfE3shr@tlsld(%rip), %rdi"), relocation suffixes dropped.
std::vector<std::string> symbols_named(const std::string& line) {
  std::vector<std::string> names;
  size_t i = 0;
  while (i < line.size()) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if (!(isalpha(c) || c == '_' || c == '.' || c == '$')) {
      i++;
      continue;
    }
    const size_t start = i;
    while (i < line.size() && (isalnum(static_cast<unsigned char>(line[i])) || strchr("_.$", line[i]))) i++;
    names.push_back(line.substr(start, i - start));
  }
  return names;
}

// A kernel's static __shared__ memory, as a GPU's compiler counts it: on the CPU
// __shared__ is thread_local, so the module's thread-local objects are read from
// its assembly, and each kernel's launch is charged those it reaches, through the
// functions it calls. The run time's own (fl::emu's) are not __shared__.
struct shared_use {
  size_t bytes = 0;
  std::string kernel;  // the launch's demangled name
};

shared_use largest_kernel_shared(const std::string& assembly) {
  std::vector<std::string> lines;
  std::istringstream in(assembly);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::unordered_set<std::string> functions;
  std::unordered_map<std::string, size_t> thread_local_bytes;
  bool in_thread_local_section = false;
  // Each line's symbols, read once for both passes.
  std::vector<std::vector<std::string>> symbols(lines.size());
  for (size_t i = 0; i < lines.size(); i++) {
    const std::string& line = lines[i];
    const std::vector<std::string>& words = symbols[i] = symbols_named(line);
    if (words.empty()) continue;
    if (words[0] == ".section") in_thread_local_section = words.size() > 1 && (words[1].rfind(".tbss", 0) == 0 || words[1].rfind(".tdata", 0) == 0);
    else if (words[0] == ".text" || words[0] == ".data" || words[0] == ".bss" || words[0] == ".previous") in_thread_local_section = false;
    else if (words[0] == ".tbss" || words[0] == ".tdata") in_thread_local_section = true;
    if (words[0] == ".type" && words.size() >= 3 && line.find("@function") != std::string::npos) functions.insert(words[1]);
    // ".size name, 40000" in a .tbss or .tdata section: a thread-local object and its bytes.
    if (words[0] == ".size" && words.size() >= 2 && in_thread_local_section) {
      const size_t comma = line.find(',');
      const char* size = comma == std::string::npos ? "" : line.c_str() + comma + 1;
      char* end = nullptr;
      const unsigned long long n = strtoull(size, &end, 10);
      if (end != size) thread_local_bytes[words[1]] = n;
    }
  }
  const auto runtime_own = [](const std::string& name) {
    return name.rfind("_ZN2fl", 0) == 0 || name.rfind("_ZZN2fl", 0) == 0 || name.rfind("_ZTH", 0) == 0 || name.rfind("_ZTW", 0) == 0;
  };
  // What each function names: functions it calls, thread-local objects it reads or writes.
  std::unordered_map<std::string, std::vector<std::string>> named;
  std::string current;
  for (size_t i = 0; i < lines.size(); i++) {
    const std::string& line = lines[i];
    if (!line.empty() && line[0] != '\t' && line[0] != ' ' && line.back() == ':') {
      const std::string label = line.substr(0, line.size() - 1);
      if (functions.count(label)) current = label;
      continue;
    }
    if (current.empty()) continue;
    for (const std::string& word : symbols[i]) {
      if (word == ".size") {
        current.clear();
        break;
      }
      if (word != current && (functions.count(word) || thread_local_bytes.count(word))) named[current].push_back(word);
    }
  }
  shared_use largest;
  for (const std::string& launch : functions) {
    if (launch.rfind("_ZN2fl3emu6launchI", 0) != 0) continue;
    std::unordered_set<std::string> seen{launch};
    std::vector<std::string> pending{launch};
    size_t bytes = 0;
    while (!pending.empty()) {
      const std::string f = pending.back();
      pending.pop_back();
      for (const std::string& name : named[f]) {
        if (!seen.insert(name).second) continue;
        if (functions.count(name)) pending.push_back(name);
        else if (!runtime_own(name)) bytes += thread_local_bytes[name];
      }
    }
    if (bytes > largest.bytes) {
      int status = 0;
      char* demangled = abi::__cxa_demangle(launch.c_str(), nullptr, nullptr, &status);
      std::string text = status == 0 && demangled ? demangled : launch;
      free(demangled);
      // "void fl::emu::launch<&(k(float*))>(...)": the kernel is the template's argument.
      const size_t open = text.find("launch<"), close = text.rfind(">(");
      if (open != std::string::npos && close != std::string::npos && close > open + 7) text = text.substr(open + 7, close - open - 7);
      text = text.substr(0, text.rfind(", &fl_emu_twin_block_"));  // a module's twin's block of it (twin.h)
      if (text.rfind("&(", 0) == 0 && text.back() == ')') text = text.substr(2, text.size() - 3);
      else if (text.rfind("&", 0) == 0) text = text.substr(1);
      largest = {bytes, text};
    }
  }
  return largest;
}

// The log without the source lines a message quotes from a file other than
// fuselab's or the compiler's headers, or one in the build folder (named
// without a folder): a #line naming another file would have the compiler show
// that file's lines. The messages themselves stay.
std::string without_foreign_excerpts(const std::string& log, const std::vector<std::string>& allowed) {
  std::istringstream lines(log);
  std::string line, kept;
  bool quoting_foreign = false;
  while (std::getline(lines, line)) {
    // "file:12:3: error: ..." or "file:12: warning: ...": a message, which the lines quoting its source follow.
    const size_t colon = line.find(':');
    const bool message = colon != std::string::npos && colon > 0 && !isspace(static_cast<unsigned char>(line[0])) &&
                         colon + 1 < line.size() && isdigit(static_cast<unsigned char>(line[colon + 1]));
    if (message) {
      const std::string file = line.substr(0, colon);
      std::error_code ec;
      const bool own = file.find('/') == std::string::npos ||
                       inside_any(fs::weakly_canonical(file, ec).string(), allowed);
      quoting_foreign = !own;
      kept += line + "\n";
      continue;
    }
    const bool quotes = !line.empty() && (isspace(static_cast<unsigned char>(line[0])) || line.find(" | ") != std::string::npos);
    if (quoting_foreign && (quotes || line.find(':') == std::string::npos)) continue;
    quoting_foreign = false;
    kept += line + "\n";
  }
  return kept;
}

// Why a failed compile failed, when the reason is a full disk: the log says so,
// or (when even the log could not be written) the folder's file system has
// almost no room or no inode left.
std::string disk_full_note(const std::string& log, const std::string& folder) {
  struct statvfs space;
  const bool nearly_full = statvfs(folder.c_str(), &space) == 0 &&
                           (uint64_t(space.f_bavail) * space.f_frsize < (uint64_t(1) << 20) || space.f_favail == 0);
  if (!nearly_full && log.find("No space left on device") == std::string::npos &&
      log.find("Disk quota exceeded") == std::string::npos)
    return "";
  return "no space left on device: the compiler could not write its output in " + folder +
         ": free some space there, or set FUSELAB_CACHE to a folder on another disk";
}

void* load_from(int fd, const std::string& name, const std::string& code, std::string* error) {
  size_t done = 0;
  while (done < code.size()) {
    ssize_t wrote = write(fd, code.data() + done, code.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      *error = disk_error(errno, "write a module to load", name);
      return nullptr;
    }
    done += static_cast<size_t>(wrote);
  }
  void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) *error = dlerror();
  return library;
}

struct build_folder {
  std::string path;
  ~build_folder() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

std::string megabytes_text(uint64_t bytes) {
  char text[32];
  snprintf(text, sizeof text, "%g", static_cast<double>(bytes) / 1048576.0);
  return text;
}

// A compile to assembly that ran (`run`, `command` with the module's common
// `flags`): the headers it opened, each checked and added to *dependencies,
// its log without them in *log, and its assembly, checked, in *assembly. False,
// with *why, where it failed or the source reached what it may not.
bool to_assembly(const process_result& run, const std::vector<std::string>& command, const std::vector<std::string>& flags,
                 const std::string& folder, const char* log_name, const char* assembly_name, const process_limits& limits,
                 std::vector<dependency>* dependencies, std::string* assembly, std::string* log, std::string* why) {
  auto fail = [why](const std::string& reason) {
    *why = reason;
    return false;
  };
  if (run.outcome == process_outcome::not_started)
    return fail("cannot run '" + kSettings.program + "': " + strerror(run.error) + " (install g++ or set $CXX)");
  if (run.outcome == process_outcome::timed_out)
    return fail("the compiler ran past the time limit of " + std::to_string(limits.timeout_ms) +
                " ms and was stopped (compile's option timeoutMs)");
  if (run.outcome == process_outcome::stopped) return fail("the compile was interrupted, and the compiler stopped");

  std::string full_log;
  read_file(folder + "/" + log_name, &full_log);
  std::vector<std::string> headers;
  split_header_lines(full_log, &headers, log);
  // Only fuselab's headers and the compiler's may be included: a file from
  // elsewhere could be shown in the log or embedded in the module. Neither the
  // log nor the file's content is shown; its name, which the source gave, is.
  std::vector<std::string> allowed = named_include_folders(command);
  const std::vector<std::string>& own_folders = compiler_include_folders(flags, folder);
  if (own_folders.empty())
    return fail("cannot learn where " + kSettings.compiler[0] + " looks for headers ('" + command_text() +
                " -E -v' listed no include folder)");
  allowed.insert(allowed.end(), own_folders.begin(), own_folders.end());
  *log = without_foreign_excerpts(*log, allowed);
  for (const std::string& header : headers) {
    std::error_code ec;
    const fs::path spelled = fs::path(header).is_absolute() ? fs::path(header) : fs::path(folder) / header;
    const std::string file = fs::weakly_canonical(spelled, ec).string();
    if (!inside_any(file, allowed)) {
      log->clear();
      return fail("the source includes " + spelled.lexically_normal().string() +
                  ", which is neither one of fuselab's headers nor one of the compiler's: kernels may include only those");
    }
    dependency d;
    if (std::none_of(dependencies->begin(), dependencies->end(), [&file](const dependency& seen) { return seen.path == file; })) {
      if (!describe_dependency(file, &d)) return fail("cannot read " + file + ", which the source includes");
      dependencies->push_back(d);
    }
  }
  if (run.outcome != process_outcome::exited || run.code != 0) {
    std::string full = disk_full_note(full_log, kSettings.cache_folder);
    if (!full.empty()) {
      log->clear();  // not an error in the source: the message says it all
      return fail(full);
    }
    if (run.outcome == process_outcome::killed_by_signal)
      return fail("the compiler (" + kSettings.compiler[0] + ") was killed by signal " + std::to_string(run.code) +
                  " (it may have run out of its 4 GiB of memory)");
    return fail("compilation failed (" + kSettings.compiler[0] + ")");
  }
  if (!read_file(folder + "/" + assembly_name, assembly)) return fail("the compiler wrote no assembly");
  const std::string directive = file_reading_directive(*assembly);
  if (!directive.empty()) {
    log->clear();
    return fail("the compiled source holds the assembler directive " + directive +
                ", which could read a file: kernels may not reach files that way");
  }
  // As a GPU's compiler refuses a kernel with more static __shared__ memory than a block may have.
  const shared_use shared = largest_kernel_shared(*assembly);
  if (shared.bytes > kStaticSharedPerKernel) {
    log->clear();
    return fail("the kernel " + shared.kernel + " has " + std::to_string(shared.bytes) +
                " bytes of static __shared__ memory, more than the " + std::to_string(kStaticSharedPerKernel) +
                " bytes a kernel may declare");
  }
  return true;
}

}  // namespace

std::string compiler_note() {
  if (!kSettings.problem.empty()) return "run-time compilation: unavailable (" + kSettings.problem + ")";
  return "run-time compilation: " + command_text() + " (" + kSettings.program + "), cache " + kSettings.cache_folder +
         " (at most " + megabytes_text(kSettings.cache_bytes) + " MB)";
}

// Whether the compiler is clang, from its file's name (no process is run: a
// sandboxed process computes the same flags, and so the same cache key).
bool compiler_is_clang() {
  std::error_code ec;
  return fs::weakly_canonical(kSettings.program, ec).filename().string().find("clang") != std::string::npos;
}

// Whether a source declares shared memory: only then do a warp's lanes take their accesses in lock step.
static bool uses_shared_memory(const std::string& source) {
  // fl.compile writes a dynamic shared array's declaration as FL_DYNAMIC_SHARED or a call of dynamic_shared()
  // (src/compile.ts); HIP spells it HIP_DYNAMIC_SHARED.
  for (const char* mark : {"__shared__", "DYNAMIC_SHARED", "dynamic_shared"})
    if (source.find(mark) != std::string::npos) return true;
  return false;
}

compile_result compile_module(const std::string& source, const std::string& kernel_names, const std::string& options,
                              bool check, const process_limits& limits) {
  compile_result result;
  auto fail = [&result](const std::string& why) {
    result.error = "run-time compilation: " + why;
    return result;
  };
  if (!kSettings.problem.empty()) return fail(kSettings.problem);
  std::vector<std::string> flags;
  for (const char* flag : {"-std=c++17", "-O2", "-shared", "-fPIC", "-DFL_TARGET_CPU", "-fvisibility=hidden",
                           // kernels read float* memory as float4, as GPU code does
                           "-fno-strict-aliasing",
                           // an access through a null or near-null pointer faults, as on a GPU:
                           // by default the compiler takes null for a pointer to no object and
                           // removes a store through it as dead (or makes it a trap)
                           "-fno-delete-null-pointer-checks",
                           // a GPU has no errno and no floating-point traps: sqrtf and the
                           // like compile to instructions, and loops over them vectorise
                           "-fno-math-errno", "-fno-trapping-math",
                           // the emulator longjmps across stacks, which fortified longjmp refuses
                           "-U_FORTIFY_SOURCE",
                           // a GPU thread's stack is a 64 KiB fiber: a larger frame is a compile
                           // error, and a deep call chain touches every page on its way, so it
                           // meets the fiber's guard page instead of jumping past it
                           "-Werror=frame-larger-than=49152", "-fstack-clash-protection"})
    flags.push_back(flag);
  // A GPU's compiler fuses a multiply and the add its result feeds into one fma
  // (nvcc and NVRTC contract across statements by default, --fmad=true): so
  // does the host's, where the CPU has fma (x86-64 since 2013, every AArch64),
  // and a float kernel's outputs then mostly keep the GPU's bits. The `_rn`
  // intrinsics keep their operations apart, as on the GPU (emulator/intrinsics.h).
  flags.push_back("-ffp-contract=fast");
#if defined(__x86_64__)
  if (__builtin_cpu_supports("fma")) flags.push_back("-mfma");
#endif
  // g++ also takes a pointer made from a comparison (`(float*)(x != x)`) for one to
  // no object, unless its points-to analysis is off; clang has no such flag.
  if (!compiler_is_clang()) flags.push_back("-fno-tree-pta");
  // A reference bound to a temporary that outlives it (torchaudio's `Indexer2D
  // idxr2(maxU - 1);` keeps a `const int&` to `maxU - 1`) reads the value on a GPU,
  // whose registers keep it: g++ would give the temporary's stack slot to the next
  // variable. Named variables still share slots, so frames stay as small.
  if (!compiler_is_clang()) flags.push_back("-fstack-reuse=named_vars");
  if (check) {
    // The alignment of every typed load and store is checked, the count of
    // every shift, the range of every float-to-integer conversion, every
    // index into an array of known size and every access through a pointer
    // into one; the module's own handlers (vendors/cpu.h) end the launch at a
    // misaligned access, a shift by the value's width or more, a conversion the
    // integer type cannot hold (where the CPU and a GPU differ), or an access
    // past a __shared__, local or __constant__ array. g++ would
    // link its sanitizer library, which a module must not load into the
    // process: linked statically, nothing of it is used, as the module defines
    // the handlers it calls. clang links none into a shared object.
    flags.push_back("-fsanitize=alignment,shift-exponent,float-cast-overflow,bounds,object-size");
    flags.push_back("-DFL_EMU_CHECK_MODE=1");
    // A local variable read before it is written holds 0xFE bytes (-1.7e38 as a
    // float), not what the stack held: a result built on one is plainly wrong,
    // where on a GPU the register's leftover (often 0) may pass for right.
    flags.push_back("-ftrivial-auto-var-init=pattern");
    if (!compiler_is_clang()) flags.push_back("-static-libubsan");
  }
  const bool lockstep = !check && uses_shared_memory(source);
  // Check mode's race check (emulator/racecheck.h): the same calls before every
  // load and store, which there note the accesses to shared memory, and line
  // tables, which name the lines of a race's two accesses (call_sites.h). With
  // g++ alone: a module built so by clang faults in its report.
  const bool racecheck = check && uses_shared_memory(source) && !compiler_is_clang();
  // Lock step's instrumented code costs time also where lock step turns itself
  // off: such a module is built twice (twin.h), plainly for the blocks without.
  // Not where volatile accesses step (src/volatile-steps.ts): they take the
  // order of lanes of lock step's build in every block.
  const bool twinned = lockstep && source.find("fl::emu::stepped") == std::string::npos;
  std::vector<std::string> lockstep_flags;
  if (lockstep || check) {
    // Lock step (emulator/lockstep.h): the compiler calls a function before every
    // load and store, which the module defines. Not in check mode, whose scrambled
    // order of lanes shows code that relies on lock step instead, and whose calls
    // fault an access out of a buffer's bounds that the no-access reserves around
    // it do not hold: into the rest of its last granule, or the guard band before
    // it (and note shared memory's accesses for the race check).
    lockstep_flags.push_back("-fsanitize=thread");
    if (check) {
      lockstep_flags.push_back("-DFL_EMU_BOUNDS_CHECK=1");
      if (racecheck) {
        lockstep_flags.push_back("-DFL_EMU_RACECHECK=1");
        lockstep_flags.push_back("-g1");
      }
    } else {
      lockstep_flags.push_back("-DFL_EMU_LOCKSTEP=1");
      lockstep_flags.push_back("-fno-omit-frame-pointer");  // lockstep_step walks the frames out to the kernel
    }
    lockstep_flags.push_back("-Wno-tsan");  // "atomic_thread_fence is not supported": the module makes it one
    if (compiler_is_clang()) {
      // clang also routes atomics through the sanitizer, also in the module's own definitions of those
      // functions (they would call themselves): left as they are, as they need no turn.
      for (const char* flag : {"-mllvm", "-tsan-instrument-func-entry-exit=0", "-mllvm", "-tsan-instrument-memintrinsics=0",
                               "-mllvm", "-tsan-instrument-atomics=0"})
        lockstep_flags.push_back(flag);
    } else {
      lockstep_flags.push_back("--param=tsan-instrument-func-entry-exit=0");
      if (lockstep) {
        // The code in the order of the source, which the lanes of a warp take in turn (lockstep_step).
        lockstep_flags.push_back("-fno-reorder-blocks");
        lockstep_flags.push_back("-fno-reorder-blocks-and-partition");
      }
    }
    if (twinned) lockstep_flags.push_back("-DFL_EMU_TWIN=1");
  }
  const std::vector<std::string> user_options = split_spaces(options);
  std::vector<std::string> command = kSettings.compiler;
  command.insert(command.end(), flags.begin(), flags.end());
  std::vector<std::string> twin_command;
  if (twinned) {
    twin_command = command;
    twin_command.insert(twin_command.end(), lockstep_flags.begin(), lockstep_flags.end());
    twin_command.insert(twin_command.end(), user_options.begin(), user_options.end());
    command.push_back("-DFL_EMU_HAS_TWIN=1");
  } else {
    command.insert(command.end(), lockstep_flags.begin(), lockstep_flags.end());
  }
  command.insert(command.end(), user_options.begin(), user_options.end());

  std::string text = source + "\n#line 1 \"<fuselab exports>\"\n";
  int exported = 0;
  for (const std::string& name : split_lines(kernel_names)) {
    if (!is_name_expression(name)) return fail("kernel name '" + name + "' is not a C++ name expression");
    text += "FL_KERNEL_EXPORT_AS(" + std::to_string(exported++) + ", \"" + name + "\", " + kernel_address(name) + ")\n";
  }
  text += "FL_EMU_MODULE_ENTRY()\n";

  std::string error;
  std::unique_ptr<module_cache> cache = module_cache::open(kSettings.cache_folder, kSettings.cache_bytes, &error);
  if (!cache) return fail(error);

  // A private folder for this compile: the compiler's files, then the module.
  build_folder work;
  std::string work_template = kSettings.cache_folder + "/.build-XXXXXX";
  if (!mkdtemp(&work_template[0])) return fail(disk_error(errno, "create a build folder", kSettings.cache_folder));
  work.path = work_template;

  // Everything that goes into the module, but for the files it includes, which
  // the entry lists and checks when it is found.
  sha256 key_hash;
  // kCheckedAs: what a module was checked for when compiled (a cached one is not checked again).
  key_hash.add_field("fuselab cpu module").add_field(FUSELAB_VERSION).add_field(std::to_string(FL_EMU_ABI)).add_field(kCheckedAs);
  key_hash.add_field(compiler_identity());
  for (const std::string& word : command) key_hash.add_field(word);
  for (const std::string& word : twin_command) key_hash.add_field(word);
  key_hash.add_field(text);
  const std::string key = to_hex(key_hash.digest());
  if (cache->find(key, &result.code)) {
    result.ok = true;
    return result;
  }

  const std::string log_path = work.path + "/log.txt";
  {
    std::ofstream out(work.path + "/cell.cc", std::ios::binary);
    out << text;
    out.flush();
    if (!out) return fail(disk_error(errno, "write the source", work.path));
  }
  // First to assembly, which is read before anything assembles it: no .incbin
  // the source spelled out or built (through macros, escapes, asm labels) may
  // have the assembler read a file. -H lists every header the compile opens,
  // in the log, whether it succeeds or not.
  const auto started = std::chrono::steady_clock::now();
  command.insert(command.end(), {"-H", "-S", "-x", "c++", "cell.cc", "-o", "cell.s"});
  process_result twin_run;
  std::thread twin_compile;
  if (twinned) {
    // Beside the plain build, on a thread of its own: a compile takes one core.
    twin_command.insert(twin_command.end(), {"-H", "-S", "-x", "c++", "cell.cc", "-o", "twin.s"});
    auto compile_twin = [&] {
      twin_run = run_process(kSettings.program, twin_command, environment_in(work.path), work.path, work.path + "/twin-log.txt", limits);
    };
    try {
      twin_compile = std::thread(compile_twin);
    } catch (const std::system_error&) {
      compile_twin();  // a process that may start no thread: one after the other
    }
  }
  process_result run = run_process(kSettings.program, command, environment_in(work.path), work.path, log_path, limits);
  if (twin_compile.joinable()) twin_compile.join();
  std::vector<dependency> dependencies;
  std::string assembly, why;
  if (!to_assembly(run, command, flags, work.path, "log.txt", "cell.s", limits, &dependencies, &assembly, &result.log, &why))
    return fail(why);
  std::string twin_assembly;
  if (twinned) {
    std::string twin_log;  // its warnings are the plain build's, already in the log
    if (!to_assembly(twin_run, twin_command, flags, work.path, "twin-log.txt", "twin.s", limits, &dependencies, &twin_assembly,
                     &twin_log, &why)) {
      result.log = twin_log;
      return fail(why);
    }
    if (!make_twins(&assembly, &twin_assembly, &why)) return fail(why);
  }
  // Lock step tells a loop's next turn from the code past it by the loops' extents.
  std::string& stepped = twinned ? twin_assembly : assembly;
  if (lockstep) stepped = with_loop_table(stepped);
  if (racecheck) assembly = with_call_sites(assembly);
  for (const auto& [file, content] : {std::pair<const char*, const std::string*>{"cell.s", &assembly}, {"twin.s", &twin_assembly}}) {
    if (content->empty()) continue;
    std::ofstream out(work.path + "/" + file, std::ios::binary | std::ios::trunc);
    out << *content;
    out.flush();
    if (!out) return fail(disk_error(errno, "write the assembly", work.path));
  }
  // The checked assembly, as is (no preprocessor), to the module.
  process_limits rest = limits;
  if (limits.timeout_ms > 0) {
    const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    rest.timeout_ms = std::max(1, limits.timeout_ms - static_cast<int>(spent.count()));
  }
  std::vector<std::string> assemble = kSettings.compiler;
  assemble.insert(assemble.end(), {"-shared", "-fPIC", "-x", "assembler", "cell.s"});
  if (twinned) assemble.push_back("twin.s");
  assemble.insert(assemble.end(), {"-o", "module.so"});
  const std::string link_log_path = work.path + "/link.txt";
  process_result linked = run_process(kSettings.program, assemble, environment_in(work.path), work.path, link_log_path, rest);
  if (linked.outcome == process_outcome::timed_out)
    return fail("the compiler ran past the time limit of " + std::to_string(limits.timeout_ms) +
                " ms and was stopped (compile's option timeoutMs)");
  if (linked.outcome == process_outcome::stopped) return fail("the compile was interrupted, and the compiler stopped");
  if (linked.outcome != process_outcome::exited || linked.code != 0) {
    std::string link_log;
    read_file(link_log_path, &link_log);
    result.log += link_log;
    std::string full = disk_full_note(link_log, kSettings.cache_folder);
    return fail(full.empty() ? "assembling and linking the module failed (" + kSettings.compiler[0] + ")" : full);
  }
  if (!read_file(work.path + "/module.so", &result.code)) return fail("the compiler wrote no module");
  if (!cache->store(key, dependencies, result.code, &error)) return fail(error);
  result.ok = true;
  return result;
}

void* load_shared_object(const std::string& code, int* keep_fd, std::string* error) {
  // Loaded from memory: what was verified is what runs, whatever happens to the cache file meanwhile.
  int fd = memfd_create("fuselab-module", MFD_CLOEXEC);
  if (fd >= 0) {
    void* library = load_from(fd, "/proc/self/fd/" + std::to_string(fd), code, error);
    if (library) {
      *keep_fd = fd;
      return library;
    }
    close(fd);
  }
  // Without memfd, or where /proc is missing or memfd code may not run: a
  // private temporary file, removed once loaded.
  std::string name = (fs::temp_directory_path() / "fuselab-module-XXXXXX").string();
  fd = mkostemp(&name[0], O_CLOEXEC);
  if (fd < 0) {
    *error = disk_error(errno, "write a module to load", fs::temp_directory_path().string());
    return nullptr;
  }
  void* library = load_from(fd, name, code, error);
  unlink(name.c_str());
  if (library) *keep_fd = fd;
  else close(fd);
  return library;
}

}  // namespace fl::cpu
