// Kernel arguments of fl.compile modules, on the test device (the GPU under
// test:gpu): tensors of every dtype behind every C spelling of their pointers
// and scalars of every type, with their ranges; views into the middle of a
// tensor; null pointers; structs passed by value, laid out as the compiler lays
// them out (checked against sizeof and offsetof in the kernel), vector types
// among them. References are computed here: BigInt arithmetic wrapped to each
// integer type's width, IEEE doubles.
import { expect } from "chai";
import * as fl from "../src";
import { parseKernels } from "../src/signature";
import { expectThrows, otherDevice, range, testDevice } from "./helpers";

/** `n` 64-bit patterns from a seed (splitmix64): every bit varies, edge values aside. */
function bits64(seed: number, n: number): bigint[] {
  let state = BigInt(seed);
  return Array.from({ length: n }, () => {
    state = BigInt.asUintN(64, state + 0x9e3779b97f4a7c15n);
    let z = state;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    return z ^ (z >> 31n);
  });
}

const INTEGERS: { dtype: fl.DType; bits: number; signed: boolean }[] = [
  { dtype: "i8", bits: 8, signed: true }, { dtype: "u8", bits: 8, signed: false },
  { dtype: "i16", bits: 16, signed: true }, { dtype: "u16", bits: 16, signed: false },
  { dtype: "i32", bits: 32, signed: true }, { dtype: "u32", bits: 32, signed: false },
  { dtype: "i64", bits: 64, signed: true }, { dtype: "u64", bits: 64, signed: false },
];

// out = x * a + b for each integer type, wrapping as the type's width does (computed in
// unsigned 64-bit arithmetic, which wraps without undefined behaviour, then narrowed).
const AFFINE = `
#include <cstdint>
#define AFFINE(T, NAME)                                                                                         \\
  __global__ void NAME(T* out, const T* x, T a, T b, int n) {                                                   \\
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                                              \\
    if (i < n) out[i] = static_cast<T>(static_cast<unsigned long long>(x[i]) * static_cast<unsigned long long>(a) + \\
                                       static_cast<unsigned long long>(b));                                     \\
  }
AFFINE(int8_t, affine_i8)
AFFINE(unsigned char, affine_u8)
AFFINE(short, affine_i16)
AFFINE(uint16_t, affine_u16)
AFFINE(int, affine_i32)
AFFINE(unsigned int, affine_u32)
AFFINE(long long, affine_i64)
AFFINE(uint64_t, affine_u64)

__global__ void affine_f64(double* out, const double* x, double a, double b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] * a + b;
}
`;

describe("kernel arguments", () => {
  const dev = testDevice;

  it("passes tensors and scalars of every integer type, wrapping as the GPU does, 64-bit ones exact", () => {
    const module = fl.compile(AFFINE, { device: dev() });
    const n = 1000;
    for (const { dtype, bits, signed } of INTEGERS) {
      const wrap = (v: bigint) => (signed ? BigInt.asIntN(bits, v) : BigInt.asUintN(bits, v));
      const lowest = signed ? -(1n << BigInt(bits - 1)) : 0n;
      const highest = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
      const xs = [lowest, highest, 0n, wrap(-1n), ...bits64(bits, n - 4).map(wrap)];
      const [a, b] = bits64(bits + 100, 2).map(wrap);
      const big = bits === 64;
      const asValues = (values: bigint[]) => (big ? values : values.map(Number));
      const x = fl.tensor(asValues(xs), { dtype, device: dev() });
      const out = fl.empty([n], { dtype, device: dev() });
      const kernel = module.fn(`affine_${dtype}`);
      expect(kernel.params.map((p) => p.type)).to.deep.equal([dtype, dtype, dtype, dtype, "i32"]);
      kernel.launch({ grid: Math.ceil(n / 256), block: 256 }, out, x, big ? a : Number(a), big ? b : Number(b), n);
      const expected = xs.map((v) => wrap(v * a + b));
      expect(Array.from(out.toArray() as ArrayLike<number | bigint>), dtype).to.deep.equal(asValues(expected));
    }
  });

  it("passes a module variable's address for a pointer, as cudaGetSymbolAddress gives it (HIP's add<<<1, 1>>>(&a, &b, &c) of __managed__ ints)", () => {
    const source = `
__managed__ int a, b, c;
__device__ float table[5];
__global__ void add(int* x, int* y, int* z) { *z = *x + *y; }
__global__ void scale(float* t, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] *= s;
}`;
    const module = fl.compile(source, { device: dev() });
    module.constant("a").set([1]);
    module.constant("b").set([2]);
    module.constant("c").set([-7]);
    module.fn("add").launch({ grid: 1, block: 1 }, module.constant("a"), module.constant("b"), module.constant("c"));
    expect(Array.from(module.constant("c").get())).to.deep.equal([3]);
    const table = module.constant("table");
    table.set([1, 2, 3, 4, 5]);
    module.fn("scale").launch({ grid: 1, block: 32 }, table, 5, 2);
    expect(Array.from(table.get())).to.deep.equal([2, 4, 6, 8, 10]);
    expectThrows(() => module.fn("add").launch({ grid: 1, block: 1 }, table, module.constant("b"), module.constant("c")), fl.ArgumentError,
      "kernel add: argument 0 (x) must be an i32 variable of the kernel's module, a tensor, a view of one or null (int*), got the variable table, an f32");
    const other = fl.compile(`${source}\n// another module`, { device: dev() });
    expectThrows(() => module.fn("add").launch({ grid: 1, block: 1 }, other.constant("a"), module.constant("b"), module.constant("c")), fl.ArgumentError,
      "kernel add: argument 0 (x) must be an i32 variable of the kernel's module (int*), got the variable a of another module");
    expectThrows(() => module.fn("scale").launch({ grid: 1, block: 1 }, table, module.constant("a"), 2), fl.ArgumentError, /argument 1 \(n\) must be/);
  });

  it("passes doubles as doubles: tensors and scalars", () => {
    const module = fl.compile(AFFINE, { device: dev() });
    const specials = [0, -0, 1e308, -1e308, 5e-324, 2 ** -1074 * 3, 1 / 3, NaN, Infinity, 2 ** 53 + 2];
    const n = 300;
    const xs = [...specials, ...bits64(7, n - specials.length).map((v) => (Number(v >> 11n) / 2 ** 53 - 0.5) * 2 ** Number(v % 80n - 40n))];
    const x = fl.tensor(Float64Array.from(xs), { device: dev() });
    const out = fl.empty([n], { dtype: "f64", device: dev() });
    // a, a power of two, makes x * a exact: a fused multiply-add rounds once as a separate add does.
    module.fn("affine_f64").launch({ grid: 2, block: 256 }, out, x, 4, 1 / 3, n);
    expect(Array.from(out.toArray())).to.deep.equal(xs.map((v) => v * 4 + 1 / 3));
  });

  it("checks every scalar type's range, naming the argument", () => {
    const module = fl.compile(AFFINE, { device: dev() });
    const t = (dtype: fl.DType) => fl.zeros([4], { dtype, device: dev() });
    const launch = (dtype: fl.DType, a: unknown) => () =>
      module.fn(`affine_${dtype}`).launch({ grid: 1, block: 4 }, t(dtype), t(dtype), a as number, 0, 4);
    expectThrows(launch("i8", 128), fl.ArgumentError, "kernel affine_i8: argument 2 (a) must be an integer from -128 to 127 (int8_t), got 128");
    expectThrows(launch("u8", -1), fl.ArgumentError, "kernel affine_u8: argument 2 (a) must be an integer from 0 to 255 (unsigned char), got -1");
    expectThrows(launch("u16", 65536), fl.ArgumentError, "kernel affine_u16: argument 2 (a) must be an integer from 0 to 65535 (uint16_t), got 65536");
    expectThrows(launch("u32", 2 ** 32), fl.ArgumentError, "kernel affine_u32: argument 2 (a) must be an integer from 0 to 4294967295 (unsigned int), got 4294967296");
    expectThrows(launch("i64", 2 ** 53 + 2), fl.ArgumentError,
      "kernel affine_i64: argument 2 (a) must be an integer within 2^53 (pass larger ones as a bigint) (long long), got 9007199254740994");
    expectThrows(launch("i64", 2n ** 63n), fl.ArgumentError,
      "kernel affine_i64: argument 2 (a) must be an integer from -9223372036854775808 to 9223372036854775807 (long long), got 9223372036854775808n");
    expectThrows(launch("u64", -1n), fl.ArgumentError,
      "kernel affine_u64: argument 2 (a) must be an integer from 0 to 18446744073709551615 (uint64_t), got -1n");
    expectThrows(launch("f64", 1n), fl.ArgumentError, "kernel affine_f64: argument 2 (a) must be a number (double), got 1n");
    expectThrows(launch("i16", 0.5), fl.ArgumentError, "kernel affine_i16: argument 2 (a) must be an integer (short), got 0.5");
    expectThrows(() => module.fn("affine_u32").launch({ grid: 1, block: 4 }, t("i32"), t("u32"), 1, 0, 4), fl.ArgumentError,
      `kernel affine_u32: argument 0 (out) must be a u32 tensor (unsigned int*), got an i32 tensor of shape [4] on ${dev().describe()}`);
    // The largest values of a 64-bit parameter pass exactly.
    const out = fl.empty([1], { dtype: "u64", device: dev() });
    module.fn("affine_u64").launch({ grid: 1, block: 1 }, out, fl.zeros([1], { dtype: "u64", device: dev() }), 0, 2n ** 64n - 1n, 1);
    expect(Array.from(out.toArray())).to.deep.equal([2n ** 64n - 1n]);
  });

  it("maps every C spelling of a pointer to its tensor dtype, and launches with all of them", () => {
    const source = `
#include <cstdint>
__global__ void spellings(int* sizes, unsigned int* a, uint32_t* b, int64_t* c, long long* d, double* e, int8_t* f,
                          signed char* g, int16_t* h, short* i, uint16_t* j, unsigned short* k, unsigned long long* l) {
  const int s[] = {sizeof(*a), sizeof(*b), sizeof(*c), sizeof(*d), sizeof(*e), sizeof(*f), sizeof(*g), sizeof(*h),
                   sizeof(*i), sizeof(*j), sizeof(*k), sizeof(*l)};
  for (int n = 0; n < 12; ++n) sizes[n] = s[n];
  *a = 4000000000u; *b = 1u; *c = -(1ll << 62) - 1; *d = (1ll << 62) + 1; *e = 0.1; *f = -128; *g = 127;
  *h = -32768; *i = 32767; *j = 65535; *k = 1; *l = ~0ull;
}`;
    const dtypes: fl.DType[] = ["u32", "u32", "i64", "i64", "f64", "i8", "i8", "i16", "i16", "u16", "u16", "u64"];
    const [parsed] = parseKernels(source);
    expect(parsed.params.slice(1).map((p) => p.type)).to.deep.equal(dtypes);
    const sizes = fl.empty([12], { dtype: "i32", device: dev() });
    const tensors = dtypes.map((dtype) => fl.zeros([1], { dtype, device: dev() }));
    fl.compile(source, { device: dev() }).fn("spellings").launch({ grid: 1, block: 1 }, sizes, ...tensors);
    expect(Array.from(sizes.toArray())).to.deep.equal(dtypes.map((d) => fl.DTYPE_BYTES[d]));
    expect(tensors.map((t) => (t.toArray() as ArrayLike<number | bigint>)[0])).to.deep.equal([
      4000000000, 1, -(2n ** 62n) - 1n, 2n ** 62n + 1n, 0.1, -128, 127, -32768, 32767, 65535, 1, 2n ** 64n - 1n]);
  });

  it("reads a parameter whose type is an alias named with its namespace (CTranslate2's cuda::index_t)", () => {
    const source = `
namespace cuda { using index_t = unsigned int; }
namespace a { namespace b { typedef short idx; } }
__global__ void qualified(int* out, cuda::index_t n, const a::b::idx step, const ::cuda::index_t* limits) {
  out[threadIdx.x] = threadIdx.x < n ? static_cast<int>(threadIdx.x * step + limits[0]) : -1;
}`;
    const [parsed] = parseKernels(source);
    expect(parsed.params.map((p) => p.type)).to.deep.equal(["i32", "u32", "i16", "u32"]);
    const out = fl.full([6], 9, { dtype: "i32", device: dev() });
    fl.compile(source, { device: dev() }).fn("qualified").launch({ grid: 1, block: 6 }, out, 4, -3, fl.tensor([100], { dtype: "u32", device: dev() }));
    expect(Array.from(out.toArray())).to.deep.equal([100, 97, 94, 91, -1, -1]);
  });

  it("reads C's integer types with their words in any order (\"long unsigned int\", as GCC prints unsigned long)", () => {
    const source = `
__global__ void orders(unsigned long long* out, long unsigned int a, long unsigned b, short unsigned int c, long long unsigned int d,
                       int long e, long signed int f, const unsigned long* g, char signed h) {
  out[0] = a; out[1] = b; out[2] = c; out[3] = d; out[4] = e; out[5] = f; out[6] = g[0]; out[7] = h;
}`;
    const [parsed] = parseKernels(source);
    expect(parsed.params.map((p) => p.type)).to.deep.equal(["u64", "u64", "u64", "u16", "u64", "i64", "i64", "u64", "i8"]);
    const out = fl.full([8], 7, { dtype: "u64", device: dev() });
    fl.compile(source, { device: dev() }).fn("orders").launch({ grid: 1, block: 1 }, out, 2n ** 40n + 1n, 5, 65535, 2n ** 63n, -2, -(2n ** 40n),
      fl.tensor([9], { dtype: "u64", device: dev() }), -128);
    expect(Array.from(out.toArray())).to.deep.equal([2n ** 40n + 1n, 5n, 65535n, 2n ** 63n, 2n ** 64n - 2n, 2n ** 64n - 2n ** 40n, 9n, 2n ** 64n - 128n]);
    expectThrows(() => fl.compile(source, { device: dev() }).fn("orders").launch({ grid: 1, block: 1 }, out, 1, 1, 65536, 1, 1, 1,
      fl.tensor([9], { dtype: "u64", device: dev() }), 1), fl.ArgumentError, "kernel orders: argument 3 (c) must be an integer from 0 to 65535 (unsigned short), got 65536");
  });

  describe("views", () => {
    const SOURCE = `
__global__ void iota(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<float>(i);
}
// One thread, in order: with out one element past in, each element sees the one just written.
__global__ void running(float* out, const float* in, int n) {
  for (int i = 0; i < n; ++i) out[i] = in[i] + 1.0f;
}
__global__ void add_one(unsigned char* bytes, int n) {
  int i = threadIdx.x;
  if (i < n) bytes[i] += 1;
}
__global__ void wide(double* out, const double* in, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = in[i] * 2.0;
}`;
    const module = () => fl.compile(SOURCE, { device: dev() });

    it("gives the kernel the tensor's address plus the view's offset, in elements of its dtype", () => {
      const t = fl.empty([10], { device: dev() });  // poisoned: elements the kernel leaves stay NaN
      module().fn("iota").launch({ grid: 1, block: 32 }, t.view(3, 5), 5);
      expect(Array.from(t.toArray())).to.deep.equal([NaN, NaN, NaN, 0, 1, 2, 3, 4, NaN, NaN]);
      const bytes = fl.tensor(range(9), { dtype: "u8", device: dev() });
      module().fn("add_one").launch({ grid: 1, block: 32 }, bytes.view(7), 2);
      module().fn("add_one").launch({ grid: 1, block: 32 }, bytes.view(1, 3), 3);
      expect(Array.from(bytes.toArray())).to.deep.equal([0, 2, 3, 4, 4, 5, 6, 8, 9]);
      const ds = Float64Array.from(range(6), (i) => i + 0.1);
      const doubles = fl.tensor(ds, { device: dev() });
      module().fn("wide").launch({ grid: 1, block: 32 }, doubles.view(0, 3), doubles.view(3), 3);
      expect(Array.from(doubles.toArray())).to.deep.equal([ds[3] * 2, ds[4] * 2, ds[5] * 2, ds[3], ds[4], ds[5]]);
    });

    it("lets views overlap, and a view meet its own tensor, as pointers into one buffer do", () => {
      const t = fl.tensor([5, 0, 0, 0, 0, 0, 0], { device: dev() });
      module().fn("running").launch({ grid: 1, block: 1 }, t.view(1, 6), t.view(0, 6), 6);
      expect(Array.from(t.toArray())).to.deep.equal([5, 6, 7, 8, 9, 10, 11]);
      module().fn("running").launch({ grid: 1, block: 1 }, t.view(2, 4), t, 4);
      expect(Array.from(t.toArray())).to.deep.equal([5, 6, 6, 7, 7, 8, 11]);
    });

    it("takes an empty view where the kernel reaches nothing", () => {
      const t = fl.tensor([1, 2], { device: dev() });
      module().fn("iota").launch({ grid: 1, block: 32 }, t.view(2), 0);
      expect(Array.from(t.toArray())).to.deep.equal([1, 2]);
    });

    it("replays a view in a prepared launch, and refuses it once its tensor is disposed", () => {
      const bytes = fl.zeros([4], { dtype: "u8", device: dev() });
      const prepared = module().fn("add_one").prepare({ grid: 1, block: 4 }, bytes.view(1, 2), 2);
      prepared.launch();
      prepared.launch();
      expect(Array.from(bytes.toArray())).to.deep.equal([0, 2, 2, 0]);
      bytes.dispose();
      expectThrows(() => prepared.launch(), fl.FuselabError,
        `kernel add_one (prepared launch): a u8 tensor of shape [4] on ${dev().describe()} was used after dispose()`);
    });

    it("checks a view's dtype, device and tensor as a tensor's", () => {
      const iota = module().fn("iota");
      const ints = fl.zeros([8], { dtype: "i32", device: dev() });
      expectThrows(() => iota.launch({ grid: 1, block: 4 }, ints.view(2, 4), 4), fl.ArgumentError,
        `kernel iota: argument 0 (out) must be an f32 tensor (float*), got elements 2 to 5 of an i32 tensor of shape [8] on ${dev().describe()}`);
      const elsewhere = fl.zeros([8], { device: otherDevice() });
      expectThrows(() => iota.launch({ grid: 1, block: 4 }, elsewhere.view(2), 4), fl.ArgumentError,
        `kernel iota: argument 0 (out) must be a tensor on ${dev().describe()} (the kernel's device), got a tensor on ${otherDevice().describe()}`);
      const gone = fl.zeros([8], { device: dev() });
      const view = gone.view(1);
      gone.dispose();
      expectThrows(() => iota.launch({ grid: 1, block: 4 }, view, 4), fl.ArgumentError,
        "kernel iota: argument 0 (out) must be a tensor that has not been disposed, got a disposed f32 tensor of shape [8]");
      expectThrows(() => iota.launch({ grid: 1, block: 4 }, fl.zeros([8], { device: dev() }).view(1), fl.zeros([1], { device: dev() }) as unknown as number),
        fl.ArgumentError, `kernel iota: argument 1 (n) must be an integer (int), got an f32 tensor of shape [1] on ${dev().describe()}`);
    });
  });

  it("fills in the default arguments a launch leaves out, as a launch in C++ does (TensorRT's fake quantization kernel)", () => {
    const module = fl.compile(`
constexpr int kMode = 2;
__global__ void scaled(const float* x, float* y, int n, float scale = 2.5f, bool negate = false, const float* bias = nullptr,
                       long long offset = -3, unsigned mask = 0xff, int mode = kMode * 2) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (negate ? -1.0f : 1.0f) * x[i] * scale + (bias ? bias[i] : 0.0f) + static_cast<float>(offset) + (mask & 3) + mode;
}
// A header's prototype carries the defaults; the definition does not repeat them.
template <int N> __global__ void times(float* v, int n = 3, double by = 1e-1);
template <int N> __global__ void times(float* v, int n, double by) { if (threadIdx.x < n) v[threadIdx.x] *= N * by; }
`, { device: dev() });
    const n = 5, x = fl.tensor(range(n), { device: dev() }), y = fl.full([n], NaN, { device: dev() });
    const scaled = module.fn("scaled");
    expect(scaled.signature()).to.equal("scaled(const float* x, float* y, int n, float scale = 2.5, bool negate = false, const float* bias = nullptr, " +
      "long long offset = -3, unsigned mask = 255, int mode = kMode*2)");
    const expected = (scale: number, sign: number, bias: number[], offset: number, mask: number, mode: number) =>
      range(n).map((i) => Math.fround(Math.fround(sign * i * scale) + bias[i] + offset + (mask & 3) + mode));
    const zeros = range(n).map(() => 0), bias = range(n).map((i) => 10 * i);
    scaled.launch({ grid: 1, block: 8 }, x, y, n, 1.5, true, fl.tensor(bias, { device: dev() }), 7n, 6, 1);
    expect(Array.from(y.toArray())).to.deep.equal(expected(1.5, -1, bias, 7, 6, 1));
    expectThrows(() => scaled.launch({ grid: 1, block: 8 }, x, y, n), fl.ArgumentError,
      "kernel scaled: argument 8 (mode) must be given, as its default (kMode*2) is an expression fuselab does not evaluate, got none");
    scaled.launch({ grid: 1, block: 8 }, x, y, n, 1.5, false, null, 7n, 6, 1);
    expect(Array.from(y.toArray())).to.deep.equal(expected(1.5, 1, zeros, 7, 6, 1));
    expectThrows(() => scaled.launch({ grid: 1, block: 8 }, x, y), fl.ArgumentError,
      "kernel scaled: the arguments must be 3 to 9 values: scaled(const float* x, float* y, int n, float scale = 2.5, bool negate = false, " +
      "const float* bias = nullptr, long long offset = -3, unsigned mask = 255, int mode = kMode*2), got 2 values");
    const times = module.fn("times<4>");
    const v = fl.tensor([1, 2, 3, 4, 5], { device: dev() });
    times.launch({ grid: 1, block: 8 }, v);
    expect(Array.from(v.toArray())).to.deep.equal([0.4, 0.8, 1.2, 4, 5].map(Math.fround));
    times.launch({ grid: 1, block: 8 }, v, 5, 0.5);
    expect(Array.from(v.toArray())).to.deep.equal([0.8, 1.6, 2.4, 8, 10].map(Math.fround));
  });

  it("passes null for a pointer: the kernel sees a null pointer", () => {
    const module = fl.compile(`
__global__ void add_bias(float* out, const float* x, const float* bias, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] + (bias != nullptr ? bias[i] : 100.0f);
}`, { device: dev() });
    const n = 300;
    const x = fl.tensor(range(n), { device: dev() });
    const bias = fl.tensor(range(n).map((i) => -2 * i), { device: dev() });
    const out = fl.empty([n], { device: dev() });
    const add = module.fn("add_bias");
    add.launch({ grid: 2, block: 256 }, out, x, null, n);
    expect(Array.from(out.toArray())).to.deep.equal(range(n).map((i) => i + 100));
    add.launch({ grid: 2, block: 256 }, out, x, bias, n);
    expect(Array.from(out.toArray())).to.deep.equal(range(n).map((i) => i + -2 * i));
    expectThrows(() => add.launch({ grid: 1, block: 1 }, out, x, bias, null as unknown as number), fl.ArgumentError,
      "kernel add_bias: argument 3 (n) must be an integer (int), got null");
    expectThrows(() => add.launch({ grid: 1, block: 1 }, out, undefined as unknown as null, bias, 1), fl.ArgumentError,
      "kernel add_bias: argument 1 (x) must be an f32 tensor, a view of one or null (const float*), got undefined");
  });

  describe("structs by value", () => {
    const STRUCTS = `
#include <cstddef>
#include <cstdint>
#include <cuda_fp16.h>
typedef unsigned int uint;
struct Mixed { char c; double d; short s; int8_t tiny; float f; bool flag; uint u; };
struct Inner { __half h; unsigned short us; int64_t big; };
struct Nested {
  Inner inner;
  float3 p;
  float w[3];
  int grid[2][3];
  static const int kCount = 3;
  __device__ float sum() const { return w[0] + w[1] + w[2]; }
};
struct __align__(16) Aligned { float x; int n = 4; };
typedef struct { uint8_t bytes[5]; double2 pair; } Anonymous;

__global__ void unpack(double* values, long long* facts, Mixed m, Nested n, Aligned a, Anonymous z, float4 v, uchar3 c3) {
  double* o = values;
  *o++ = m.c; *o++ = m.d; *o++ = m.s; *o++ = m.tiny; *o++ = m.f; *o++ = m.flag; *o++ = m.u;
  *o++ = __half2float(n.inner.h); *o++ = n.inner.us; *o++ = n.p.x; *o++ = n.p.y; *o++ = n.p.z;
  for (int i = 0; i < 3; ++i) *o++ = n.w[i];
  for (int i = 0; i < 2; ++i) for (int j = 0; j < 3; ++j) *o++ = n.grid[i][j];
  *o++ = n.sum(); *o++ = a.x; *o++ = a.n;
  for (int i = 0; i < 5; ++i) *o++ = z.bytes[i];
  *o++ = z.pair.x; *o++ = z.pair.y; *o++ = v.x; *o++ = v.y; *o++ = v.z; *o++ = v.w; *o++ = c3.x; *o++ = c3.y; *o++ = c3.z;
  long long* f = facts;
  *f++ = n.inner.big;
  *f++ = sizeof(Mixed); *f++ = alignof(Mixed);
  *f++ = offsetof(Mixed, c); *f++ = offsetof(Mixed, d); *f++ = offsetof(Mixed, s); *f++ = offsetof(Mixed, tiny);
  *f++ = offsetof(Mixed, f); *f++ = offsetof(Mixed, flag); *f++ = offsetof(Mixed, u);
  *f++ = sizeof(Inner); *f++ = alignof(Inner); *f++ = offsetof(Inner, us); *f++ = offsetof(Inner, big);
  *f++ = sizeof(Nested); *f++ = alignof(Nested);
  *f++ = offsetof(Nested, inner); *f++ = offsetof(Nested, p); *f++ = offsetof(Nested, w); *f++ = offsetof(Nested, grid);
  *f++ = sizeof(Aligned); *f++ = alignof(Aligned); *f++ = offsetof(Aligned, n);
  *f++ = sizeof(Anonymous); *f++ = alignof(Anonymous); *f++ = offsetof(Anonymous, pair);
  *f++ = sizeof(float4); *f++ = alignof(float4); *f++ = sizeof(uchar3); *f++ = alignof(uchar3);
}

template <typename T>
__global__ void scaled(T* out, Aligned a) { out[threadIdx.x] = static_cast<T>(a.x * a.n); }
`;
    const module = () => fl.compile(STRUCTS, { device: dev() });
    const mixed = { c: -5, d: 1 / 3, s: -30000, tiny: 127, f: 0.1, flag: true, u: 4000000000 };
    const nested = {
      inner: { h: 1.5, us: 65535, big: 2n ** 62n + 7n }, p: { x: 1, y: -2, z: 3.25 }, w: [0.5, 0.25, 0.125],
      grid: [[1, 2, 3], [-4, -5, -6]],
    };
    const aligned = { x: 2.5, n: -7 };
    const anonymous = { bytes: Uint8Array.of(1, 2, 3, 254, 255), pair: { x: -0.1, y: 1e300 } };
    const vector = { x: 1, y: 2, z: 3, w: 4 };
    const bytes3 = { x: 9, y: 8, z: 7 };

    it("lays structs out as the compiler does, and passes every field", () => {
      const unpack = module().fn("unpack");
      expect(unpack.signature()).to.equal("unpack(double* values, long long* facts, Mixed m, Nested n, Aligned a, Anonymous z, float4 v, uchar3 c3)");
      const values = fl.empty([39], { dtype: "f64", device: dev() });
      const facts = fl.empty([30], { dtype: "i64", device: dev() });
      unpack.launch({ grid: 1, block: 1 }, values, facts, mixed, nested, aligned, anonymous, vector, bytes3);
      expect(Array.from(values.toArray())).to.deep.equal([
        -5, 1 / 3, -30000, 127, Math.fround(0.1), 1, 4000000000, 1.5, 65535, 1, -2, 3.25, 0.5, 0.25, 0.125, 1, 2, 3, -4, -5, -6,
        0.875, 2.5, -7, 1, 2, 3, 254, 255, -0.1, 1e300, 1, 2, 3, 4, 9, 8, 7,
      ].concat([NaN]));  // the last element is not written
      // The layouts fuselab computed, against sizeof and offsetof in the kernel.
      const layouts = unpack.params.map((p) => p.layout);
      const [m, n, a, z, v, c3] = layouts.slice(2).map((l) => l!);
      const offset = (l: typeof m, name: string) => l.members.find((x) => x.name === name)!.offset;
      const inner = (n.members[0].type as { layout: typeof m }).layout;
      const expected = [
        2n ** 62n + 7n,
        m.size, m.align, ...["c", "d", "s", "tiny", "f", "flag", "u"].map((f) => offset(m, f)),
        inner.size, inner.align, offset(inner, "us"), offset(inner, "big"),
        n.size, n.align, ...["inner", "p", "w", "grid"].map((f) => offset(n, f)),
        a.size, a.align, offset(a, "n"), z.size, z.align, offset(z, "pair"), v.size, v.align, c3.size, c3.align,
      ].map(BigInt);
      expect(Array.from(facts.toArray())).to.deep.equal(expected);
      // As worked out by hand from the C ABI's rules.
      expect([m.size, m.align, offset(m, "d"), offset(m, "u"), n.size, offset(n, "grid"), a.size, a.align, z.size, v.align, c3.size])
        .to.deep.equal([32, 8, 8, 28, 64, 40, 16, 16, 32, 16, 3]);
    });

    it("passes structs to template kernels", () => {
      const out = fl.empty([2], { device: dev() });
      module().fn("scaled<float>").launch({ grid: 1, block: 2 }, out, aligned);
      expect(Array.from(out.toArray())).to.deep.equal([-17.5, -17.5]);
    });

    it("names the field that is missing, extra or of the wrong type", () => {
      const unpack = module().fn("unpack");
      const values = fl.empty([39], { dtype: "f64", device: dev() });
      const facts = fl.empty([30], { dtype: "i64", device: dev() });
      const given = { m: mixed, n: nested, a: aligned, z: anonymous, v: vector };
      const launch = (changes: Partial<Record<keyof typeof given, unknown>>) => () => {
        const s = { ...given, ...changes } as Record<keyof typeof given, fl.StructValue>;
        unpack.launch({ grid: 1, block: 1 }, values, facts, s.m, s.n, s.a, s.z, s.v, bytes3);
      };
      const mixedFields = "struct Mixed { c, d, s, tiny, f, flag, u }";
      expectThrows(launch({ m: { ...mixed, extra: 1 } }), fl.ArgumentError,
        `kernel unpack: argument 2 (m) must be an object with the fields of ${mixedFields}, got an object with the field "extra", which Mixed does not have`);
      const { flag: _flag, ...withoutFlag } = mixed;
      expectThrows(launch({ m: withoutFlag }), fl.ArgumentError,
        `kernel unpack: argument 2 (m) must be an object with the fields of ${mixedFields}, got an object without the field "flag"`);
      expectThrows(launch({ m: { ...mixed, d: "1" } }), fl.ArgumentError, "kernel unpack: argument 2 (m).d must be a number (double), got \"1\"");
      expectThrows(launch({ m: { ...mixed, flag: 1 } }), fl.ArgumentError, "kernel unpack: argument 2 (m).flag must be true or false (bool), got 1");
      expectThrows(launch({ m: { ...mixed, u: -1 } }), fl.ArgumentError,
        "kernel unpack: argument 2 (m).u must be an integer from 0 to 4294967295 (uint), got -1");
      expectThrows(launch({ m: { ...mixed, c: 128 } }), fl.ArgumentError,
        "kernel unpack: argument 2 (m).c must be an integer from -128 to 127 (char), got 128");
      expectThrows(launch({ n: { ...nested, inner: { ...nested.inner, us: 70000 } } }), fl.ArgumentError,
        "kernel unpack: argument 3 (n).inner.us must be an integer from 0 to 65535 (unsigned short), got 70000");
      expectThrows(launch({ n: { ...nested, inner: { ...nested.inner, big: 2 ** 60 } } }), fl.ArgumentError,
        "kernel unpack: argument 3 (n).inner.big must be an integer within 2^53 (pass larger ones as a bigint) (int64_t), got 1152921504606847000");
      expectThrows(launch({ n: { ...nested, w: [1, 2] } }), fl.ArgumentError, "kernel unpack: argument 3 (n).w must be an array of 3 values (float w[3]), got [1, 2]");
      expectThrows(launch({ n: { ...nested, grid: [[1, 2, 3], [4, 5]] } }), fl.ArgumentError,
        "kernel unpack: argument 3 (n).grid[1] must be an array of 3 values (int grid[2][3]), got [4, 5]");
      expectThrows(launch({ n: { ...nested, grid: [[1, 2, 3], [4, 5, 0.5]] } }), fl.ArgumentError,
        "kernel unpack: argument 3 (n).grid[1][2] must be an integer (int), got 0.5");
      expectThrows(launch({ n: { ...nested, p: [1, 2, 3] } }), fl.ArgumentError,
        "kernel unpack: argument 3 (n).p must be an object with the fields of struct float3 { x, y, z }, got [1, 2, 3]");
      expectThrows(launch({ a: 2.5 }), fl.ArgumentError, "kernel unpack: argument 4 (a) must be an object with the fields of struct Aligned { x, n }, got 2.5");
      expectThrows(launch({ a: null }), fl.ArgumentError, "kernel unpack: argument 4 (a) must be an object with the fields of struct Aligned { x, n }, got null");
      expectThrows(launch({ z: { ...anonymous, bytes: [1, 2, 3, 4, 256] } }), fl.ArgumentError,
        "kernel unpack: argument 5 (z).bytes[4] must be an integer from 0 to 255 (uint8_t), got 256");
      expectThrows(launch({ v: fl.zeros([4], { device: dev() }) }), fl.ArgumentError,
        `kernel unpack: argument 6 (v) must be an object with the fields of struct float4 { x, y, z, w }, got an f32 tensor of shape [4] on ${dev().describe()}`);
    });

    it("reads struct definitions as C++ writes them: classes, access labels, member functions, initializers, aliases, namespaces, C++11 attributes", () => {
      const source = `
namespace cfg {
class alignas(32) Window {
 public:
  __device__ Window() {}
  [[nodiscard]] __device__ int width() const { return hi - lo; }
  [[maybe_unused]] int lo{2}, hi [[maybe_unused]] = 9;
 private:
  static constexpr int kMax = 64;
  float weights[2] = {1.0f, 2.0f};
 public:
  using Index = int;
  enum Side { kLeft, kRight };
  double scale;
};
}  // namespace cfg
typedef cfg::Window Alias;
__global__ void window(double* out, Alias w, cfg::Window v) {
  out[0] = sizeof(cfg::Window); out[1] = alignof(cfg::Window);
  out[2] = w.width(); out[3] = v.scale; out[4] = w.lo;
}`;
      const [parsed] = parseKernels(source);
      const layout = parsed.params[1].layout!;
      expect(parsed.params.map((p) => p.declaration)).to.deep.equal(["double*", "cfg::Window", "cfg::Window"]);
      expect(layout.members.map((m) => [m.name, m.offset])).to.deep.equal([["lo", 0], ["hi", 4], ["weights", 8], ["scale", 16]]);
      expect([layout.size, layout.align]).to.deep.equal([32, 32]);
      const out = fl.empty([5], { dtype: "f64", device: dev() });
      const w = { lo: 1, hi: 5, weights: [0, 0], scale: 0.5 };
      fl.compile(source, { device: dev() }).fn("window").launch({ grid: 1, block: 1 }, out, w, { ...w, scale: -3 });
      expect(Array.from(out.toArray())).to.deep.equal([32, 32, 4, -3, 1]);
    });

    it("refuses a struct the compiler lays out otherwise than it reads (#pragma pack), naming the layout", () => {
      const compilePacked = () => fl.compile(`
#pragma pack(push, 1)
struct Packed { char c; double d; };
#pragma pack(pop)
__global__ void packed(double* out, Packed p) { out[0] = p.d; }`, { device: dev() });
      if (dev().kind === "cpu") {
        // The emulator's compiler reports each kernel's parameters: their layout is compared after the compile.
        expect(compilePacked).to.throw(fl.ArgumentError, /Packed, reads as 16 bytes aligned to 8: c at 0, d at 8\), got 9 bytes aligned to 1 from the compiler/);
      } else {
        // NVRTC and hiprtc report none: the compile itself asserts the layout.
        expect(compilePacked).to.throw(fl.DeviceError, /fuselab passes parameter 1 of packed \(Packed\) as 16 bytes aligned to 8; this compiler lays it out otherwise/);
      }
    });

    it("passes structs with pointer members: each a tensor of its element type, a view of one or null, checked by name", () => {
      const source = `
typedef float* floats;
struct Inner { const double* weights; int n; };
struct Job { int rows; floats out; Inner inner; void* scratch; float** table; unsigned* marks[2]; };
__global__ void job(Job j) {
  j.out[0] = (float)j.inner.weights[1] + j.rows;
  if (j.scratch == NULL) j.marks[1][0] = 7u;
}`;
      const [parsed] = parseKernels(source);
      const layout = parsed.params[0].layout!;
      expect(layout.members.map((m) => [m.name, m.declaration, m.offset])).to.deep.equal([
        ["rows", "int", 0], ["out", "floats", 8], ["inner", "Inner", 16], ["scratch", "void*", 32], ["table", "float**", 40], ["marks", "unsigned*", 48]]);
      expect([layout.size, layout.align]).to.deep.equal([64, 8]);
      const kernel = fl.compile(source, { device: dev() }).fn("job");
      const out = fl.full([3], NaN, { device: dev() });
      const weights = fl.tensor([0, 2.5, 0], { dtype: "f64", device: dev() });
      const marks = [fl.zeros([1], { dtype: "u32", device: dev() }), fl.zeros([2], { dtype: "u32", device: dev() })];
      const job = { rows: 4, out: out.view(1), inner: { weights, n: 3 }, scratch: null, table: fl.zeros([2], { dtype: "u64", device: dev() }), marks };
      kernel.launch({ grid: 1, block: 1 }, job);
      expect(Array.from(out.toArray())).to.deep.equal([NaN, 6.5, NaN]);
      expect([...marks[0].toArray(), ...marks[1].toArray()]).to.deep.equal([0, 7, 0]);

      const launch = (changes: Record<string, unknown>) => () => kernel.launch({ grid: 1, block: 1 }, { ...job, ...changes });
      const on = dev().describe();
      expectThrows(launch({ out: fl.zeros([3], { dtype: "i32", device: dev() }) }), fl.ArgumentError,
        `kernel job: argument 0 (j).out must be an f32 tensor (floats), got an i32 tensor of shape [3] on ${on}`);
      expectThrows(launch({ out: 3 }), fl.ArgumentError, "kernel job: argument 0 (j).out must be an f32 tensor, a view of one or null (floats), got 3");
      expectThrows(launch({ marks: [marks[0]] }), fl.ArgumentError,
        `kernel job: argument 0 (j).marks must be an array of 2 values (unsigned* marks[2]), got [a u32 tensor of shape [1] on ${on}]`);
      expectThrows(launch({ marks: [marks[0], weights] }), fl.ArgumentError,
        `kernel job: argument 0 (j).marks[1] must be a u32 tensor (unsigned*), got an f64 tensor of shape [3] on ${on}`);
      expectThrows(launch({ inner: { weights: out, n: 3 } }), fl.ArgumentError,
        `kernel job: argument 0 (j).inner.weights must be an f64 tensor (const double*), got an f32 tensor of shape [3] on ${on}`);
      expectThrows(launch({ scratch: fl.zeros([1], { device: otherDevice() }) }), fl.ArgumentError,
        `kernel job: argument 0 (j).scratch must be a tensor on ${on} (the kernel's device), got a tensor on ${otherDevice().describe()}`);
      // A prepared launch holds the struct's tensors: one disposed is refused at the replay.
      const scratch = fl.zeros([1], { device: dev() });
      const prepared = kernel.prepare({ grid: 1, block: 1 }, { ...job, scratch });
      scratch.dispose();
      expectThrows(() => prepared.launch(), fl.FuselabError, `kernel job (prepared launch): an f32 tensor of shape [1] on ${on} was used after dispose()`);
    });

    it("refuses structs whose bytes cannot be made here, saying why", () => {
      const refused = (definition: string, why: string) => expectThrows(() => parseKernels(`${definition}\n__global__ void k(P p) {}`), fl.ArgumentError,
        `fl.compile: source must be kernels whose parameters are pointers, scalars or structs fuselab can pass (struct P cannot be passed by value: ${why}), ` +
        `got parameter 0 of k (line ${definition.split("\n").length + 1}) declared as "P p"`);
      refused("struct P { float& data; int n; };", "its member data is a reference");
      refused("struct P { int n, &rest; };", "its member rest is a reference");
      refused("union P { int i; float f; };", "a union's members share their bytes: pass a struct");
      refused("struct P { unsigned flags : 3; };", "its member flags is a bit-field");
      refused("struct B { int n; };\nstruct P : B { int m; };", "it derives from another struct: pass one without a base");
      refused("struct P { virtual void f(); int n; };", "it has virtual functions");
      refused("struct P { struct { int a; } inner; };", "it defines a struct or union inside itself (define it outside)");
      refused("const int N = 4;\nstruct P { float w[N]; };", "the length of its array member w is not a positive integer literal (\"N\")");
      refused("struct Q { const float& p; };\nstruct P { Q q; };", "struct Q cannot be passed by value: its member p is a reference");
      refused("struct P { std::string name; };", "its member name has the type \"string\", which is neither a scalar, a vector type nor a struct defined before it");
      refused("struct P { enum Mode { A, B } mode; };", "its member mode has an enum type (pass an integer)");
    });
  });

  it("passes instances of template structs by value, laid out with their arguments (CuPy's packed_matrix example)", () => {
    const module = fl.compile(`
template <typename T> struct Matrix { T value[4][4]; };
template <typename T, int N, typename Index = int> struct Window { T weights[N]; Index first, count; };
template <typename T>
__global__ void affine(const Matrix<T> a, const Matrix<T> b, const Matrix<T> c, T* out) {
  const int i = threadIdx.x / 4, j = threadIdx.x % 4;
  T sum = c.value[i][j];
  for (int k = 0; k < 4; k++) sum += a.value[i][k] * b.value[k][j];
  out[threadIdx.x] = sum;
}
template __global__ void affine<float>(const Matrix<float>, const Matrix<float>, const Matrix<float>, float*);
__global__ void smooth(double* out, const double* x, Window<double, 3> w, Window<float, 2, long long> unused) {
  const int i = threadIdx.x;
  if (i >= w.count) return;
  double sum = 0;
  for (int k = 0; k < 3; k++) sum += w.weights[k] * x[w.first + i + k];
  out[i] = sum + unused.weights[1] + (double)unused.count;
}`, { device: dev() });
    const matrix = (f: (i: number, j: number) => number) => ({ value: range(4).map((i) => range(4).map((j) => f(i, j))) });
    const a = matrix((i, j) => i + j), b = matrix((i, j) => (i === j ? 2 : 0) + j), c = matrix((i, j) => i * 4 + j);
    const expected = (cast: (v: number) => number) => range(16).map((t) => {
      const i = Math.floor(t / 4), j = t % 4;
      return cast(range(4).reduce((sum, k) => cast(sum + cast(a.value[i][k] * b.value[k][j])), c.value[i][j]));
    });
    for (const [name, dtype, cast] of [["affine<float>", "f32", Math.fround], ["affine<double>", "f64", (v: number) => v]] as const) {
      const out = fl.full([16], NaN, { dtype, device: dev() });
      module.fn(name).launch({ grid: 1, block: 16 }, a, b, c, out);
      expect(Array.from(out.toArray()), name).to.deep.equal(expected(cast));
    }
    expect(module.fn("smooth").signature()).to.equal("smooth(double* out, const double* x, Window<double, 3> w, Window<float, 2, long long> unused)");
    const x = fl.tensor(Float64Array.from(range(20), (i) => i * 0.5), { device: dev() });
    const out = fl.full([8], NaN, { dtype: "f64", device: dev() });
    module.fn("smooth").launch({ grid: 1, block: 8 }, out, x, { weights: [0.25, 0.5, 0.25], first: 3, count: 6 }, { weights: [0, 100], first: 0, count: 7n });
    expect(Array.from(out.toArray())).to.deep.equal(range(8).map((i) => (i < 6 ? (0.25 * (3 + i) + 0.5 * (4 + i) + 0.25 * (5 + i)) * 0.5 + 107 : NaN)));
    expectThrows(() => module.fn("smooth").launch({ grid: 1, block: 8 }, out, x, { weights: [1, 2], first: 0, count: 1 }, { weights: [0, 0], first: 0, count: 0 }),
      fl.ArgumentError, /kernel smooth: argument 2 \(w\)\.weights must be an array of 3 values \(double weights\[3\]\), got \[1, 2\]$/);
    // A template struct with a base, as OpenCV's PtrStepSz<T> derives from PtrStep<T>, says why it cannot be passed.
    expectThrows(() => parseKernels("template <typename T> struct PtrStep { T* data; };\ntemplate <typename T> struct PtrStepSz : PtrStep<T> { int cols, rows; };\n" +
      "__global__ void k(const PtrStepSz<float> image) {}"), fl.ArgumentError,
      /struct PtrStepSz cannot be passed by value: it derives from another struct: pass one without a base\), got parameter 0 of k \(line 3\)/);
  });

  it("passes a struct whose members are template structs' instances, nested as a functor factory holds its functor (OneFlow's elementwise SimpleFactory)", () => {
    const module = fl.compile(`
template <typename T> struct Axpy {
  __device__ T operator()(T x, T y) const { return alpha * x + y; }
  T alpha;
};
template <typename T, int N> struct Pack { T v[N]; };
template <typename F> struct Factory {
  __device__ F operator()() const { return functor; }
  F functor;
  Pack<short, 3> tag;
};
template <typename FactoryT>
__global__ void apply(FactoryT factory, const double* x, const double* y, double* out, int n) {
  const auto f = factory();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f(x[i], y[i]) + factory.tag.v[i % 3];
}`, { device: dev() });
    const n = 37, x = range(n).map((i) => i / 4), y = range(n).map((i) => 50 - i);
    const out = fl.full([n], NaN, { dtype: "f64", device: dev() });
    module.fn("apply<Factory<Axpy<double>>>").launch({ grid: 2, block: 32 }, { functor: { alpha: -3 }, tag: { v: [1, -2, 300] } },
      fl.tensor(x, { dtype: "f64", device: dev() }), fl.tensor(y, { dtype: "f64", device: dev() }), out, n);
    expect(Array.from(out.toArray())).to.deep.equal(range(n).map((i) => -3 * x[i] + y[i] + [1, -2, 300][i % 3]));
    expectThrows(() => module.fn("apply<Factory<Axpy<double>>>").launch({ grid: 1, block: 1 }, { functor: { alpha: 1 }, tag: { v: [1, 2] } }, out, out, out, 0),
      fl.ArgumentError, /argument 0 \(factory\)\.tag\.v must be an array of 3 values \(short v\[3\]\), got \[1, 2\]$/);
  });

  it("passes a struct of 32,000 bytes by value, under CUDA's 32,764-byte limit, as the CUDA samples' LargeKernelParameter does", () => {
    const module = fl.compile(`
#define TOTAL_PARAMS (8000)
typedef struct { int param[TOTAL_PARAMS]; } param_large_t;
__global__ void kernelLargeParam(__grid_constant__ const param_large_t p, int* result) {
  int tmp = 0;
  for (int i = 0; i < TOTAL_PARAMS; ++i) tmp += p.param[i] * (i % 3 - 1);
  result[blockIdx.x * blockDim.x + threadIdx.x] = tmp;
}`, { device: dev() });
    const param = range(8000).map((i) => (i * 7919) % 1000 - 500);
    const result = fl.full([6], -1, { dtype: "i32", device: dev() });
    module.fn("kernelLargeParam").launch({ grid: 2, block: 3 }, { param }, result);
    const expected = param.reduce((sum, v, i) => sum + v * ((i % 3) - 1), 0);
    expect(Array.from(result.toArray())).to.deep.equal(range(6).map(() => expected));
  });

  it("passes function objects by value: a source's own, cub's and the C++ library's, each as {}", () => {
    const module = fl.compile(`
#include <cub/cub.cuh>
#include <functional>
#include <cuda/std/functional>
struct AddOp { __device__ float operator()(float a, float b) const { return a + b; } };
template <typename Op> __global__ void combine(float* out, const float* a, const float* b, Op op, int n) {
  const int i = threadIdx.x;
  if (i < n) out[i] = op(a[i], b[i]);
}`, { device: dev() });
    const a = fl.tensor([1, 2, 3], { device: dev() }), b = fl.tensor([10, -20, 30], { device: dev() });
    for (const [op, expected] of [["AddOp", [11, -18, 33]], ["cub::Max", [10, 2, 30]], ["cub::Sum", [11, -18, 33]],
      ["std::multiplies<float>", [10, -40, 90]], ["cuda::std::minus<float>", [-9, 22, -27]], ["cuda::maximum<float>", [10, 2, 30]]] as const) {
      const out = fl.full([3], NaN, { device: dev() });
      module.fn(`combine<${op}>`).launch({ grid: 1, block: 4 }, out, a, b, {}, 3);
      expect(Array.from(out.toArray()), op).to.deep.equal(expected);
    }
    expectThrows(() => module.fn("combine<AddOp>").launch({ grid: 1, block: 4 }, a, a, b, { x: 1 }, 3), fl.ArgumentError, /argument 3 \(op\)/);
  });

  it("keeps the arguments before a function object passed last intact (Kaldi's reductions take their functor after the sizes)", () => {
    const module = fl.compile(`
struct Twice { __device__ int operator()(int x) const { return 2 * x; } };
template <typename Op> __global__ void scaled(int* out, int dim, Op op) { out[0] = op(dim); }
template <typename Op> __global__ void pair(int* out, int a, short b, char c, Op op) { out[0] = op(a); out[1] = b; out[2] = c; }`,
    { device: dev() });
    const out = fl.full([3], -1, { dtype: "i32", device: dev() });
    module.fn("scaled<Twice>").launch({ grid: 1, block: 1 }, out, 0x1234, {});
    expect(out.toArray()[0]).to.equal(0x2468);
    module.fn("pair<Twice>").launch({ grid: 1, block: 1 }, out, 0x1235, 0x0567, 0x79, {});
    expect(Array.from(out.toArray())).to.deep.equal([0x246a, 0x0567, 0x79]);
  });

  it("passes the vector types by value as objects of x, y, z, w", () => {
    const module = fl.compile(`
#include <cuda_fp16.h>
__global__ void vectors(float* out, float4 f, int2 i, double2 d, uchar4 u, __half2 h) {
  out[0] = f.x + f.y + f.z + f.w; out[1] = i.x - i.y; out[2] = static_cast<float>(d.x * d.y);
  out[3] = u.x + u.y + u.z + u.w; out[4] = __low2float(h) - __high2float(h);
}`, { device: dev() });
    const out = fl.empty([5], { device: dev() });
    module.fn("vectors").launch({ grid: 1, block: 1 }, out, { x: 1, y: 2, z: 3, w: 4.5 }, { x: -3, y: 4 }, { x: 0.5, y: 6 },
      { x: 255, y: 1, z: 0, w: 4 }, { x: 1.5, y: -2 });
    expect(Array.from(out.toArray())).to.deep.equal([10.5, -7, 3, 260, 3.5]);
  });
});
