// A project's own headers given to fl.compile as text (option `headers`), on the
// test device (the CPU emulator, or the GPU with FUSELAB_DEVICE=gpu): a source
// that includes them compiles as written, each #include found as the
// preprocessor finds it, and every message names the header and its line.
import { expect } from "chai";
import * as fl from "../src";
import { expectThrows, range, testDevice } from "./helpers";

// A small project as one is laid out: a common header with #pragma once, a
// folder of helpers that include it and a neighbour of their own, a config
// header by <...>, a classic include guard, and kernels in headers.
const PROJECT: Record<string, string> = {
  "common.h": [
    "#pragma once",
    "#define BLOCK 64",
    "__device__ inline float square(float x) { return x * x; }",
    "struct Affine { float scale; int shift; };",
  ].join("\n"),
  "ops/ops.cuh": [
    "#include \"common.h\"       // from the source's folder: there is no ops/common.h",
    "#include \"detail.h\"       // beside this header: ops/detail.h",
    "#ifndef OPS_CUH",
    "#define OPS_CUH",
    "__device__ inline float affine(float x, Affine a) { return twice(square(x)) * a.scale; }",
    "template <int STRIDE>",
    "__global__ void gather(float* out, const float* in, int n) {",
    "  int i = blockIdx.x * BLOCK + threadIdx.x;",
    "  if (i < n) out[i] = in[i * STRIDE];",
    "}",
    "#endif",
  ].join("\n"),
  "ops/detail.h": "#pragma once\n__device__ inline float twice(float x) { return 2.f * x; }\n",
  "proj/config.h": "#define SHIFT_MASK 7\n",
};

const SOURCE = [
  "#include \"common.h\"",
  "#include \"ops/ops.cuh\"",
  "#include \"ops/ops.cuh\"   // again: the guard keeps one copy",
  "#include <proj/config.h>",
  "#include \"common.h\"",
  "__global__ void transform(float* y, const float* x, Affine a, int n) {",
  "  int i = blockIdx.x * BLOCK + threadIdx.x;",
  "  if (i < n) y[i] = affine(x[i], a) + (float)(a.shift & SHIFT_MASK);",
  "}",
  "",
].join("\n");

describe("fl.compile's option headers: a project's own headers, given as text", () => {
  const dev = testDevice;

  it("compiles a source as written, its headers found as the preprocessor finds them, and runs it", () => {
    const mod = fl.compile(SOURCE, { device: dev(), headers: PROJECT });
    const n = 203;
    const xs = range(n).map((i) => (i % 17) - 8.5);
    const x = fl.tensor(xs, { device: dev() });
    const y = fl.full([n], NaN, { device: dev() });
    mod.fn("transform").launch({ grid: Math.ceil(n / 64), block: 64 }, y, x, { scale: 0.25, shift: 13 }, n);
    fl.assertClose(y, xs.map((v) => Math.fround(Math.fround(2 * Math.fround(v * v)) * 0.25) + 5), { rtol: 0, atol: 0 });
    // A template kernel a header defines is instanced by its name expression.
    const g = fl.full([70], NaN, { device: dev() });
    mod.fn("gather<3>").launch({ grid: 2, block: 64 }, g, fl.tensor(range(210), { device: dev() }), 70);
    fl.assertClose(g, range(70).map((i) => 3 * i), { rtol: 0, atol: 0 });
  });

  it("compiles again when a header's text changes, and not when nothing does", () => {
    const first = fl.compile(SOURCE, { device: dev(), headers: PROJECT });
    expect(fl.compile(SOURCE, { device: dev(), headers: { ...PROJECT } })).to.equal(first);
    const changed = fl.compile(SOURCE, { device: dev(), headers: { ...PROJECT, "proj/config.h": "#define SHIFT_MASK 1\n" } });
    expect(changed).to.not.equal(first);
    const y = fl.full([1], NaN, { device: dev() });
    changed.fn("transform").launch({ grid: 1, block: 64 }, y, fl.tensor([0], { device: dev() }), { scale: 1, shift: 13 }, 1);
    expect(Array.from(y.toArray())).to.deep.equal([1]);
  });

  it("names the header and its line in the compiler's messages, and the source's lines after a header as the source counts them", () => {
    const broken = { ...PROJECT, "ops/detail.h": "#pragma once\n\n__device__ inline float twice(float x) { return 2.f * undeclared_name; }\n" };
    const e = expectThrows(() => fl.compile(SOURCE, { device: dev(), headers: broken }), fl.DeviceError, /compilation failed/);
    expect(e.message).to.match(/ops\/detail\.h[:(]3\b/);
    expect(e.message).to.contain("undeclared_name");
    // Dynamic shared memory declared at file scope in a header (which the CPU rewrites over several lines) keeps the count too.
    const shared = { "tile.h": "#pragma once\nextern __shared__ float tile[];\n" };
    const source = "#include \"tile.h\"\n__global__ void k(float* o) {\n  tile[threadIdx.x] = 1.f;\n  o[0] = tile[0] + missing_here;\n}\n";
    const e2 = expectThrows(() => fl.compile(source, { device: dev(), headers: shared, name: "tiles" }), fl.DeviceError, /compilation failed/);
    expect(e2.message).to.match(/tiles\.hip[:(]4\b/);
  });

  it("names the header and its line in its own refusals", () => {
    const reading = { "evil.h": "// looks harmless\n#include \"/etc/passwd\"\n" };
    expectThrows(() => fl.compile("#include \"evil.h\"\n__global__ void k(int* o) {}\n", { device: dev(), headers: reading }), fl.ArgumentError,
      /source must be kernel code that includes only .*, got #include of "\/etc\/passwd" \(a full path\) on line 2 of evil\.h$/);
    const overloads = { "k.h": "\n\n__global__ void k(float* o) {}\n" };
    const mod = fl.compile("#include \"k.h\"\n__global__ void k(int* o) {}\n", { device: dev(), headers: overloads });
    expectThrows(() => mod.fn("k"), fl.ArgumentError, /which the source overloads \(lines 3 of k\.h and 2\)/);
    // A kernel whose parameter cannot be passed, after a header's lines: its own line, once named (also a template instance's).
    const header = { "a.h": "#pragma once\n// two\n// three\nstruct Opaque;\n" };
    const union = "#include \"a.h\"\n// comment\nunion U { int i; float f; };\n";
    expectThrows(() => fl.compile(`${union}__global__ void k(float* y, U u) {}\n`, { device: dev(), headers: header }), fl.ArgumentError,
      /got parameter 1 of k \(line 4\) declared as "U u"$/);
    const templated = fl.compile(`${union}template <int N> __global__ void g(float* y, U u) {}\n__global__ void h(float* y) {}\n`, { device: dev(), headers: header });
    expectThrows(() => templated.fn("g<4>"), fl.ArgumentError, /got parameter 1 of g<4> \(line 4\) declared as "U u"$/);
  });

  it("says how to give a header it was not given", () => {
    const source = "#include \"missing.h\"\n__global__ void k(int* o) { o[0] = 1; }\n";
    if (dev().backend === "cpu") {
      expectThrows(() => fl.compile(source, { device: dev(), headers: PROJECT }), fl.DeviceError,
        /missing\.h is none of the toolkit's or fuselab's headers: a project's own header is given with its text, compile\(source, \{ headers: \{ "missing\.h": text \} \}\)\.$/);
      // Named as the toolkit names its headers: one the emulator lacks, or the project's own.
      expectThrows(() => fl.compile(source.replace('"missing.h"', "<cuda_imaginary.h>"), { device: dev() }), fl.DeviceError,
        /cuda_imaginary\.h is not among this target's headers: if it is one of CUDA's or HIP's toolkit headers, this target does not provide it \(docs\/ARCHITECTURE\.md lists those it has\); if it is the project's own, a project's own header is given with its text, compile\(source, \{ headers: \{ "cuda_imaginary\.h": text \} \}\)\.$/);
    } else {
      expectThrows(() => fl.compile(source, { device: dev(), headers: PROJECT }), fl.ArgumentError,
        /#include of "missing\.h", which is none of them, on line 1: a project's own header is given with its text in compile's option headers$/);
    }
  });

  it("expands no #include in a comment, and stops at a header that includes itself", () => {
    const commented = "/* #include \"loop.h\" */\n// #include \"loop.h\"\n__global__ void k(int* o) { o[0] = 2; }\n";
    const mod = fl.compile(commented, { device: dev(), headers: { "loop.h": "#include \"loop.h\"\n" } });
    const o = fl.full([1], -1, { dtype: "i32", device: dev() });
    mod.fn("k").launch({ grid: 1, block: 1 }, o);
    expect(Array.from(o.toArray())).to.deep.equal([2]);
    expectThrows(() => fl.compile(`#include "loop.h"\n${commented}`, { device: dev(), headers: { "loop.h": "#include \"loop.h\"\n" } }), fl.ArgumentError,
      /options\.headers must be headers nested at most 200 deep, got loop\.h includes loop\.h includes loop\.h includes loop\.h \.\.\. \(a header that includes itself\?\)/);
  });

  it("refuses headers that are not a map of relative names to text, naming the key", () => {
    const compile = (headers: unknown) => () => fl.compile(SOURCE, { device: dev(), headers: headers as Record<string, string> });
    expectThrows(compile("common.h"), fl.ArgumentError, /^fl\.compile: options\.headers must be an object, got "common\.h"$/);
    expectThrows(compile([PROJECT["common.h"]]), fl.ArgumentError, /^fl\.compile: options\.headers must be an object, got \[/);
    expectThrows(compile({ ...PROJECT, "common.h": 42 }), fl.ArgumentError, /^fl\.compile: options\.headers\["common\.h"\] must be the header's text, a string, got 42$/);
    expectThrows(compile({ ...PROJECT, "common.h": "#define A\n\0" }), fl.ArgumentError, /options\.headers\["common\.h"\] must be a string without NUL characters, got a NUL character on line 2/);
    for (const key of ["/usr/include/stdio.h", "C:\\x.h", "", "."]) {
      expectThrows(compile({ [key]: "" }), fl.ArgumentError, `fl.compile: options.headers must be an object whose keys are header names as an #include spells them, relative to the source's folder ("common.h", "../utils/math.cuh"), got the key ${JSON.stringify(key)}`);
    }
    expectThrows(compile({ ...PROJECT, "./common.h": "" }), fl.ArgumentError, /options\.headers must be an object naming each header once, got two keys for "common\.h"/);
    expectThrows(() => fl.compileCheck(SOURCE, { target: "cuda:sm_90", headers: 3 as unknown as Record<string, string> }), fl.ArgumentError, /^fl\.compileCheck: options\.headers must be an object, got 3$/);
  });

  it("takes a #pragma once header given under two names (\"common.cuh\" and \"ggml-cuda/common.cuh\") for one file, as GCC does", () => {
    const common = "#pragma once\n__device__ int twice(int v) { return 2 * v; }\n";
    const source = "#include \"convert.cuh\"\n#include \"ggml-cuda/common.cuh\"\n__global__ void k(int* o) { o[0] = twice(21); }\n";
    const headers = { "common.cuh": common, "ggml-cuda/common.cuh": common, "convert.cuh": "#pragma once\n#include \"common.cuh\"\n" };
    const o = fl.full([1], -1, { dtype: "i32", device: dev() });
    fl.compile(source, { device: dev(), headers }).fn("k").launch({ grid: 1, block: 1 }, o);
    expect(Array.from(o.toArray())).to.deep.equal([42]);
  });

  it("finds a header above the source's folder by the name the source spells (\"../cuda_compat.h\")", () => {
    const source = "#include \"../compat.h\"\n#include \"sub/inner.h\"\n__global__ void k(int* o) { o[0] = ANSWER + INNER; }\n";
    const headers = { "../compat.h": "#define ANSWER 40\n", "sub/inner.h": "#include \"../../compat.h\"\n#define INNER (ANSWER / 20)\n" };
    const o = fl.full([1], -1, { dtype: "i32", device: dev() });
    fl.compile(source, { device: dev(), headers }).fn("k").launch({ grid: 1, block: 1 }, o);
    expect(Array.from(o.toArray())).to.deep.equal([42]);
  });
});

describe("a project's -D macros (option defines)", () => {
  const dev = testDevice;
  // Device code gated on the build's macros, as ColossalAI's helpers are on
  // COLOSSAL_WITH_CUDA, and a parameter type the build picks.
  const SOURCE = [
    "#ifdef USE_DOUBLE",
    "typedef double real;",
    "#else",
    "typedef float real;",
    "#endif",
    "#if defined(WITH_CUDA)",
    "__device__ inline real scaled(real v) { return SCALE * v; }",
    "#endif",
    "__global__ void scale(real* y, const real* x, int n) {",
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;",
    "  if (i < n) y[i] = scaled(x[i]);",
    "}",
  ].join("\n");

  it("defines them before the source on every target, also where signatures are read", () => {
    const n = 37;
    for (const [defines, dtype] of [[{ WITH_CUDA: true, SCALE: 3 }, "f32"], [{ WITH_CUDA: "1", SCALE: "0.5", USE_DOUBLE: true }, "f64"]] as const) {
      const x = fl.tensor(range(n).map((i) => i - 10), { dtype, device: dev() });
      const y = fl.full([n], NaN, { dtype, device: dev() });
      fl.compile(SOURCE, { device: dev(), defines }).fn("scale").launch({ grid: 2, block: 32 }, y, x, n);
      expect(Array.from(y.toArray()), dtype).to.deep.equal(range(n).map((i) => Number(defines.SCALE) * (i - 10)));
    }
    // Without them the helper is left out, as the project's own build would leave it.
    expectThrows(() => fl.compile(SOURCE, { device: dev() }), fl.DeviceError, /.scaled. was not declared|identifier "scaled" is undefined/);
  });

  it("takes a project's one-letter sizes (PolyBench's -DM=.. -DN=..) and its THREADS, which the toolkit's cuda_runtime.h, cuda_fp16.h, mma.h and cub take", () => {
    const source = `#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>
__global__ void sizes(int* out) { out[threadIdx.x] = threadIdx.x == 0 ? M : threadIdx.x == 1 ? N : A + B + C + I + P + V + W; }`;
    const defines = { M: 256, N: 104, A: 1, B: 2, C: 3, I: 4, P: 5, V: 6, W: 7 };
    const out = fl.full([3], -1, { dtype: "i32", device: dev() });
    fl.compile(source, { device: dev(), defines }).fn("sizes").launch({ grid: 1, block: 3 }, out);
    expect(Array.from(out.toArray())).to.deep.equal([256, 104, 28]);
    // Defined in the source before those headers, as a course's file may.
    const inSource = fl.compile(`#define N 7\n#define I 2\n#define A 3\n${source.replace("M :", "N * I :")}`, { device: dev(), defines: { B: 2, C: 3, P: 5, V: 6, W: 7 } });
    inSource.fn("sizes").launch({ grid: 1, block: 3 }, out);
    expect(Array.from(out.toArray())).to.deep.equal([14, 7, 3 + 2 + 3 + 2 + 5 + 6 + 7]);
    // cub's block primitives, after a project's THREADS and ITEMS (names CUDA's cub does not use).
    const reduced = fl.compile(`#define THREADS 64
#define ITEMS 3
#include <cub/cub.cuh>
__global__ void total(int* out) {
  typedef cub::BlockReduce<int, THREADS> Reduce;
  __shared__ typename Reduce::TempStorage storage;
  const int sum = Reduce(storage).Sum(ITEMS * (int)threadIdx.x);
  if (threadIdx.x == 0) out[0] = sum;
}`, { device: dev() });
    reduced.fn("total").launch({ grid: 1, block: 64 }, out);
    expect(out.toArray()[0]).to.equal(3 * 63 * 64 / 2);
  });

  it("leaves the 16-bit operators out under PyTorch's build flags (__CUDA_NO_HALF_OPERATORS__ ..., HIP's __HIP_NO_HALF_OPERATORS__), so that a source's own compile, as the toolkits' headers do", () => {
    // A helper header as extensions write one: operators of its own where the build removed the toolkit's.
    const own = (include: string, flag: string) => `#include <${include}>
#if defined(${flag})
__host__ __device__ __forceinline__ __half operator+(__half a, __half b) { return __hadd(a, b); }
__host__ __device__ __forceinline__ __half operator*(__half a, __half b) { return __hmul(a, b); }
__host__ __device__ __forceinline__ __half operator-(__half x) { return __hsub(__float2half(0.0f), x); }
#endif
__global__ void negated_axpy(const __half* x, __half* y, __half a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = -(a * x[i] + y[i]);
}`;
    const cuda = own("cuda_fp16.h", "__CUDA_NO_HALF_OPERATORS__") + `
#include <cuda_bf16.h>
#if defined(__CUDA_NO_BFLOAT16_OPERATORS__)
__host__ __device__ __forceinline__ __nv_bfloat16 operator*(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmul(a, b); }
#endif
#if defined(__CUDA_NO_HALF2_OPERATORS__)
__device__ __forceinline__ __half2 operator+(__half2 a, __half2 b) { return __hadd2(a, b); }
#endif
__global__ void scaled_bf16(const __nv_bfloat16* x, __nv_bfloat16* y, __nv_bfloat16 a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
__global__ void pair_sums(const __half2* x, __half2* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + y[i];
}`;
    const pytorch = { __CUDA_NO_HALF_OPERATORS__: true, __CUDA_NO_HALF_CONVERSIONS__: true, __CUDA_NO_BFLOAT16_CONVERSIONS__: true,
      __CUDA_NO_HALF2_OPERATORS__: true, __CUDA_NO_BFLOAT16_OPERATORS__: true } as const;
    const n = 45, x = range(n).map((i) => (i - 20) / 2), y0 = range(n).map((i) => i % 7);
    // Halves and small integers: every product and sum is exact in 16 bits, so the answers are exact.
    const expected = x.map((v, i) => -(3 * v + y0[i]) || 0);
    const negatedAxpy = (module: fl.Module) => {
      const y = fl.tensor(y0, { dtype: "f16", device: dev() });
      module.fn("negated_axpy").launch({ grid: 2, block: 32 }, fl.tensor(x, { dtype: "f16", device: dev() }), y, 3, n);
      return Array.from(y.toArray(), (v) => v || 0);
    };
    for (const defines of [pytorch, {}]) {
      const module = fl.compile(cuda, { device: dev(), defines });
      expect(negatedAxpy(module), JSON.stringify(defines)).to.deep.equal(expected);
      const b = fl.full([n], NaN, { dtype: "bf16", device: dev() });
      module.fn("scaled_bf16").launch({ grid: 2, block: 32 }, fl.tensor(x, { dtype: "bf16", device: dev() }), b, -2, n);
      expect(Array.from(b.toArray())).to.deep.equal(x.map((v) => -2 * v));
      const pairs = fl.tensor(y0, { dtype: "f16", device: dev() });
      module.fn("pair_sums").launch({ grid: 1, block: 32 }, fl.tensor(x.slice(0, 44), { dtype: "f16", device: dev() }), pairs, 22);
      expect(Array.from(pairs.toArray())).to.deep.equal(y0.map((v, i) => (i < 44 ? v + x[i] : v)));
    }
    // HIP's switch, which PyTorch's ROCm builds pass with its conversions' one.
    const hip = fl.compile(own("hip/hip_fp16.h", "__HIP_NO_HALF_OPERATORS__"), { device: dev(), defines: { __HIP_NO_HALF_OPERATORS__: 1, __HIP_NO_HALF_CONVERSIONS__: 1 } });
    expect(negatedAxpy(hip)).to.deep.equal(expected);
    // With neither the toolkit's operators nor its own, __half * __half is refused, as nvcc refuses it.
    expectThrows(() => fl.compile(own("cuda_fp16.h", "OWN_OPERATORS"), { device: dev(), defines: pytorch }), fl.DeviceError,
      /ambiguous overload for .operator\*.|no operator "\*" matches|more than one conversion function/);
  });

  it("takes values with spaces, and function-like macros with their parameters (-D'IX(x, y, z)=...')", () => {
    const source = `__global__ void fill(float* grid, int n) {
  const int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
  grid[IX(x, y, z)] = OFFSET + LOG_ALL(x, y, z);
}`;
    const defines = { "IX(x,y, z)": "((x) + (y) * SIDE + (z) * SIDE * SIDE)", SIDE: "(1 + 2)", OFFSET: "0.5f * 2", "LOG_ALL(...)": "(__VA_ARGS__)" };
    const grid = fl.full([27], NaN, { device: dev() });
    fl.compile(source, { device: dev(), defines }).fn("fill").launch({ grid: 1, block: [3, 3, 3] }, grid, 27);
    // The comma operator gives z.
    expect(Array.from(grid.toArray())).to.deep.equal(range(27).map((i) => 1 + Math.floor(i / 9)));
  });

  it("refuses names that are not macros, values that are not one line, and the macros compilers define themselves", () => {
    const compile = (defines: unknown) => () => fl.compile(SOURCE, { device: dev(), defines: defines as Record<string, string> });
    expectThrows(compile(["WITH_CUDA"]), fl.ArgumentError, /^fl\.compile: options\.defines must be an object, got \[/);
    for (const key of ["A B", "1X", "FL_TARGET_CPU", "", "F(x y)", "F (x)", "F(1)"]) {
      expectThrows(compile({ [key]: 1 }), fl.ArgumentError, "fl.compile: options.defines must be an object whose keys are macro names (letters, digits, _; not starting with FL_, which are fuselab's), " +
        `a function-like macro's with its parameters ("IX(x, y, z)"), got the key ${JSON.stringify(key)}`);
    }
    expectThrows(compile({ SCALE: "1\n#include <x>" }), fl.ArgumentError, /^fl\.compile: options\.defines\.SCALE must be the macro's value: a string of one line, a finite number, or true \(1\), got "1\\n#include <x>"$/);
    expectThrows(compile({ SCALE: false }), fl.ArgumentError, /options\.defines\.SCALE must be the macro's value: a string of one line, a finite number, or true \(1\), got false$/);
    expectThrows(compile({ __CUDA_ARCH__: 800 }), fl.ArgumentError, /options\.defines must be macros other than those a GPU's compiler defines itself \(options\.arch picks the device code\), got the key "__CUDA_ARCH__"$/);
    expectThrows(compile({ __HIP_PLATFORM_AMD__: 1 }), fl.ArgumentError, /got the key "__HIP_PLATFORM_AMD__"$/);
    expectThrows(compile({ CUDART_VERSION: 9000 }), fl.ArgumentError, /fuselab defines them as each target's compiler does\), got the key "CUDART_VERSION"$/);
    // HIP 5's older platform names are a build's own (MIOpen's and PyTorch's ROCm builds pass -D__HIP_PLATFORM_HCC__=1).
    const platform = fl.compile(`#ifdef __HIP_PLATFORM_HCC__
__global__ void old_platform_name(int* out) { out[0] = __HIP_PLATFORM_HCC__; }
#endif`, { device: dev(), defines: { __HIP_PLATFORM_HCC__: 1 } });
    const out = fl.zeros([1], { dtype: "i32", device: dev() });
    platform.fn("old_platform_name").launch({ grid: 1, block: 1 }, out);
    expect(Array.from(out.toArray())).to.deep.equal([1]);
    expectThrows(() => fl.compileCheck(SOURCE, { target: "cuda:sm_90", defines: { "-O3": 1 } }), fl.ArgumentError, /^fl\.compileCheck: options\.defines must be an object whose keys are macro names/);
  });
});
