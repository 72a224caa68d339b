// What the addon's JS handles point to. Each handle is a type-tagged
// Napi::External owning a std::shared_ptr, so that:
//  - a handle of the wrong kind is refused, never reinterpreted;
//  - a device stays open while anything allocated on it lives, and memory that a
//    worker thread still uses (download, bench) is freed only after that work;
//  - release()/unload()/close() from JS mark the handle dead at once, and later
//    use throws instead of touching freed memory.
#ifndef FUSELAB_ADDON_HANDLES_H
#define FUSELAB_ADDON_HANDLES_H

#include <napi.h>

#include <atomic>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "plugins.h"

namespace fl::addon {

struct DeviceState {
  const fl_backend* api = nullptr;
  std::string backend;
  void* device = nullptr;
  fl_device_props props{};
  std::atomic<bool> closed{false};
  std::atomic<bool> cancel_requested{false};

  DeviceState() = default;
  DeviceState(const DeviceState&) = delete;
  DeviceState& operator=(const DeviceState&) = delete;
  ~DeviceState() { api->close(device); }

  // "<backend> <call>: <backend's reason>", the text of every backend failure.
  std::string failure(const char* call) const { return backend + " " + call + ": " + backend_error(api); }
};

// One device allocation, freed when its last owner lets go.
struct Allocation {
  std::shared_ptr<DeviceState> device;
  void* ptr = nullptr;
  size_t bytes = 0;
  bool freed = false;

  Allocation(std::shared_ptr<DeviceState> d, void* p, size_t n) : device(std::move(d)), ptr(p), bytes(n) {}
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;
  // Returns the backend's status so that an explicit release can report it.
  int free_now() {
    freed = true;
    return device->api->release(device->device, ptr);
  }
  ~Allocation() {
    if (!freed) free_now();
  }
};

// What a BufferHandle points to: the allocation until release().
struct BufferSlot {
  std::shared_ptr<Allocation> allocation;
};

struct ModuleState {
  std::shared_ptr<DeviceState> device;
  void* module = nullptr;
  std::atomic<bool> unloaded{false};

  ModuleState(std::shared_ptr<DeviceState> d, void* m) : device(std::move(d)), module(m) {}
  ModuleState(const ModuleState&) = delete;
  ModuleState& operator=(const ModuleState&) = delete;
  ~ModuleState() { device->api->module_unload(device->device, module); }
};

// An element or scalar type of a signature ("f32", "i64", "bf16", "void").
struct ValueType {
  const char* name;
  size_t bytes;
  bool integer;
  bool is_signed;
  bool scalar;  // a launch can pass it by value (not void; f16 and bf16 as their bits)
};

// The type of that name, or null.
const ValueType* find_value_type(const std::string& name);

// How many elements a pointer argument may reach: an expression over integer
// literals and the kernel's integer scalars, in postfix order (extents.cc).
struct Extent {
  enum Op { kLiteral, kScalar, kAdd, kMultiply };
  struct Step {
    Op op;
    uint64_t literal = 0;  // kLiteral
    size_t scalar = 0;     // kScalar: the argument's index
  };
  std::string text;        // as exported: "rows*cols"
  std::vector<Step> steps; // empty: no extent
};

// One parameter of a kernel signature: "const f32*" is a pointer to f32.
struct ParamKind {
  bool pointer = false;
  std::string type;  // element type for pointers ("void" for other pointees)
  std::string name;  // "" unless the export names it
  Extent extent;     // pointers of built-in kernels
};

struct KernelState {
  std::shared_ptr<ModuleState> module;
  void* kernel = nullptr;
  std::string name;
  bool has_signature = false;
  std::string signature;  // "f32* out,const f32* x,i32 n"; without names where none are known
  std::vector<ParamKind> params;

  // "argument 1 (x)" in messages, or "argument 1" where the name is unknown.
  std::string argument(size_t index) const {
    const std::string label = "argument " + std::to_string(index);
    if (index >= params.size() || params[index].name.empty()) return label;
    return label + " (" + params[index].name + ")";
  }
};

// A pointer argument of a launch: a buffer, a view into one, or null.
struct PointerArg {
  size_t index = 0;                   // the argument's position
  std::shared_ptr<BufferSlot> slot;   // null for a null pointer; to refuse replays of released buffers
  size_t bytes = 0;                   // what it may reach: the buffer's bytes, or the view's
  bool view = false;                  // points into its buffer at an offset, or ends before its end
};

// A launch with its arguments packed once (launch(), prepare(), bench()).
struct LaunchState {
  std::shared_ptr<KernelState> kernel;
  fl_dim3 grid{1, 1, 1};
  fl_dim3 block{1, 1, 1};
  size_t shared_bytes = 0;
  std::vector<uint64_t> storage;     // one 8-byte slot an argument: pointers and scalars
  std::vector<std::unique_ptr<uint64_t[]>> records;  // the bytes of the structs passed by value
  std::vector<void*> args;           // args[i]: &storage[i], or a struct's bytes
  std::vector<size_t> reach;         // per argument: the bytes a pointer may reach (backend.h's launch)
  std::vector<PointerArg> pointers;  // the pointer arguments, in order
  std::vector<std::shared_ptr<Allocation>> allocations;         // keep the memory alive while packed

  const std::shared_ptr<DeviceState>& device() const { return kernel->module->device; }
  int run() {
    return device()->api->launch(device()->device, kernel->kernel, grid, block, shared_bytes, args.data(),
                                 reach.data(), static_cast<int>(args.size()));
  }
};

// Type tags: one a handle kind.
extern const napi_type_tag kDeviceTag, kBufferTag, kModuleTag, kKernelTag, kLaunchTag;

template <typename T>
Napi::External<std::shared_ptr<T>> wrap_handle(Napi::Env env, std::shared_ptr<T> state, const napi_type_tag* tag) {
  auto external = Napi::External<std::shared_ptr<T>>::New(
      env, new std::shared_ptr<T>(std::move(state)), [](Napi::Env, std::shared_ptr<T>* held) { delete held; });
  external.TypeTag(tag);
  return external;
}

// The state behind a handle of the kind `what`; throws a TypeError for anything else.
template <typename T>
std::shared_ptr<T>& unwrap_handle(const Napi::Value& value, const napi_type_tag* tag, const char* what) {
  if (!value.IsExternal() || !value.As<Napi::External<std::shared_ptr<T>>>().CheckTypeTag(tag)) {
    throw Napi::TypeError::New(value.Env(), std::string("expected a ") + what + " handle");
  }
  return *value.As<Napi::External<std::shared_ptr<T>>>().Data();
}

// Handles checked for use: each throws when the handle is of the wrong kind or dead.
std::shared_ptr<DeviceState> live_device(const Napi::Value& value);
std::shared_ptr<Allocation> live_allocation(const Napi::Value& value);
std::shared_ptr<ModuleState> live_module(const Napi::Value& value);

// The bytes of an ArrayBufferView (typed array, DataView, Buffer).
struct HostBytes {
  uint8_t* data = nullptr;
  size_t bytes = 0;
};
HostBytes host_bytes(const Napi::Value& value, const char* what);

// A JS array of strings joined with `separator`.
std::string join_strings(const Napi::Value& value, const char* what, char separator);

// Whether `v` is an integer from `lo` to `hi` (never for NaN).
inline bool integer_in(double v, double lo, double hi) { return v >= lo && v <= hi && std::trunc(v) == v; }

// A time limit in milliseconds from JS: an integer from 0 (none) to 2^31 - 1.
int milliseconds(const Napi::Value& value, const char* what);

// A byte count from JS: a non-negative integer no larger than 2^53.
size_t byte_count(const Napi::Value& value, const char* what);

}  // namespace fl::addon

#endif
