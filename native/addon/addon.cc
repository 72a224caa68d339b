// The Node addon: implements src/native.ts over the backend plugins.
#include <napi.h>

#include <cmath>
#include <cstring>

#include "async.h"
#include "extents.h"
#include "handles.h"
#include "interrupts.h"
#include "marshal.h"
#include "plugins.h"
#include "sandbox.h"

namespace fl::addon {
namespace {

[[noreturn]] void throw_failure(Napi::Env env, const DeviceState& device, const char* call) {
  throw Napi::Error::New(env, device.failure(call));
}

Napi::Array string_array(Napi::Env env, const std::vector<std::string>& items) {
  Napi::Array array = Napi::Array::New(env, items.size());
  for (size_t i = 0; i < items.size(); ++i) array.Set(static_cast<uint32_t>(i), items[i]);
  return array;
}

Napi::Array int_triple(Napi::Env env, const int values[3]) {
  Napi::Array array = Napi::Array::New(env, 3);
  for (uint32_t i = 0; i < 3; ++i) array.Set(i, values[i]);
  return array;
}

Napi::Value backends(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::vector<Plugin>& all = plugins();
  Napi::Array result = Napi::Array::New(env, all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    const Plugin& p = all[i];
    Napi::Object status = Napi::Object::New(env);
    status.Set("name", p.name);
    status.Set("library", p.library);
    status.Set("built", p.built);
    status.Set("loaded", p.loaded);
    if (!p.reason.empty()) status.Set("reason", p.reason);
    status.Set("notes", string_array(env, p.notes));
    status.Set("deviceCount", p.device_count);
    result.Set(static_cast<uint32_t>(i), status);
  }
  return result;
}

int int_option(const Napi::Object& options, const char* key) {
  const Napi::Value value = options.Get(key);
  if (value.IsUndefined()) return 0;
  if (value.IsBoolean()) return value.As<Napi::Boolean>().Value() ? 1 : 0;
  if (!value.IsNumber()) throw Napi::TypeError::New(options.Env(), std::string("open options.") + key + " must be a number");
  const double v = value.As<Napi::Number>().DoubleValue();
  if (!integer_in(v, 0, 2147483647.0)) {
    throw Napi::RangeError::New(options.Env(), std::string("open options.") + key + " must be a non-negative integer");
  }
  return static_cast<int>(v);
}

Napi::Value open(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString()) throw Napi::TypeError::New(env, "open: backend must be a string");
  if (!info[1].IsNumber()) throw Napi::TypeError::New(env, "open: index must be a number");
  std::string why;
  const Plugin* plugin = find_plugin(info[0].As<Napi::String>().Utf8Value(), &why);
  if (plugin == nullptr) throw Napi::Error::New(env, why);
  const double index = info[1].As<Napi::Number>().DoubleValue();
  if (!integer_in(index, 0, plugin->device_count - 1)) {
    throw Napi::RangeError::New(env, "open: backend " + plugin->name + " has " + std::to_string(plugin->device_count) +
                                         " device(s), there is no device " + Napi::Number::New(env, index).ToString().Utf8Value());
  }
  fl_device_options options{};
  if (info[2].IsObject()) {
    const Napi::Object o = info[2].As<Napi::Object>();
    options.warp_size = int_option(o, "warpSize");
    options.check = int_option(o, "check");
    options.threads = int_option(o, "threads");
    options.timeout_ms = int_option(o, "timeoutMs");
  }
  void* handle = nullptr;
  if (plugin->api->open(static_cast<int>(index), &options, &handle) != 0) {
    throw Napi::Error::New(env, plugin->name + " open: " + backend_error(plugin->api));
  }
  auto device = std::make_shared<DeviceState>();
  device->api = plugin->api;
  device->backend = plugin->name;
  device->device = handle;
  if (plugin->api->props(handle, &device->props) != 0) throw_failure(env, *device, "props");
  remember_device(device);
  return wrap_handle(env, std::move(device), &kDeviceTag);
}

Napi::Value close(const Napi::CallbackInfo& info) {
  // The backend device itself closes once every buffer, module and launch on it is gone.
  unwrap_handle<DeviceState>(info[0], &kDeviceTag, "device")->closed = true;
  return info.Env().Undefined();
}

Napi::Value props(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const fl_device_props& p = live_device(info[0])->props;
  Napi::Object o = Napi::Object::New(env);
  o.Set("name", std::string(p.name, strnlen(p.name, sizeof p.name)));
  o.Set("arch", std::string(p.arch, strnlen(p.arch, sizeof p.arch)));
  o.Set("warpSize", p.warp_size);
  o.Set("multiprocessors", p.multiprocessors);
  o.Set("maxThreadsPerBlock", p.max_threads_per_block);
  o.Set("maxBlockDim", int_triple(env, p.max_block_dim));
  o.Set("maxGridDim", int_triple(env, p.max_grid_dim));
  o.Set("sharedPerBlock", static_cast<double>(p.shared_per_block));
  o.Set("sharedPerBlockOptin", static_cast<double>(p.shared_per_block_optin));
  o.Set("totalMemory", static_cast<double>(p.total_memory));
  o.Set("l2Bytes", static_cast<double>(p.l2_bytes));
  o.Set("peakBandwidthGBs", p.peak_bandwidth_gbs);
  return o;
}

// Buffers tell V8 how much memory they hold, so that forgotten ones are
// collected (and their memory freed) under pressure.
void release_slot(Napi::Env env, BufferSlot* slot) {
  if (!slot->allocation) return;
  const size_t bytes = slot->allocation->bytes;
  slot->allocation.reset();
  Napi::MemoryManagement::AdjustExternalMemory(env, -static_cast<int64_t>(bytes));
}

Napi::Value alloc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<DeviceState> device = live_device(info[0]);
  const size_t bytes = byte_count(info[1], "alloc: bytes");
  if (bytes == 0) throw Napi::RangeError::New(env, "alloc: bytes must be positive");
  void* ptr = nullptr;
  if (device->api->alloc(device->device, bytes, &ptr) != 0) throw_failure(env, *device, "alloc");
  auto slot = std::make_shared<BufferSlot>();
  slot->allocation = std::make_shared<Allocation>(device, ptr, bytes);
  Napi::MemoryManagement::AdjustExternalMemory(env, static_cast<int64_t>(bytes));
  auto external = Napi::External<std::shared_ptr<BufferSlot>>::New(
      env, new std::shared_ptr<BufferSlot>(std::move(slot)), [](Napi::Env env, std::shared_ptr<BufferSlot>* held) {
        release_slot(env, held->get());
        delete held;
      });
  external.TypeTag(&kBufferTag);
  return external;
}

Napi::Value release(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<BufferSlot>& slot = unwrap_handle<BufferSlot>(info[0], &kBufferTag, "buffer");
  if (!slot->allocation) throw Napi::Error::New(env, "release: the buffer was already released");
  std::shared_ptr<Allocation> allocation = slot->allocation;
  release_slot(env, slot.get());
  // Free now unless a worker or a prepared launch still holds it; then the last holder frees it.
  if (allocation.use_count() == 1 && allocation->free_now() != 0) {
    throw_failure(env, *allocation->device, "release");
  }
  return env.Undefined();
}

// Where host bytes go in (or come from) a buffer: byteOffset + the view's length must fit.
size_t checked_offset(const Napi::CallbackInfo& info, const Allocation& a, const HostBytes& host, const char* call) {
  const size_t offset = info[2].IsUndefined() ? 0 : byte_count(info[2], "byteOffset");
  if (offset > a.bytes || host.bytes > a.bytes - offset) {
    throw Napi::RangeError::New(info.Env(), std::string(call) + ": " + std::to_string(host.bytes) + " bytes at offset " +
                                                std::to_string(offset) + " do not fit in a buffer of " + std::to_string(a.bytes) + " bytes");
  }
  return offset;
}

// upload(buf, src, byteOffset?) and download(buf, dst, byteOffset?): host bytes
// into or out of a buffer, at byteOffset.
template <bool kUpload>
Napi::Value transfer(const Napi::CallbackInfo& info) {
  const char* call = kUpload ? "upload" : "download";
  std::shared_ptr<Allocation> a = live_allocation(info[0]);
  const HostBytes host = host_bytes(info[1], kUpload ? "upload: src" : "download: dst");
  const size_t offset = checked_offset(info, *a, host, call);
  uint8_t* device_bytes = static_cast<uint8_t*>(a->ptr) + offset;
  const int status = host.bytes == 0 ? 0
                     : kUpload       ? a->device->api->upload(a->device->device, device_bytes, host.data, host.bytes)
                                     : a->device->api->download(a->device->device, host.data, device_bytes, host.bytes);
  if (status != 0) throw_failure(info.Env(), *a->device, call);
  return info.Env().Undefined();
}

Napi::Value copy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<Allocation> dst = live_allocation(info[0]);
  std::shared_ptr<Allocation> src = live_allocation(info[1]);
  const size_t bytes = byte_count(info[2], "copy: bytes");
  if (dst->device != src->device) throw Napi::Error::New(env, "copy: the buffers are on different devices");
  if (bytes > dst->bytes || bytes > src->bytes) {
    throw Napi::RangeError::New(env, "copy: " + std::to_string(bytes) + " bytes do not fit (source " +
                                         std::to_string(src->bytes) + " bytes, destination " + std::to_string(dst->bytes) + " bytes)");
  }
  if (bytes > 0 && dst->device->api->copy(dst->device->device, dst->ptr, src->ptr, bytes) != 0) {
    throw_failure(env, *dst->device, "copy");
  }
  return env.Undefined();
}

Napi::Value fill(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<Allocation> a = live_allocation(info[0]);
  const size_t byte = byte_count(info[1], "fill: byte");
  if (byte > 255) throw Napi::RangeError::New(env, "fill: byte must be from 0 to 255");
  if (a->device->api->fill(a->device->device, a->ptr, static_cast<int>(byte), a->bytes) != 0) {
    throw_failure(env, *a->device, "fill");
  }
  return env.Undefined();
}

// A module variable's address and size (module_symbol); throws when it has none of that name.
std::pair<void*, size_t> find_symbol(const Napi::CallbackInfo& info, const char* call) {
  Napi::Env env = info.Env();
  std::shared_ptr<ModuleState> module = live_module(info[0]);
  if (!info[1].IsString()) throw Napi::TypeError::New(env, std::string(call) + ": name must be a string");
  const std::string name = info[1].As<Napi::String>().Utf8Value();
  DeviceState& d = *module->device;
  if (!d.api->module_symbol) throw Napi::Error::New(env, std::string(call) + ": the " + d.backend + " backend cannot reach module variables");
  void* address = nullptr;
  size_t bytes = 0;
  if (d.api->module_symbol(module->module, name.c_str(), &address, &bytes) != 0) throw_failure(env, d, call);
  return {address, bytes};
}

// symbol(module, name): the size in bytes of a __constant__ variable of the module.
Napi::Value symbol(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(find_symbol(info, "symbol").second));
}

// writeSymbol(module, name, data, pointers?) writes data at the start of the
// variable, in stream order (cudaMemcpyToSymbol), with the addresses of the
// buffers `pointers` lists ([{ offset, buffer, byteOffset? }]: a pointer variable,
// a struct's pointer members) written in; readSymbol(module, name, data) reads the
// start of it into data once the launches before it are done (cudaMemcpyFromSymbol).
template <bool kWrite>
Napi::Value symbol_transfer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* call = kWrite ? "writeSymbol" : "readSymbol";
  const auto [address, bytes] = find_symbol(info, call);
  const HostBytes host = host_bytes(info[2], kWrite ? "writeSymbol: data" : "readSymbol: data");
  if (host.bytes > bytes) {
    throw Napi::RangeError::New(env, std::string(call) + ": " + std::to_string(host.bytes) + " bytes do not fit in a " +
                                         std::to_string(bytes) + "-byte variable");
  }
  const std::shared_ptr<DeviceState>& device = live_module(info[0])->device;
  DeviceState& d = *device;
  // A write with pointers goes from a copy of the data with their addresses in it.
  std::vector<uint8_t> with_pointers;
  const uint8_t* source = host.data;
  if (kWrite && info.Length() > 3 && !info[3].IsUndefined()) {
    with_pointers.assign(host.data, host.data + host.bytes);
    const std::string problem = write_pointers(info[3], device, with_pointers.data(), with_pointers.size(), [](PointerArg) {});
    if (!problem.empty()) throw Napi::TypeError::New(env, std::string(call) + ": the data " + problem);
    source = with_pointers.data();
  }
  const int status = host.bytes == 0 ? 0
                     : kWrite        ? d.api->upload(d.device, address, source, host.bytes)
                                     : d.api->download(d.device, host.data, address, host.bytes);
  if (status != 0) throw_failure(env, d, call);
  return env.Undefined();
}

Napi::Value builtin(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<DeviceState> device = live_device(info[0]);
  void* module = nullptr;
  if (device->api->module_builtin(device->device, &module) != 0) throw_failure(env, *device, "module_builtin");
  return wrap_handle(env, std::make_shared<ModuleState>(device, module), &kModuleTag);
}

Napi::Value compile(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<DeviceState> device = live_device(info[0]);
  if (!info[1].IsString()) throw Napi::TypeError::New(env, "compile: source must be a string");
  const std::string source = info[1].As<Napi::String>().Utf8Value();
  const std::string names = join_strings(info[2], "compile: kernelNames", '\n');
  const std::string options = join_strings(info[3], "compile: options", ' ');
  const int timeout_ms = milliseconds(info[4], "compile: timeoutMs");
  void* module = nullptr;
  char* log = nullptr;
  if (device->api->module_compile(device->device, source.c_str(), names.c_str(), options.c_str(), timeout_ms, &module,
                                  &log) != 0) {
    Napi::Error error = Napi::Error::New(env, device->failure("compile"));
    if (log != nullptr) {
      error.Set("log", Napi::String::New(env, log));
      device->api->free_string(log);
    }
    throw error;
  }
  if (log != nullptr) device->api->free_string(log);
  return wrap_handle(env, std::make_shared<ModuleState>(device, module), &kModuleTag);
}

// A compile for a GPU architecture, with no device: { symbols, log }, or an error with .log.
Napi::Value compile_check(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString()) throw Napi::TypeError::New(env, "compileCheck: backend must be a string");
  if (!info[1].IsString()) throw Napi::TypeError::New(env, "compileCheck: arch must be a string");
  if (!info[2].IsString()) throw Napi::TypeError::New(env, "compileCheck: source must be a string");
  std::string why;
  const Plugin* plugin = find_plugin_library(info[0].As<Napi::String>().Utf8Value(), &why);
  if (plugin == nullptr) throw Napi::Error::New(env, why);
  const fl_backend* api = plugin->table;
  if (api->module_check == nullptr) {
    throw Napi::Error::New(env, "compileCheck: the " + plugin->name + " backend has no run-time compiler of its own");
  }
  const std::string arch = info[1].As<Napi::String>().Utf8Value();
  const std::string source = info[2].As<Napi::String>().Utf8Value();
  const std::string names = join_strings(info[3], "compileCheck: kernelNames", '\n');
  const std::string options = join_strings(info[4], "compileCheck: options", ' ');
  char* symbols = nullptr;
  char* log = nullptr;
  const int status = api->module_check(arch.c_str(), source.c_str(), names.c_str(), options.c_str(), &symbols, &log);
  const std::string log_text = log != nullptr ? log : "";
  if (log != nullptr) api->free_string(log);
  if (status != 0) {
    Napi::Error error = Napi::Error::New(env, plugin->name + " compile for " + arch + ": " + backend_error(api));
    if (!log_text.empty()) error.Set("log", Napi::String::New(env, log_text));
    throw error;
  }
  const std::vector<std::string> lines = split_lines(symbols);
  if (symbols != nullptr) api->free_string(symbols);
  Napi::Object result = Napi::Object::New(env);
  result.Set("symbols", string_array(env, lines));
  result.Set("log", log_text);
  return result;
}

Napi::Value unload(const Napi::CallbackInfo& info) {
  std::shared_ptr<ModuleState>& module = unwrap_handle<ModuleState>(info[0], &kModuleTag, "module");
  if (module->unloaded) throw Napi::Error::New(info.Env(), "unload: the module was already unloaded");
  module->unloaded = true;
  return info.Env().Undefined();
}

// The kernel's name, parameters and, where its export gives them, their names and extents.
void describe_kernel(Napi::Env env, const std::string& name, const fl_kernel_info& info, KernelState* kernel) {
  kernel->name = name;
  if (info.signature != nullptr) {
    kernel->has_signature = true;
    kernel->signature = info.signature;
    kernel->params = parse_signature(kernel->signature);
  }
  if (info.params != nullptr) read_param_names(env, info.params, kernel);
}

Napi::Value kernels(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<ModuleState> module = live_module(info[0]);
  const fl_backend* api = module->device->api;
  int count = 0;
  if (api->kernel_count(module->module, &count) != 0) throw_failure(env, *module->device, "kernel_count");
  Napi::Array result = Napi::Array::New(env, count);
  for (int i = 0; i < count; ++i) {
    fl_kernel_info info{};
    if (api->kernel_info(module->module, i, &info) != 0) throw_failure(env, *module->device, "kernel_info");
    KernelState kernel;
    describe_kernel(env, info.name ? info.name : "", info, &kernel);
    Napi::Object o = Napi::Object::New(env);
    o.Set("name", kernel.name);
    o.Set("signature", kernel.has_signature ? Napi::Value(Napi::String::New(env, kernel.signature)) : env.Null());
    o.Set("params", info.params ? Napi::Value(Napi::String::New(env, info.params)) : env.Null());
    result.Set(static_cast<uint32_t>(i), o);
  }
  return result;
}

Napi::Value kernel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<ModuleState> module = live_module(info[0]);
  if (!info[1].IsString()) throw Napi::TypeError::New(env, "kernel: name must be a string");
  auto state = std::make_shared<KernelState>();
  state->module = module;
  fl_kernel_info described{};
  const std::string name = info[1].As<Napi::String>().Utf8Value();
  if (module->device->api->kernel_get(module->module, name.c_str(), &state->kernel, &described) != 0) {
    throw_failure(env, *module->device, "kernel_get");
  }
  describe_kernel(env, name, described, state.get());
  return wrap_handle(env, std::move(state), &kKernelTag);
}

// kernelStats(kernel, blockThreads, dynamicSharedBytes): the compiler's facts
// and the occupancy they allow, or null where the backend has no compiler to ask.
Napi::Value kernel_stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<KernelState>& k = unwrap_handle<KernelState>(info[0], &kKernelTag, "kernel");
  if (k->module->unloaded) throw Napi::Error::New(env, "kernel " + k->name + ": its module was unloaded");
  const DeviceState& device = *k->module->device;
  if (device.closed) throw Napi::Error::New(env, "kernel " + k->name + ": its device was closed");
  if (!info[1].IsNumber() || !info[2].IsNumber()) {
    throw Napi::TypeError::New(env, "kernelStats: blockThreads and dynamicSharedBytes must be numbers");
  }
  const double threads = info[1].As<Napi::Number>().DoubleValue();
  const double shared = info[2].As<Napi::Number>().DoubleValue();
  if (!(threads >= 1 && threads <= 4294967295.0 && std::floor(threads) == threads) ||
      !(shared >= 0 && shared <= 9007199254740991.0 && std::floor(shared) == shared)) {
    throw Napi::RangeError::New(env, "kernelStats: blockThreads must be a positive integer and dynamicSharedBytes an integer >= 0");
  }
  if (device.api->kernel_stats == nullptr) return env.Null();
  fl_kernel_stats stats{};
  if (device.api->kernel_stats(device.device, k->kernel, static_cast<uint32_t>(threads), static_cast<size_t>(shared),
                               &stats) != 0) {
    throw_failure(env, device, "kernel_stats");
  }
  Napi::Object o = Napi::Object::New(env);
  o.Set("registers", stats.registers);
  o.Set("localBytes", static_cast<double>(stats.local_bytes));
  o.Set("staticSharedBytes", static_cast<double>(stats.static_shared_bytes));
  o.Set("constBytes", static_cast<double>(stats.const_bytes));
  o.Set("maxThreadsPerBlock", stats.max_threads_per_block);
  o.Set("blocksPerMultiprocessor", stats.blocks_per_multiprocessor);
  o.Set("maxThreadsPerMultiprocessor", stats.max_threads_per_multiprocessor);
  return o;
}

Napi::Value run_launch(Napi::Env env, LaunchState& packed) {
  if (packed.run() != 0) throw_failure(env, *packed.device(), ("launch " + packed.kernel->name).c_str());
  return env.Undefined();
}

Napi::Value launch(const Napi::CallbackInfo& info) {
  return run_launch(info.Env(), *pack_launch(info, unwrap_handle<KernelState>(info[0], &kKernelTag, "kernel")));
}

Napi::Value prepare(const Napi::CallbackInfo& info) {
  return wrap_handle(info.Env(), pack_launch(info, unwrap_handle<KernelState>(info[0], &kKernelTag, "kernel")), &kLaunchTag);
}

Napi::Value launch_prepared(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<LaunchState>& packed = unwrap_handle<LaunchState>(info[0], &kLaunchTag, "prepared launch");
  check_launch_alive(env, *packed);
  return run_launch(env, *packed);
}

Napi::Value cancel(const Napi::CallbackInfo& info) {
  std::shared_ptr<DeviceState> device = live_device(info[0]);
  // Seen by a bench() loop between iterations; the backend stops a running launch where it can.
  device->cancel_requested = true;
  const bool stopped = device->api->cancel != nullptr && device->api->cancel(device->device) != 0;
  return Napi::Boolean::New(info.Env(), stopped);
}

Napi::Value watch_interrupts_now(const Napi::CallbackInfo& info) {
  watch_interrupts();
  return info.Env().Undefined();
}

}  // namespace

Napi::Object init(Napi::Env env, Napi::Object exports) {
  // Each one used by src/ (test/addon.test.ts checks): what only tests would call is not exported.
  const std::pair<const char*, Napi::Function::Callback> functions[] = {
      {"backends", backends},
      {"open", open},
      {"close", close},
      {"props", props},
      {"alloc", alloc},
      {"release", release},
      {"upload", transfer<true>},
      {"download", transfer<false>},
      {"downloadAsync", download_async},
      {"copy", copy},
      {"fill", fill},
      {"builtin", builtin},
      {"compile", compile},
      {"compileAsync", compile_async},
      {"compileCheck", compile_check},
      {"unload", unload},
      {"kernels", kernels},
      {"symbol", symbol},
      {"writeSymbol", symbol_transfer<true>},
      {"readSymbol", symbol_transfer<false>},
      {"kernel", kernel},
      {"kernelStats", kernel_stats},
      {"launch", launch},
      {"prepare", prepare},
      {"launchPrepared", launch_prepared},
      {"synchronize", synchronize_async},
      {"cancel", cancel},
      {"watchInterrupts", watch_interrupts_now},
      {"bench", bench_async},
      {"sandboxLock", sandbox_lock_call},
  };
  for (const auto& [name, fn] : functions) exports.Set(name, Napi::Function::New(env, fn, name));
  return exports;
}

}  // namespace fl::addon

Napi::Object InitFuselab(Napi::Env env, Napi::Object exports) { return fl::addon::init(env, exports); }

NODE_API_MODULE(fuselab, InitFuselab)
