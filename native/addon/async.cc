#include "async.h"

#include "handles.h"
#include "marshal.h"

namespace fl::addon {
namespace {

// An AsyncWorker settling a promise. Execute() runs on a worker thread and
// reports failure with fail(), reading the backend's thread-local error text there.
class PromiseWorker : public Napi::AsyncWorker {
 public:
  explicit PromiseWorker(Napi::Env env) : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)) {}
  Napi::Promise promise() const { return deferred_.Promise(); }

 protected:
  virtual Napi::Value result(Napi::Env env) { return env.Undefined(); }
  virtual void decorate(Napi::Error&) {}
  void fail(const DeviceState& device, const char* call) { SetError(device.failure(call)); }

 private:
  void OnOK() override { deferred_.Resolve(result(Env())); }
  void OnError(const Napi::Error& error) override {
    Napi::Error decorated = error;
    decorate(decorated);
    deferred_.Reject(decorated.Value());
  }
  Napi::Promise::Deferred deferred_;
};

template <typename Worker, typename... Args>
Napi::Value start(Napi::Env env, Args&&... args) {
  auto* worker = new Worker(env, std::forward<Args>(args)...);
  Napi::Promise promise = worker->promise();
  worker->Queue();
  return promise;
}

class SynchronizeWorker : public PromiseWorker {
 public:
  SynchronizeWorker(Napi::Env env, std::shared_ptr<DeviceState> device) : PromiseWorker(env), device_(std::move(device)) {}
  void Execute() override {
    if (device_->api->synchronize(device_->device) != 0) fail(*device_, "synchronize");
  }

 private:
  std::shared_ptr<DeviceState> device_;
};

class DownloadWorker : public PromiseWorker {
 public:
  DownloadWorker(Napi::Env env, std::shared_ptr<Allocation> allocation, Napi::Value destination, HostBytes host)
      : PromiseWorker(env), allocation_(std::move(allocation)), destination_(Napi::Persistent(destination.As<Napi::Object>())), host_(host) {}
  void Execute() override {
    if (allocation_->device->api->download(allocation_->device->device, host_.data, allocation_->ptr, host_.bytes) != 0) {
      fail(*allocation_->device, "download");
    }
  }

 private:
  std::shared_ptr<Allocation> allocation_;
  Napi::ObjectReference destination_;  // keeps the host memory alive until the copy is done
  HostBytes host_;
};

class CompileWorker : public PromiseWorker {
 public:
  CompileWorker(Napi::Env env, std::shared_ptr<DeviceState> device, std::string source, std::string names, std::string options,
                int timeout_ms)
      : PromiseWorker(env), device_(std::move(device)), source_(std::move(source)), names_(std::move(names)),
        options_(std::move(options)), timeout_ms_(timeout_ms) {}
  ~CompileWorker() override {
    // A module compiled after its promise was abandoned (environment teardown) is freed here.
    if (module_ != nullptr) device_->api->module_unload(device_->device, module_);
  }
  void Execute() override {
    char* log = nullptr;
    const int status = device_->api->module_compile(device_->device, source_.c_str(), names_.c_str(), options_.c_str(),
                                                    timeout_ms_, &module_, &log);
    if (log != nullptr) {
      log_ = log;
      has_log_ = true;
      device_->api->free_string(log);
    }
    if (status != 0) {
      module_ = nullptr;
      fail(*device_, "compile");
    }
  }

 protected:
  Napi::Value result(Napi::Env env) override {
    void* module = module_;
    module_ = nullptr;
    return wrap_handle(env, std::make_shared<ModuleState>(device_, module), &kModuleTag);
  }
  void decorate(Napi::Error& error) override {
    if (has_log_) error.Set("log", Napi::String::New(Env(), log_));
  }

 private:
  std::shared_ptr<DeviceState> device_;
  std::string source_, names_, options_;
  int timeout_ms_;
  void* module_ = nullptr;
  std::string log_;
  bool has_log_ = false;
};

// The whole timing loop on the worker: no JS between iterations, so the
// measured gaps are the device's, not the event loop's.
class BenchWorker : public PromiseWorker {
 public:
  BenchWorker(Napi::Env env, std::shared_ptr<DeviceState> device, std::vector<std::shared_ptr<LaunchState>> steps,
              std::shared_ptr<Allocation> flush, uint32_t warmup, uint32_t iters)
      : PromiseWorker(env), device_(std::move(device)), steps_(std::move(steps)), flush_(std::move(flush)),
        warmup_(warmup), iters_(iters), times_(iters, 0.0) {
    device_->cancel_requested = false;
  }
  void Execute() override {
    const fl_backend* api = device_->api;
    std::vector<void*> events(2 * static_cast<size_t>(iters_), nullptr);
    bool created = true;
    for (void*& event : events) {
      if (api->event_create(device_->device, &event) != 0) {
        event = nullptr;
        created = false;
        fail(*device_, "event_create");
        break;
      }
    }
    if (created) run(events);
    for (void* event : events) {
      if (event != nullptr) api->event_destroy(device_->device, event);
    }
  }

 protected:
  Napi::Value result(Napi::Env env) override {
    Napi::Float64Array times = Napi::Float64Array::New(env, times_.size());
    for (size_t i = 0; i < times_.size(); ++i) times[i] = times_[i];
    return times;
  }

 private:
  void run(const std::vector<void*>& events) {
    const fl_backend* api = device_->api;
    void* d = device_->device;
    for (uint32_t i = 0; i < warmup_ + iters_; ++i) {
      if (device_->cancel_requested) {
        SetError("bench: cancelled");
        return;
      }
      if (flush_ && api->fill(d, flush_->ptr, static_cast<int>(i & 0xff), flush_->bytes) != 0) return fail(*device_, "fill");
      const bool timed = i >= warmup_;
      const size_t t = i - warmup_;
      if (timed && api->event_record(d, events[2 * t]) != 0) return fail(*device_, "event_record");
      for (const auto& step : steps_) {
        if (step->run() != 0) return fail(*device_, ("launch " + step->kernel->name).c_str());
      }
      if (timed && api->event_record(d, events[2 * t + 1]) != 0) return fail(*device_, "event_record");
    }
    for (uint32_t t = 0; t < iters_; ++t) {
      float ms = 0;
      if (api->event_elapsed(d, events[2 * t], events[2 * t + 1], &ms) != 0) return fail(*device_, "event_elapsed");
      times_[t] = ms;
    }
  }

  std::shared_ptr<DeviceState> device_;
  std::vector<std::shared_ptr<LaunchState>> steps_;
  std::shared_ptr<Allocation> flush_;
  uint32_t warmup_, iters_;
  std::vector<double> times_;
};

uint32_t count_option(const Napi::Object& options, const char* key, uint32_t minimum, uint32_t maximum) {
  const Napi::Value value = options.Get(key);
  const double v = value.IsNumber() ? value.As<Napi::Number>().DoubleValue() : -1;
  if (!integer_in(v, minimum, maximum)) {
    throw Napi::RangeError::New(options.Env(), std::string("bench: options.") + key + " must be an integer from " +
                                                   std::to_string(minimum) + " to " + std::to_string(maximum));
  }
  return static_cast<uint32_t>(v);
}

}  // namespace

Napi::Value synchronize_async(const Napi::CallbackInfo& info) {
  return start<SynchronizeWorker>(info.Env(), live_device(info[0]));
}

Napi::Value download_async(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<Allocation> allocation = live_allocation(info[0]);
  const HostBytes host = host_bytes(info[1], "downloadAsync: dst");
  if (host.bytes > allocation->bytes) {
    throw Napi::RangeError::New(env, "downloadAsync: " + std::to_string(host.bytes) + " bytes do not fit in a buffer of " +
                                         std::to_string(allocation->bytes) + " bytes");
  }
  return start<DownloadWorker>(env, std::move(allocation), info[1], host);
}

Napi::Value compile_async(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<DeviceState> device = live_device(info[0]);
  if (!info[1].IsString()) throw Napi::TypeError::New(env, "compileAsync: source must be a string");
  return start<CompileWorker>(env, std::move(device), info[1].As<Napi::String>().Utf8Value(),
                              join_strings(info[2], "compileAsync: kernelNames", '\n'),
                              join_strings(info[3], "compileAsync: options", ' '),
                              milliseconds(info[4], "compileAsync: timeoutMs"));
}

Napi::Value bench_async(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<DeviceState> device = live_device(info[0]);
  if (!info[1].IsArray()) throw Napi::TypeError::New(env, "bench: steps must be an array of prepared launches");
  const Napi::Array list = info[1].As<Napi::Array>();
  std::vector<std::shared_ptr<LaunchState>> steps;
  for (uint32_t i = 0; i < list.Length(); ++i) {
    std::shared_ptr<LaunchState>& step = unwrap_handle<LaunchState>(list.Get(i), &kLaunchTag, "prepared launch");
    check_launch_alive(env, *step);
    if (step->device() != device) throw Napi::Error::New(env, "bench: step " + std::to_string(i) + " is on another device");
    steps.push_back(step);
  }
  if (!info[2].IsObject()) throw Napi::TypeError::New(env, "bench: options must be an object");
  const Napi::Object options = info[2].As<Napi::Object>();
  const uint32_t warmup = count_option(options, "warmup", 0, 1000000);
  const uint32_t iters = count_option(options, "iters", 1, 1000000);
  std::shared_ptr<Allocation> flush;
  if (!options.Get("flush").IsUndefined()) {
    flush = live_allocation(options.Get("flush"));
    if (flush->device != device) throw Napi::Error::New(env, "bench: the flush buffer is on another device");
  }
  return start<BenchWorker>(env, std::move(device), std::move(steps), std::move(flush), warmup, iters);
}

}  // namespace fl::addon
