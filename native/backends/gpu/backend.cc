// The GPU backend plugin (native/include/fuselab/backend.h), one source for two
// vendors: built with nvcc as libfuselab_cuda.so and with hipcc as
// libfuselab_hip.so; runtime.h maps the runtime API's names. It is compiled as
// GPU code (not plain C++) only so that it sees the same kernel registry, with
// the same types, as the kernels it links with.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fuselab/backend.h"
#include "fuselab/fuselab.h"
#include "fuselab/kernel_name.h"
#include "rtc.h"
#include "runtime.h"

namespace fl::gpu {
namespace {

thread_local std::string last_error_text;

int fail(std::string text) {
  last_error_text = std::move(text);
  return 1;
}

// Resets the runtime's last-error state after a failure this backend has
// already handled, so that a later call does not report it again.
void clear_error() { (void)gpuGetLastError(); }

std::string error_text(const char* call, gpuError_t e) {
  return std::string(call) + " failed: " + gpuGetErrorName(e) + " (" + gpuGetErrorString(e) + ")";
}

// Devices that hit a sticky error, by ordinal, with the error's text. What is
// broken is the runtime's context for the device, so every handle on it is lost.
class lost_devices {
 public:
  void mark(int ordinal, const std::string& reason) {
    std::lock_guard<std::mutex> lock(mutex_);
    reasons_.emplace(ordinal, reason);  // keeps the first reason
    any_.store(true, std::memory_order_release);
  }
  bool find(int ordinal, std::string* reason) {
    if (!any_.load(std::memory_order_acquire)) return false;  // every call asks: no lock while none is lost
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = reasons_.find(ordinal);
    if (it == reasons_.end()) return false;
    *reason = it->second;
    return true;
  }

 private:
  std::atomic<bool> any_{false};
  std::mutex mutex_;
  std::map<int, std::string> reasons_;
};

lost_devices& lost() {
  static lost_devices devices;
  return devices;
}

// The kernel launched last on each device: a sticky error names it, since the
// error shows at a later call and only the kernels since then can have caused it.
class last_launches {
 public:
  void note(int ordinal, const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    names_[ordinal] = name;
  }
  std::string find(int ordinal) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = names_.find(ordinal);
    return it == names_.end() ? "" : it->second;
  }

 private:
  std::mutex mutex_;
  std::map<int, std::string> names_;
};

last_launches& launched() {
  static last_launches kernels;
  return kernels;
}

// 0 when e is success; else records "<call> failed: <name> (<message>)" and
// returns 1. A sticky error marks device `ordinal` lost (-1: no device involved).
int check(int ordinal, const char* call, gpuError_t e) {
  if (e == gpuSuccess) return 0;
  std::string text = error_text(call, e);
  if (ordinal >= 0 && is_sticky(e)) {
    text += std::string(": ") + sticky_meaning(e);
    std::string last = launched().find(ordinal);
    if (!last.empty()) text += " (the last kernel launched on this device: '" + last + "')";
    text += "; the device cannot be used again in this process";
    lost().mark(ordinal, text);
    return fail("device lost: " + text);
  }
  clear_error();
  return fail(text);
}

// GPU_CHECK(ordinal, Malloc, &p, n) calls gpuMalloc(&p, n) and reports it as
// "cudaMalloc failed: ..." (or "hipMalloc failed: ...").
#define GPU_CHECK(ordinal, name, ...) check((ordinal), FL_GPU_API #name, gpu##name(__VA_ARGS__))

struct device {
  int ordinal = 0;
  gpuStream_t stream = nullptr;
  gpuDeviceProp prop{};
  fl_device_props props{};
  std::string label;  // "NVIDIA H100 80GB HBM3 (sm_90)", for messages
  int timeout_ms = 0;  // a wait for the device's work gives up after this long; 0: never
  std::atomic<uint64_t> interrupts{0};  // cancel() adds one: waits that saw another value give up
  std::atomic<int> waiting{0};
};

struct kernel {
  int ordinal = 0;         // the device whose module holds it
  std::string name;
  std::string signature;   // known for ahead-of-time kernels only
  std::string params;      // names and extents; empty when the export gives none
  int param_count = -1;    // -1: unknown (run-time compiled)
  // Launched through gpuLaunchKernel: an ahead-of-time kernel's host stub, or
  // (CUDA) a cudaKernel_t from a run-time compiled library.
  const void* symbol = nullptr;
#if defined(FL_GPU_HIP)
  hipFunction_t function = nullptr;  // hiprtc: launched through hipModuleLaunchKernel
#endif
  // What kernel_info and kernel_get report: null where unknown.
  void describe(fl_kernel_info* out) const {
    out->name = name.c_str();
    out->signature = param_count >= 0 ? signature.c_str() : nullptr;
    out->params = params.empty() ? nullptr : params.c_str();
  }
  // It synchronizes its grid (grid.sync()): launched cooperatively, every block resident at once.
  bool cooperative = false;
  // Read from the runtime at the first launch.
  std::mutex mutex;
  bool attributes_read = false;
  int max_threads = 0;
  size_t static_shared = 0;
  size_t dynamic_shared_limit = 0;
};

struct module {
  std::vector<std::unique_ptr<kernel>> kernels;
  std::string image;  // the compiled code, kept for as long as the runtime may read it
#if defined(FL_GPU_HIP)
  hipModule_t loaded = nullptr;
#else
  cudaLibrary_t loaded = nullptr;
#endif
};

// Fails at once on a lost device; otherwise makes it current on this thread.
int enter(device* d) {
  std::string reason;
  if (lost().find(d->ordinal, &reason)) return fail("device lost: " + reason);
  return GPU_CHECK(d->ordinal, SetDevice, d->ordinal);
}

// Waits for the device's work (or for one event), as StreamSynchronize does,
// but gives up at the device's time limit or when cancel() is called (a
// notebook's interrupt): a GPU cannot stop a running kernel, so only the wait
// ends, with an error saying so, and the next wait waits for the work again.
int wait_for(device* d, gpuEvent_t event = nullptr) {
  const uint64_t interrupts = d->interrupts.load();
  const auto start = std::chrono::steady_clock::now();
  d->waiting++;
  for (;;) {
    const gpuError_t e = event ? gpuEventQuery(event) : gpuStreamQuery(d->stream);
    if (e != gpuErrorNotReady) {
      d->waiting--;
      // The work is done. The runtime writes device printf's output at a synchronize, not at a
      // query: one now, on finished work, writes it, and a flush shows it before the wait returns.
      if (e == gpuSuccess) {
        (void)(event ? gpuEventSynchronize(event) : gpuStreamSynchronize(d->stream));
        fflush(stdout);
      }
      return check(d->ordinal, event ? FL_GPU_API "EventSynchronize" : FL_GPU_API "StreamSynchronize", e);
    }
    clear_error();
    const auto waited = std::chrono::steady_clock::now() - start;
    const long long ms = std::chrono::duration_cast<std::chrono::milliseconds>(waited).count();
    const bool interrupted = d->interrupts.load() != interrupts;
    if (interrupted || (d->timeout_ms > 0 && ms >= d->timeout_ms)) {
      d->waiting--;
      const std::string last = launched().find(d->ordinal);
      const std::string kernel = last.empty() ? "its work" : "kernel '" + last + "' (the last launched)";
      return fail((interrupted ? "interrupted after " + std::to_string(ms) + " ms waiting for " + kernel
                               : kernel + " still running after the device's time limit of " +
                                     std::to_string(d->timeout_ms) + " ms (timeoutMs)") +
                  ". A GPU cannot stop a running kernel: it goes on, and each later wait for this device waits "
                  "for it again; restart the process (in a notebook, the kernel) if it never ends");
    }
    // Short work is seen at once; long work costs a poll a millisecond.
    if (waited < std::chrono::microseconds(200))
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(waited < std::chrono::milliseconds(20) ? std::chrono::microseconds(50)
                                                                          : std::chrono::microseconds(1000));
  }
}

// An attribute the runtime may not report: false (and its error cleared) when not.
bool optional_attribute(decltype(gpuDevAttrMemoryClockRate) attribute, int ordinal, int* value) {
  if (gpuDeviceGetAttribute(value, attribute, ordinal) == gpuSuccess) return true;
  clear_error();
  *value = 0;
  return false;
}

std::string gib(size_t bytes) {
  std::ostringstream s;
  s.precision(1);
  s << std::fixed << bytes / double(1ull << 30) << " GiB";
  return s.str();
}

std::string dims(fl_dim3 d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

int count_params(const std::string& signature) {
  if (signature.empty()) return 0;
  int n = 1;
  for (char c : signature) n += c == ',';
  return n;
}

std::vector<std::string> split(const std::string& text, const char* separators) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find_first_of(separators, start);
    if (end == std::string::npos) end = text.size();
    std::string part = text.substr(start, end - start);
    size_t first = part.find_first_not_of(" \t\n");
    if (first != std::string::npos) parts.push_back(part.substr(first, part.find_last_not_of(" \t\n") - first + 1));
    start = end + 1;
  }
  return parts;
}

bool is_directory(const std::string& path) {
  struct stat s;
  return stat(path.c_str(), &s) == 0 && S_ISDIR(s.st_mode);
}

// ---- backend functions -----------------------------------------------------

const char* last_error() { return last_error_text.c_str(); }

// hipGetDeviceCount / cudaGetDeviceCount, with "no driver" and "no device" told apart.
int query_device_count(int* count) {
  *count = 0;
  gpuError_t e = gpuGetDeviceCount(count);
  if (e == gpuSuccess) return 0;
  clear_error();
  *count = 0;
  std::string text = error_text(FL_GPU_API "GetDeviceCount", e);
  if (means_no_driver(e)) return fail("no " FL_GPU_VENDOR " driver: " + text);
  if (means_no_device(e)) return fail("no " FL_GPU_VENDOR " device: " + text);
  return fail(text);
}

int probe() {
  int count = 0;
  if (int r = query_device_count(&count)) return r;
  if (count == 0) return fail("no " FL_GPU_VENDOR " device: " FL_GPU_API "GetDeviceCount found none");
  return 0;
}

int device_count(int* count) {
  if (!count) return fail("device_count: count must be a pointer, got null");
  return query_device_count(count);
}

const char* notes() {
  static thread_local std::string text;
  std::ostringstream s;
  int driver = 0, runtime = 0;
  if (gpuDriverGetVersion(&driver) != gpuSuccess) clear_error();
  if (gpuRuntimeGetVersion(&runtime) != gpuSuccess) clear_error();
  s << "driver: " << (driver ? FL_GPU_VENDOR " " + version_text(driver) : std::string("none")) << "\n";
  s << "runtime: " FL_GPU_VENDOR " " << version_text(runtime) << FL_GPU_RUNTIME_LINKAGE << "\n";
  s << "run-time compilation: " << rtc_status() << "\n";
  s << "ahead-of-time kernels: " << fl::registry().size() << ", built for " FL_GPU_TARGETS "\n";
  int count = 0;
  const std::string caller_error = last_error_text;  // notes() leaves last_error() as it found it
  if (query_device_count(&count)) {
    s << "devices: none (" << last_error_text << ")";
  } else if (count == 0) {
    s << "devices: none";
  } else {
    for (int i = 0; i < count; ++i) {
      gpuDeviceProp p{};
      if (gpuGetDeviceProperties(&p, i) != gpuSuccess) {
        clear_error();
        s << "device " << i << ": properties unreadable" << (i + 1 < count ? "\n" : "");
        continue;
      }
      s << "device " << i << ": " << p.name << ", " << arch_of(p) << ", " << p.multiProcessorCount
        << " multiprocessors, " << gib(p.totalGlobalMem) << (i + 1 < count ? "\n" : "");
    }
  }
  last_error_text = caller_error;
  text = s.str();
  return text.c_str();
}

int open(int index, const fl_device_options* options, void** out) {
  if (!out) return fail("open: device must be a pointer, got null");
  *out = nullptr;
  int count = 0;
  if (int r = query_device_count(&count)) return r;
  if (index < 0 || index >= count)
    return fail("open: index must be in [0, " + std::to_string(count) + "), got " + std::to_string(index));
  auto d = std::make_unique<device>();
  d->ordinal = index;
  d->timeout_ms = options ? std::max(options->timeout_ms, 0) : 0;
  if (int r = enter(d.get())) return r;
  if (int r = GPU_CHECK(index, GetDeviceProperties, &d->prop, index)) return r;

  fl_device_props& p = d->props;
  std::snprintf(p.name, sizeof p.name, "%s", d->prop.name);
  std::snprintf(p.arch, sizeof p.arch, "%s", arch_of(d->prop).c_str());
  p.warp_size = d->prop.warpSize;
  p.multiprocessors = d->prop.multiProcessorCount;
  p.max_threads_per_block = d->prop.maxThreadsPerBlock;
  for (int i = 0; i < 3; ++i) {
    p.max_block_dim[i] = d->prop.maxThreadsDim[i];
    p.max_grid_dim[i] = d->prop.maxGridSize[i];
  }
  p.shared_per_block = d->prop.sharedMemPerBlock;
  int optin = 0;
  optional_attribute(gpuDevAttrMaxSharedMemoryPerBlockOptin, index, &optin);
  p.shared_per_block_optin = std::max(static_cast<size_t>(optin), p.shared_per_block);
  p.total_memory = d->prop.totalGlobalMem;
  p.l2_bytes = d->prop.l2CacheSize > 0 ? static_cast<size_t>(d->prop.l2CacheSize) : 0;
  int clock_khz = 0, bus_bits = 0;
  if (optional_attribute(gpuDevAttrMemoryClockRate, index, &clock_khz) &&
      optional_attribute(gpuDevAttrGlobalMemoryBusWidth, index, &bus_bits))
    // Double data rate: two transfers of bus_bits per memory clock.
    p.peak_bandwidth_gbs = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  d->label = std::string(p.name) + " (" + p.arch + ")";

  if (int r = GPU_CHECK(index, StreamCreateWithFlags, &d->stream, gpuStreamNonBlocking)) return r;
  *out = d.release();
  return 0;
}

void close(void* dv) {
  auto* d = static_cast<device*>(dv);
  if (!d) return;
  // Pending work on the stream completes before the runtime frees it.
  if (d->stream && enter(d) == 0) GPU_CHECK(d->ordinal, StreamDestroy, d->stream);
  delete d;
}

int props(void* dv, fl_device_props* out) {
  if (!dv || !out) return fail("props: device and out must be pointers, got null");
  *out = static_cast<device*>(dv)->props;
  return 0;
}

int alloc(void* dv, size_t bytes, void** ptr) {
  auto* d = static_cast<device*>(dv);
  if (!d || !ptr) return fail("alloc: device and ptr must be pointers, got null");
  *ptr = nullptr;
  if (bytes == 0) return fail("alloc: bytes must be > 0, got 0");
  if (int r = enter(d)) return r;
  return GPU_CHECK(d->ordinal, Malloc, ptr, bytes);  // 256-byte aligned, as the runtime guarantees
}

int release(void* dv, void* ptr) {
  auto* d = static_cast<device*>(dv);
  if (!d) return fail("release: device must be a pointer, got null");
  if (!ptr) return 0;
  if (int r = enter(d)) return r;
  // Free waits for the whole device: first wait where it can be given up.
  if (int r = wait_for(d)) return r;
  return GPU_CHECK(d->ordinal, Free, ptr);
}

// Copies on the device's stream. Host <-> device copies then wait for it: the
// caller may reuse (upload) or read (download) its host memory on return.
int transfer(const char* call, void* dv, void* dst, const void* src, size_t bytes, gpuMemcpyKind kind) {
  auto* d = static_cast<device*>(dv);
  if (!d) return fail(std::string(call) + ": device must be a pointer, got null");
  if (bytes == 0) return 0;
  if (!dst || !src) return fail(std::string(call) + ": dst and src must be pointers, got null");
  if (int r = enter(d)) return r;
  // A copy from pageable host memory blocks until the work before it is done: wait for that first.
  if (kind != gpuMemcpyDeviceToDevice)
    if (int r = wait_for(d)) return r;
  if (int r = GPU_CHECK(d->ordinal, MemcpyAsync, dst, src, bytes, kind, d->stream)) return r;
  if (kind == gpuMemcpyDeviceToDevice) return 0;
  return wait_for(d);
}

int upload(void* dv, void* dst, const void* src, size_t bytes) {
  return transfer("upload", dv, dst, src, bytes, gpuMemcpyHostToDevice);
}

int download(void* dv, void* dst, const void* src, size_t bytes) {
  return transfer("download", dv, dst, src, bytes, gpuMemcpyDeviceToHost);
}

int copy(void* dv, void* dst, const void* src, size_t bytes) {
  return transfer("copy", dv, dst, src, bytes, gpuMemcpyDeviceToDevice);
}

int fill(void* dv, void* ptr, int byte, size_t bytes) {
  auto* d = static_cast<device*>(dv);
  if (!d) return fail("fill: device must be a pointer, got null");
  if (byte < 0 || byte > 255) return fail("fill: byte must be in [0, 255], got " + std::to_string(byte));
  if (bytes == 0) return 0;
  if (!ptr) return fail("fill: ptr must be a pointer, got null");
  if (int r = enter(d)) return r;
  return GPU_CHECK(d->ordinal, MemsetAsync, ptr, byte, bytes, d->stream);
}

int module_builtin(void* dv, void** out) {
  auto* d = static_cast<device*>(dv);
  if (!d || !out) return fail("module_builtin: device and module must be pointers, got null");
  auto m = std::make_unique<module>();
  for (const fl::kernel_entry& entry : fl::registry()) {
    auto k = std::make_unique<kernel>();
    k->ordinal = d->ordinal;
    k->name = entry.name;
    k->signature = entry.signature;
    k->params = entry.params;
    k->param_count = count_params(entry.signature);
    k->symbol = entry.fn;
    m->kernels.push_back(std::move(k));
  }
  *out = m.release();
  return 0;
}

// The include folders run-time compiled kernels need: the toolkit's (cuda_fp16.h,
// cuda_bf16.h, cooperative_groups.h) and its C++ library (CCCL: cuda/std, cub),
// which CUDA 13 keeps in include/cccl. None for HIP (hiprtc has its own).
std::vector<std::string> rtc_include_dirs() {
#if defined(FL_GPU_HIP)
  return {};
#else
  std::string include;
  if (const char* home = std::getenv("CUDA_HOME"); home && *home && is_directory(std::string(home) + "/include"))
    include = std::string(home) + "/include";
  else if (is_directory("/usr/local/cuda/include"))
    include = "/usr/local/cuda/include";
  if (include.empty()) return {};
  std::vector<std::string> dirs = {include};
  if (is_directory(include + "/cccl")) dirs.push_back(include + "/cccl");
  return dirs;
#endif
}

// module_compile's kernel_names, a kernel a line (backend.h); false, with *error saying why, for a bad mark.
bool read_kernel_lines(const char* kernel_names, std::vector<fl::kernel_line>* kernels, std::string* error) {
  for (const std::string& line : split(kernel_names ? kernel_names : "", "\n"))
    if (!fl::read_kernel_line(line, &kernels->emplace_back(), error)) return false;
  return true;
}

// Loads the compiled image on d and finds each kernel in it (those marked cooperative launched so).
int load_compiled(device* d, const std::vector<fl::kernel_line>& kernels, const rtc_result& compiled, module* m) {
  m->image = compiled.code;
#if defined(FL_GPU_HIP)
  if (int r = check(d->ordinal, "hipModuleLoadData", hipModuleLoadData(&m->loaded, m->image.data()))) return r;
#else
  if (int r = check(d->ordinal, "cudaLibraryLoadData",
                    cudaLibraryLoadData(&m->loaded, m->image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0)))
    return r;
#endif
  for (size_t i = 0; i < kernels.size(); ++i) {
    auto k = std::make_unique<kernel>();
    k->ordinal = d->ordinal;
    k->name = kernels[i].name;
    k->cooperative = kernels[i].cooperative;
#if defined(FL_GPU_HIP)
    if (int r = check(d->ordinal, "hipModuleGetFunction",
                      hipModuleGetFunction(&k->function, m->loaded, compiled.lowered_names[i].c_str())))
      return r;
#else
    cudaKernel_t handle = nullptr;
    if (int r = check(d->ordinal, "cudaLibraryGetKernel",
                      cudaLibraryGetKernel(&handle, m->loaded, compiled.lowered_names[i].c_str())))
      return r;
    k->symbol = reinterpret_cast<const void*>(handle);  // cudaLaunchKernel accepts a cudaKernel_t
#endif
    m->kernels.push_back(std::move(k));
  }
  return 0;
}

void unload(module* m) {
  if (!m->loaded) return;
#if defined(FL_GPU_HIP)
  (void)hipModuleUnload(m->loaded);
#else
  (void)cudaLibraryUnload(m->loaded);
#endif
  clear_error();
  m->loaded = nullptr;
}

// The run-time compiler's options for the architecture `arch` ("sm_90", "gfx90a").
std::vector<std::string> rtc_options(const std::string& arch, const char* options) {
  const std::vector<std::string> given = split(options ? options : "", " \t\n");
  std::vector<std::string> argv = {"--gpu-architecture=" + arch};
  // C++17, nvcc's and hipcc's default, unless the caller names the standard (-std=c++20).
  if (std::none_of(given.begin(), given.end(), [](const std::string& o) { return o.rfind("-std=", 0) == 0; })) argv.push_back("-std=c++17");
#if !defined(FL_GPU_HIP)
  // What a source leaves unannotated once its host code is taken out (src/host-code.ts:
  // constexpr functions, members of structs) is taken as device code, as nvcc would
  // let device code call it; NVRTC would refuse it as host code. hiprtc skips host code itself.
  argv.push_back("--device-as-default-execution-space");
#endif
  // The caller's folders first: its stand-ins for the C and C++ headers, and for
  // the toolkit's host headers, come before the toolkit's own.
  for (const std::string& option : given) argv.push_back(option);
  for (const std::string& include : rtc_include_dirs()) argv.push_back("-I" + include);
  return argv;
}

// timeout_ms is not honoured: NVRTC and hiprtc compile inside this process.
int module_compile(void* dv, const char* source, const char* kernel_names, const char* options, int /*timeout_ms*/,
                   void** out, char** log) {
  auto* d = static_cast<device*>(dv);
  if (log) *log = nullptr;
  if (!d || !out) return fail("module_compile: device and module must be pointers, got null");
  *out = nullptr;
  if (!source) return fail("module_compile: source must be a string, got null");
  // None is allowed: a source of kernel templates only, instantiated by later compiles.
  std::vector<fl::kernel_line> kernels;
  std::string error;
  if (!read_kernel_lines(kernel_names, &kernels, &error)) return fail(error);
  if (int r = enter(d)) return r;

  rtc_result compiled;
  if (rtc_compile(source, kernels, rtc_options(rtc_arch(d->prop), options), &compiled, &error)) {
    if (log && !compiled.log.empty()) *log = strdup(compiled.log.c_str());
    return fail(error);
  }
  auto m = std::make_unique<module>();
  if (int r = load_compiled(d, kernels, compiled, m.get())) {
    unload(m.get());
    return r;
  }
  *out = m.release();
  return 0;
}

int module_check(const char* arch, const char* source, const char* kernel_names, const char* options, char** symbols,
                 char** log) {
  if (log) *log = nullptr;
  if (!symbols) return fail("module_check: symbols must be a pointer, got null");
  *symbols = nullptr;
  if (!arch || !*arch) return fail("module_check: arch must name a GPU architecture, got none");
  if (!source) return fail("module_check: source must be a string, got null");
  std::vector<fl::kernel_line> kernels;
  std::string error;
  if (!read_kernel_lines(kernel_names, &kernels, &error)) return fail(error);
  rtc_result compiled;
  if (rtc_compile(source, kernels, rtc_options(arch, options), &compiled, &error)) {
    if (log && !compiled.log.empty()) *log = strdup(compiled.log.c_str());
    return fail(error);
  }
  std::string lines;
  for (const std::string& symbol : compiled.lowered_names) lines += symbol + "\n";
  *symbols = strdup(lines.c_str());
  if (log && !compiled.log.empty()) *log = strdup(compiled.log.c_str());
  return 0;
}

void module_unload(void* dv, void* mv) {
  auto* d = static_cast<device*>(dv);
  auto* m = static_cast<module*>(mv);
  if (!m) return;
  // Launches still in flight may run code from the module: let them finish
  // (a module whose kernel runs past the time limit is never unloaded).
  if (d && m->loaded && enter(d) == 0 && wait_for(d) == 0) unload(m);
  delete m;
}

int kernel_count(void* mv, int* count) {
  if (!mv || !count) return fail("kernel_count: module and count must be pointers, got null");
  *count = static_cast<int>(static_cast<module*>(mv)->kernels.size());
  return 0;
}

int kernel_info(void* mv, int index, fl_kernel_info* out) {
  auto* m = static_cast<module*>(mv);
  if (!m || !out) return fail("kernel_info: module and out must be pointers, got null");
  if (index < 0 || index >= static_cast<int>(m->kernels.size()))
    return fail("kernel_info: index must be in [0, " + std::to_string(m->kernels.size()) + "), got " +
                std::to_string(index));
  m->kernels[index]->describe(out);
  return 0;
}

int kernel_get(void* mv, const char* name, void** out, fl_kernel_info* info) {
  auto* m = static_cast<module*>(mv);
  if (!m || !name || !out) return fail("kernel_get: module, name and kernel must be pointers, got null");
  *out = nullptr;
  for (const auto& k : m->kernels) {
    if (k->name != name) continue;
    *out = k.get();
    if (info) k->describe(info);
    return 0;
  }
  std::string known;
  for (const auto& k : m->kernels) known += (known.empty() ? "" : ", ") + k->name;
  return fail("kernel_get: name must be one of the module's kernels (" + (known.empty() ? "none" : known) +
              "), got '" + name + "'");
}

// The kernel's own limits (its register use can lower the thread count; its
// static shared memory counts against the block's), read once.
int read_attributes(device* d, kernel* k) {
  if (k->attributes_read) return 0;
#if defined(FL_GPU_HIP)
  if (k->function) {
    int threads = 0, shared = 0;
    if (int r = check(d->ordinal, "hipFuncGetAttribute",
                      hipFuncGetAttribute(&threads, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->function)))
      return r;
    if (int r = check(d->ordinal, "hipFuncGetAttribute",
                      hipFuncGetAttribute(&shared, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->function)))
      return r;
    k->max_threads = threads;
    k->static_shared = static_cast<size_t>(shared);
  } else
#endif
  {
    gpuFuncAttributes attributes{};
    if (int r = GPU_CHECK(d->ordinal, FuncGetAttributes, &attributes, k->symbol)) return r;
    k->max_threads = attributes.maxThreadsPerBlock;
    k->static_shared = attributes.sharedSizeBytes;
  }
  const size_t shared_default = d->props.shared_per_block;
  k->dynamic_shared_limit = shared_default > k->static_shared ? shared_default - k->static_shared : 0;
  k->attributes_read = true;
  return 0;
}

// Checks the launch shape against the device's and the kernel's limits, and
// raises the kernel's dynamic shared memory limit where the launch needs more
// than is available without opting in.
int prepare_launch(device* d, kernel* k, fl_dim3 grid, fl_dim3 block, size_t shared_bytes) {
  const fl_device_props& p = d->props;
  const std::string where = "launch of " + k->name;
  const uint32_t block_dim[3] = {block.x, block.y, block.z};
  const uint32_t grid_dim[3] = {grid.x, grid.y, grid.z};
  const char* axis[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    if (block_dim[i] < 1 || block_dim[i] > static_cast<uint32_t>(p.max_block_dim[i]))
      return fail(where + ": block." + axis[i] + " must be in [1, " + std::to_string(p.max_block_dim[i]) + "] on " +
                  d->label + ", got " + std::to_string(block_dim[i]));
    if (grid_dim[i] < 1 || grid_dim[i] > static_cast<uint32_t>(p.max_grid_dim[i]))
      return fail(where + ": grid." + axis[i] + " must be in [1, " + std::to_string(p.max_grid_dim[i]) + "] on " +
                  d->label + ", got " + std::to_string(grid_dim[i]));
  }
  const uint64_t threads = uint64_t(block.x) * block.y * block.z;
  if (threads > static_cast<uint64_t>(p.max_threads_per_block))
    return fail(where + ": block must have at most " + std::to_string(p.max_threads_per_block) + " threads on " +
                d->label + ", got " + std::to_string(threads) + " (" + dims(block) + ")");

  std::lock_guard<std::mutex> lock(k->mutex);
  if (int r = read_attributes(d, k)) return r;
  if (threads > static_cast<uint64_t>(k->max_threads))
    return fail(where + ": block must have at most " + std::to_string(k->max_threads) +
                " threads for this kernel (its register use limits it), got " + std::to_string(threads) + " (" +
                dims(block) + ")");
  if (k->static_shared + shared_bytes > p.shared_per_block_optin)
    return fail(where + ": shared_bytes must be at most " +
                std::to_string(p.shared_per_block_optin - std::min(p.shared_per_block_optin, k->static_shared)) +
                " on " + d->label + " (the kernel uses " + std::to_string(k->static_shared) +
                " bytes of static shared memory), got " + std::to_string(shared_bytes));
  if (shared_bytes > k->dynamic_shared_limit && k->symbol) {
    if (int r = GPU_CHECK(d->ordinal, FuncSetAttribute, k->symbol, gpuFuncAttributeMaxDynamicSharedMemorySize,
                          static_cast<int>(shared_bytes)))
      return r;
    k->dynamic_shared_limit = shared_bytes;
  }
  return 0;
}

#if !defined(FL_GPU_HIP)
// A cooperative launch of more blocks than the GPU holds at once: how many it holds.
int cooperative_too_large(device* d, kernel* k, fl_dim3 grid, fl_dim3 block, size_t shared_bytes) {
  (void)cudaGetLastError();
  int per_sm = 0;
  const int threads = static_cast<int>(block.x * block.y * block.z);
  const bool known = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k->symbol, threads, shared_bytes) == cudaSuccess;
  (void)cudaGetLastError();
  const unsigned long long blocks = 1ull * grid.x * grid.y * grid.z;
  return fail("launch of " + k->name + ": grid must hold " +
              (known ? "at most " + std::to_string(per_sm * d->prop.multiProcessorCount) + " blocks of " + std::to_string(threads) +
                           " threads on " + d->label
                     : "no more blocks than " + d->label + " runs at once") +
              ", as its grid.sync() needs every block resident (a cooperative launch), got " + std::to_string(blocks));
}
#endif

// A GPU reaches what it reaches: `reach` has nothing to check here.
int launch(void* dv, void* kv, fl_dim3 grid, fl_dim3 block, size_t shared_bytes, void** args, const size_t*, int nargs) {
  auto* d = static_cast<device*>(dv);
  auto* k = static_cast<kernel*>(kv);
  if (!d || !k) return fail("launch: device and kernel must be pointers, got null");
  // A kernel's attributes and limits, and a hiprtc module, belong to one device.
  if (k->ordinal != d->ordinal)
    return fail("launch of " + k->name + ": kernel must come from a module of device " + std::to_string(d->ordinal) +
                ", got one of device " + std::to_string(k->ordinal));
  if (k->param_count >= 0 && nargs != k->param_count)
    return fail("launch of " + k->name + ": args must hold " + std::to_string(k->param_count) + " arguments (" +
                k->signature + "), got " + std::to_string(nargs));
  if (nargs > 0 && !args) return fail("launch of " + k->name + ": args must be a pointer, got null");
  if (int r = enter(d)) return r;
  if (int r = prepare_launch(d, k, grid, block, shared_bytes)) return r;

  const char* call = FL_GPU_API "LaunchKernel";
  gpuError_t e;
#if defined(FL_GPU_HIP)
  if (k->cooperative)
    return fail("launch of " + k->name + ": its grid.sync() needs a cooperative launch, which fuselab makes on NVIDIA GPUs only");
  if (k->function) {
    call = "hipModuleLaunchKernel";
    e = hipModuleLaunchKernel(k->function, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                              static_cast<unsigned>(shared_bytes), d->stream, args, nullptr);
  } else
#endif
#if !defined(FL_GPU_HIP)
  if (k->cooperative) {
    call = "cudaLaunchCooperativeKernel";
    e = cudaLaunchCooperativeKernel(k->symbol, dim3(grid.x, grid.y, grid.z), dim3(block.x, block.y, block.z), args,
                                    shared_bytes, d->stream);
    if (e == cudaErrorCooperativeLaunchTooLarge) return cooperative_too_large(d, k, grid, block, shared_bytes);
  } else
#endif
  {
    e = gpuLaunchKernel(k->symbol, dim3(grid.x, grid.y, grid.z), dim3(block.x, block.y, block.z), args,
                        shared_bytes, d->stream);
  }
  if (e == gpuSuccess) launched().note(d->ordinal, k->name);
  // Also resets the last-error state, so that a later call does not report the launch's error again.
  gpuError_t after = gpuGetLastError();
  return check(d->ordinal, call, e != gpuSuccess ? e : after);
}

int synchronize(void* dv) {
  auto* d = static_cast<device*>(dv);
  if (!d) return fail("synchronize: device must be a pointer, got null");
  if (int r = enter(d)) return r;
  return wait_for(d);
}

// A GPU kernel, once launched, runs to completion: only a wait for it ends.
int cancel(void* dv) {
  auto* d = static_cast<device*>(dv);
  if (!d) return 0;
  d->interrupts++;
  return d->waiting.load() > 0 ? 1 : 0;
}

int event_create(void* dv, void** out) {
  auto* d = static_cast<device*>(dv);
  if (!d || !out) return fail("event_create: device and event must be pointers, got null");
  *out = nullptr;
  if (int r = enter(d)) return r;
  gpuEvent_t e = nullptr;
  if (int r = GPU_CHECK(d->ordinal, EventCreate, &e)) return r;
  *out = e;
  return 0;
}

int event_record(void* dv, void* ev) {
  auto* d = static_cast<device*>(dv);
  if (!d || !ev) return fail("event_record: device and event must be pointers, got null");
  if (int r = enter(d)) return r;
  return GPU_CHECK(d->ordinal, EventRecord, static_cast<gpuEvent_t>(ev), d->stream);
}

int event_elapsed(void* dv, void* start, void* end, float* ms) {
  auto* d = static_cast<device*>(dv);
  if (!d || !start || !end || !ms) return fail("event_elapsed: device, start, end and ms must be pointers, got null");
  if (int r = enter(d)) return r;
  if (int r = wait_for(d, static_cast<gpuEvent_t>(end))) return r;
  return GPU_CHECK(d->ordinal, EventElapsedTime, ms, static_cast<gpuEvent_t>(start), static_cast<gpuEvent_t>(end));
}

void event_destroy(void* dv, void* ev) {
  auto* d = static_cast<device*>(dv);
  if (!d || !ev) return;
  if (enter(d) == 0) GPU_CHECK(d->ordinal, EventDestroy, static_cast<gpuEvent_t>(ev));
}

void free_string(char* s) { std::free(s); }

// What the compiler decided (registers, spills, shared and constant memory) and
// the occupancy it allows: attributes of the loaded kernel, and the runtime's
// occupancy calculator for the block size asked.
int kernel_stats(void* dv, void* kv, uint32_t block_threads, size_t dynamic_shared, fl_kernel_stats* out) {
  auto* d = static_cast<device*>(dv);
  auto* k = static_cast<kernel*>(kv);
  if (!d || !k || !out) return fail("kernel_stats: device, kernel and stats must be pointers, got null");
  if (int r = enter(d)) return r;
  if (block_threads < 1 || block_threads > static_cast<uint32_t>(d->props.max_threads_per_block))
    return fail("kernel_stats of " + k->name + ": block must have 1 to " + std::to_string(d->props.max_threads_per_block) +
                " threads on " + d->label + ", got " + std::to_string(block_threads));
  *out = fl_kernel_stats{};
  int blocks = 0;
#if defined(FL_GPU_HIP)
  if (k->function) {
    int registers = 0, local = 0, shared = 0, constant = 0, threads = 0;
    const std::pair<hipFunction_attribute, int*> attributes[] = {
        {HIP_FUNC_ATTRIBUTE_NUM_REGS, &registers}, {HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &local},
        {HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &shared}, {HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, &constant},
        {HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &threads}};
    for (const auto& [attribute, value] : attributes) {
      if (int r = check(d->ordinal, "hipFuncGetAttribute", hipFuncGetAttribute(value, attribute, k->function))) return r;
    }
    if (int r = check(d->ordinal, "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor",
                      hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k->function,
                                                                         static_cast<int>(block_threads), dynamic_shared)))
      return r;
    *out = {registers, static_cast<size_t>(local), static_cast<size_t>(shared), static_cast<size_t>(constant), threads,
            blocks, d->prop.maxThreadsPerMultiProcessor};
    return 0;
  }
#endif
  gpuFuncAttributes attributes{};
  if (int r = GPU_CHECK(d->ordinal, FuncGetAttributes, &attributes, k->symbol)) return r;
  if (int r = GPU_CHECK(d->ordinal, OccupancyMaxActiveBlocksPerMultiprocessor, &blocks, k->symbol,
                        static_cast<int>(block_threads), dynamic_shared))
    return r;
  *out = {attributes.numRegs, attributes.localSizeBytes, attributes.sharedSizeBytes, attributes.constSizeBytes,
          attributes.maxThreadsPerBlock, blocks, d->prop.maxThreadsPerMultiProcessor};
  return 0;
}

int module_symbol(void* mv, const char* name, void** address, size_t* bytes) {
  auto* m = static_cast<module*>(mv);
  if (!m || !name || !address || !bytes) return fail("module_symbol: module, name, address and bytes must be pointers, got null");
  if (!m->loaded) return fail(std::string("module_symbol: the built-in kernels have no variable '") + name + "'");
#if defined(FL_GPU_HIP)
  hipDeviceptr_t found = nullptr;
  hipError_t e = hipModuleGetGlobal(&found, bytes, m->loaded, name);
#else
  void* found = nullptr;
  cudaError_t e = cudaLibraryGetGlobal(&found, bytes, m->loaded, name);
#endif
  if (e != gpuSuccess) {
    clear_error();
    return fail(std::string("module_symbol: the module has no __constant__ or __device__ variable '") + name +
                "' at namespace scope");
  }
  *address = reinterpret_cast<void*>(found);
  return 0;
}

// Filled by field name: a reordered fl_backend cannot wire a function into the wrong slot.
fl_backend make_backend() {
  fl_backend b{};
  b.abi = FL_BACKEND_ABI;
  b.name = FL_GPU_BACKEND_NAME;
  b.last_error = last_error;
  b.probe = probe;
  b.notes = notes;
  b.device_count = device_count;
  b.open = open;
  b.close = close;
  b.props = props;
  b.alloc = alloc;
  b.release = release;
  b.upload = upload;
  b.download = download;
  b.copy = copy;
  b.fill = fill;
  b.module_builtin = module_builtin;
  b.module_compile = module_compile;
  b.module_unload = module_unload;
  b.kernel_count = kernel_count;
  b.kernel_info = kernel_info;
  b.kernel_get = kernel_get;
  b.launch = launch;
  b.synchronize = synchronize;
  b.cancel = cancel;
  b.event_create = event_create;
  b.event_record = event_record;
  b.event_elapsed = event_elapsed;
  b.event_destroy = event_destroy;
  b.free_string = free_string;
  b.kernel_stats = kernel_stats;
  b.module_symbol = module_symbol;
  b.module_check = module_check;
  return b;
}

}  // namespace
}  // namespace fl::gpu

extern "C" __attribute__((visibility("default"))) const fl_backend* fuselab_backend(void) {
  static const fl_backend backend = fl::gpu::make_backend();
  return &backend;
}
