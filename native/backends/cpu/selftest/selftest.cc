// Smoke test and timings of the cpu backend, through backend.h as the addon
// uses it: loads libfuselab_cpu.so from beside this program, compiles kernels
// at run time, and checks the emulator's semantics and error reports.
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "fuselab/backend.h"
#include "fuselab/emulator/types.h"

namespace {

const fl_backend* backend;
int failures = 0;

void expect(bool ok, const std::string& what) {
  printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) failures++;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct device {
  void* handle = nullptr;
  explicit device(fl_device_options o) {
    if (backend->open(0, &o, &handle)) {
      fprintf(stderr, "open: %s\n", backend->last_error());
      exit(1);
    }
  }
  ~device() { backend->close(handle); }

  void* module(const std::string& source, const std::string& names, std::string* log = nullptr) {
    void* m = nullptr;
    char* text = nullptr;
    std::string full = "#include <fuselab/fuselab.h>\n#line 1\n" + source;
    int rc = backend->module_compile(handle, full.c_str(), names.c_str(), "-I" FL_KERNELS_DIR, &m, &text);
    if (log) *log = text ? text : "";
    if (rc && !log) fprintf(stderr, "compile: %s\n%s\n", backend->last_error(), text ? text : "");
    backend->free_string(text);
    return rc ? nullptr : m;
  }
  void* kernel(void* m, const char* name) {
    void* k = nullptr;
    const char* signature = nullptr;
    if (backend->kernel_get(m, name, &k, &signature)) fprintf(stderr, "kernel_get: %s\n", backend->last_error());
    return k;
  }
  void* alloc(size_t bytes) {
    void* p = nullptr;
    backend->alloc(handle, bytes, &p);
    return p;
  }
  template <typename T> void* upload(const std::vector<T>& v) {
    void* p = alloc(v.size() * sizeof(T));
    backend->upload(handle, p, v.data(), v.size() * sizeof(T));
    return p;
  }
  template <typename T> std::vector<T> download(void* p, size_t n) {
    std::vector<T> v(n);
    if (backend->download(handle, v.data(), p, n * sizeof(T))) fprintf(stderr, "download: %s\n", backend->last_error());
    return v;
  }
  // Launches and waits; "" or the error.
  std::string run(void* k, fl_dim3 grid, fl_dim3 block, std::vector<void*> args, size_t shared = 0) {
    if (backend->launch(handle, k, grid, block, shared, args.data(), static_cast<int>(args.size())))
      return backend->last_error();
    return backend->synchronize(handle) ? backend->last_error() : "";
  }
  double time_ms(const std::function<void()>& launch, int iterations) {
    launch();
    backend->synchronize(handle);
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; i++) launch();
    backend->synchronize(handle);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / iterations;
  }
};

const char* kKernels = R"(
__global__ void add_relu_scale(float* out, const float* a, const float* b, float scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaxf(a[i] + b[i], 0.0f) * scale;
}

__device__ float warp_sum(float v) {
  for (int offset = warpSize / 2; offset > 0; offset >>= 1) v += __shfl_xor(v, offset);
  return v;
}

// One block a row: each thread sums squares, warps reduce with shuffles, warp
// leaders meet in shared memory.
__global__ void rms_norm(float* out, const float* x, const float* weight, int cols, float eps) {
  __shared__ float partial[32];
  __shared__ float scale;
  const float* row = x + (size_t)blockIdx.x * cols;
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += row[c] * row[c];
  sum = warp_sum(sum);
  int warps = blockDim.x / warpSize;
  if (threadIdx.x % warpSize == 0) partial[threadIdx.x / warpSize] = sum;
  __syncthreads();
  if (threadIdx.x < warpSize) {
    float v = threadIdx.x < warps ? partial[threadIdx.x] : 0.0f;
    v = warp_sum(v);
    if (threadIdx.x == 0) scale = rsqrtf(v / cols + eps);
  }
  __syncthreads();
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[(size_t)blockIdx.x * cols + c] = row[c] * scale * weight[c];
}

__global__ void block_sum(float* out, const float* in) {
  FL_DYNAMIC_SHARED(float, s);
  s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

__global__ void block_sum_no_barrier(float* out, const float* in) {
  FL_DYNAMIC_SHARED(float, s);
  s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

__global__ void static_shared_sum(float* out, const float* in) {
  __shared__ float s[256];
  s[threadIdx.x] = in[threadIdx.x];
  if (threadIdx.x == 0) { float t = 0; for (int i = 0; i < 256; i++) t += s[i]; out[blockIdx.x] = t; }
}

__global__ void warp_total(float* out, const float* in) {
  float v = warp_sum(in[threadIdx.x]);
  if (threadIdx.x == 0) out[0] = v;
}

__global__ void warp_total_32(float* out, const float* in) {
  float v = in[threadIdx.x];
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor(v, offset);
  if (threadIdx.x == 0) out[0] = v;
}

__global__ void votes(unsigned long long* ballot, int* any, int* all) {
  int lane = threadIdx.x;
  unsigned long long b = __ballot(lane % 3 == 0);
  int a = __any(lane == 5);
  int l = __all(lane < 100);
  if (lane == 0) { *ballot = b; *any = a; *all = l; }
}

__global__ void shuffles(int* out) {
  int lane = threadIdx.x;
  int down = __shfl_down(lane, 3, 8);
  int up = __shfl_up(lane, 2);
  int from = __shfl(lane * 10, 7, 16);
  out[lane * 3 + 0] = down; out[lane * 3 + 1] = up; out[lane * 3 + 2] = from;
}

__global__ void oob_write(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = 1.0f;
}

__global__ void deadlock(float* out) {
  if (threadIdx.x < 32) __syncthreads();
  out[threadIdx.x] = 1.0f;
}

__global__ void early_exit(float* out) {
  if (threadIdx.x >= 16) return;
  __syncthreads();
  out[threadIdx.x] = 1.0f;
}

__global__ void wild_pointer(float* out) {
  float* p = (float*)(size_t)(0x10 + 4 * threadIdx.x);
  if (blockIdx.x == 3 && threadIdx.x == 17) *p = 1.0f;
  out[threadIdx.x] = 2.0f;
}

__global__ void runaway(int* flag) {
  while (*(volatile int*)flag == 0) {}
}

__device__ float deep(int n, volatile float* scratch) {
  volatile float local[256];
  local[n % 256] = scratch[0];
  return n == 0 ? local[0] : deep(n - 1, scratch) + local[n % 256];
}

__global__ void stack_hog(float* out) {
  __syncthreads();
  out[threadIdx.x] = deep(1000, out);
}

__global__ void divide(int* out, int d) { out[threadIdx.x] = 10 / d; }

__global__ void count(int* total, float* sum) {
  atomicAdd(total, 1);
  atomicAdd(sum, 0.5f);
}

__global__ void halves(float* back, __half* h, fl_bf16* b, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    h[i] = __float2half(in[i]);
    b[i] = __float2bfloat16(in[i]);
    back[2 * i] = __half2float(h[i]);
    back[2 * i + 1] = __bfloat162float(b[i]);
  }
}
)";

const char* kNames =
    "add_relu_scale,rms_norm,block_sum,block_sum_no_barrier,static_shared_sum,warp_total,warp_total_32,votes,shuffles,"
    "oob_write,deadlock,early_exit,wild_pointer,runaway,stack_hog,divide,count,halves";

void test_halves() {
  int mismatches = 0;
  for (uint32_t h = 0; h < 0x10000; h++) {
    float f = fl::emu::half_bits_to_float(static_cast<uint16_t>(h));
    uint16_t back = fl::emu::float_to_half_bits(f);
    bool nan = ((h >> 10) & 0x1f) == 0x1f && (h & 0x3ff);
    if (nan ? !isnan(f) || (back & 0x7c00) != 0x7c00 || !(back & 0x3ff) : back != h) mismatches++;
  }
  expect(mismatches == 0, "every f16 value survives f16 -> f32 -> f16");
  // Halfway cases round to even; overflow and underflow.
  expect(fl::emu::float_to_half_bits(1.0f + 1.0f / 2048) == 0x3c00, "f16: 1 + 2^-11 rounds down to even 1.0");
  expect(fl::emu::float_to_half_bits(1.0f + 3.0f / 2048) == 0x3c02, "f16: 1 + 3*2^-11 rounds up to even");
  expect(fl::emu::float_to_half_bits(65519.0f) == 0x7bff && fl::emu::float_to_half_bits(65520.0f) == 0x7c00,
         "f16: 65519 -> 65504, 65520 -> Inf");
  expect(fl::emu::float_to_half_bits(ldexpf(1.0f, -25)) == 0 && fl::emu::float_to_half_bits(ldexpf(1.5f, -25)) == 1,
         "f16: 2^-25 -> 0 (tie to even), 1.5*2^-25 -> smallest subnormal");
  expect(fl::emu::float_to_half_bits(-INFINITY) == 0xfc00 && isnan(fl::emu::half_bits_to_float(
                                                                 fl::emu::float_to_half_bits(NAN))),
         "f16: -Inf and NaN");
  expect(__float2bfloat16(1.0f + 1.0f / 256).bits == 0x3f80 && __float2bfloat16(1.0f + 3.0f / 256).bits == 0x3f82,
         "bf16: halfway cases round to even");
}

}  // namespace

int main(int argc, char** argv) {
  std::string folder(argv[0]);
  folder = folder.substr(0, folder.rfind('/') + 1);
  void* plugin = dlopen((folder + "libfuselab_cpu.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!plugin) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  backend = reinterpret_cast<fl_backend_entry_fn>(dlsym(plugin, "fuselab_backend"))();
  printf("notes:\n%s\n", backend->notes());
  bool timings_only = argc > 1 && strcmp(argv[1], "--timings") == 0;

  device plain({0, 0, 0, 0});
  fl_device_props props;
  backend->props(plain.handle, &props);
  printf("device: %s, %s, warp %d, %d threads\n", props.name, props.arch, props.warp_size, props.multiprocessors);
  auto compile_start = std::chrono::steady_clock::now();
  void* m = plain.module(kKernels, kNames);
  printf("compile: %.0f ms\n",
         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - compile_start).count());
  if (!m) return 1;

  // Timings: fused elementwise over 1M f32, RMSNorm 1024 x 4096.
  {
    int n = 1 << 20;
    std::vector<float> a(n), b(n);
    for (int i = 0; i < n; i++) a[i] = float(i % 17) - 8, b[i] = float(i % 5);
    void *da = plain.upload(a), *db = plain.upload(b), *dout = plain.alloc(n * 4);
    float scale = 0.5f;
    void* k = plain.kernel(m, "add_relu_scale");
    unsigned blocks = (n + 255) / 256;
    std::vector<void*> args = {&dout, &da, &db, &scale, &n};
    double ms = plain.time_ms([&] { backend->launch(plain.handle, k, {blocks, 1, 1}, {256, 1, 1}, 0, args.data(), 5); }, 20);
    auto out = plain.download<float>(dout, n);
    bool right = true;
    for (int i = 0; i < n; i++) right &= out[i] == fmaxf(a[i] + b[i], 0.0f) * 0.5f;
    expect(right, "fused add_relu_scale over 1M f32 is right");
    printf("time: add_relu_scale 1M f32, 256-thread blocks: %.2f ms\n", ms);

    int rows = 1024, cols = 4096;
    std::vector<float> x(size_t(rows) * cols), w(cols);
    for (size_t i = 0; i < x.size(); i++) x[i] = float((i * 7919) % 1000) / 500.0f - 1.0f;
    for (int c = 0; c < cols; c++) w[c] = 1.0f + c % 3;
    void *dx = plain.upload(x), *dw = plain.upload(w), *dy = plain.alloc(x.size() * 4);
    float eps = 1e-6f;
    void* rk = plain.kernel(m, "rms_norm");
    std::vector<void*> rargs = {&dy, &dx, &dw, &cols, &eps};
    double rms_ms = plain.time_ms(
        [&] { backend->launch(plain.handle, rk, {unsigned(rows), 1, 1}, {256, 1, 1}, 0, rargs.data(), 5); }, 3);
    auto y = plain.download<float>(dy, x.size());
    double worst = 0;
    for (int r = 0; r < rows; r++) {
      double ss = 0;
      for (int c = 0; c < cols; c++) ss += double(x[size_t(r) * cols + c]) * x[size_t(r) * cols + c];
      double inv = 1.0 / sqrt(ss / cols + eps);
      for (int c = 0; c < cols; c++) {
        double ref = x[size_t(r) * cols + c] * inv * w[c];
        worst = fmax(worst, fabs(y[size_t(r) * cols + c] - ref));
      }
    }
    expect(worst < 1e-4, "rms_norm 1024 x 4096 matches the reference (worst error " + std::to_string(worst) + ")");
    printf("time: rms_norm 1024 x 4096, 256-thread blocks: %.1f ms\n", rms_ms);
    for (void* p : {da, db, dout, dx, dw, dy}) backend->release(plain.handle, p);
  }
  if (timings_only) return failures ? 1 : 0;

  test_halves();

  // A shared-memory reduction passes with its barrier, and in check mode fails without it.
  device checked({0, 1, 0, 0});
  void* cm = checked.module(kKernels, kNames);
  {
    std::vector<float> in(256 * 8);
    for (size_t i = 0; i < in.size(); i++) in[i] = float(i % 13);
    for (device* d : {&plain, &checked}) {
      void* mod = d == &plain ? m : cm;
      void *din = d->upload(in), *dout = d->alloc(8 * 4);
      bool with = true, without = true;
      std::string e1 = d->run(d->kernel(mod, "block_sum"), {8, 1, 1}, {256, 1, 1}, {&dout, &din}, 1024);
      auto sums = d->download<float>(dout, 8);
      std::string e2 = d->run(d->kernel(mod, "block_sum_no_barrier"), {8, 1, 1}, {256, 1, 1}, {&dout, &din}, 1024);
      auto racy = d->download<float>(dout, 8);
      for (int b = 0; b < 8; b++) {
        float ref = 0;
        for (int t = 0; t < 256; t++) ref += in[b * 256 + t];
        with &= sums[b] == ref;
        without &= racy[b] == ref;
      }
      std::string mode = d == &plain ? "plain" : "check";
      expect(e1.empty() && with, mode + " mode: block reduction with __syncthreads is right");
      if (d == &checked) expect(e2.empty() && !without, "check mode: the same reduction without the barrier is wrong");
      std::string e3 = d->run(d->kernel(mod, "static_shared_sum"), {1, 1, 1}, {256, 1, 1}, {&dout, &din});
      float total = d->download<float>(dout, 1)[0];
      if (d == &checked) expect(e3.empty() && isnan(total), "check mode: static __shared__ starts as NaN (got " + std::to_string(total) + ")");
    }
  }

  // Warp reductions at warp sizes 32 and 64.
  {
    device wide({64, 0, 0, 0});
    void* wm = wide.module(kKernels, kNames);
    std::vector<float> in(64);
    for (int i = 0; i < 64; i++) in[i] = float(i + 1);
    for (device* d : {&plain, &wide}) {
      void* mod = d == &plain ? m : wm;
      int lanes = d == &plain ? 32 : 64;
      void *din = d->upload(in), *dout = d->alloc(4);
      d->run(d->kernel(mod, "warp_total"), {1, 1, 1}, {unsigned(lanes), 1, 1}, {&dout, &din});
      float full = d->download<float>(dout, 1)[0];
      d->run(d->kernel(mod, "warp_total_32"), {1, 1, 1}, {unsigned(lanes), 1, 1}, {&dout, &din});
      float hard = d->download<float>(dout, 1)[0];
      float ref = lanes * (lanes + 1) / 2.0f;
      expect(full == ref, "warpSize " + std::to_string(lanes) + ": __shfl_xor warp sum is right");
      if (lanes == 32) expect(hard == ref, "warpSize 32: hard-coded 32-lane sum is right");
      else expect(hard != ref && hard == 528.0f, "warpSize 64: hard-coded 32-lane sum misses half the warp");
    }
    void *db = wide.alloc(8), *dany = wide.alloc(4), *dall = wide.alloc(4);
    wide.run(wide.kernel(wm, "votes"), {1, 1, 1}, {64, 1, 1}, {&db, &dany, &dall});
    unsigned long long ballot = wide.download<unsigned long long>(db, 1)[0];
    unsigned long long expected = 0;
    for (int i = 0; i < 64; i += 3) expected |= 1ull << i;
    expect(ballot == expected && wide.download<int>(dany, 1)[0] == 1 && wide.download<int>(dall, 1)[0] == 1,
           "votes over 64 lanes");
    void* ds = plain.alloc(32 * 3 * 4);
    plain.run(plain.kernel(m, "shuffles"), {1, 1, 1}, {32, 1, 1}, {&ds});
    auto s = plain.download<int>(ds, 96);
    bool right = true;
    for (int lane = 0; lane < 32; lane++) {
      int down = (lane % 8) + 3 < 8 ? lane + 3 : lane;
      int up = lane >= 2 ? lane - 2 : lane;
      int from = ((lane / 16) * 16 + 7) * 10;
      right &= s[lane * 3] == down && s[lane * 3 + 1] == up && s[lane * 3 + 2] == from;
    }
    expect(right, "__shfl_down/__shfl_up/__shfl with widths");
  }

  // Errors, each followed by a launch that works.
  auto still_works = [&](device& d, void* mod, const std::string& after) {
    int n = 256;
    std::vector<float> a(n, 1.0f);
    void *da = d.upload(a), *dout = d.alloc(n * 4);
    float scale = 2.0f;
    std::string e = d.run(d.kernel(mod, "add_relu_scale"), {1, 1, 1}, {256, 1, 1}, {&dout, &da, &da, &scale, &n});
    expect(e.empty() && d.download<float>(dout, n)[255] == 4.0f, "the device works after " + after);
  };
  {
    int n = 1024;
    void* dout = checked.alloc(n * 4);
    std::string e = checked.run(checked.kernel(cm, "oob_write"), {5, 1, 1}, {256, 1, 1}, {&dout, &n});
    expect(e == "kernel 'oob_write' wrote out of bounds: argument 0 (f32*), element 1024, 1 past the end of a "
                "1024-element buffer",
           "check mode catches the one-past-the-end write: " + e);
    still_works(checked, cm, "an out-of-bounds write");
  }
  {
    void* dout = plain.alloc(256 * 4);
    std::string e = plain.run(plain.kernel(m, "deadlock"), {1, 1, 1}, {256, 1, 1}, {&dout});
    expect(contains(e, "kernel 'deadlock' deadlocked in block (0,0,0)") && contains(e, "wait at __syncthreads() on line"),
           "deadlock: " + e);
    still_works(plain, m, "a deadlock");
    e = plain.run(plain.kernel(m, "early_exit"), {1, 1, 1}, {64, 1, 1}, {&dout});
    expect(contains(e, "exited"), "threads that exit before a barrier others wait at: " + e);
    e = checked.run(checked.kernel(cm, "deadlock"), {1, 1, 1}, {256, 1, 1}, {&dout});
    expect(contains(e, "deadlocked"), "deadlock in check mode: " + e);
  }
  {
    void* dout = plain.alloc(256 * 4);
    std::string e = plain.run(plain.kernel(m, "wild_pointer"), {8, 1, 1}, {256, 1, 1}, {&dout});
    expect(e == "kernel 'wild_pointer' made an invalid memory access at 0x54 (block (3,0,0), thread (17,0,0))",
           "wild pointer: " + e);
    still_works(plain, m, "a wild pointer");
    e = plain.run(plain.kernel(m, "stack_hog"), {1, 1, 1}, {64, 1, 1}, {&dout});
    expect(contains(e, "overflowed its 64 KiB fiber stack"), "fiber stack overflow: " + e);
    still_works(plain, m, "a stack overflow");
    int zero = 0;
    e = plain.run(plain.kernel(m, "divide"), {1, 1, 1}, {4, 1, 1}, {&dout, &zero});
    expect(contains(e, "divided an integer by zero"), "integer division by zero: " + e);
  }
  {
    device limited({0, 0, 0, 300});
    void* lm = limited.module(kKernels, kNames);
    void* flag = limited.upload(std::vector<int>{0});
    auto start = std::chrono::steady_clock::now();
    std::string e = limited.run(limited.kernel(lm, "runaway"), {4, 1, 1}, {32, 1, 1}, {&flag});
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    expect(e == "kernel 'runaway' ran past the 300 ms limit" && ms < 1000, "time limit: " + e);
    still_works(limited, lm, "a time limit");

    std::vector<void*> args = {&flag};
    backend->launch(plain.handle, plain.kernel(m, "runaway"), {4, 1, 1}, {32, 1, 1}, 0, args.data(), 1);
    void* flag2 = plain.upload(std::vector<int>{0});
    (void)flag2;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    int cancelled = backend->cancel(plain.handle);
    std::string ce = backend->synchronize(plain.handle) ? backend->last_error() : "";
    expect(cancelled == 1 && ce == "kernel 'runaway' was cancelled", "cancel: " + ce);
    still_works(plain, m, "a cancel");
  }
  {
    void *total = plain.upload(std::vector<int>{0}), *sum = plain.upload(std::vector<float>{0});
    plain.run(plain.kernel(m, "count"), {1000, 1, 1}, {128, 1, 1}, {&total, &sum});
    expect(plain.download<int>(total, 1)[0] == 128000 && plain.download<float>(sum, 1)[0] == 64000.0f,
           "atomics across blocks");
  }
  {
    std::vector<float> in = {1.0f, -2.5f, 65504.0f, 1e-7f, 3.14159f, INFINITY, 1e30f};
    int n = static_cast<int>(in.size());
    void *din = plain.upload(in), *back = plain.alloc(n * 8), *h = plain.alloc(n * 2), *b = plain.alloc(n * 2);
    plain.run(plain.kernel(m, "halves"), {1, 1, 1}, {64, 1, 1}, {&back, &h, &b, &din, &n});
    auto v = plain.download<float>(back, 2 * n);
    expect(v[0] == 1.0f && v[2] == -2.5f && v[4] == 65504.0f && fabsf(v[8] - 3.14159f) < 2e-3f && isinf(v[10]) &&
               isinf(v[12]) && v[13] > 9e29f && fabsf(v[9] - 3.14159f) < 2e-2f,
           "f16/bf16 conversions in a kernel");
  }
  {
    std::string log;
    void* bad = plain.module("__global__ void broken(float* x) {\n  x[0] = undefined_name;\n}\n", "broken", &log);
    expect(!bad && contains(log, "cell.cc:2:") && contains(log, "undefined_name"), "compile errors point into the source");
  }
  {
    std::vector<void*> args;
    int rc = backend->launch(plain.handle, plain.kernel(m, "deadlock"), {1, 1, 1}, {2048, 1, 1}, 0, args.data(), 0);
    expect(rc != 0 && contains(backend->last_error(), "takes 1 arguments"), std::string("argument count: ") + backend->last_error());
  }
  backend->module_unload(plain.handle, m);
  backend->module_unload(checked.handle, cm);
  printf("%s\n", failures ? "FAILED" : "all passed");
  return failures ? 1 : 0;
}
