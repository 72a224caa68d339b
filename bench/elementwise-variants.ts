// npm run bench:variants [-- --rows R --cols C]
//
// Variants of one memory-bound kernel, relu(a + b) in f32, timed side by side
// with the built-in add_relu_f32 and against the copy ceiling (copy_f32x4), so
// that one run on a GPU shows what moves a streaming kernel closer to the
// memory's bandwidth: the launch shape (one 16-byte vector a thread over a grid
// that covers the data, or a grid-stride loop over a few waves), how many loads
// each thread has in flight (unrolling), and cache hints (loads and stores that
// stream past L2 instead of keeping the data there). Each variant is first
// checked to give exactly the built-in's output. Default shape 32768x4096 on a
// GPU, 64x4096 on the CPU emulator (where the times mean nothing).
import * as fl from "../src";
import { formatMs } from "../src/format";

const GPU_SHAPE = { rows: 32768, cols: 4096 };
const CPU_SHAPE = { rows: 64, cols: 4096 };
const BLOCK = 256;
const REFERENCE_NAME = "fl.fused.addRelu";

// CUDA's cache-hinted loads and stores where the compiler has them (NVRTC and
// nvcc); plain accesses elsewhere, so that the variants compile on every device.
const VARIANTS_SOURCE = String.raw`
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define LOAD_STREAMING(p) __ldcs(p)
#define LOAD_READ_ONLY(p) __ldg(p)
#define STORE_STREAMING(p, v) __stcs(p, v)
#else
#define LOAD_STREAMING(p) (*(p))
#define LOAD_READ_ONLY(p) (*(p))
#define STORE_STREAMING(p, v) (*(p) = (v))
#endif

// NaN stays NaN, as in the built-in kernel.
__device__ __forceinline__ float relu(float x) { return x < 0.0f ? 0.0f : x; }

__device__ __forceinline__ float4 add_relu4(float4 a, float4 b) {
  return make_float4(relu(a.x + b.x), relu(a.y + b.y), relu(a.z + b.z), relu(a.w + b.w));
}

// The n % 4 elements past the last whole float4, by the grid's first threads.
__device__ __forceinline__ void tail(float* out, const float* a, const float* b, long long n) {
  const long long i = (n / 4) * 4 + (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = relu(a[i] + b[i]);
}

// One float4 a thread; the grid covers the data (as copy_f32x4 is launched).
__global__ void add_relu_cover(float* out, const float* a, const float* b, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 4) reinterpret_cast<float4*>(out)[i] = add_relu4(reinterpret_cast<const float4*>(a)[i], reinterpret_cast<const float4*>(b)[i]);
  tail(out, a, b, n);
}

// The same with loads and stores marked streaming (evict first).
__global__ void add_relu_cover_streaming(float* out, const float* a, const float* b, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 4) {
    const float4 va = LOAD_STREAMING(reinterpret_cast<const float4*>(a) + i);
    const float4 vb = LOAD_STREAMING(reinterpret_cast<const float4*>(b) + i);
    STORE_STREAMING(reinterpret_cast<float4*>(out) + i, add_relu4(va, vb));
  }
  tail(out, a, b, n);
}

// Read-only (non-coherent) loads, streaming stores.
__global__ void add_relu_cover_readonly(float* out, const float* a, const float* b, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 4) {
    const float4 va = LOAD_READ_ONLY(reinterpret_cast<const float4*>(a) + i);
    const float4 vb = LOAD_READ_ONLY(reinterpret_cast<const float4*>(b) + i);
    STORE_STREAMING(reinterpret_cast<float4*>(out) + i, add_relu4(va, vb));
  }
  tail(out, a, b, n);
}

// U float4 a thread, all 2U loads issued before any math or store; a block
// takes U * blockDim.x consecutive float4s, thread t those at t + k * blockDim.x
// (each warp's accesses stay contiguous). The grid covers the data.
template <int U, bool STREAMING>
__device__ __forceinline__ void unrolled(float* out, const float* a, const float* b, long long n) {
  const long long n4 = n / 4;
  const long long base = (long long)blockIdx.x * blockDim.x * U + threadIdx.x;
  const float4* a4 = reinterpret_cast<const float4*>(a);
  const float4* b4 = reinterpret_cast<const float4*>(b);
  float4* out4 = reinterpret_cast<float4*>(out);
  float4 va[U], vb[U];
  for (int k = 0; k < U; ++k) {
    const long long i = base + (long long)k * blockDim.x;
    if (i < n4) {
      va[k] = STREAMING ? LOAD_STREAMING(a4 + i) : a4[i];
      vb[k] = STREAMING ? LOAD_STREAMING(b4 + i) : b4[i];
    }
  }
  for (int k = 0; k < U; ++k) {
    const long long i = base + (long long)k * blockDim.x;
    if (i < n4) {
      if (STREAMING) STORE_STREAMING(out4 + i, add_relu4(va[k], vb[k]));
      else out4[i] = add_relu4(va[k], vb[k]);
    }
  }
  tail(out, a, b, n);
}

__global__ void add_relu_unroll2(float* out, const float* a, const float* b, long long n) { unrolled<2, false>(out, a, b, n); }
__global__ void add_relu_unroll4(float* out, const float* a, const float* b, long long n) { unrolled<4, false>(out, a, b, n); }
__global__ void add_relu_unroll2_streaming(float* out, const float* a, const float* b, long long n) { unrolled<2, true>(out, a, b, n); }
__global__ void add_relu_unroll4_streaming(float* out, const float* a, const float* b, long long n) { unrolled<4, true>(out, a, b, n); }

// A grid-stride loop taking 4 float4s an iteration (all 8 loads first), over a grid of a few waves.
__global__ void add_relu_stride_unroll4(float* out, const float* a, const float* b, long long n) {
  const long long n4 = n / 4;
  const long long step = (long long)gridDim.x * blockDim.x;
  const float4* a4 = reinterpret_cast<const float4*>(a);
  const float4* b4 = reinterpret_cast<const float4*>(b);
  float4* out4 = reinterpret_cast<float4*>(out);
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * step < n4; i += 4 * step) {
    float4 va[4], vb[4];
    for (int k = 0; k < 4; ++k) { va[k] = a4[i + k * step]; vb[k] = b4[i + k * step]; }
    for (int k = 0; k < 4; ++k) out4[i + k * step] = add_relu4(va[k], vb[k]);
  }
  for (; i < n4; i += step) out4[i] = add_relu4(a4[i], b4[i]);
  for (long long j = n4 * 4 + (long long)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += step) out[j] = relu(a[j] + b[j]);
}
`;

/** A way of computing relu(a + b) into `out`: one launch. */
interface Variant {
  name: string;
  /** What it changes against the built-in kernel. */
  what: string;
  launch(out: fl.Tensor, a: fl.Tensor, b: fl.Tensor): void;
}

/** Every variant on `device`, the built-in op first. */
export function variants(device: fl.Device): Variant[] {
  const module = fl.compile(VARIANTS_SOURCE, { device });
  const builtin = fl.builtins(device).fn("add_relu_f32");
  const multiprocessors = Math.max(1, device.props.multiprocessors);
  const traffic = (a: fl.Tensor) => ({ op: "variant", bytesRead: 2 * a.bytes, bytesWritten: a.bytes });
  const vectors = (a: fl.Tensor) => Math.ceil(a.size / 4);
  const cover = (items: number, block = BLOCK) => ({ grid: Math.max(1, Math.ceil(items / block)), block });
  const compiled = (name: string, what: string, shape: (a: fl.Tensor) => { grid: number; block: number }): Variant => ({
    name, what,
    launch: (out, a, b) => module.fn(name).launchAs(traffic(a), shape(a), [out, a, b, a.size]),
  });
  const builtinWaves = (blocksPerMultiprocessor: number): Variant => ({
    name: `add_relu_f32, ${blocksPerMultiprocessor} blocks/SM`,
    what: `the built-in kernel's grid-stride loop over ${blocksPerMultiprocessor} blocks of ${BLOCK} a multiprocessor`,
    launch: (out, a, b) => builtin.launchAs(traffic(a), { grid: multiprocessors * blocksPerMultiprocessor, block: BLOCK },
      [out, a, b, a.size]),
  });
  return [
    // The reference: it makes its own output, and is not checked against itself.
    { name: REFERENCE_NAME, what: "the op as it launches today", launch: (_out, a, b) => void fl.fused.addRelu(a, b) },
    builtinWaves(8), builtinWaves(16), builtinWaves(64),
    {
      name: "add_relu_f32, covering grid", what: "the built-in kernel, one float4 a thread (no loop)",
      launch: (out, a, b) => builtin.launchAs(traffic(a), cover(vectors(a)), [out, a, b, a.size]),
    },
    compiled("add_relu_cover", "one float4 a thread, 256 threads a block", (a) => cover(vectors(a))),
    { ...compiled("add_relu_cover", "", (a) => cover(vectors(a), 512)), name: "add_relu_cover, 512", what: "the same, 512 threads a block" },
    { ...compiled("add_relu_cover", "", (a) => cover(vectors(a), 1024)), name: "add_relu_cover, 1024", what: "the same, 1024 threads a block" },
    compiled("add_relu_cover_streaming", "one float4 a thread, loads and stores evict-first (__ldcs, __stcs)", (a) => cover(vectors(a))),
    compiled("add_relu_cover_readonly", "one float4 a thread, read-only loads (__ldg), streaming stores", (a) => cover(vectors(a))),
    compiled("add_relu_unroll2", "two float4s a thread, four loads in flight", (a) => cover(Math.ceil(vectors(a) / 2))),
    compiled("add_relu_unroll4", "four float4s a thread, eight loads in flight", (a) => cover(Math.ceil(vectors(a) / 4))),
    compiled("add_relu_unroll2_streaming", "unroll2 with streaming loads and stores", (a) => cover(Math.ceil(vectors(a) / 2))),
    compiled("add_relu_unroll4_streaming", "unroll4 with streaming loads and stores", (a) => cover(Math.ceil(vectors(a) / 4))),
    compiled("add_relu_stride_unroll4", "grid-stride, four float4s an iteration, 8 blocks/SM",
      () => ({ grid: multiprocessors * 8, block: BLOCK })),
  ];
}

/** Runs each variant once and returns the names of those whose output differs from the built-in op's. */
export function wrongVariants(device: fl.Device, rows: number, cols: number): string[] {
  const a = fl.randn([rows, cols], { device, seed: 1 });
  const b = fl.randn([rows, cols], { device, seed: 2 });
  const expected = fl.fused.addRelu(a, b).toArray();
  return variants(device).filter((v) => v.name !== REFERENCE_NAME).filter((v) => {
    const out = fl.full([rows, cols], NaN, { device });
    v.launch(out, a, b);
    const got = out.toArray();
    return got.some((x, i) => !Object.is(x, expected[i]));
  }).map((v) => v.name);
}

function parseShape(argv: string[], onCpu: boolean): { rows: number; cols: number } {
  const shape = { ...(onCpu ? CPU_SHAPE : GPU_SHAPE) };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], Number(argv[i + 1])];
    if ((flag !== "--rows" && flag !== "--cols") || !Number.isInteger(value) || value < 1) {
      throw new Error(`usage: npm run bench:variants [-- --rows R --cols C], got ${argv.slice(i, i + 2).join(" ")}`);
    }
    shape[flag === "--rows" ? "rows" : "cols"] = value;
  }
  return shape;
}

async function main(): Promise<void> {
  const device = fl.device();
  const { rows, cols } = parseShape(process.argv.slice(2), device.kind === "cpu");
  console.log(`device: ${device.name} (${device.describe()}); relu(a + b), f32, ${rows}x${cols}`);
  const wrong = wrongVariants(device, Math.min(rows, 64), cols);
  if (wrong.length > 0) throw new Error(`variants whose output differs from fl.fused.addRelu: ${wrong.join(", ")}`);
  const ceiling = await fl.copyCeiling({ device, bytes: device.kind === "cpu" ? 2 ** 24 : 2 ** 30 });
  console.log(`copy ceiling: ${ceiling.gbs.toFixed(1)} GB/s (copy_f32x4)`);
  const a = fl.randn([rows, cols], { device, seed: 1 });
  const b = fl.randn([rows, cols], { device, seed: 2 });
  const out = fl.empty([rows, cols], { device });
  const all = variants(device);
  const cases = Object.fromEntries(all.map((v) => [v.name, () => v.launch(out, a, b)]));
  const results = await fl.bench(cases, { copyCeilingGBs: ceiling.gbs });
  console.log(String(results));
  console.log("");
  for (const v of all) console.log(`${v.name}: ${v.what}`);
  const best = [...results].sort((x, y) => x.medianMs - y.medianMs)[0];
  console.log(`\nfastest: ${best.name}, ${formatMs(best.medianMs)} ms, ${best.gbps.toFixed(1)} GB/s (${best.pctOfCopy?.toFixed(1)}% of copy)`);
}

if (require.main === module) {
  main().catch((e: Error) => {
    console.error(e.message);
    process.exit(1);
  });
}
