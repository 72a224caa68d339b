// Run-time compilation: kernels from a string, their parsed signatures, compile
// errors pointing into the user's source, the module cache, disposed modules.
import { expect } from "chai";
import * as fl from "../src";
import { native } from "../src/native";
import { Preprocessor } from "../src/preprocess";
import { findKernels, parseKernels } from "../src/signature";
import { expectRejects, expectThrows, range, testDevice } from "./helpers";

const SAXPY = `
// out = a * x + y
__global__ void saxpy(float* __restrict__ out, const float* __restrict__ x, const float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
`;

describe("compile", () => {
  const dev = testDevice;

  it("compiles a kernel from a string and launches it", () => {
    const module = fl.compile(SAXPY, { device: dev() });
    expect(module.kernels).to.deep.equal(["saxpy"]);
    const saxpy = module.fn("saxpy");
    expect(saxpy.params.map((p) => p.name)).to.deep.equal(["out", "x", "y", "a", "n"]);
    const n = 1000;
    const x = fl.randn([n], { device: dev(), seed: 1 });
    const y = fl.randn([n], { device: dev(), seed: 2 });
    const out = fl.empty([n], { device: dev() });
    saxpy.launch({ grid: Math.ceil(n / 256), block: 256 }, out, x, y, 2, n);
    const xs = x.toArray();
    const ys = y.toArray();
    fl.assertClose(out, Array.from(xs, (v, i) => Math.fround(2 * v) + ys[i]), { rtol: 1e-6, atol: 1e-6 });
  });

  it("gives each block the dynamic shared memory the launch asks for, as HIP spells it", () => {
    // Two element types in one module: each declares its own extern __shared__ array.
    const module = fl.compile(`
__global__ void reverse_blocks(float* out, const float* x) {
  extern __shared__ float tile[];
  const int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  tile[t] = x[base + t];
  __syncthreads();
  out[base + t] = tile[blockDim.x - 1 - t];
}
__global__ void count_odd(int* out, const int* x) {
  extern __shared__ __align__(16) int flags[];
  flags[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x] & 1;
  __syncthreads();
  if (threadIdx.x == 0) {
    int sum = 0;
    for (int i = 0; i < blockDim.x; ++i) sum += flags[i];
    out[blockIdx.x] = sum;
  }
}
`, { device: dev() });
    const blocks = 3, threads = 96;
    const x = fl.randn([blocks * threads], { device: dev(), seed: 5 });
    const out = fl.empty([blocks * threads], { device: dev() });
    module.fn("reverse_blocks").launch({ grid: blocks, block: threads, sharedBytes: threads * 4 }, out, x);
    const xs = x.toArray();
    const expected = Array.from(xs, (_v, i) => xs[Math.floor(i / threads) * threads + threads - 1 - (i % threads)]);
    expect(Array.from(out.toArray())).to.deep.equal(expected);

    const ints = fl.tensor(Array.from({ length: blocks * threads }, (_v, i) => (i * 7) % 5), { dtype: "i32", device: dev() });
    const counts = fl.empty([blocks], { dtype: "i32", device: dev() });
    module.fn("count_odd").launch({ grid: blocks, block: threads, sharedBytes: threads * 4 }, counts, ints);
    const values = ints.toArray();
    const odd = [0, 1, 2].map((b) => values.slice(b * threads, (b + 1) * threads).filter((v) => v % 2 === 1).length);
    expect(Array.from(counts.toArray())).to.deep.equal(odd);
  });

  it("checks arguments against the parsed signature", () => {
    const saxpy = fl.compile(SAXPY, { device: dev() }).fn("saxpy");
    const t = fl.zeros([4], { device: dev() });
    expectThrows(() => saxpy.launch({ grid: 1, block: 4 }, t, t, t, 2), fl.ArgumentError,
      "kernel saxpy: the arguments must be 5 values: saxpy(float* out, const float* x, const float* y, float a, int n), got 4 values");
    expectThrows(() => saxpy.launch({ grid: 1, block: 4 }, t, t, t, 2, 3.5), fl.ArgumentError,
      "kernel saxpy: argument 4 (n) must be an integer (int), got 3.5");
    expectThrows(() => saxpy.launch({ grid: 1, block: 4 }, t, t, t, 2, 2 ** 31), fl.ArgumentError,
      "kernel saxpy: argument 4 (n) must be an integer from -2147483648 to 2147483647 (int), got 2147483648");
    expectThrows(() => saxpy.launch({ grid: 1, block: 4 }, t, t, t, t as unknown as number, 4), fl.ArgumentError,
      `kernel saxpy: argument 3 (a) must be a number (float), got an f32 tensor of shape [4] on ${dev().describe()}`);
    const ints = fl.zeros([4], { dtype: "i32", device: dev() });
    expectThrows(() => saxpy.launch({ grid: 1, block: 4 }, t, ints, t, 2, 4), fl.ArgumentError,
      `kernel saxpy: argument 1 (x) must be an f32 tensor (const float*), got an i32 tensor of shape [4] on ${dev().describe()}`);
    expectThrows(() => fl.compile(SAXPY, { device: dev() }).fn("sax"), fl.ArgumentError,
      "module.fn: name must be one of the module's kernels (saxpy), got \"sax\"");
  });

  it("reports a compile error with the compiler's log and the user's line numbers", async () => {
    const broken = "__global__ void broken(float* out) {\n  out[0] = 1.0f;\n  out[1] = undefined_name;\n}\n";
    const error = expectThrows(() => fl.compile(broken, { device: dev() }), fl.DeviceError,
      new RegExp(`^fl\\.compile: compilation failed on ${dev().describe().replace(/[()]/g, "\\$&")}:\\n`));
    expect(error.message).to.match(/broken\.hip[:(]3\b/);
    expect(error.message).to.contain("undefined_name");
    expect(error.log).to.be.a("string").and.contain("undefined_name");
    await expectRejects(fl.compileAsync(broken, { device: dev(), name: "cell" }), fl.DeviceError, /cell\.hip[:(]3\b/);
    // A name with a source file's extension is the file's name as it is.
    expectThrows(() => fl.compile(broken, { device: dev(), name: "broken_kernels.cu" }), fl.DeviceError, /broken_kernels\.cu[:(]3\b/);
    // Without one, a source including CUDA's headers and none of HIP's is a .cu file; another a .hip one.
    const cuda = "#include <cuda_runtime.h>\n" + broken;
    expectThrows(() => fl.compile(cuda, { device: dev() }), fl.DeviceError, /broken\.cu[:(]4\b/);
    expectThrows(() => fl.compile("#include <hip/hip_runtime.h>\n#include <cub/cub.cuh>\n" + broken, { device: dev() }), fl.DeviceError, /broken\.hip[:(]5\b/);
  });

  it("caches modules by source: a second compile runs no compiler", async () => {
    const source = "__global__ void cached(int* out) { out[threadIdx.x] = threadIdx.x; }\n";
    const first = await fl.compileAsync(source, { device: dev() });
    expect(fl.compile(source, { device: dev() })).to.equal(first);
    expect(await fl.compileAsync(source, { device: dev() })).to.equal(first);
    expect(fl.compile(source + "\n", { device: dev() })).to.not.equal(first);
    const out = fl.zeros([8], { dtype: "i32", device: dev() });
    first.fn("cached").launch({ grid: 1, block: 8 }, out);
    expect(Array.from(out.toArray())).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("refuses kernels of a disposed module, in TS and in the addon", () => {
    const module = fl.compile("__global__ void gone(float* out) { out[0] = 1.0f; }\n", { device: dev() });
    const gone = module.fn("gone");
    const out = fl.zeros([1], { device: dev() });
    const prepared = gone.prepare({ grid: 1, block: 1 }, out);
    module.dispose();
    expect(module.disposed).to.equal(true);
    expectThrows(() => gone.launch({ grid: 1, block: 1 }, out), fl.FuselabError, "kernel gone: its module was disposed");
    expectThrows(() => prepared.launch(), fl.FuselabError, "kernel gone: its module was disposed");
    expectThrows(() => module.fn("gone"), fl.FuselabError, "module.fn: the module of gone was used after dispose()");
    expectThrows(() => native().launch(gone.handle, [1, 1, 1], [1, 1, 1], 0, [out.handle("test")]), Error,
      "kernel gone: its module was unloaded");
    expectThrows(() => native().launchPrepared(prepared.handle), Error, "kernel gone: its module was unloaded");
    expect(fl.compile("__global__ void gone(float* out) { out[0] = 1.0f; }\n", { device: dev() })).to.not.equal(module);
  });

  it("refuses sources without kernels", () => {
    expectThrows(() => fl.compile("__device__ float twice(float x) { return 2 * x; }", { device: dev() }), fl.ArgumentError,
      "fl.compile: source must be a source with at least one __global__ function, got none");
    expectThrows(() => fl.compile(42 as unknown as string), fl.ArgumentError, "fl.compile: source must be a string of HIP source, got 42");
  });
});

describe("kernel signatures", () => {
  const params = (source: string) => parseKernels(source).map((k) => [k.name, k.params.map((p) => [p.name, p.type, p.pointer, p.isConst])]);

  it("parses awkward declarations", () => {
    const source = `
      #include <stdint.h>
      #define NOT_A_KERNEL __global__ void fake(int x)
      // __global__ void commented(int x) {}
      /* __global__ void block_commented(int x) {} */
      const char* text = "__global__ void in_string(int x)";
      extern "C" __global__ void __launch_bounds__(256, 2)
      awkward(const float* __restrict__ in, float *out, unsigned n, int64_t big, size_t bytes,
              __half* h, const fl_bf16* b, uint8_t* mask, unsigned long long u, double d, const int* const fixed) {}
      struct Pair { float a, b; };
      __global__ void structs(Pair* pairs, float4* vectors, long long count = 4) {}
      __global__ void nothing(void) {}
      __global__ void unnamed(float*, int) {}
      __global__ void arrays(float values[], std::size_t n) {}
      // rpp's region of interest: a struct's typedef declaring its pointer type beside it.
      typedef struct { int x, y; } RpptROI, *RpptROIPtr;
      typedef struct Box_s { int w; } Box, *BoxPtr;
      __global__ void regions(RpptROIPtr roi, const BoxPtr boxes, int n) {}
    `;
    expect(params(source)).to.deep.equal([
      ["awkward", [
        ["in", "f32", true, true], ["out", "f32", true, false], ["n", "u32", false, false], ["big", "i64", false, false],
        ["bytes", "u64", false, false], ["h", "f16", true, false], ["b", "bf16", true, true], ["mask", "u8", true, false],
        ["u", "u64", false, false], ["d", "f64", false, false], ["fixed", "i32", true, true],
      ]],
      ["structs", [["pairs", "void", true, false], ["vectors", "void", true, false], ["count", "i64", false, false]]],
      ["nothing", []],
      ["unnamed", [["", "f32", true, false], ["", "i32", false, false]]],
      ["arrays", [["values", "f32", true, false], ["n", "u64", false, false]]],
      ["regions", [["roi", "void", true, false], ["boxes", "void", true, false], ["n", "i32", false, false]]],
    ]);
    const [awkward] = parseKernels(source);
    expect(awkward.line).to.equal(7);
    expect(awkward.params[0].declaration).to.equal("const float*");
  });

  it("counts lines after a macro call written over several lines as the source does (a host CUDA_CALL before a static __device__ variable)", () => {
    const source = `#define CUDA_CALL(x) { cudaError_t s = x; if (s != cudaSuccess) { exit(1); } }
#define STR(x) #x
void host(float t) {
  CUDA_CALL(
      cudaEventElapsedTime(&t, a,
          b));
}
const char* text = STR(a
  b);
__device__ static unsigned int data_01 = 5;
__global__ void k(unsigned int* o) { o[0] = data_01; }`;
    expect(new Preprocessor().run(source).split("\n")).to.have.length(source.split("\n").length);
    expect(new Preprocessor().run(source).split("\n")[7]).to.equal("const char* text = \"a b\"");
    const found = findKernels(source);
    expect([found.kernels[0].line, found.constants.map((c) => [c.name, c.line])]).to.deep.equal([11, [["data_01", 10]]]);
    const module = fl.compile(source, { device: testDevice() });
    const out = fl.zeros([1], { dtype: "u32", device: testDevice() });
    module.constant("data_01").set([7]);
    module.fn("k").launch({ grid: 1, block: 1 }, out);
    expect(Array.from(out.toArray())).to.deep.equal([7]);
  });

  it("accepts a prototype before its definition, launches an overload named with its parameter types, and refuses references", () => {
    expect(parseKernels("__global__ void k(float* x);\n__global__ void k(float* x) {}").map((k) => k.name)).to.deep.equal(["k"]);
    // A header's prototype of other parameters than the definition (CIS565's kernScatter, a stale one in a
    // Mandelbrot renderer's header) declares a function the file does not define: the name picks the definition.
    const scatter = findKernels("__global__ void s(int n, int* o, const int* a, const int* b);\n__global__ void s(int n, int* o, const int* a) {}");
    expect([scatter.kernels.map((k) => k.params.length), [...scatter.overloaded]]).to.deep.equal([[3], []]);
    const stale = fl.compile("__global__ void s(int n, int* o, const int* a, const int* b);\n__global__ void s(int n, int* o, const int* a) { if (threadIdx.x < n) o[threadIdx.x] = a[threadIdx.x] + 1; }",
      { device: testDevice(), name: "stale_prototype" });
    const counted = fl.full([3], -1, { dtype: "i32", device: testDevice() });
    stale.fn("s").launch({ grid: 1, block: 4 }, 3, counted, fl.tensor([4, 5, 6], { dtype: "i32", device: testDevice() }));
    expect(Array.from(counted.toArray())).to.deep.equal([5, 6, 7]);
    const overloads = "__global__ void k(float* x) { x[threadIdx.x] = 1.5f; }\n__global__ void k(int* x) { x[threadIdx.x] = 7; }\n__global__ void k(float* x);\n" +
      "__global__ void other(int* x) { x[threadIdx.x] = 3; }";
    expect(findKernels(overloads).kernels.map((k) => k.name)).to.deep.equal(["other"]);
    expect([...findKernels(overloads).overloaded]).to.deep.equal([["k", [1, 2]]]);
    const module = fl.compile(overloads, { device: testDevice(), name: "overloads" });
    // Listed as fn() takes them, with their parameter types.
    expect(module.kernels).to.deep.equal(["other", "k(float*)", "k(int*)"]);
    const x = fl.zeros([4], { dtype: "i32", device: testDevice() });
    module.fn("other").launch({ grid: 1, block: 4 }, x);
    expect(Array.from(x.toArray())).to.deep.equal([3, 3, 3, 3]);
    expectThrows(() => module.fn("k"), fl.ArgumentError,
      "module.fn: name must be a kernel its name alone picks, got \"k\", which the source overloads (lines 1 and 2): " +
      "name the one to launch with its parameter types, \"k(float*)\" or \"k(int*)\"");
    // Named as tools print a kernel, spaces and const placed either way.
    const floats = fl.full([3], NaN, { device: testDevice() });
    module.fn("k(float *)").launch({ grid: 1, block: 3 }, floats);
    expect(Array.from(floats.toArray())).to.deep.equal([1.5, 1.5, 1.5]);
    const ints = fl.full([3], -1, { dtype: "i32", device: testDevice() });
    module.fn("k(int*)").launch({ grid: 1, block: 3 }, ints);
    expect(Array.from(ints.toArray())).to.deep.equal([7, 7, 7]);
    expect(module.fn("k(int *)")).to.equal(module.fn("k(int*)"));
    expectThrows(() => module.fn("k(double*)"), fl.ArgumentError, "module.fn: name must be one of \"k(float*)\", \"k(int*)\", got \"k(double*)\"");
    // Templates overloaded on their parameters' types (DeepSpeed's attn_softmax on float* and __half*); a
    // prototype whose parameters are named otherwise is no overload.
    const templates = "template <int N> __global__ void t(float* v, int n = 1);\n#include <cuda_fp16.h>\n" +
      "template <int N> __global__ void t(float* values, int count) { values[threadIdx.x] *= N; }\n" +
      "template <int N> __global__ void t(__half* v) { v[threadIdx.x] = v[threadIdx.x] * __half(N); }\n" +
      "template <int N> __global__ void u(float* v) { v[threadIdx.x] = N; }";
    expect(findKernels(templates).templates.map((t) => t.name)).to.deep.equal(["u"]);
    expect([...findKernels(templates).overloaded]).to.deep.equal([["t", [1, 4]]]);
    const templated = fl.compile(templates, { device: testDevice(), name: "overloaded_templates" });
    expect(templated.templates).to.deep.equal(["u", "t"]);
    expectThrows(() => templated.fn("t<2>"), fl.ArgumentError,
      "module.fn: name must be a kernel its name alone picks, got \"t<2>\", which the source overloads (lines 1 and 4): " +
      "name the one to launch with its parameter types, \"t<2>(float*, int)\" or \"t<2>(__half*)\"");
    expectThrows(() => templated.fn("t"), fl.ArgumentError,
      "module.fn: name must be a kernel its name alone picks, got \"t\", which the source overloads (lines 1 and 4): " +
      "name the one to launch with its parameter types, \"t<...>(float*, int)\" or \"t<...>(__half*)\"");
    const values = fl.tensor([1, 2, 3], { device: testDevice() });
    templated.fn("t<3>(float*, int)").launch({ grid: 1, block: 3 }, values, 3);
    expect(Array.from(values.toArray())).to.deep.equal([3, 6, 9]);
    const halves = fl.tensor([1, 2, 3], { dtype: "f16", device: testDevice() });
    templated.fn("t<2>(__half*)").launch({ grid: 1, block: 3 }, halves);
    expect(Array.from(halves.toArray())).to.deep.equal([2, 4, 6]);
    // NVRTC's name expressions for an overload: a cast to its function pointer type, or an address.
    expect(templated.fn("(void (*)(float*, int))t<3>")).to.equal(templated.fn("t<3>(float*, int)"));
    expect(templated.fn("static_cast<void(*)(__half*)>(&t<2>)")).to.equal(templated.fn("t<2>(__half*)"));
    expect(templated.fn("&u<5>")).to.equal(templated.fn("u<5>"));
    expectThrows(() => templated.fn("t(__half*)"), fl.ArgumentError,
      "module.fn: name must be t named as the source declares it (with its template arguments), got \"t(__half*)\"");
    const y = fl.zeros([4], { device: testDevice() });
    templated.fn("u<5>").launch({ grid: 1, block: 4 }, y);
    expect(Array.from(y.toArray())).to.deep.equal([5, 5, 5, 5]);
    // Overloads told apart by empty tag structs of a class template (GPU-LBMsim's use_LES<false>, use_LES<true>).
    const tagged = fl.compile(`template <bool on = true> struct use_LES {};
template <> struct use_LES<false> {};
__global__ void collide(float* y, use_LES<false>) { y[threadIdx.x] = 1; }
__global__ void collide(float* y, use_LES<true>) { y[threadIdx.x] = 2; }`, { device: testDevice(), name: "tag_overloads" });
    expect(tagged.kernels).to.deep.equal(["collide(float*, use_LES<false>)", "collide(float*, use_LES<true>)"]);
    const collided = fl.full([3], NaN, { device: testDevice() });
    tagged.fn("collide(float*, use_LES<true>)").launch({ grid: 1, block: 3 }, collided, {});
    expect(Array.from(collided.toArray())).to.deep.equal([2, 2, 2]);
    tagged.fn("(void (*)(float*, use_LES<false>))collide").launch({ grid: 1, block: 3 }, collided, {});
    expect(Array.from(collided.toArray())).to.deep.equal([1, 1, 1]);
    // A template and a plain kernel of one name (calm's kernel_embed<T> beside its uint32_t* overload): each by its own name.
    const embed = fl.compile(`#include <stdint.h>
#include <cuda_fp16.h>
template <typename T>
__global__ static void kernel_embed(float* o, T* weight, int token, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = float(weight[token * n + i]);
}
__global__ static void kernel_embed(float* o, uint32_t* weight, int token, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = float(weight[token * n + i] & 0xff);
}`, { device: testDevice(), name: "template_beside_kernel" });
    expect([embed.kernels, embed.templates]).to.deep.equal([["kernel_embed"], ["kernel_embed"]]);
    const row = fl.full([4], NaN, { device: testDevice() });
    embed.fn("kernel_embed").launch({ grid: 1, block: 32 }, row, fl.tensor([1, 2, 3, 4, 0x105, 0x206, 7, 8], { dtype: "u32", device: testDevice() }), 1, 4);
    expect(Array.from(row.toArray())).to.deep.equal([5, 6, 7, 8]);
    embed.fn("kernel_embed<half>").launch({ grid: 1, block: 32 }, row, fl.tensor([1, 2, 3, 4, 5.5, 6, 7, 8], { dtype: "f16", device: testDevice() }), 1, 4);
    expect(Array.from(row.toArray())).to.deep.equal([5.5, 6, 7, 8]);
    expectThrows(() => parseKernels("__global__ void k(float& x) {}"), fl.ArgumentError,
      "fl.compile: source must be kernels whose parameters are pointers, scalars or structs fuselab can pass (a reference cannot be passed to a kernel), got parameter 0 of k (line 1) declared as \"float & x\"");
    expectThrows(() => parseKernels("__global__ void k(Pair p) {}"), fl.ArgumentError,
      "fl.compile: source must be kernels whose parameters are pointers, scalars or structs fuselab can pass (a value is an integer, a float, a vector type or a struct the source defines; \"Pair\" is none of these), got parameter 0 of k (line 1) declared as \"Pair p\"");
    // Beside kernels it can launch, one TS cannot is refused when named, not with the module. (candle's fill.cu
    // has a kernel taking an __nv_fp8_e4m3 by value among twenty others: that one takes a number.)
    const mixed = fl.compile(`#include <cuda_fp8.h>
__global__ void fill_f32(float* out, float v, int n) { if (threadIdx.x < n) out[threadIdx.x] = v; }
__global__ void fill_f8(__nv_fp8_e4m3* out, __nv_fp8_e4m3 v, int n) { if (threadIdx.x < n) out[threadIdx.x] = v; }
template <typename T> __global__ void fill_ref(T& out) { out = T(); }
template __global__ void fill_ref<float>(float&);
`, { device: testDevice() });
    expect(mixed.kernels).to.deep.equal(["fill_f32", "fill_f8"]);
    const filled = fl.full([4], NaN, { device: testDevice() });
    mixed.fn("fill_f32").launch({ grid: 1, block: 4 }, filled, 2.5, 3);
    expect(Array.from(filled.toArray())).to.deep.equal([2.5, 2.5, 2.5, NaN]);
    const codes = fl.full([4], 0x55, { dtype: "u8", device: testDevice() });
    mixed.fn("fill_f8").launch({ grid: 1, block: 4 }, codes, 2.5, 3);
    expect(Array.from(codes.toArray())).to.deep.equal([0x42, 0x42, 0x42, 0x55]);  // 2.5 = 1.25 * 2^1: exponent field 8, mantissa 2
    expectThrows(() => mixed.fn("fill_ref<float>"), fl.ArgumentError, /^module.fn: name must be a kernel whose parameters are .* \(a reference cannot be passed to a kernel\), got "fill_ref<float>", whose parameter 0 \(line 4\) is declared as "float & out"$/);
  });

  it("launches the overload TS can pass beside one taking a texture object (rocDecode's ResizeHip), a template's and a plain kernel's", () => {
    const module = fl.compile(`
template <typename T> __global__ void resize(cudaTextureObject_t tex, T* out, int n) {}
template <typename T> __global__ void resize(const T* in, T* out, int n) { if (threadIdx.x < n) out[threadIdx.x] = in[threadIdx.x] * 2; }
__global__ void scale(cudaTextureObject_t tex, float* out, int n) {}
__global__ void scale(const float* in, float* out, int n) { if (threadIdx.x < n) out[threadIdx.x] = in[threadIdx.x] * 3; }
`, { device: testDevice(), name: "texture_overloads" });
    const input = fl.tensor([1, 2, 3, 4], { device: testDevice() });
    const out = fl.full([4], NaN, { device: testDevice() });
    module.fn("resize<float>(const float*, float*, int)").launch({ grid: 1, block: 4 }, input, out, 4);
    expect(Array.from(out.toArray())).to.deep.equal([2, 4, 6, 8]);
    module.fn("scale").launch({ grid: 1, block: 4 }, input, out, 4);
    expect(Array.from(out.toArray())).to.deep.equal([3, 6, 9, 12]);
    expectThrows(() => module.fn("resize<float>(cudaTextureObject_t, float*, int)"), fl.ArgumentError,
      "module.fn: name must be one of \"resize<float>(const float*, float*, int)\", got \"resize<float>(cudaTextureObject_t, float*, int)\"");
  });

  it("launches a kernel that shares its name with a device function, and takes a header's prototype spelling a parameter's type by another name as the same kernel", () => {
    // 3D Gaussian Splatting's simple-knn: `__host__ __device__ uint32_t coord2Morton(float3, ...)` beside
    // `__global__ void coord2Morton(int, const float3*, ...)`, which its host code launches by name.
    const module = fl.compile(`
__host__ __device__ float twice(float x) { return 2.f * x; }
__device__ int twice(int x) { return x << 1; }
__global__ void twice(int n, const float* in, float* out, int* counts, float2 affine) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { out[i] = twice(in[i]) * affine.x + affine.y; counts[i] = twice(i); }
}
__global__ void thrice(int n, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3.f * twice(1.f);
}
// A header's prototype and the .cu file's definition: size_t is unsigned long, uint32_t unsigned int.
__global__ void fill(int* out, unsigned long n, const uint32_t value);
__global__ void fill(int* out, size_t n, unsigned value) { if (threadIdx.x < n) out[threadIdx.x] = value; }
`, { device: testDevice(), name: "shared_names" });
    expect(module.kernels).to.deep.equal(["twice", "thrice", "fill"]);
    const n = 37, input = fl.tensor(range(n).map((i) => i - 10.5), { device: testDevice() });
    const out = fl.full([n], NaN, { device: testDevice() }), counts = fl.full([n], -1, { dtype: "i32", device: testDevice() });
    module.fn("twice").launch({ grid: 2, block: 32 }, n, input, out, counts, { x: 0.5, y: 4 });
    expect([Array.from(out.toArray()), Array.from(counts.toArray())]).to.deep.equal([range(n).map((i) => i - 10.5 + 4), range(n).map((i) => 2 * i)]);
    expect(module.fn("twice").signature()).to.equal("twice(int n, const float* in, float* out, int* counts, float2 affine)");
    module.fn("thrice").launch({ grid: 2, block: 32 }, n, out);
    expect(Array.from(out.toArray())).to.deep.equal(range(n).map(() => 6));
    const filled = fl.full([4], -1, { dtype: "i32", device: testDevice() });
    module.fn("fill").launch({ grid: 1, block: 4 }, filled, 3, 9);
    expect(Array.from(filled.toArray())).to.deep.equal([9, 9, 9, -1]);
  });
});
