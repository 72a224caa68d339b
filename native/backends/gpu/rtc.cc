#include "rtc.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "fuselab/kernel_name.h"
#include "runtime.h"

namespace fl::gpu {
namespace {

// NVRTC and hiprtc have the same C interface shape: results are C enums (0 is
// success, int-sized) and programs are opaque pointers. Declaring them so needs
// neither compiler's header at build time.
using rtc_code = int;
using rtc_program = void*;

struct rtc_library {
  void* handle = nullptr;
  std::string path;
  std::string unavailable;  // why not, when handle is null
  int major = 0;
  int minor = 0;
  rtc_code (*version)(int*, int*) = nullptr;
  const char* (*error_string)(rtc_code) = nullptr;
  rtc_code (*create_program)(rtc_program*, const char*, const char*, int, const char* const*,
                             const char* const*) = nullptr;
  rtc_code (*destroy_program)(rtc_program*) = nullptr;
  rtc_code (*add_name_expression)(rtc_program, const char*) = nullptr;
  rtc_code (*compile_program)(rtc_program, int, const char* const*) = nullptr;
  rtc_code (*get_program_log_size)(rtc_program, size_t*) = nullptr;
  rtc_code (*get_program_log)(rtc_program, char*) = nullptr;
  rtc_code (*get_code_size)(rtc_program, size_t*) = nullptr;
  rtc_code (*get_code)(rtc_program, char*) = nullptr;
  rtc_code (*get_lowered_name)(rtc_program, const char*, const char**) = nullptr;
};

#if defined(FL_GPU_HIP)
// ROCm 5.2 and older ship hiprtc inside libamdhip64; later releases as libhiprtc.
const char* const kLibraryNames[] = {"libhiprtc.so.6", "libhiprtc.so.5", "libhiprtc.so",
                                     "libamdhip64.so.5"};
const char* const kHomeVariable = "ROCM_PATH";
const char* const kHomeLibDir = "/lib";
const char* const kDefaultLibDir = "/opt/rocm/lib";
#else
const char* const kLibraryNames[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
const char* const kHomeVariable = "CUDA_HOME";
const char* const kHomeLibDir = "/lib64";
const char* const kDefaultLibDir = "/usr/local/cuda/lib64";
#endif

template <typename F>
bool resolve(void* handle, const char* symbol, F* out, std::string* missing) {
  *out = reinterpret_cast<F>(dlsym(handle, symbol));
  if (!*out && missing->empty()) *missing = symbol;
  return *out != nullptr;
}

// Fills every entry point from handle; false (and the first missing symbol in
// *missing) when the library lacks one.
bool bind(void* handle, rtc_library* lib, std::string* missing) {
  resolve(handle, FL_RTC_API "Version", &lib->version, missing);
  resolve(handle, FL_RTC_API "GetErrorString", &lib->error_string, missing);
  resolve(handle, FL_RTC_API "CreateProgram", &lib->create_program, missing);
  resolve(handle, FL_RTC_API "DestroyProgram", &lib->destroy_program, missing);
  resolve(handle, FL_RTC_API "AddNameExpression", &lib->add_name_expression, missing);
  resolve(handle, FL_RTC_API "CompileProgram", &lib->compile_program, missing);
  resolve(handle, FL_RTC_API "GetProgramLogSize", &lib->get_program_log_size, missing);
  resolve(handle, FL_RTC_API "GetProgramLog", &lib->get_program_log, missing);
  resolve(handle, FL_RTC_GET_CODE_SIZE, &lib->get_code_size, missing);
  resolve(handle, FL_RTC_GET_CODE, &lib->get_code, missing);
  resolve(handle, FL_RTC_API "GetLoweredName", &lib->get_lowered_name, missing);
  return missing->empty();
}

rtc_library load_library() {
  rtc_library lib;
  std::vector<std::string> dirs;
  if (const char* home = std::getenv(kHomeVariable); home && *home) dirs.push_back(std::string(home) + kHomeLibDir);
  if (dirs.empty() || dirs[0] != kDefaultLibDir) dirs.push_back(kDefaultLibDir);

  std::vector<std::string> candidates;
  for (const char* name : kLibraryNames) {
    candidates.push_back(name);  // through the loader's search path first
    for (const std::string& dir : dirs) candidates.push_back(dir + "/" + name);
  }
  std::string incomplete;  // a library that was found but lacks an entry point
  for (const std::string& candidate : candidates) {
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) continue;
    std::string missing;
    if (!bind(handle, &lib, &missing)) {
      if (incomplete.empty()) incomplete = candidate + " lacks " + missing;
      dlclose(handle);
      continue;
    }
    lib.handle = handle;
    lib.path = candidate;
    if (lib.version(&lib.major, &lib.minor) != 0) lib.major = lib.minor = 0;
    return lib;
  }
  std::string names;
  for (const char* name : kLibraryNames) names += std::string(names.empty() ? "" : ", ") + name;
  std::string searched = "the library path";
  for (size_t i = 0; i < dirs.size(); ++i) searched += (i + 1 < dirs.size() ? ", " : " or ") + dirs[i];
  lib.unavailable = incomplete.empty() ? names + " not found in " + searched : incomplete;
  return lib;
}

const rtc_library& library() {
  static std::once_flag once;
  static rtc_library lib;
  std::call_once(once, [] { lib = load_library(); });
  return lib;
}

// Destroys the program on every way out of rtc_compile.
struct program_owner {
  const rtc_library& lib;
  rtc_program program = nullptr;
  ~program_owner() {
    if (program) lib.destroy_program(&program);
  }
};

}  // namespace

std::string rtc_status() {
  const rtc_library& lib = library();
  if (!lib.handle) return "unavailable (" + lib.unavailable + ")";
  return std::string(FL_RTC_PRODUCT " ") + std::to_string(lib.major) + "." + std::to_string(lib.minor) + " (" +
         lib.path + ")";
}

int rtc_compile(const std::string& source, const std::vector<fl::kernel_line>& kernels,
                const std::vector<std::string>& options, rtc_result* out, std::string* error) {
  const rtc_library& lib = library();
  if (!lib.handle) {
    *error = "run-time compilation is unavailable: " + lib.unavailable;
    return 1;
  }
  auto failed = [&](const char* call, rtc_code code) {
    *error = std::string(call) + " failed: " + lib.error_string(code);
    return 1;
  };

  program_owner owner{lib};
  if (rtc_code r = lib.create_program(&owner.program, source.c_str(), FL_RTC_PROGRAM_NAME, 0, nullptr, nullptr))
    return failed(FL_RTC_API "CreateProgram", r);

  // A name expression is the address of the kernel; the compiler maps it to the
  // kernel's mangled symbol.
  std::vector<std::string> expressions;
  for (const fl::kernel_line& kernel : kernels) expressions.push_back(kernel.c_linkage ? "" : kernel_address(kernel.name));
  for (const std::string& expression : expressions)
    if (!expression.empty())
      if (rtc_code r = lib.add_name_expression(owner.program, expression.c_str()))
        return failed(FL_RTC_API "AddNameExpression", r);

  std::vector<const char*> argv;
  for (const std::string& option : options) argv.push_back(option.c_str());
  rtc_code compiled = lib.compile_program(owner.program, static_cast<int>(argv.size()), argv.data());

  size_t log_size = 0;
  if (lib.get_program_log_size(owner.program, &log_size) == 0 && log_size > 1) {
    std::string log(log_size, '\0');
    if (lib.get_program_log(owner.program, log.data()) == 0) {
      log.resize(log_size - 1);  // the size counts the terminating NUL
      out->log = log;
    }
  }
  if (compiled) return failed(FL_RTC_API "CompileProgram", compiled);

  for (size_t i = 0; i < kernels.size(); i++) {
    if (expressions[i].empty()) {
      const std::string& name = kernels[i].name;
      const size_t scope = name.rfind("::");
      out->lowered_names.push_back(scope == std::string::npos ? name : name.substr(scope + 2));
      continue;
    }
    const char* lowered = nullptr;
    if (rtc_code r = lib.get_lowered_name(owner.program, expressions[i].c_str(), &lowered))
      return failed(FL_RTC_API "GetLoweredName", r);
    out->lowered_names.push_back(lowered);  // copied: the program owns the text
  }

  size_t code_size = 0;
  if (rtc_code r = lib.get_code_size(owner.program, &code_size)) return failed(FL_RTC_GET_CODE_SIZE, r);
  out->code.assign(code_size, '\0');
  if (rtc_code r = lib.get_code(owner.program, out->code.data())) return failed(FL_RTC_GET_CODE, r);
  return 0;
}

}  // namespace fl::gpu
