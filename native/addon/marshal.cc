#include "marshal.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "extents.h"

namespace fl::addon {
namespace {

std::string trim(const std::string& s) {
  const size_t first = s.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(' ') - first + 1);
}

[[noreturn]] void fail(Napi::Env env, const KernelState& kernel, size_t index, const std::string& message) {
  throw Napi::Error::New(env, "kernel " + kernel.name + ": " + kernel.argument(index) + " " + message);
}

// The integer value of a JS number or bigint, when it fits `type`.
bool integer_value(const Napi::Value& value, const ValueType& type, uint64_t* bits) {
  if (value.IsBigInt()) {
    bool lossless = false;
    if (type.is_signed) {
      const int64_t v = value.As<Napi::BigInt>().Int64Value(&lossless);
      if (!lossless) return false;
      if (type.bytes < 8) {
        const int64_t limit = int64_t{1} << (type.bytes * 8 - 1);
        if (v < -limit || v >= limit) return false;
      }
      *bits = static_cast<uint64_t>(v);
    } else {
      const uint64_t v = value.As<Napi::BigInt>().Uint64Value(&lossless);
      if (!lossless) return false;
      if (type.bytes < 8 && v >= (uint64_t{1} << (type.bytes * 8))) return false;
      *bits = v;
    }
    return true;
  }
  const double v = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(v) || std::trunc(v) != v) return false;
  // Beyond 2^53 a double no longer names one integer: such values must come as bigint.
  if (std::fabs(v) > 9007199254740992.0) return false;
  if (type.is_signed) {
    const double limit = std::ldexp(1.0, static_cast<int>(type.bytes * 8 - 1));
    if (v < -limit || v >= limit) return false;
    *bits = static_cast<uint64_t>(static_cast<int64_t>(v));
  } else {
    if (v < 0 || v >= std::ldexp(1.0, static_cast<int>(type.bytes * 8))) return false;
    *bits = static_cast<uint64_t>(v);
  }
  return true;
}

// Writes the scalar's bytes at the start of its 8-byte slot (little-endian hosts).
void store_scalar(Napi::Env env, const KernelState& kernel, size_t index, const ValueType& type,
                  const Napi::Value& value, uint64_t* slot) {
  *slot = 0;
  if (type.integer) {
    if (!value.IsNumber() && !value.IsBigInt()) fail(env, kernel, index, std::string("must be a number or bigint for ") + type.name);
    uint64_t bits = 0;
    if (!integer_value(value, type, &bits)) fail(env, kernel, index, std::string("must be an integer within the range of ") + type.name);
    std::memcpy(slot, &bits, type.bytes);
    return;
  }
  if (!value.IsNumber()) fail(env, kernel, index, std::string("must be a number for ") + type.name);
  const double v = value.As<Napi::Number>().DoubleValue();
  if (type.bytes == 2) {  // f16, bf16: TS sends the bits it rounded (src/kernel.ts)
    if (!(v >= 0 && v <= 65535 && v == std::floor(v))) fail(env, kernel, index, std::string("must be the 16 bits of a ") + type.name);
    const uint16_t bits = static_cast<uint16_t>(v);
    std::memcpy(slot, &bits, sizeof bits);
    return;
  }
  if (type.bytes == 4) {
    const float f = static_cast<float>(v);
    std::memcpy(slot, &f, sizeof f);
  } else {
    std::memcpy(slot, &v, sizeof v);
  }
}

// The size in bytes of a struct parameter whose signature spells it "struct:<size>:<alignment>"; 0 for other types.
size_t struct_bytes(const std::string& type) {
  if (type.rfind("struct:", 0) != 0) return 0;
  return static_cast<size_t>(std::strtoull(type.c_str() + 7, nullptr, 10));
}

// "a f32 scalar", "a struct of 24 bytes", "a buffer (f32*)": what a parameter takes, for messages.
std::string taken(const ParamKind& param) {
  if (param.pointer) return "a buffer (" + param.type + "*)";
  if (const size_t bytes = struct_bytes(param.type)) return "a struct of " + std::to_string(bytes) + " bytes";
  return "a " + param.type + " scalar";
}

// The live allocation behind a buffer handle that an argument passes.
const std::shared_ptr<BufferSlot>& argument_buffer(Napi::Env env, const KernelState& kernel, size_t index,
                                                   const Napi::Value& handle) {
  std::shared_ptr<BufferSlot>& slot = unwrap_handle<BufferSlot>(handle, &kBufferTag, "buffer");
  if (!slot->allocation) fail(env, kernel, index, "is a released buffer");
  if (slot->allocation->device != kernel.module->device) fail(env, kernel, index, "is a buffer on another device");
  return slot;
}

// A pointer argument: a buffer, { buffer, byteOffset, bytes } (a view into one), or null.
void pack_pointer(Napi::Env env, LaunchState& launch, size_t index, const Napi::Value& arg) {
  const KernelState& k = *launch.kernel;
  PointerArg pointer;
  pointer.index = index;
  uint8_t* address = nullptr;
  if (!arg.IsNull()) {
    const bool whole = arg.IsExternal();
    const Napi::Value handle = whole ? arg : arg.As<Napi::Object>().Get("buffer");
    pointer.slot = argument_buffer(env, k, index, handle);
    const Allocation& a = *pointer.slot->allocation;
    size_t offset = 0;
    pointer.bytes = a.bytes;
    if (!whole) {
      const Napi::Object view = arg.As<Napi::Object>();
      offset = byte_count(view.Get("byteOffset"), "a view's byteOffset");
      pointer.bytes = byte_count(view.Get("bytes"), "a view's bytes");
      if (offset > a.bytes || pointer.bytes > a.bytes - offset) {
        fail(env, k, index, "is a view of " + std::to_string(pointer.bytes) + " bytes at byte " + std::to_string(offset) +
                                ", past the end of its buffer of " + std::to_string(a.bytes) + " bytes");
      }
      pointer.view = true;
    }
    address = static_cast<uint8_t*>(a.ptr) + offset;
    launch.allocations.push_back(pointer.slot->allocation);
  }
  std::memcpy(&launch.storage[index], &address, sizeof address);
  launch.reach[index] = pointer.bytes;
  launch.pointers.push_back(std::move(pointer));
}

// A struct passed by value: { type: "struct", bytes, pointers? } with its bytes as
// the C ABI lays them out, and the buffers whose addresses go into it
// (pointers: [{ offset, buffer, byteOffset?, bytes? }]: a tensor accessor's data
// pointer, a struct's pointer members).
void pack_struct(Napi::Env env, LaunchState& launch, size_t index, const ParamKind* param, const Napi::Object& arg) {
  const KernelState& k = *launch.kernel;
  const HostBytes host = host_bytes(arg.Get("bytes"), "a struct's bytes");
  if (param) {
    const size_t expected = struct_bytes(param->type);
    if (param->pointer || expected == 0) fail(env, k, index, "must be " + taken(*param) + ", got a struct");
    if (host.bytes != expected) {
      fail(env, k, index, "must be a struct of " + std::to_string(expected) + " bytes (the kernel's), got " +
                              std::to_string(host.bytes) + " bytes");
    }
  }
  // Where the kernel's parameter size is not known here (NVRTC, hiprtc), the
  // driver copies as many bytes as the kernel declares: zeroed slack keeps a
  // size the library got wrong from reading past these bytes.
  constexpr size_t kSlackWords = 32;
  const size_t words = (host.bytes + 7) / 8 + kSlackWords;
  launch.records.push_back(std::make_unique<uint64_t[]>(words));  // zeroed
  uint8_t* record = reinterpret_cast<uint8_t*>(launch.records.back().get());
  std::memcpy(record, host.data, host.bytes);
  const std::string problem = write_pointers(arg.Get("pointers"), k.module->device, record, host.bytes, [&](PointerArg pointer) {
    pointer.index = index;
    launch.allocations.push_back(pointer.slot->allocation);
    launch.pointers.push_back(std::move(pointer));
  });
  if (!problem.empty()) fail(env, k, index, problem);
  launch.args[index] = record;
}

// A pointer to a device function: { type: "function", module, symbol } passes the value
// that the module's variable `symbol` holds, read now, as cudaMemcpyFromSymbol reads it
// before a launch, so that no address comes from JS.
void pack_function_pointer(Napi::Env env, LaunchState& launch, size_t index, const ParamKind* param, const Napi::Object& arg) {
  const KernelState& k = *launch.kernel;
  if (param && !param->pointer) fail(env, k, index, "must be " + taken(*param) + ", got a function pointer");
  const std::shared_ptr<ModuleState> module = live_module(arg.Get("module"));
  if (module->device != k.module->device) fail(env, k, index, "must hold a function of a module on the kernel's device");
  const Napi::Value symbol = arg.Get("symbol");
  if (!symbol.IsString()) fail(env, k, index, "must name the variable holding the function");
  DeviceState& d = *module->device;
  void* address = nullptr;
  size_t bytes = 0;
  if (d.api->module_symbol(module->module, symbol.As<Napi::String>().Utf8Value().c_str(), &address, &bytes) != 0 ||
      bytes != sizeof(void*)) {
    fail(env, k, index, "names no pointer variable of its module");
  }
  if (d.api->download(d.device, &launch.storage[index], address, sizeof(void*)) != 0) {
    throw Napi::Error::New(env, d.failure("download"));
  }
}

// A variable's address: { type: "symbol", symbol } passes the address of the kernel's
// module's variable `symbol` on its device, as cudaGetSymbolAddress gives it (HIP's
// `add<<<1, 1>>>(&a, &b, &c)` of `__managed__ int a, b, c;`).
void pack_symbol_address(Napi::Env env, LaunchState& launch, size_t index, const ParamKind* param, const Napi::Object& arg) {
  const KernelState& k = *launch.kernel;
  if (param && !param->pointer) fail(env, k, index, "must be " + taken(*param) + ", got a variable's address");
  const Napi::Value symbol = arg.Get("symbol");
  if (!symbol.IsString()) fail(env, k, index, "must name a variable of the kernel's module");
  void* address = nullptr;
  size_t bytes = 0;
  if (k.module->device->api->module_symbol(k.module->module, symbol.As<Napi::String>().Utf8Value().c_str(), &address, &bytes) != 0) {
    fail(env, k, index, "names no variable of the kernel's module");
  }
  memcpy(&launch.storage[index], &address, sizeof address);
}

uint32_t dimension(Napi::Env env, const Napi::Value& value, const char* what, int axis) {
  const std::string where = std::string("launch ") + what + "[" + std::to_string(axis) + "]";
  if (!value.IsNumber()) throw Napi::TypeError::New(env, where + " must be a number");
  const double v = value.As<Napi::Number>().DoubleValue();
  if (!integer_in(v, 1, 4294967295.0)) {
    throw Napi::RangeError::New(env, where + " must be an integer from 1 to 2^32-1");
  }
  return static_cast<uint32_t>(v);
}

fl_dim3 dim3_of(Napi::Env env, const Napi::Value& value, const char* what) {
  if (!value.IsArray() || value.As<Napi::Array>().Length() != 3) {
    throw Napi::TypeError::New(env, std::string("launch ") + what + " must be an array of 3 numbers");
  }
  const Napi::Array a = value.As<Napi::Array>();
  return fl_dim3{dimension(env, a.Get(0u), what, 0), dimension(env, a.Get(1u), what, 1), dimension(env, a.Get(2u), what, 2)};
}

// The device's own limits, so that no backend is asked for a launch it cannot run.
void check_limits(Napi::Env env, const KernelState& kernel, const fl_dim3& grid, const fl_dim3& block, size_t shared) {
  const fl_device_props& p = kernel.module->device->props;
  const uint32_t g[3] = {grid.x, grid.y, grid.z};
  const uint32_t b[3] = {block.x, block.y, block.z};
  const char* axes = "xyz";
  for (int i = 0; i < 3; ++i) {
    if (p.max_grid_dim[i] > 0 && g[i] > static_cast<uint32_t>(p.max_grid_dim[i])) {
      throw Napi::RangeError::New(env, "kernel " + kernel.name + ": grid." + axes[i] + " " + std::to_string(g[i]) +
                                           " exceeds the device's limit of " + std::to_string(p.max_grid_dim[i]));
    }
    if (p.max_block_dim[i] > 0 && b[i] > static_cast<uint32_t>(p.max_block_dim[i])) {
      throw Napi::RangeError::New(env, "kernel " + kernel.name + ": block." + axes[i] + " " + std::to_string(b[i]) +
                                           " exceeds the device's limit of " + std::to_string(p.max_block_dim[i]));
    }
  }
  const uint64_t threads = uint64_t{block.x} * block.y * block.z;
  if (p.max_threads_per_block > 0 && threads > static_cast<uint64_t>(p.max_threads_per_block)) {
    throw Napi::RangeError::New(env, "kernel " + kernel.name + ": a block of " + std::to_string(threads) +
                                         " threads exceeds the device's limit of " + std::to_string(p.max_threads_per_block));
  }
  const size_t shared_limit = p.shared_per_block_optin > p.shared_per_block ? p.shared_per_block_optin : p.shared_per_block;
  if (shared_limit > 0 && shared > shared_limit) {
    throw Napi::RangeError::New(env, "kernel " + kernel.name + ": " + std::to_string(shared) +
                                         " bytes of dynamic shared memory exceed the device's limit of " + std::to_string(shared_limit));
  }
}

}  // namespace

std::vector<ParamKind> parse_signature(const std::string& signature) {
  std::vector<ParamKind> params;
  if (trim(signature).empty()) return params;
  size_t start = 0;
  while (start <= signature.size()) {
    size_t comma = signature.find(',', start);
    if (comma == std::string::npos) comma = signature.size();
    std::string item = trim(signature.substr(start, comma - start));
    ParamKind kind;
    if (!item.empty() && item.back() == '*') {
      kind.pointer = true;
      item = trim(item.substr(0, item.size() - 1));
      if (item.rfind("const ", 0) == 0) item = trim(item.substr(6));
    }
    kind.type = item;
    params.push_back(kind);
    start = comma + 1;
  }
  return params;
}

std::shared_ptr<LaunchState> pack_launch(const Napi::CallbackInfo& info, std::shared_ptr<KernelState> kernel) {
  Napi::Env env = info.Env();
  auto launch = std::make_shared<LaunchState>();
  launch->kernel = std::move(kernel);
  const KernelState& k = *launch->kernel;
  check_launch_alive(env, *launch);  // no buffers packed yet: checks the module and device

  launch->grid = dim3_of(env, info[1], "grid");
  launch->block = dim3_of(env, info[2], "block");
  if (!info[3].IsNumber()) throw Napi::TypeError::New(env, "launch sharedBytes must be a number");
  const double shared = info[3].As<Napi::Number>().DoubleValue();
  if (!integer_in(shared, 0, 4294967295.0)) {
    throw Napi::RangeError::New(env, "launch sharedBytes must be a non-negative integer");
  }
  launch->shared_bytes = static_cast<size_t>(shared);
  check_limits(env, k, launch->grid, launch->block, launch->shared_bytes);

  if (!info[4].IsArray()) throw Napi::TypeError::New(env, "launch args must be an array");
  const Napi::Array args = info[4].As<Napi::Array>();
  const size_t count = args.Length();
  if (k.has_signature && count != k.params.size()) {
    throw Napi::Error::New(env, "kernel " + k.name + " takes " + std::to_string(k.params.size()) + " arguments (" +
                                    k.signature + "), got " + std::to_string(count));
  }
  launch->storage.assign(count, 0);
  launch->args.resize(count);
  launch->reach.assign(count, 0);
  for (size_t i = 0; i < count; ++i) {
    const Napi::Value arg = args.Get(static_cast<uint32_t>(i));
    launch->args[i] = &launch->storage[i];
    const ParamKind* param = k.has_signature ? &k.params[i] : nullptr;
    const bool is_view = arg.IsObject() && !arg.IsExternal() && arg.As<Napi::Object>().Has("buffer");
    if (arg.IsExternal() || arg.IsNull() || is_view) {
      const char* what = arg.IsNull() ? "null" : is_view ? "a view of a buffer" : "a buffer";
      if (param && !param->pointer) fail(env, k, i, "must be " + taken(*param) + ", got " + what);
      pack_pointer(env, *launch, i, arg);
      continue;
    }
    if (!arg.IsObject()) fail(env, k, i, "must be a buffer, a view, null, a {type, value} scalar, a {type: \"struct\", bytes} struct, a {type: \"function\", module, symbol} function pointer or a {type: \"symbol\", symbol} variable's address");
    const Napi::Object scalar = arg.As<Napi::Object>();
    const Napi::Value type_value = scalar.Get("type");
    const std::string type_name = type_value.IsString() ? type_value.As<Napi::String>().Utf8Value() : "";
    if (type_name == "struct") {
      pack_struct(env, *launch, i, param, scalar);
      continue;
    }
    if (type_name == "function") {
      pack_function_pointer(env, *launch, i, param, scalar);
      continue;
    }
    if (type_name == "symbol") {
      pack_symbol_address(env, *launch, i, param, scalar);
      continue;
    }
    const ValueType* type = find_value_type(type_name);
    if (type == nullptr || !type->scalar) fail(env, k, i, "has an unknown scalar type '" + type_name + "'");
    if (param) {
      if (param->pointer) fail(env, k, i, "must be a buffer (" + param->type + "*), got a " + type_name + " scalar");
      if (param->type != type_name) fail(env, k, i, "must be a " + param->type + " scalar, got a " + type_name + " scalar");
    }
    store_scalar(env, k, i, *type, scalar.Get("value"), &launch->storage[i]);
  }
  check_extents(env, *launch);
  return launch;
}

void check_launch_alive(Napi::Env env, const LaunchState& launch) {
  const KernelState& k = *launch.kernel;
  if (k.module->unloaded) throw Napi::Error::New(env, "kernel " + k.name + ": its module was unloaded");
  if (k.module->device->closed) throw Napi::Error::New(env, "kernel " + k.name + ": its device was closed");
  for (const PointerArg& pointer : launch.pointers) {
    if (pointer.slot && !pointer.slot->allocation) {
      throw Napi::Error::New(env, "kernel " + k.name + ": a buffer of this prepared launch was released");
    }
  }
}

std::string write_pointers(const Napi::Value& pointers, const std::shared_ptr<DeviceState>& device, uint8_t* record, size_t bytes,
                           const std::function<void(PointerArg)>& found) {
  if (pointers.IsUndefined()) return "";
  const std::string listed = "must list its pointers as an array of { offset, buffer, byteOffset?, bytes? }";
  if (!pointers.IsArray()) return listed;
  const Napi::Array list = pointers.As<Napi::Array>();
  for (uint32_t p = 0; p < list.Length(); ++p) {
    if (!list.Get(p).IsObject()) return listed;
    const Napi::Object entry = list.Get(p).As<Napi::Object>();
    const size_t offset = byte_count(entry.Get("offset"), "a pointer's offset");
    if (offset % alignof(void*) != 0 || offset + sizeof(void*) > bytes) {
      return "has a pointer at byte " + std::to_string(offset) + ", not an aligned place within its " + std::to_string(bytes) + " bytes";
    }
    PointerArg pointer;
    pointer.slot = unwrap_handle<BufferSlot>(entry.Get("buffer"), &kBufferTag, "buffer");
    if (!pointer.slot->allocation) return "has a pointer to a released buffer";
    if (pointer.slot->allocation->device != device) return "has a pointer to a buffer on another device";
    const Allocation& a = *pointer.slot->allocation;
    // A view into the buffer: { offset, buffer, byteOffset, bytes }.
    const Napi::Value from = entry.Get("byteOffset");
    const size_t start = from.IsUndefined() ? 0 : byte_count(from, "a pointer's byteOffset");
    pointer.bytes = from.IsUndefined() ? a.bytes : byte_count(entry.Get("bytes"), "a pointer's bytes");
    if (start > a.bytes || pointer.bytes > a.bytes - start) {
      return "has a pointer to a view of " + std::to_string(pointer.bytes) + " bytes at byte " + std::to_string(start) +
             ", past the end of its buffer of " + std::to_string(a.bytes) + " bytes";
    }
    pointer.view = !from.IsUndefined();
    void* address = static_cast<uint8_t*>(a.ptr) + start;
    std::memcpy(record + offset, &address, sizeof address);
    found(std::move(pointer));
  }
  return "";
}

}  // namespace fl::addon
