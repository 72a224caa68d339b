#include "handles.h"

namespace fl::addon {

const napi_type_tag kDeviceTag = {0x6675736564657631ULL, 0x6465766963650001ULL};
const napi_type_tag kBufferTag = {0x6675736564657631ULL, 0x6275666665720002ULL};
const napi_type_tag kModuleTag = {0x6675736564657631ULL, 0x6d6f64756c650003ULL};
const napi_type_tag kKernelTag = {0x6675736564657631ULL, 0x6b65726e656c0004ULL};
const napi_type_tag kLaunchTag = {0x6675736564657631ULL, 0x6c61756e63680006ULL};

std::shared_ptr<DeviceState> live_device(const Napi::Value& value) {
  std::shared_ptr<DeviceState>& device = unwrap_handle<DeviceState>(value, &kDeviceTag, "device");
  if (device->closed) throw Napi::Error::New(value.Env(), "the device was closed");
  return device;
}

std::shared_ptr<Allocation> live_allocation(const Napi::Value& value) {
  std::shared_ptr<BufferSlot>& slot = unwrap_handle<BufferSlot>(value, &kBufferTag, "buffer");
  if (!slot->allocation) throw Napi::Error::New(value.Env(), "the buffer was released");
  if (slot->allocation->device->closed) throw Napi::Error::New(value.Env(), "the buffer's device was closed");
  return slot->allocation;
}

std::shared_ptr<ModuleState> live_module(const Napi::Value& value) {
  std::shared_ptr<ModuleState>& module = unwrap_handle<ModuleState>(value, &kModuleTag, "module");
  if (module->unloaded) throw Napi::Error::New(value.Env(), "the module was unloaded");
  if (module->device->closed) throw Napi::Error::New(value.Env(), "the module's device was closed");
  return module;
}

HostBytes host_bytes(const Napi::Value& value, const char* what) {
  HostBytes view;
  void* data = nullptr;  // already advanced to the view's byteOffset
  if (value.IsTypedArray()) {
    NAPI_THROW_IF_FAILED(value.Env(), napi_get_typedarray_info(value.Env(), value, nullptr, nullptr, &data, nullptr, nullptr), view);
    view.bytes = value.As<Napi::TypedArray>().ByteLength();
  } else if (value.IsDataView()) {
    NAPI_THROW_IF_FAILED(value.Env(), napi_get_dataview_info(value.Env(), value, &view.bytes, &data, nullptr, nullptr), view);
  } else {
    throw Napi::TypeError::New(value.Env(), std::string(what) + " must be a typed array or DataView");
  }
  view.data = static_cast<uint8_t*>(data);
  return view;
}

std::string join_strings(const Napi::Value& value, const char* what, char separator) {
  if (!value.IsArray()) throw Napi::TypeError::New(value.Env(), std::string(what) + " must be an array of strings");
  const Napi::Array items = value.As<Napi::Array>();
  std::string joined;
  for (uint32_t i = 0; i < items.Length(); ++i) {
    const Napi::Value item = items.Get(i);
    if (!item.IsString()) throw Napi::TypeError::New(value.Env(), std::string(what) + " must be an array of strings");
    if (i > 0) joined += separator;
    joined += item.As<Napi::String>().Utf8Value();
  }
  return joined;
}

const ValueType* find_value_type(const std::string& name) {
  static constexpr ValueType kTypes[] = {
      {"i8", 1, true, true, true},     {"u8", 1, true, false, true},    {"i16", 2, true, true, true},
      {"u16", 2, true, false, true},   {"i32", 4, true, true, true},    {"u32", 4, true, false, true},
      {"i64", 8, true, true, true},    {"u64", 8, true, false, true},   {"f32", 4, false, true, true},
      {"f64", 8, false, true, true},   {"f16", 2, false, true, true},   {"bf16", 2, false, true, true},
      {"bool", 1, true, false, true},  {"void", 1, false, false, false},
  };
  for (const ValueType& type : kTypes) {
    if (name == type.name) return &type;
  }
  return nullptr;
}

int milliseconds(const Napi::Value& value, const char* what) {
  const double v = value.IsNumber() ? value.As<Napi::Number>().DoubleValue() : -1;
  if (!integer_in(v, 0, 2147483647.0)) {
    throw Napi::RangeError::New(value.Env(), std::string(what) + " must be an integer from 0 to 2147483647");
  }
  return static_cast<int>(v);
}

size_t byte_count(const Napi::Value& value, const char* what) {
  if (!value.IsNumber()) throw Napi::TypeError::New(value.Env(), std::string(what) + " must be a number");
  const double v = value.As<Napi::Number>().DoubleValue();
  if (!integer_in(v, 0, 9007199254740992.0)) {
    throw Napi::RangeError::New(value.Env(), std::string(what) + " must be a non-negative integer");
  }
  return static_cast<size_t>(v);
}

}  // namespace fl::addon
