// The CPU emulator's GPU semantics, through the public API: check mode's guard
// bands and shuffled thread order, warps of 32 and 64 lanes, deadlocks and
// faults that end a launch with an error (never the process), atomics, and the
// 16-bit float conversions. Tests that need an emulator feature open a "cpu"
// device; the others run on the default device, GPU included.
import { expect } from "chai";
import * as fl from "../src";
import { SOFTMAX_ROWS, softmaxRowsReference } from "../bench/softmax";
import { expectRejects, expectThrows, range, runScript, testDevice } from "./helpers";

/** A RegExp matching `text` literally, anywhere in a message. */
function literal(text: string): RegExp {
  return new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
}

/** A launch that must work: the device is still usable after an error. */
async function expectWorking(dev: fl.Device): Promise<void> {
  const copy = fl.compile(`
__global__ void copy_twice(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}`, { device: dev }).fn("copy_twice");
  const n = 1000;
  const input = fl.tensor(range(n), { device: dev });
  const out = fl.empty([n], { device: dev });
  copy.launch({ grid: Math.ceil(n / 256), block: 256 }, out, input, n);
  await dev.synchronize();
  expect(Array.from(out.toArray())).to.deep.equal(range(n).map((i) => 2 * i));
}

const BLOCK_SUMS = `
// One sum per block of 256 inputs: a tree reduction in shared memory.
__global__ void block_sum(float* out, const float* in) {
  __shared__ float partial[256];
  partial[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

// The same, without the barrier between the stores and the first reads.
__global__ void block_sum_racy(float* out, const float* in) {
  __shared__ float partial[256];
  partial[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}
`;

const WARP_SUMS = `
// The sum of one warp's inputs, however wide the warp.
__global__ void warp_sum(float* out, const float* in) {
  float v = in[threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset >>= 1) v += __shfl_xor(v, offset);
  if (threadIdx.x == 0) out[0] = v;
}

// The same, assuming 32 lanes: on a 64-lane warp it sums half of it.
__global__ void warp_sum_32(float* out, const float* in) {
  float v = in[threadIdx.x];
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor(v, offset);
  if (threadIdx.x == 0) out[0] = v;
}
`;

describe("CPU emulator", () => {
  it("catches a write one past the end in check mode, with kernel, buffer and index", async () => {
    const dev = fl.device("cpu", { check: true });
    const oob = fl.compile(`
__global__ void oob_write(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = 1.0f;  // one too many
}`, { device: dev }).fn("oob_write");
    const out = fl.empty([1024], { device: dev });
    oob.launch({ grid: 5, block: 256 }, out, 1024);
    await expectRejects(dev.synchronize(), fl.DeviceError, literal(
      "kernel 'oob_write' wrote out of bounds: argument 0 (f32*), element 1024, 1 past the end of a 1024-element buffer"));
    await expectWorking(dev);
  });

  it("catches a read past the end through a struct's pointer member in check mode", async () => {
    const dev = fl.device("cpu", { check: true });
    const shifted = fl.compile(`
struct Shift { float* out; const float* in; };
__global__ void shift_left(Shift s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) s.out[i] = s.in[i + 1];  // reads in[n]
}`, { device: dev }).fn("shift_left");
    shifted.launch({ grid: 1, block: 64 }, { out: fl.empty([40], { device: dev }), in: fl.zeros([40], { device: dev }) }, 40);
    await expectRejects(dev.synchronize(), fl.DeviceError, literal(
      "kernel 'shift_left' read out of bounds of a buffer no pointer argument points into (one a struct or accessor holds, or one it was not given): " +
      "byte 160, 1 past the end of a 160-byte buffer (block (0,0,0), thread (39,0,0))"));
    await expectWorking(dev);
  });

  for (const check of [false, true]) {
    it(`refuses to read what a failed or skipped launch was given to write, also after synchronize() took its error${check ? " (check mode)" : ""}`, async () => {
      const dev = fl.device("cpu", { check });
      const module = fl.compile(`
__global__ void trap_midway(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 300) __trap();
  if (i < n) out[i] = in[i] + 1.0f;
}
__global__ void set_sevens(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 7.0f;
}`, { device: dev });
      const n = 1000;
      const input = fl.tensor(range(n), { device: dev });
      const out = fl.full([n], 3, { device: dev });
      const later = fl.full([n], 3, { device: dev });
      module.fn("trap_midway").launch({ grid: 4, block: 256 }, out, input, n);
      module.fn("set_sevens").launch({ grid: 4, block: 256 }, later.view(10, 20), 20);
      await expectRejects(dev.synchronize(), fl.DeviceError, /kernel 'trap_midway'.*__trap\(\)/);
      expectThrows(() => out.toArray(), fl.DeviceError,
        /cannot read this tensor: kernel 'trap_midway', given this buffer, failed, so it holds what it held before or part of the kernel's work: .*__trap\(\)/);
      await expectRejects(out.data(), fl.DeviceError, /cannot read this tensor: kernel 'trap_midway'/);
      expectThrows(() => later.view(500, 4).toArray(), fl.DeviceError,
        /cannot read this tensor: kernel 'set_sevens', given this buffer, did not run, as an earlier launch failed: .*trap_midway/);
      // What it only read stays readable; a launch that completes makes the others readable again.
      expect(Array.from(input.toArray())).to.deep.equal(range(n));
      module.fn("set_sevens").launch({ grid: 4, block: 256 }, out, n);
      module.fn("set_sevens").launch({ grid: 1, block: 32 }, later.view(10, 20), 20);
      expect(Array.from(out.toArray())).to.deep.equal(new Array(n).fill(7));
      expect(Array.from(later.toArray()).slice(8, 32)).to.deep.equal([3, 3, ...new Array(20).fill(7), 3, 3]);
    });
  }

  it("catches a read one past the end and a write far past it in check mode, where they happen", async () => {
    const dev = fl.device("cpu", { check: true });
    const module = fl.compile(`
__global__ void oob_read(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i % n] = in[i];  // reads one too many
}
__global__ void far_write(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 3) out[n + 100000] = 1.0f;  // far past any guard band
  else if (i < n) out[i] = 2.0f;
}`, { device: dev });
    const input = fl.zeros([1024], { device: dev });
    const out = fl.empty([1024], { device: dev });
    module.fn("oob_read").launch({ grid: 5, block: 256 }, out, input, 1024);
    await expectRejects(dev.synchronize(), fl.DeviceError, literal(
      "kernel 'oob_read' read out of bounds: argument 1 (const f32*), element 1024, 1 past the end of a 1024-element buffer (block (4,0,0), thread (0,0,0))"));
    await expectWorking(dev);
    module.fn("far_write").launch({ grid: 4, block: 256 }, out, 1024);
    await expectRejects(dev.synchronize(), fl.DeviceError, literal(
      "kernel 'far_write' wrote out of bounds: argument 0 (f32*), element 101024, 100001 past the end of a 1024-element buffer (block (0,0,0), thread (3,0,0))"));
    await expectWorking(dev);
  });

  it("catches in check mode an access just before a buffer's start, read or write, where it happens", async () => {
    const dev = fl.device("cpu", { check: true });
    const module = fl.compile(`
__global__ void shift_right(float* out, const float* in, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = in[i - 1];  // a stencil's left neighbour, unguarded at 0
}
__global__ void store_left(float* out, int n) {
  int i = threadIdx.x;
  if (i < n) out[i - 1] = 1.0f;
}`, { device: dev, name: "fronts" });
    const x = fl.zeros([33], { device: dev });
    module.fn("shift_right").launch({ grid: 1, block: 64 }, fl.empty([33], { device: dev }), x, 33);
    await expectRejects(dev.synchronize(), fl.DeviceError, literal(
      "kernel 'shift_right' read out of bounds: argument 1 (const f32*), element -1, 1 before the start of a 33-element buffer (block (0,0,0), thread (0,0,0))"));
    module.fn("store_left").launch({ grid: 1, block: 64 }, fl.empty([1000], { device: dev }), 1000);
    await expectRejects(dev.synchronize(), fl.DeviceError, literal(
      "kernel 'store_left' wrote out of bounds: argument 0 (f32*), element -1, 1 before the start of a 1000-element buffer (block (0,0,0), thread (0,0,0))"));
    // Through a view that begins inside its tensor the elements before it are read, as on a GPU.
    const y = fl.tensor(range(8), { device: dev });
    const out = fl.empty([4], { device: dev });
    module.fn("shift_right").launch({ grid: 1, block: 4 }, out, y.view(2, 4), 4);
    expect(Array.from(out.toArray())).to.deep.equal([1, 2, 3, 4]);
    await expectWorking(dev);
  });

  it("catches in check mode an access just past a buffer whose end is not a 16-byte granule's, read, write or atomic, where it happens", async () => {
    const dev = fl.device("cpu", { check: true });
    const module = fl.compile(`
template <typename T> __global__ void read_one_more(T* out, const T* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i % n] = in[i];
}
__global__ void store_one_more(float* out, int n) {
  int i = threadIdx.x;
  if (i <= n) out[i] = 1.0f;
}
__global__ void min_one_more(int* values, int n) {
  int i = threadIdx.x;
  if (i <= n) atomicMin(&values[i], 1 << 30);  // keeps what is there: the atomic writes nothing new
}
__global__ void pairs(float2* out, const float2* in, int pairs) {
  int i = threadIdx.x;
  if (i < pairs) out[i] = in[i];
}`, { device: dev, name: "granule_ends" });
    const out = fl.empty([33], { device: dev });
    module.fn("read_one_more<float>").launch({ grid: 2, block: 32 }, out, fl.zeros([33], { device: dev }), 33);
    await expectRejects(dev.synchronize(), fl.DeviceError, literal(
      "kernel 'read_one_more<float>' read out of bounds: argument 1 (const f32*), element 33, 1 past the end of a 33-element buffer (block (1,0,0), thread (1,0,0))"));
    for (const [dtype, n] of [["u8", 7], ["i16", 9], ["f64", 5]] as const) {
      const name = `read_one_more<${{ u8: "unsigned char", i16: "short", f64: "double" }[dtype]}>`;
      module.fn(name).launch({ grid: 1, block: 32 }, fl.empty([n], { dtype, device: dev }), fl.zeros([n], { dtype, device: dev }), n);
      await expectRejects(dev.synchronize(), fl.DeviceError, new RegExp(`read out of bounds: argument 1 \\(const ${dtype}\\*\\), element ${n}, 1 past the end of a ${n}-element buffer \\(block \\(0,0,0\\), thread \\(${n},0,0\\)\\)`));
    }
    // A write there is reported with its thread, not only from the guard band after the launch.
    module.fn("store_one_more").launch({ grid: 1, block: 64 }, fl.empty([33], { device: dev }), 33);
    await expectRejects(dev.synchronize(), fl.DeviceError, literal(
      "kernel 'store_one_more' wrote out of bounds: argument 0 (f32*), element 33, 1 past the end of a 33-element buffer (block (0,0,0), thread (33,0,0))"));
    module.fn("min_one_more").launch({ grid: 1, block: 64 }, fl.zeros([5], { dtype: "i32", device: dev }), 5);
    await expectRejects(dev.synchronize(), fl.DeviceError, /kernel 'min_one_more' read out of bounds: argument 0 \(i32\*\), element 5, 1 past the end of a 5-element buffer \(block \(0,0,0\), thread \(5,0,0\)\)/);
    // A float2 read half past the end of a view of an odd length is reported at its first byte past it.
    const x = fl.zeros([16], { device: dev });
    module.fn("pairs").launch({ grid: 1, block: 32 }, fl.empty([6], { device: dev }), x.view(2, 5), 3);
    await expectRejects(dev.synchronize(), fl.DeviceError, literal(
      "kernel 'pairs' read out of bounds: argument 1, byte 20, 1 past the end of a 20-byte view (block (0,0,0), thread (2,0,0))"));
    // Accesses up to the last element are not faulted.
    const full = fl.tensor(range(16), { device: dev });
    const copy = fl.empty([6], { device: dev });
    module.fn("pairs").launch({ grid: 1, block: 32 }, copy, full.view(2, 6), 3);
    expect(Array.from(copy.toArray())).to.deep.equal([2, 3, 4, 5, 6, 7]);
  });

  it("plain mode reports a write past a buffer's 256-byte alignment, which never reaches the process's own memory", async () => {
    const dev = fl.device("cpu");
    const module = fl.compile(`__global__ void overrun(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 1.0f; }`, { device: dev });
    const out = fl.zeros([1000], { device: dev });
    // Blocks run in parallel: the first fault is at any element from the page's end, 1024, to the last, 2047.
    module.fn("overrun").launch({ grid: 8, block: 256 }, out, 2048);
    await expectRejects(dev.synchronize(), fl.DeviceError, /kernel 'overrun' wrote out of bounds: argument 0 \(f32\*\), element (?:10[2-9]\d|1[1-9]\d\d|20[0-4]\d), \d+ past the end of a 1000-element buffer/);
    await expectWorking(dev);
  });

  it("check mode counts in bytes past a pointer whose pointee has no dtype (a float4*)", async () => {
    const dev = fl.device("cpu", { check: true });
    const module = fl.compile(`__global__ void shifted_copy(float4* out, const float4* in) { out[threadIdx.x] = in[threadIdx.x + 1]; }`, { device: dev });
    const input = fl.zeros([16], { device: dev });
    const out = fl.empty([16], { device: dev });
    module.fn("shifted_copy").launch({ grid: 1, block: 4 }, out, input);
    await expectRejects(dev.synchronize(), fl.DeviceError, literal(
      "kernel 'shifted_copy' read out of bounds: argument 1, byte 64, 1 past the end of a 64-byte buffer (block (0,0,0), thread (3,0,0))"));
    await expectWorking(dev);
  });

  it("holds a view to its end in check mode: an access past it, inside its tensor, is out of bounds; before its start the tensor is there", async () => {
    const dev = fl.device("cpu", { check: true });
    const module = fl.compile(`
__global__ void view_read(float* out, const float* in, int n) {
  int i = threadIdx.x;
  if (i <= n) out[i % n] = in[i];  // reads one past the view
}
__global__ void view_write(float* out, int first, int n) {
  int i = first + static_cast<int>(threadIdx.x);
  if (i < n) out[i] = 7.0f;
}
__global__ void view_copy(float* out, const float* in, int n) {
  if (threadIdx.x < n) out[threadIdx.x] = in[threadIdx.x];
}
// A stencil given d_in + RADIUS, as the OLCF course's solution passes it: its halo lies before the pointer.
__global__ void halo(float* out, const float* in, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = in[i - 3] + in[i + 3];
}`, { device: dev, name: "views" });
    const x = fl.tensor(range(16), { device: dev });
    const out = fl.zeros([16], { device: dev });
    module.fn("view_read").launch({ grid: 1, block: 32 }, out.view(0, 8), x.view(4, 8), 8);
    await expectRejects(dev.synchronize(), fl.DeviceError, literal(
      "kernel 'view_read' read out of bounds: argument 1 (const f32*), element 8, 1 past the end of a 8-element view (block (0,0,0), thread (8,0,0))"));
    const stencil = fl.full([10], NaN, { device: dev });
    module.fn("halo").launch({ grid: 1, block: 32 }, stencil, x.view(3), 10);
    expect(Array.from(stencil.toArray())).to.deep.equal(range(10).map((i) => 2 * i + 6));
    // A write before a view's start lands in its tensor, as on a GPU.
    const written = fl.zeros([8], { device: dev });
    module.fn("view_write").launch({ grid: 1, block: 32 }, written.view(3, 4), -1, 4);
    expect(Array.from(written.toArray())).to.deep.equal([0, 0, 7, 7, 7, 7, 7, 0]);
    const strayed = fl.zeros([8], { device: dev });
    module.fn("view_write").launch({ grid: 1, block: 32 }, strayed.view(1, 4), 0, 5);
    await expectRejects(dev.synchronize(), fl.DeviceError, literal(
      "kernel 'view_write' wrote out of bounds: argument 0 (f32*), element 4, 1 past the end of a 4-element view"));
    // The stray write did not reach the tensor. The failed launch's output cannot
    // be read, but a kernel given it reads what is there.
    expectThrows(() => strayed.toArray(), fl.DeviceError, /cannot read this tensor: kernel 'view_write', given this buffer, failed/);
    const seen = fl.zeros([8], { device: dev });
    module.fn("view_copy").launch({ grid: 1, block: 32 }, seen, strayed, 8);
    const kept = Array.from(seen.toArray());
    expect([kept[0], ...kept.slice(5)]).to.deep.equal([0, 0, 0, 0]);
    expect(kept.slice(1, 5).every((v) => v === 0 || v === 7)).to.equal(true);
    // A view that ends where its tensor ends, and an empty one, are held alike.
    module.fn("view_read").launch({ grid: 1, block: 32 }, out, x.view(8), 8);
    await expectRejects(dev.synchronize(), fl.DeviceError, /element 8, 1 past the end of a 8-element view/);
    module.fn("view_write").launch({ grid: 1, block: 32 }, out.view(16), 0, 1);
    await expectRejects(dev.synchronize(), fl.DeviceError, /wrote out of bounds: argument 0 \(f32\*\), element 0, 1 past the end of a 0-element view/);
    module.fn("view_write").launch({ grid: 1, block: 32 }, out.view(16), 0, 0);
    await expectWorking(dev);
  });

  it("runs overlapping views, and a view with its own tensor, in check mode as in plain mode", async () => {
    const source = `
// One thread, in order: each element sees the one written just before it when out runs ahead of in.
__global__ void running(float* out, const float* in, int n) {
  for (int i = 0; i < n; ++i) out[i] = in[i] + 1.0f;
}`;
    const results = [false, true].map((check) => {
      const dev = fl.device("cpu", { check });
      const running = fl.compile(source, { device: dev }).fn("running");
      const t = fl.tensor([5, 0, 0, 0, 0, 0, 0, 0, 0, 0], { device: dev });
      running.launch({ grid: 1, block: 1 }, t.view(1, 6), t.view(0, 6), 6);    // overlapping
      running.launch({ grid: 1, block: 1 }, t.view(8, 2), t.view(6, 2), 2);    // disjoint, adjacent
      running.launch({ grid: 1, block: 1 }, t.view(2, 3), t, 3);               // a view and its tensor
      return Array.from(t.toArray());
    });
    expect(results[0]).to.deep.equal([5, 6, 6, 7, 7, 10, 11, 0, 12, 1]);
    expect(results[1]).to.deep.equal(results[0]);
  });

  it("ends a shift by the value's width or more in check mode, where the CPU and a GPU differ", async () => {
    const dev = fl.device("cpu", { check: true });
    const module = fl.compile(`
__global__ void lane_mask(unsigned int* out, int warps, unsigned long long wide) {
  const unsigned int mask = (1 << warps) - 1;
  out[threadIdx.x] = mask + static_cast<unsigned int>(wide >> warps);
}`, { device: dev, name: "masks" });
    const out = fl.full([2], 7, { dtype: "u32", device: dev });
    module.fn("lane_mask").launch({ grid: 1, block: 2 }, out, 31, 1n << 40n);
    expect(Array.from(out.toArray())).to.deep.equal([0x7fffffff + 512, 0x7fffffff + 512]);
    module.fn("lane_mask").launch({ grid: 1, block: 2 }, out, 32, 0n);
    await expectRejects(dev.synchronize(), fl.DeviceError, new RegExp(
      "^cpu synchronize: kernel 'lane_mask': int value shifted by 32, outside 0 to 31: undefined in C\\+\\+, and the CPU and a GPU " +
      "differ \\(the CPU shifts by the count modulo 32, a GPU's shift gives 0 or the sign bits\\) at masks\\.hip:3 " +
      "\\(block \\(0,0,0\\), thread \\([01],0,0\\)\\)$"));
    module.fn("lane_mask").launch({ grid: 1, block: 2 }, out, -1, 0n);
    await expectRejects(dev.synchronize(), fl.DeviceError, /int value shifted by -1, outside 0 to 31/);
    await expectWorking(dev);
  });

  it("ends an access past the end of dynamic shared memory as a GPU does, and in check mode any, naming the launch's sharedBytes", async () => {
    const source = `
__global__ void stage(float* out, int n) {
  extern __shared__ float s[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = i;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}
__global__ void peek(float* out, int at) {
  extern __shared__ float s[];
  out[threadIdx.x] = s[at];
}`;
    const plain = fl.device("cpu");
    const module = fl.compile(source, { device: plain, name: "shared" });
    const out = fl.full([128], NaN, { device: plain });
    module.fn("stage").launch({ grid: 2, block: 64, sharedBytes: 1024 }, out, 256);
    expect(Array.from(out.toArray())).to.deep.equal([...range(64), ...range(64)]);
    // 1000 values staged in 256 floats: past the block's window on a GPU (an illegal address there).
    module.fn("stage").launch({ grid: 2, block: 64, sharedBytes: 1024 }, out, 1000);
    await expectRejects(plain.synchronize(), fl.DeviceError,
      /^cpu synchronize: kernel 'stage' wrote past the end of its dynamic shared memory \(1024 bytes, the launch's sharedBytes\): at byte 2048 \(block \(\d,0,0\), thread \(0,0,0\)\)$/);
    // A read just past the end goes unnoticed on a GPU (its window holds more), and in plain mode.
    module.fn("peek").launch({ grid: 1, block: 1, sharedBytes: 256 }, out, 64);
    await plain.synchronize();
    await expectWorking(plain);
    // Check mode reports it, as compute-sanitizer does; with no sharedBytes, the first read.
    const check = fl.device("cpu", { check: true });
    const checked = fl.compile(source, { device: check, name: "shared" });
    const out2 = fl.full([128], NaN, { device: check });
    checked.fn("peek").launch({ grid: 1, block: 1, sharedBytes: 256 }, out2, 64);
    await expectRejects(check.synchronize(), fl.DeviceError, /kernel 'peek' read past the end of its dynamic shared memory \(256 bytes, the launch's sharedBytes\): at byte 256 /);
    checked.fn("peek").launch({ grid: 1, block: 1 }, out2, 0);
    await expectRejects(check.synchronize(), fl.DeviceError, /kernel 'peek' read past the end of its dynamic shared memory \(0 bytes, the launch's sharedBytes\): at byte 0 /);
    // Also where sharedBytes does not end a 16-byte granule.
    checked.fn("peek").launch({ grid: 1, block: 1, sharedBytes: 36 }, out2, 9);
    await expectRejects(check.synchronize(), fl.DeviceError, /kernel 'peek' read past the end of its dynamic shared memory \(36 bytes, the launch's sharedBytes\): at byte 36 \(block \(0,0,0\), thread \(0,0,0\)\)/);
    checked.fn("peek").launch({ grid: 1, block: 1, sharedBytes: 36 }, out2, 8);
    await check.synchronize();
    await expectWorking(check);
  });

  it("ends an index past a __shared__, local or __constant__ array in check mode, naming the array's type, index and line", async () => {
    const dev = fl.device("cpu", { check: true });
    const module = fl.compile(`
__constant__ float taps[4] = {1, 2, 3, 4};
__global__ void tile_sum(float* out, const float* x, int pick) {
  __shared__ float tile[16];
  __shared__ float other[16];
  float local[4] = {0, 0, 0, 0};
  tile[threadIdx.x] = x[threadIdx.x];
  other[threadIdx.x % 16] = 1.0f;
  local[threadIdx.x % 4] = taps[pick];
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x % 16] + local[0] + other[0];
}`, { device: dev, name: "tiles" });
    const out = fl.full([32], NaN, { device: dev });
    const x = fl.full([32], 1, { device: dev });
    module.fn("tile_sum").launch({ grid: 1, block: 16 }, out, x, 2);
    expect(Array.from(out.toArray()).slice(0, 16)).to.deep.equal(range(16).map((t) => (t % 4 === 0 ? 5 : 2)));
    // 32 threads for a tile of 16: the second half would write into the next array.
    module.fn("tile_sum").launch({ grid: 1, block: 32 }, out, x, 0);
    await expectRejects(dev.synchronize(), fl.DeviceError,
      /^cpu synchronize: kernel 'tile_sum': index (1[6-9]|2\d|3[01]) out of bounds of float \[16\] at tiles\.hip:7 \(block \(0,0,0\), thread \((1[6-9]|2\d|3[01]),0,0\)\)$/);
    module.fn("tile_sum").launch({ grid: 1, block: 16 }, out, x, 4);
    await expectRejects(dev.synchronize(), fl.DeviceError, /kernel 'tile_sum': index 4 out of bounds of (const )?float \[4\] at tiles\.hip:9 /);
    module.fn("tile_sum").launch({ grid: 1, block: 16 }, out, x, -1);
    await expectRejects(dev.synchronize(), fl.DeviceError, /kernel 'tile_sum': index -1 out of bounds of (const )?float \[4\] at tiles\.hip:9 /);
    await expectWorking(dev);
  });

  it("ends an access through a pointer past the __shared__ or local array it points into in check mode", async () => {
    const dev = fl.device("cpu", { check: true });
    const module = fl.compile(`
__device__ void fill(float* row, int i, float v) { row[i] = v; }
__global__ void halves(float* out, const float* x, int pick) {
  __shared__ float tile[32];
  __shared__ float other[32];
  float* upper = tile + 16;
  fill(upper, threadIdx.x, x[threadIdx.x]);
  other[threadIdx.x % 32] = 1.0f;
  float local[4] = {1, 2, 3, 4};
  const float* taps = local;
  __syncthreads();
  out[threadIdx.x] = upper[threadIdx.x] + taps[pick] + other[0];
}`, { device: dev, name: "halves" });
    const out = fl.full([32], NaN, { device: dev });
    const x = fl.tensor(range(32), { device: dev });
    module.fn("halves").launch({ grid: 1, block: 16 }, out, x, 3);
    expect(Array.from(out.toArray()).slice(0, 16)).to.deep.equal(range(16).map((t) => t + 5));
    // 32 threads on the upper half of the tile: the second 16 would write into the next array.
    module.fn("halves").launch({ grid: 1, block: 32 }, out, x, 0);
    await expectRejects(dev.synchronize(), fl.DeviceError,
      /^cpu synchronize: kernel 'halves': float stored to 0x[0-9a-f]+, out of bounds of the array it points into \(.*\) at halves\.hip:2 \(block \(0,0,0\), thread \((1[6-9]|2\d|3[01]),0,0\)\)$/);
    module.fn("halves").launch({ grid: 1, block: 16 }, out, x, 4);
    await expectRejects(dev.synchronize(), fl.DeviceError, /kernel 'halves': (const )?float loaded from 0x[0-9a-f]+, out of bounds of the array it points into .* at halves\.hip:12 /);
    await expectWorking(dev);
  });

  it("ends a float-to-integer conversion the type cannot hold in check mode, where the CPU and a GPU differ", async () => {
    const dev = fl.device("cpu", { check: true });
    const source = `
__global__ void to_index(unsigned int* out, const double* x, const float* y) {
  out[threadIdx.x] = static_cast<unsigned int>(x[threadIdx.x]);
  out[threadIdx.x + 2] = static_cast<unsigned int>(static_cast<short>(y[threadIdx.x]));
}`;
    const module = fl.compile(source, { device: dev, name: "casts" });
    const out = fl.full([4], 7, { dtype: "u32", device: dev });
    const run = (x: number[], y: number[]) =>
      module.fn("to_index").launch({ grid: 1, block: 2 }, out, fl.tensor(x, { dtype: "f64", device: dev }), fl.tensor(y, { device: dev }));
    run([4294967295.5, 0.5], [-32768.5, 32767]);
    expect(Array.from(out.toArray())).to.deep.equal([4294967295, 0, 4294934528, 32767]);
    run([-1, 2], [0, 0]);
    await expectRejects(dev.synchronize(), fl.DeviceError, new RegExp(
      "^cpu synchronize: kernel 'to_index': -1 converted to unsigned int, outside its range: undefined in C\\+\\+, and the CPU and a GPU " +
      "differ \\(a GPU saturates to the nearest value the type holds, and gives 0 for NaN, 0x8000000000000000 in 64 bits\\) at casts\\.hip:3 " +
      "\\(block \\(0,0,0\\), thread \\(0,0,0\\)\\)$"));
    run([1, 2], [40000, 0]);
    await expectRejects(dev.synchronize(), fl.DeviceError, /kernel 'to_index': 40000 converted to short( int)?, outside its range: .* at casts\.hip:4 /);
    run([NaN, 2], [0, 0]);
    await expectRejects(dev.synchronize(), fl.DeviceError, /kernel 'to_index': nan converted to unsigned int/);
    // Outside check mode the launch runs, as it does on a GPU.
    const plain = fl.device("cpu");
    fl.compile(source, { device: plain, name: "casts" }).fn("to_index")
      .launch({ grid: 1, block: 2 }, fl.full([4], 7, { dtype: "u32", device: plain }), fl.tensor([-1, 2], { dtype: "f64", device: plain }), fl.tensor([0, 0], { device: plain }));
    await plain.synchronize();
    await expectWorking(dev);
  });

  it("says in plain mode that a fault with no address is most likely a misaligned vector access (DeepSpeed's 16-byte loads)", async () => {
    const dev = fl.device("cpu");
    const module = fl.compile(`
__device__ __forceinline__ void load16(void* dst, const void* src) {
  uint4* d = reinterpret_cast<uint4*>(dst);
  const uint4* s = reinterpret_cast<const uint4*>(src);
  d[0] = s[0];
}
__global__ void copy_rows(unsigned short* out, const unsigned short* in, int offset) {
  unsigned short buf[8];
  load16(buf, in + offset + threadIdx.x * 8);
  for (int j = 0; j < 8; j++) out[threadIdx.x * 8 + j] = buf[j];
}`, { device: dev });
    const out = fl.zeros([48], { dtype: "u16", device: dev });
    module.fn("copy_rows").launch({ grid: 1, block: 4 }, out, fl.zeros([64], { dtype: "u16", device: dev }), 4);
    await expectRejects(dev.synchronize(), fl.DeviceError, literal(
      "kernel 'copy_rows' made an invalid memory access: most likely a misaligned vector access (a float4, int4 or uint4 at an address not a multiple of 16"));
    await expectWorking(dev);
  });

  it("ends a misaligned vector access in check mode as a GPU does, naming kernel, line, block and thread", async () => {
    const dev = fl.device("cpu", { check: true });
    const module = fl.compile(`
__global__ void load4(float* out, const float* in, int offset) {
  if (threadIdx.x == 5) {
    float4 v = *reinterpret_cast<const float4*>(in + offset);
    out[0] = v.x + v.w;
  }
}
__global__ void store2(float* out, int offset) {
  if (threadIdx.x == 2) *reinterpret_cast<float2*>(out + offset) = make_float2(1.0f, 2.0f);
}
__global__ void load_double(double* out, const unsigned char* bytes, int offset) {
  out[0] = *reinterpret_cast<const double*>(bytes + offset);
}
__global__ void hinted(float* out, const float* in, int offset) {
  const float2 v = __ldg(reinterpret_cast<const float2*>(in + offset) + threadIdx.x);
  __stcs(reinterpret_cast<float2*>(out + offset) + threadIdx.x, v);
}`, { device: dev, name: "vectors" });
    const x = fl.tensor(range(16), { device: dev });
    const out = fl.zeros([8], { device: dev });
    module.fn("load4").launch({ grid: 1, block: 32 }, out, x, 1);
    await expectRejects(dev.synchronize(), fl.DeviceError, new RegExp(
      "^cpu synchronize: kernel 'load4': misaligned address: float4 (?:accessed at|loaded from) 0x[0-9a-f]*4, " +
      "which is not a multiple of its 16-byte alignment at vectors\\.hip:4 \\(block \\(0,0,0\\), thread \\(5,0,0\\)\\)$"));
    module.fn("store2").launch({ grid: 1, block: 32 }, out, 3);
    await expectRejects(dev.synchronize(), fl.DeviceError, new RegExp(
      "kernel 'store2': misaligned address: float2 stored to 0x[0-9a-f]*c, which is not a multiple of its 8-byte alignment " +
      "at vectors\\.hip:9 \\(block \\(0,0,0\\), thread \\(2,0,0\\)\\)"));
    const doubles = fl.zeros([1], { dtype: "f64", device: dev });
    module.fn("load_double").launch({ grid: 1, block: 1 }, doubles, fl.zeros([16], { dtype: "u8", device: dev }), 3);
    await expectRejects(dev.synchronize(), fl.DeviceError, /misaligned address: double (?:accessed at|loaded from) 0x[0-9a-f]+, which is not a multiple of its 8-byte alignment at vectors\.hip:12/);
    // Through the cache-hint loads and stores, the line is the caller's, not the emulator's own header's.
    module.fn("hinted").launch({ grid: 1, block: 2 }, out, x, 1);
    await expectRejects(dev.synchronize(), fl.DeviceError, /kernel 'hinted': misaligned address: float2 (?:accessed at|loaded from) 0x[0-9a-f]+, which is not a multiple of its 8-byte alignment at vectors\.hip:15 /);
    module.fn("hinted").launch({ grid: 1, block: 2 }, out.view(1), x, 2);
    await expectRejects(dev.synchronize(), fl.DeviceError, /kernel 'hinted': misaligned address: float2 (?:accessed at|stored to) 0x[0-9a-f]+, which is not a multiple of its 8-byte alignment at vectors\.hip:16 /);
    module.fn("hinted").launch({ grid: 1, block: 2 }, out, x, 2);
    expect(Array.from(out.toArray()).slice(2, 6)).to.deep.equal([2, 3, 4, 5]);
    // Aligned accesses pass, through a tensor and through views: a view keeps its address's alignment in check mode.
    module.fn("load4").launch({ grid: 1, block: 32 }, out, x, 4);
    expect(out.toArray()[0]).to.equal(4 + 7);
    module.fn("load4").launch({ grid: 1, block: 32 }, out.view(2), x.view(8), 0);
    expect(out.toArray()[2]).to.equal(8 + 11);
    module.fn("load4").launch({ grid: 1, block: 32 }, out, x.view(1), 0);
    await expectRejects(dev.synchronize(), fl.DeviceError, /kernel 'load4': misaligned address: float4/);
    module.fn("load_double").launch({ grid: 1, block: 1 }, doubles, fl.zeros([16], { dtype: "u8", device: dev }).view(3), 5);
    expect(Array.from(doubles.toArray())).to.deep.equal([0]);
    await expectWorking(dev);
  });

  it("refuses a struct the compiler lays out otherwise than the C ABI (#pragma pack)", () => {
    const dev = fl.device("cpu");
    expectThrows(() => fl.compile(`
#pragma pack(push, 1)
struct Packed { char c; double d; };
#pragma pack(pop)
__global__ void packed(double* out, Packed p) { out[0] = p.d; }`, { device: dev }), fl.ArgumentError,
    "fl.compile: source must be structs laid out as the C ABI lays them out (parameter 1 of packed, Packed, reads as 16 bytes aligned to 8: " +
    "c at 0, d at 8), got 9 bytes aligned to 1 from the compiler (a #pragma pack or an attribute fuselab does not read?)");
  });

  it("starts new buffers as NaN in check mode", () => {
    const dev = fl.device("cpu", { check: true });
    const saved = fl.debug.poison;
    fl.debug.poison = false;
    try {
      const fresh = fl.empty([16], { device: dev }).toArray();
      expect(Array.from(fresh).every(Number.isNaN)).to.equal(true);
    } finally {
      fl.debug.poison = saved;
    }
  });

  it("starts local variables as 0xFE bytes in check mode, so a sum never zeroed is plainly wrong", () => {
    // Canny's Gaussian of an image course: `float kernelSum;` then `kernelSum += ...`.
    const source = `
__global__ void row_sums(float* out, unsigned int* raw, const float* x, int n) {
  float sum;
  unsigned int bits;
  for (int i = 0; i < n; i++) sum += x[threadIdx.x * n + i];
  out[threadIdx.x] = sum;
  raw[threadIdx.x] = bits;
}`;
    const dev = fl.device("cpu", { check: true });
    const x = fl.full([4, 3], 1, { device: dev });
    const out = fl.full([4], NaN, { device: dev });
    const raw = fl.zeros([4], { dtype: "u32", device: dev });
    fl.compile(source, { device: dev }).fn("row_sums").launch({ grid: 1, block: 4 }, out, raw, x, 3);
    // 0xFEFEFEFE as a float, -1.69e38, plus 3 rounds back to itself.
    const pattern = new Float32Array(new Uint32Array([0xfefefefe]).buffer)[0];
    expect(Array.from(out.toArray())).to.deep.equal([pattern, pattern, pattern, pattern]);
    expect(Array.from(raw.toArray())).to.deep.equal([0xfefefefe, 0xfefefefe, 0xfefefefe, 0xfefefefe]);
  });

  it("reports a race on shared memory in check mode as compute-sanitizer's racecheck does, naming both accesses' threads and lines", async () => {
    const dev = fl.device("cpu", { check: true });
    const source = `
#include <cub/cub.cuh>
__global__ void stored_then_read(float* out, int barrier) {
  __shared__ float tile[128];
  tile[threadIdx.x] = threadIdx.x;
  if (barrier) __syncthreads();
  out[threadIdx.x] = tile[127 - threadIdx.x];
}
__global__ void lanes_swap(float* out, int sync) {
  extern __shared__ float lanes[];
  lanes[threadIdx.x] = threadIdx.x;
  if (sync == 1) __syncwarp();
  if (sync == 2) out[32] = __shfl_sync(0xffffffffu, 1.0f, 0);
  out[threadIdx.x] = lanes[31 - threadIdx.x];
}
__global__ void flag_by_all(float* out) {
  __shared__ int flag;
  flag = 0;  // every thread stores the same value: no race
  __syncthreads();
  if (threadIdx.x == 7) flag = 7;
  __syncthreads();
  out[threadIdx.x] = flag;
}
__global__ void read_then_overwritten(float* out) {
  __shared__ float total;
  if (threadIdx.x == 0) total = 1.0f;
  __syncthreads();
  out[threadIdx.x] = total;
  if (threadIdx.x == 100) total = 2.0f;  // the others may not have read it yet
}
__global__ void volatile_warp_sum(float* out) {
  __shared__ float sums[64];
  sums[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x < 32) {
    volatile float* v = sums;
    v[threadIdx.x] += v[threadIdx.x + 32];
    v[threadIdx.x] += v[threadIdx.x + 16];
    v[threadIdx.x] += v[threadIdx.x + 8];
    v[threadIdx.x] += v[threadIdx.x + 4];
    v[threadIdx.x] += v[threadIdx.x + 2];
    v[threadIdx.x] += v[threadIdx.x + 1];
  }
  if (threadIdx.x == 0) out[0] = sums[0];
}
__global__ void two_block_sums(float* out, int barrier) {
  typedef cub::BlockReduce<float, 128> Reduce;
  __shared__ typename Reduce::TempStorage scratch;
  const float sum = Reduce(scratch).Sum(threadIdx.x);
  if (barrier) __syncthreads();
  const float squares = Reduce(scratch).Sum(threadIdx.x * threadIdx.x);
  if (threadIdx.x == 0) { out[0] = sum; out[1] = squares; }
}`;
    const module = fl.compile(source, { device: dev, name: "races" });
    const out = fl.full([128], NaN, { device: dev });
    const launch = (name: string, block: number, ...args: number[]) =>
      module.fn(name).launch({ grid: [1, 2, 1], block, sharedBytes: name === "lanes_swap" ? 128 : 0 }, out, ...args);
    // The earlier access may be a lane of the same warp, which a __syncwarp() would also have ordered.
    const race = (kernel: string, first: string, second: string) => new RegExp(
      `^cpu synchronize: kernel '${kernel}': a race on shared memory in block \\(0,[01],0\\): thread \\(\\d+,0,0\\) ` +
      `(?:${first}|${second}) on line \\d+ of races\\.cu, and thread \\(\\d+,0,0\\)` +
      "(?:, of the same warp, (?:wrote|read) (?:it|them) on line \\d+ of races\\.cu, with no __syncwarp\\(\\) or __syncthreads\\(\\)" +
      "| (?:wrote|read) (?:it|them) on line \\d+ of races\\.cu, with no __syncthreads\\(\\)) between them: a GPU may run the two in " +
      "either order, so what the kernel computes depends on timing \\(compute-sanitizer's racecheck reports such a hazard\\)$");
    // Across warps: a tile's stores and another warp's loads, with no barrier between.
    launch("stored_then_read", 128, 0);
    const message = (await expectRejects(dev.synchronize(), fl.DeviceError,
      race("stored_then_read", "read bytes \\d+ to \\d+ of the block's static __shared__ memory", "wrote bytes \\d+ to \\d+ of the block's static __shared__ memory"))).message;
    // The lines are the store's (5) and the load's (7).
    expect(message.match(/on line (\d+)/g)).to.have.members(["on line 5", "on line 7"]);
    launch("stored_then_read", 128, 1);
    await dev.synchronize();
    expect(Array.from(out.toArray())).to.deep.equal(range(128).map((i) => 127 - i));
    // Within a warp: its lanes are ordered by __syncwarp() or another warp operation, not by running together.
    launch("lanes_swap", 32, 0);
    const lanes = await expectRejects(dev.synchronize(), fl.DeviceError, race("lanes_swap",
      "(?:read|wrote) bytes \\d+ to \\d+ of its dynamic shared memory \\(extern __shared__\\)", "x^"));
    expect(lanes.message).to.contain(", of the same warp,");
    for (const sync of [1, 2]) {
      launch("lanes_swap", 32, sync);
      await dev.synchronize();
      expect(Array.from(out.toArray()).slice(0, 32)).to.deep.equal(range(32).map((i) => 31 - i));
    }
    // Writes that leave the value as it was race with nothing; a write after others' reads does.
    launch("flag_by_all", 96);
    await dev.synchronize();
    expect(Array.from(out.toArray()).slice(0, 96)).to.deep.equal(range(96).map(() => 7));
    launch("read_then_overwritten", 128);
    await expectRejects(dev.synchronize(), fl.DeviceError, race("read_then_overwritten",
      "wrote bytes \\d+ to \\d+ of the block's static __shared__ memory", "read bytes \\d+ to \\d+ of the block's static __shared__ memory"));
    // A warp's steps through volatile shared memory take their turns as on a GPU's warp.
    launch("volatile_warp_sum", 64);
    await dev.synchronize();
    expect(out.toArray()[0]).to.equal(range(64).reduce((a, b) => a + b, 0));
    // cub's TempStorage reused with no barrier between, as cub's documentation warns.
    launch("two_block_sums", 128, 0);
    await expectRejects(dev.synchronize(), fl.DeviceError, /^cpu synchronize: kernel 'two_block_sums': a race on shared memory in block \(0,[01],0\): .* with no __syncthreads\(\) between them/);
    launch("two_block_sums", 128, 1);
    await dev.synchronize();
    expect(Array.from(out.toArray()).slice(0, 2)).to.deep.equal([8128, range(128).reduce((a, i) => a + i * i, 0)]);
    // Plain mode does not check: the order of its threads hides the race, as a GPU's timing may.
    const plain = testDevice();
    fl.compile(source, { device: plain, name: "races" }).fn("stored_then_read").launch({ grid: 1, block: 128 }, fl.empty([128], { device: plain }), 0);
    await plain.synchronize();
  });

  it("reports a reduction missing its __syncthreads() as a race in check mode, and runs the one with it right", async () => {
    const dev = fl.device("cpu", { check: true });
    const module = fl.compile(BLOCK_SUMS, { device: dev, name: "block_sum" });
    const blocks = 16;
    const values = range(256 * blocks).map((i) => (i * 7) % 31);
    const input = fl.tensor(values, { device: dev });
    const expected = range(blocks).map((b) => values.slice(b * 256, (b + 1) * 256).reduce((s, v) => s + v, 0));

    const good = fl.empty([blocks], { device: dev });
    module.fn("block_sum").launch({ grid: blocks, block: 256 }, good, input);
    await dev.synchronize();
    expect(Array.from(good.toArray())).to.deep.equal(expected);
    // The stores of line 17 and the loads of line 19, which no barrier separates.
    module.fn("block_sum_racy").launch({ grid: blocks, block: 256 }, fl.empty([blocks], { device: dev }), input);
    const error = await expectRejects(dev.synchronize(), fl.DeviceError, /^cpu synchronize: kernel 'block_sum_racy': a race on shared memory in block \(\d+,0,0\): /);
    expect(error.message.match(/on line \d+ of block_sum\.hip/g)).to.have.members(["on line 17 of block_sum.hip", "on line 19 of block_sum.hip"]);
  });

  it("reports the race when a reused shared array misses its closing __syncthreads() in check mode", async () => {
    // Two block reductions through one warp_sums array, as a norm kernel makes:
    // without the closing barrier, a warp that runs ahead into the second
    // reduction overwrites partial sums the first one has not read yet.
    const source = (closing: string) => `
__device__ float block_sum(float v, float* warp_sums) {
  for (int offset = warpSize / 2; offset > 0; offset >>= 1) v += __shfl_xor(v, offset);
  const int warps = (blockDim.x + warpSize - 1) / warpSize;
  if (threadIdx.x % warpSize == 0) warp_sums[threadIdx.x / warpSize] = v;
  __syncthreads();
  float total = 0.0f;
  for (int w = 0; w < warps; ++w) total += warp_sums[w];
  ${closing}
  return total;
}
__global__ void sum_and_squares(float* out, const float* in) {
  __shared__ float warp_sums[32];
  const float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  const float sum = block_sum(v, warp_sums);
  const float squares = block_sum(v * v, warp_sums);
  if (threadIdx.x == 0) { out[2 * blockIdx.x] = sum; out[2 * blockIdx.x + 1] = squares; }
}`;
    const dev = fl.device("cpu", { check: true });
    const blocks = 32, threads = 128;
    const values = range(threads * blocks).map((i) => (i * 5) % 7);
    const input = fl.tensor(values, { device: dev });
    const expected = range(blocks).flatMap((b) => {
      const row = values.slice(b * threads, (b + 1) * threads);
      return [row.reduce((s, v) => s + v, 0), row.reduce((s, v) => s + v * v, 0)];
    });
    const out = fl.empty([2 * blocks], { device: dev });
    fl.compile(source("__syncthreads();"), { device: dev }).fn("sum_and_squares").launch({ grid: blocks, block: threads }, out, input);
    await dev.synchronize();
    expect(Array.from(out.toArray())).to.deep.equal(expected);
    // The second reduction's store (line 5) against the first one's loads (line 8) of another warp.
    fl.compile(source("/* no closing barrier */"), { device: dev, name: "norm" }).fn("sum_and_squares").launch({ grid: blocks, block: threads }, out, input);
    const error = await expectRejects(dev.synchronize(), fl.DeviceError,
      /^cpu synchronize: kernel 'sum_and_squares': a race on shared memory in block \(\d+,0,0\): .* with no __syncthreads\(\) between them/);
    expect(error.message.match(/on line \d+ of norm\.hip/g)).to.have.members(["on line 5 of norm.hip", "on line 8 of norm.hip"]);
  });

  it("runs the warps of a block nearly in step in plain mode, as a GPU schedules them; check mode reports the race that hides", async () => {
    // exllamav2's layer norm: the mean's partial sums are read from sums[], and the
    // variance's written there, with no barrier between; every thread keeps both totals.
    const source = `
__global__ void mean_and_square(float* out, const float* x) {
  __shared__ float sums[32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float sum = x[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffff, sum, offset);
  if (lane == 0) sums[warp] = sum;
  __syncthreads();
  sum = sums[lane];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffff, sum, offset);
  const float total = sum;
  sum = x[threadIdx.x] * x[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffff, sum, offset);
  if (lane == 0) sums[warp] = sum;
  __syncthreads();
  sum = sums[lane];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffff, sum, offset);
  out[2 * threadIdx.x] = total;
  out[2 * threadIdx.x + 1] = sum;
}`;
    const values = range(1024).map((i) => (i * 3) % 5);
    const expected = range(1024).flatMap(() => [values.reduce((a, v) => a + v, 0), values.reduce((a, v) => a + v * v, 0)]);
    const plain = fl.device("cpu");
    const out = fl.full([2048], NaN, { device: plain });
    fl.compile(source, { device: plain }).fn("mean_and_square").launch({ grid: 1, block: 1024 }, out, fl.tensor(values, { device: plain }));
    expect(range(2048).filter((i) => out.toArray()[i] !== expected[i]).length, "plain mode: elements a warp running ahead overwrote").to.equal(0);
    // The variance's stores (line 14) against another warp's loads of the mean's sums (line 9).
    const dev = fl.device("cpu", { check: true });
    fl.compile(source, { device: dev, name: "layer_norm" }).fn("mean_and_square").launch({ grid: 1, block: 1024 }, fl.empty([2048], { device: dev }), fl.tensor(values, { device: dev }));
    const error = await expectRejects(dev.synchronize(), fl.DeviceError, /^cpu synchronize: kernel 'mean_and_square': a race on shared memory in block \(0,0,0\): /);
    expect(error.message.match(/on line \d+ of layer_norm\.hip/g)).to.have.members(["on line 9 of layer_norm.hip", "on line 14 of layer_norm.hip"]);
  });

  describe("a warp's lanes in lock step at shared memory, as a GPU's warp runs them", () => {
    // Code written for lock step, with no __syncwarp() between one lane's access and
    // another's: a cascade of filter sections, one a lane, each reading what the section
    // before it wrote in the same step (cuSignal's sosfilt); a halo zeroed by some lanes
    // and filled by others before one barrier (fairseq's lightconv); half a warp zeroing
    // the words the other half then reads; a warp's arg-min whose lanes store in a turn
    // of a loop only where they found a smaller value (pre-Volta warp reductions through
    // volatile shared memory). One warp of 16 lanes, on every warp size.
    const source = `
constexpr int kLanes = 16;
__device__ float stage(float v, int section) { return 2.0f * v + section; }

__global__ void cascade(float* out, const float* x, int n) {
  __shared__ float carried[kLanes];
  const int s = threadIdx.x;
  carried[s] = 0.0f;
  __syncthreads();
  for (int step = 0; step < n + kLanes - 1; step++) {
    const float in = s == 0 ? (step < n ? x[step] : 0.0f) : carried[s - 1];
    const float result = stage(in, s);
    carried[s] = result;
    if (s == kLanes - 1 && step >= kLanes - 1) out[step - (kLanes - 1)] = result;
    __syncthreads();
  }
}

template <int Taps, int Left>
__device__ void zero_halo(float* tile) {
  const int t = threadIdx.x;
  if (t < Left || t > kLanes - Taps + Left - 1) tile[t] = 0.0f;  // also words inside the tile
}

template <int Taps, int Left>
__global__ void convolve(float* out, const float* x, const float* w, int n) {
  __shared__ float tile[kLanes + Taps];
  const int t = threadIdx.x, at = blockIdx.x * kLanes + t;
  zero_halo<Taps, Left>(tile);
  tile[t + Left] = at < n ? x[at] : 0.0f;
  if (t < Taps - Left - 1) {
    const int right = blockIdx.x * kLanes + kLanes + t;
    tile[Left + kLanes + t] = right < n ? x[right] : 0.0f;
  }
  if (t < Left) {
    const int left = blockIdx.x * kLanes - Left + t;
    if (left >= 0) tile[t] = x[left];
  }
  __syncthreads();
  float sum = 0.0f;
  for (int j = 0; j < Taps; j++) sum += w[j] * tile[t + j];
  if (at < n) out[at] = sum;
}

__global__ void mirror(float* out) {
  __shared__ float half[kLanes];
  const int t = threadIdx.x;
  half[t] = 1.0f;
  if (t >= kLanes / 2) half[t] = 2.0f;
  out[t] = half[kLanes - 1 - t];
}

__global__ void warp_argmin(int* where, const float* x) {
  __shared__ float best[kLanes];
  __shared__ int at[kLanes];
  volatile float* vb = best;
  volatile int* va = at;
  const int t = threadIdx.x;
  vb[t] = x[blockIdx.x * kLanes + t];
  va[t] = t;
  for (int s = kLanes / 2; s > 0; s >>= 1) {
    if (t < s && vb[t + s] < vb[t]) {
      vb[t] = vb[t + s];
      va[t] = va[t + s];
    }
  }
  if (t == 0) where[blockIdx.x] = va[0];
}

// A grid-stride loop with no barrier between one turn's last read of the tile and
// the next turn's stores (Professional CUDA C Programming's constant-memory stencil).
__global__ void stride_sum3(float* out, const float* padded, int n) {
  __shared__ float tile[kLanes + 2];
  const int t = threadIdx.x;
  for (int base = blockIdx.x * kLanes; base < n; base += gridDim.x * kLanes) {
    tile[t] = padded[base + t];
    if (t < 2) tile[kLanes + t] = padded[base + kLanes + t];
    __syncthreads();
    out[base + t] = tile[t] + tile[t + 1] + tile[t + 2];
  }
}

// The grid's last, partial block: its lanes past the end fill their words from the lane
// before in one step, each reading its neighbour's word before any of them stores.
__global__ void tail_fill(int* out, const int* x, int n) {
  __shared__ int tile[kLanes];
  const int t = threadIdx.x, at = blockIdx.x * kLanes + t;
  tile[t] = at < n ? x[at] : -1;
  __syncthreads();
  if (at >= n) tile[t] = tile[t - 1] + 100;
  __syncthreads();
  out[at] = tile[t];
}

// Lanes at a gap (a negative value) take their left neighbour's value plus 100 in one
// step: all read before any stores, so a gap after a gap gets 99.
__global__ void fill_gaps(int* out, const int* x) {
  __shared__ int tile[kLanes];
  const int t = threadIdx.x, at = blockIdx.x * kLanes + t;
  tile[t] = x[at];
  __syncthreads();
  if (t > 0 && tile[t] < 0) tile[t] = tile[t - 1] + 100;
  __syncthreads();
  out[at] = tile[t];
}`;
    const devices = () => (testDevice().backend === "cpu" ? [testDevice(), fl.device("cpu", { warpSize: 64 })] : [testDevice()]);

    it("runs a cascade whose sections read what the one before wrote in the same step", async () => {
      const n = 40, x = range(n).map((i) => ((i * 7) % 11) - 5);
      const expected = x.map((v) => range(16).reduce((acc, s) => 2 * acc + s, v));
      for (const dev of devices()) {
        const out = fl.full([n], NaN, { device: dev });
        fl.compile(source, { device: dev }).fn("cascade").launch({ grid: 1, block: 16 }, out, fl.tensor(x, { device: dev }), n);
        expect(Array.from(await out.data()), dev.describe()).to.deep.equal(expected);
      }
    });

    it("fills a tile after zeroing its halo with no barrier between, where the halo overlaps the tile", async () => {
      const n = 45, x = range(n).map((i) => ((i * 5) % 9) - 4), w = [1, 10, 100, 1000, 10000];
      for (const [taps, left] of [[3, 1], [5, 2]]) {
        const expected = range(n).map((i) => range(taps).reduce((sum, j) => {
          const k = i + j - left;
          return sum + (k >= 0 && k < n ? w[j] * x[k] : 0);
        }, 0));
        for (const dev of devices()) {
          const out = fl.full([n], NaN, { device: dev });
          fl.compile(source, { device: dev }).fn(`convolve<${taps}, ${left}>`)
            .launch({ grid: Math.ceil(n / 16), block: 16 }, out, fl.tensor(x, { device: dev }), fl.tensor(w, { device: dev }), n);
          expect(Array.from(await out.data()), `${taps} taps on ${dev.describe()}`).to.deep.equal(expected);
        }
      }
    });

    it("lets the lanes that skip a store read it after the lanes that make it", async () => {
      for (const dev of devices()) {
        const out = fl.full([16], NaN, { device: dev });
        fl.compile(source, { device: dev }).fn("mirror").launch({ grid: 1, block: 16 }, out);
        expect(Array.from(await out.data()), dev.describe()).to.deep.equal(range(16).map((t) => (t < 8 ? 2 : 1)));
      }
    });

    it("finishes a loop's turn on the lanes that store in it before the lanes that skip the store begin the next", async () => {
      // Rows whose minimum moves down a lane in most turns: a lane that read before the
      // turn's stores were made would carry a larger value on.
      const rows = 64, x = range(rows * 16).map((i) => ((i * 7919) % 1009) / 1009);
      const expected = range(rows).map((r) => {
        const row = x.slice(r * 16, r * 16 + 16);
        return row.indexOf(Math.min(...row));
      });
      for (const dev of devices()) {
        const where = fl.full([rows], -1, { dtype: "i32", device: dev });
        fl.compile(source, { device: dev }).fn("warp_argmin").launch({ grid: rows, block: 16 }, where, fl.tensor(x, { device: dev }));
        expect(Array.from(await where.data()), dev.describe()).to.deep.equal(expected);
      }
    });

    it("asks each launch again whether it needs lock step: a grid-stride loop the last launch did not turn", async () => {
      const n = 16 * 7, padded = range(n + 2).map((i) => (i * 37) % 23);
      const expected = range(n).map((i) => padded[i] + padded[i + 1] + padded[i + 2]);
      for (const dev of devices()) {
        const sum3 = fl.compile(source, { device: dev }).fn("stride_sum3");
        for (const grid of [n / 16, 2]) {
          const out = fl.full([n], NaN, { device: dev });
          sum3.launch({ grid, block: 16 }, out, fl.tensor(padded, { device: dev }), n);
          expect(Array.from(await out.data()), `grid ${grid} on ${dev.describe()}`).to.deep.equal(expected);
        }
      }
    });

    it("watches the grid's last block too, whose lanes past the end take a path the full blocks' lanes do not", async () => {
      const n = 16 * 6 + 5, x = range(n).map((i) => (i * 13) % 29), blocks = Math.ceil(n / 16);
      const expected = range(blocks * 16).map((i) => (i < n ? x[i] : i === n ? x[n - 1] + 100 : 99));
      for (const dev of devices()) {
        const out = fl.full([blocks * 16], -7, { dtype: "i32", device: dev });
        fl.compile(source, { device: dev }).fn("tail_fill").launch({ grid: blocks, block: 16 }, out, fl.tensor(x, { dtype: "i32", device: dev }), n);
        expect(Array.from(await out.data()), dev.describe()).to.deep.equal(expected);
      }
    });

    it("watches blocks in the grid's middle too: a block at a power of two whose data alone takes the path that needs lock step", async () => {
      // Gaps in block 4 of 9 only: the first and last blocks take no gap's path.
      const blocks = 9, x = range(blocks * 16).map((i) => (i === 4 * 16 + 5 || i === 4 * 16 + 6 ? -1 : i));
      const expected = x.map((v, i) => (i === 4 * 16 + 5 ? x[i - 1] + 100 : i === 4 * 16 + 6 ? 99 : v));
      for (const dev of devices()) {
        const out = fl.full([blocks * 16], -7, { dtype: "i32", device: dev });
        fl.compile(source, { device: dev }).fn("fill_gaps").launch({ grid: blocks, block: 16 }, out, fl.tensor(x, { dtype: "i32", device: dev }));
        expect(Array.from(await out.data()), dev.describe()).to.deep.equal(expected);
      }
    });

    it("gives the blocks in lock step and the rest one program's data: __device__ counters and __constant__ values", async () => {
      // On the CPU the first, the last and those at powers of two run in lock step and the others not, in two
      // builds of the module: a ticket taken twice, or an offset unset, would show.
      const tickets = `
__device__ unsigned int next_ticket;
__constant__ int first_ticket;
__global__ void take_ticket(int* out) {
  __shared__ int ticket;
  if (threadIdx.x == 0) ticket = first_ticket + (int)atomicAdd(&next_ticket, 1u);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = ticket;
}`;
      const blocks = 9;
      for (const dev of devices()) {
        const module = fl.compile(tickets, { device: dev });
        module.constant("first_ticket").set([1000]);
        const taken: number[] = [];
        for (let launch = 0; launch < 2; launch++) {
          const out = fl.full([blocks * 16], -1, { dtype: "i32", device: dev });
          module.fn("take_ticket").launch({ grid: blocks, block: 16 }, out);
          const got = Array.from(await out.data());
          for (let b = 0; b < blocks; b++) {
            expect(got.slice(b * 16, b * 16 + 16), `block ${b} on ${dev.describe()}`).to.deep.equal(Array(16).fill(got[b * 16]));
            taken.push(got[b * 16]);
          }
        }
        expect(taken.sort((a, b) => a - b), dev.describe()).to.deep.equal(range(2 * blocks).map((i) => 1000 + i));
      }
    });

    it("leaves lock step out of check mode, whose race check reports that such code has a race", async () => {
      const dev = fl.device("cpu", { check: true });
      const n = 40, out = fl.full([n], NaN, { device: dev });
      fl.compile(source, { device: dev }).fn("cascade").launch({ grid: 1, block: 16 }, out, fl.tensor(range(n), { device: dev }), n);
      await expectRejects(dev.synchronize(), fl.DeviceError,
        /^cpu synchronize: kernel 'cascade': a race on shared memory in block \(0,0,0\): .*, of the same warp, .* with no __syncwarp\(\) or __syncthreads\(\) between them/);
    });
  });

  it("runs thread 0 last past a barrier in plain mode, so its reset of a flag the others still read comes after their reads, as on a GPU", async () => {
    // SParry's edge-parallel Bellman-Ford: thread 0 clears the block's flag at the
    // loop's top with no barrier after the others' read of it; reading it cleared,
    // they would leave, and their edges would never be relaxed again.
    const source = `
__global__ void relax_edges(int* dist, const int* src, const int* dst, const int* w, int m) {
  __shared__ int changed;
  while (true) {
    if (threadIdx.x == 0) changed = 0;
    __syncthreads();
    for (int e = threadIdx.x; e < m; e += blockDim.x) {
      const int candidate = dist[src[e]] + w[e];
      if (candidate < dist[dst[e]]) {
        atomicMin(&dist[dst[e]], candidate);
        changed = 1;
      }
    }
    __syncthreads();
    if (changed == 0) break;
  }
}`;
    // A chain 0 -> 1 -> ... -> 99 with its edges listed last first, so it takes rounds.
    const nodes = 100, m = nodes - 1;
    const src = range(m).map((e) => m - 1 - e), dst = src.map((v) => v + 1), w = src.map((v) => 1 + (v % 3));
    const expected = [0];
    for (let v = 1; v < nodes; v++) expected.push(expected[v - 1] + w[m - v]);
    const devices = testDevice().backend === "cpu" ? [testDevice(), fl.device("cpu", { warpSize: 64 })] : [testDevice()];
    for (const dev of devices) {
      const dist = fl.tensor([0, ...range(m).map(() => 1e9)], { dtype: "i32", device: dev });
      const ints = (values: number[]) => fl.tensor(values, { dtype: "i32", device: dev });
      fl.compile(source, { device: dev }).fn("relax_edges").launch({ grid: 1, block: 64 }, dist, ints(src), ints(dst), ints(w), m);
      expect(Array.from(await dist.data()), dev.describe()).to.deep.equal(expected);
    }
  });

  for (const warpSize of [32, 64] as const) {
    it(`sums a warp with __shfl_xor at warpSize ${warpSize}`, async () => {
      const dev = fl.device("cpu", { warpSize });
      expect(dev.props.warpSize).to.equal(warpSize);
      const module = fl.compile(WARP_SUMS, { device: dev });
      const input = fl.tensor(range(warpSize).map((i) => i + 1), { device: dev });
      const full = fl.empty([1], { device: dev });
      const assumed32 = fl.empty([1], { device: dev });
      module.fn("warp_sum").launch({ grid: 1, block: warpSize }, full, input);
      module.fn("warp_sum_32").launch({ grid: 1, block: warpSize }, assumed32, input);
      await dev.synchronize();
      const total = (warpSize * (warpSize + 1)) / 2;
      expect(full.toArray()[0]).to.equal(total);
      // Hard-coding 32 lanes is right on 32-lane warps and misses lanes 32..63 on 64-lane ones.
      expect(assumed32.toArray()[0]).to.equal(warpSize === 32 ? total : (32 * 33) / 2);
    });
  }

  it("lets the two halves of a warp each sync on their own with __syncwarp(mask)", async function () {
    const dev = testDevice();
    if (dev.props.warpSize !== 32) this.skip();
    const halves = fl.compile(`
__global__ void rotate_halves(int* out, const int* in) {
  __shared__ int tile[32];
  const unsigned lane = threadIdx.x;
  tile[lane] = in[lane] * 3;
  if (lane < 16) {
    __syncwarp(0x0000ffffu);
    out[lane] = tile[(lane + 1) % 16];
  } else {
    __syncwarp(0xffff0000u);
    out[lane] = tile[16 + (lane + 1) % 16];
  }
  __syncthreads();
  if (lane == 0) out[32] = tile[31];
}`, { device: dev }).fn("rotate_halves");
    const input = range(32).map((i) => 7 * i + 1);
    const out = fl.full([33], -1, { dtype: "i32", device: dev });
    halves.launch({ grid: 1, block: 32 }, out, fl.tensor(input, { dtype: "i32", device: dev }));
    const expected = range(32).map((i) => 3 * input[i < 16 ? (i + 1) % 16 : 16 + ((i + 1) % 16)]);
    expect(Array.from(out.toArray())).to.deep.equal([...expected, 3 * input[31]]);
  });

  it("lets a warp spinning on __syncwarp() wait for another warp, which the scheduler still runs", async () => {
    // Each of the first warp's operations puts its lanes first in line; the
    // second warp must get its turn all the same, as on a GPU (a time limit
    // turns a scheduler that never gives it one into an error, not a hang).
    const dev = testDevice().backend === "cpu" ? fl.device("cpu", { timeoutMs: 20000 }) : testDevice();
    const spin = fl.compile(`
__global__ void wait_for_flag(int* flag, int* out) {
  const unsigned warp = threadIdx.x / warpSize;
  int rounds = 0;
  if (warp == 0) {
    while (atomicAdd(flag, 0) == 0) {
      __syncwarp();
      rounds++;
    }
  } else if (threadIdx.x == warpSize) {
    atomicExch(flag, 1);
  }
  out[threadIdx.x] = warp == 0 ? (rounds > 0) : 2;
}`, { device: dev }).fn("wait_for_flag");
    const warpSize = dev.props.warpSize;
    const flag = fl.zeros([1], { dtype: "i32", device: dev });
    const out = fl.full([2 * warpSize], -1, { dtype: "i32", device: dev });
    spin.launch({ grid: 1, block: 2 * warpSize }, flag, out);
    expect(Array.from(flag.toArray())).to.deep.equal([1]);
    // On the GPU the first warp may find the flag set at once: no round is due there.
    const firstWarp = Array.from(out.toArray()).slice(0, warpSize);
    if (dev.backend === "cpu") expect(firstWarp).to.deep.equal(range(warpSize).map(() => 1));
    else expect(firstWarp.every((v) => v === 0 || v === 1)).to.equal(true);
    expect(Array.from(out.toArray()).slice(warpSize)).to.deep.equal(range(warpSize).map(() => 2));
  });

  it("syncs 64-lane warps by halves with 64-bit masks", async () => {
    const dev = fl.device("cpu", { warpSize: 64, check: true });
    const halves = fl.compile(`
__global__ void swap_in_halves(int* out, const int* in) {
  __shared__ int tile[128];
  const unsigned t = threadIdx.x, lane = t % 64;
  tile[t] = in[t];
  __syncwarp(lane < 32 ? 0x00000000ffffffffull : 0xffffffff00000000ull);
  out[t] = tile[t ^ 1];
}`, { device: dev }).fn("swap_in_halves");
    const input = range(128).map((i) => i * i);
    const out = fl.full([128], -1, { dtype: "i32", device: dev });
    halves.launch({ grid: 1, block: 128 }, out, fl.tensor(input, { dtype: "i32", device: dev }));
    expect(Array.from(out.toArray())).to.deep.equal(range(128).map((i) => input[i ^ 1]));
  });

  it("lets the lanes of a mask that exited stay away, as CUDA defines it, and reports in check mode a shuffle that reads one of them", async () => {
    // vLLM's topkGatingSoftmax: rows past the end return, the rest shuffle within their row with a full mask.
    const source = `
__global__ void pairs(float* out, int rows) {
  const int row = threadIdx.x / 2;
  if (row >= rows) return;
  float v = threadIdx.x;
  v += __shfl_xor_sync(0xffffffffu, v, 1, 2);
  out[threadIdx.x] = v;
}
__global__ void reads_exited(int* out) {
  if (threadIdx.x == 5) return;
  out[threadIdx.x] = __shfl_sync(0xffffffffu, (int)threadIdx.x, 5);
}`;
    const checked = fl.device("cpu", { check: true });
    const module = fl.compile(source, { device: checked });
    for (let launch = 0; launch < 4; launch++) {  // the lanes exit before or after the others wait, by the random order
      const out = fl.full([32], -1, { device: checked });
      module.fn("pairs").launch({ grid: 1, block: 32 }, out, 5);
      expect(Array.from(await out.data())).to.deep.equal(range(32).map((i) => (i < 10 ? 4 * (i >> 1) + 1 : -1)));
    }
    const out = fl.zeros([32], { dtype: "i32", device: checked });
    for (let launch = 0; launch < 4; launch++) {
      module.fn("reads_exited").launch({ grid: 2, block: 32 }, out);
      await expectRejects(checked.synchronize(), fl.DeviceError, new RegExp(literal(
        "kernel 'reads_exited': __shfl_sync on line 11 in block (").source + "[01]" + literal(",0,0): thread (").source + "\\d+" +
        literal(",0,0) reads lane 5, which its mask 0xffffffff names, but whose thread exited before it (a GPU gives an undefined value: " +
        "read only lanes that reach the operation)").source));
    }
    await expectWorking(checked);
    // Without check mode the lanes that arrive go on, and an exited lane reads as 0, as on NVIDIA's GPUs.
    const plain = fl.device("cpu");
    const plainOut = fl.full([32], -1, { dtype: "i32", device: plain });
    fl.compile(source, { device: plain }).fn("reads_exited").launch({ grid: 1, block: 32 }, plainOut);
    expect(Array.from(plainOut.toArray())).to.deep.equal(range(32).map((i) => (i === 5 ? -1 : 0)));
    // A tile's sync after some of its lanes returned (a bounds check before it) is valid CUDA.
    const tiles = fl.compile(`#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void tile_after_exit(int* out, int n) {
  const int i = threadIdx.x;
  if (i >= n) return;
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  out[i] = tile.thread_rank();
  tile.sync();
  __syncwarp(0xffffffffu);
  out[i] += 100;
}`, { device: checked }).fn("tile_after_exit");
    const tileOut = fl.zeros([64], { dtype: "i32", device: checked });
    tiles.launch({ grid: 1, block: 64 }, tileOut, 41);
    expect(Array.from(tileOut.toArray())).to.deep.equal(range(64).map((i) => (i < 41 ? (i % 32) + 100 : 0)));
  });

  it("reports a read far before a buffer against that buffer, not past the end of the one below it", () => {
    // In a process of its own: with more buffers alive than the process may map with
    // reserves (the suite's, awaiting collection), plain mode's come from the heap, unguarded.
    const run = runScript(`
const messages = [];
for (const dev of [fl.device("cpu"), fl.device("cpu", { check: true })]) {
  const k = fl.compile(\`
__global__ void k(int* out, const unsigned char* a, const unsigned char* b, int off) {
  out[threadIdx.x] = a[off + (int)threadIdx.x] + b[0];
}\`, { device: dev }).fn("k");
  const out = fl.zeros([4], { dtype: "i32", device: dev });
  k.launch({ grid: 1, block: 4 }, out, fl.zeros([33], { dtype: "u8", device: dev }), fl.zeros([100], { dtype: "u8", device: dev }), -5000);
  try { out.toArray(); messages.push(dev.describe() + ": no error"); } catch (e) { messages.push(dev.describe() + ": " + e.message); }
}
console.log(JSON.stringify(messages));`);
    const messages = JSON.parse(run.stdout || "null") as string[];
    expect(messages, run.stderr).to.have.length(2);
    // The address lies in the no-access reserve mapped before the buffer, whatever lies below it;
    // check mode runs the threads in an order of its own, so any of the four may fault first.
    for (const message of messages) {
      expect(message).to.match(/kernel 'k' read out of bounds: argument 1 \(const u8\*\), element -(499[7-9]|5000), \1 before the start of a 33-element buffer/);
    }
  });

  it("runs a lane outside the mask it passes with the mask's lanes at the same operation, and refuses it in check mode", async () => {
    const source = `
__global__ void not_in_mask(int* out) {
  __syncwarp(0x1u);
  out[threadIdx.x] = 1;
}`;
    const plain = fl.device("cpu");
    const out = fl.zeros([32], { dtype: "i32", device: plain });
    fl.compile(source, { device: plain }).fn("not_in_mask").launch({ grid: 1, block: 32 }, out);
    expect(Array.from(out.toArray())).to.deep.equal(range(32).map(() => 1));
    const dev = fl.device("cpu", { check: true });
    fl.compile(source, { device: dev }).fn("not_in_mask").launch({ grid: 1, block: 32 }, fl.zeros([32], { dtype: "i32", device: dev }));
    // Check mode runs the lanes in an order of its own: any of lanes 1 to 31 is the one named.
    await expectRejects(dev.synchronize(), fl.DeviceError,
      /kernel 'not_in_mask': __syncwarp on line 3: the calling lane (\d+) is not in its mask 0x1 \(block \(0,0,0\), thread \(\1,0,0\)\)$/);
    await expectWorking(dev);
  });

  it("reports a deadlock between a part of a warp at __syncwarp(mask) and the rest at __syncthreads()", async () => {
    const dev = fl.device("cpu");
    const stuck = fl.compile(`
__global__ void stuck(int* out) {
  if (threadIdx.x < 16) __syncwarp(0xffffffffu);
  else __syncthreads();
  out[threadIdx.x] = 1;
}`, { device: dev }).fn("stuck");
    stuck.launch({ grid: 1, block: 32 }, fl.zeros([32], { dtype: "i32", device: dev }));
    await expectRejects(dev.synchronize(), fl.DeviceError, literal(
      "kernel 'stuck' deadlocked in block (0,0,0): threads (0,0,0) and 15 more wait at __syncwarp on line 3; " +
      "threads (16,0,0) and 15 more wait at __syncthreads() on line 4"));
    await expectWorking(dev);
  });

  it("runs the benchmark's barrier-heavy softmax right, in check mode and with 64-lane warps too", async () => {
    const devices = [testDevice(), fl.device("cpu", { check: true }), fl.device("cpu", { warpSize: 64, check: true })];
    for (const dev of devices) {
      const softmax = fl.compile(SOFTMAX_ROWS, { device: dev }).fn("softmax_rows");
      for (const [rows, cols] of [[37, 64], [5, 1024], [300, 192]]) {
        if (cols % dev.props.warpSize !== 0) continue;
        const values = range(rows * cols).map((i) => ((i * 7919) % 1000) / 37 - 13);
        const x = fl.tensor(values, { shape: [rows, cols], device: dev });
        const out = fl.empty([rows, cols], { device: dev });
        softmax.launch({ grid: rows, block: cols }, out, x, cols);
        const expected = softmaxRowsReference(values, rows, cols);
        const got = out.toArray();
        const worst = expected.reduce((w, e, i) => Math.max(w, Math.abs(got[i] - e) / e), 0);
        expect(worst, `${rows}x${cols} on ${dev.describe()}`).to.be.below(1e-5);
      }
    }
  });

  it("ends a deadlocked launch with an error saying what the threads wait at, and keeps working", async () => {
    const dev = fl.device("cpu");
    const deadlock = fl.compile(`
__global__ void half_barrier(float* out) {
  if (threadIdx.x < 16) __syncthreads();  // lanes 16 to 31 never come: they wait for these at __syncwarp
  else if (threadIdx.x < 32) __syncwarp(0xffffffffu);
  out[threadIdx.x] = 1.0f;
}`, { device: dev }).fn("half_barrier");
    const out = fl.empty([128], { device: dev });
    deadlock.launch({ grid: 1, block: 128 }, out);
    await expectRejects(dev.synchronize(), fl.DeviceError, literal(
      "kernel 'half_barrier' deadlocked in block (0,0,0): threads (0,0,0) and 15 more wait at __syncthreads() on line 3; " +
      "threads (16,0,0) and 15 more wait at __syncwarp on line 4; threads (32,0,0) and 95 more exited"));
    await expectWorking(dev);
  });

  it("lets threads that returned early pass a barrier the others reach, as a GPU's barrier counts only threads that have not exited", async () => {
    const devices = testDevice().backend === "cpu" ? [testDevice(), fl.device("cpu", { check: true })] : [testDevice()];
    for (const dev of devices) {
      const kernel = fl.compile(`
__global__ void build_pred(unsigned* out, const unsigned* in, int n) {
  __shared__ unsigned seen[256];
  const int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i >= n) return;
  seen[threadIdx.x] = in[i] & 1;
  __syncthreads();
  const int other = (threadIdx.x + 1) % blockDim.x;
  out[i] = blockDim.x * blockIdx.x + other < n ? seen[other] : 2;
}`, { device: dev }).fn("build_pred");
      const n = 300;
      const values = range(n).map((i) => (i * 7) % 5);
      const out = fl.full([n], 9, { dtype: "u32", device: dev });
      kernel.launch({ grid: 2, block: 256 }, out, fl.tensor(values, { dtype: "u32", device: dev }), n);
      const expected = range(n).map((i) => {
        const base = i - (i % 256), other = base + ((i % 256) + 1) % 256;
        return other < n ? values[other] & 1 : 2;
      });
      expect(Array.from(await out.data()), dev.describe()).to.deep.equal(expected);
    }
  });

  it("lets threads at different __syncthreads() go on once all have arrived, as a GPU's barrier counts them; check mode reports the divergent barrier", async () => {
    // PMPP's single-block BFS: thread 0 leaves its loop through a barrier the others meet at the loop's top.
    const source = `
__global__ void split_barrier(int* out, int split) {
  __shared__ int seen[96];
  const int t = threadIdx.x;
  seen[t] = 3 * t;
  if (t < split) {
    __syncthreads();
    out[t] = seen[blockDim.x - 1 - t];
  } else {
    __syncthreads();
    out[t] = seen[blockDim.x - 1 - t] + 1000;
  }
}`;
    const block = 96, split = 40;  // the second warp is split too
    const expected = range(block).map((t) => 3 * (block - 1 - t) + (t < split ? 0 : 1000));
    const dev = testDevice();
    const out = fl.full([block], -1, { dtype: "i32", device: dev });
    fl.compile(source, { device: dev }).fn("split_barrier").launch({ grid: 1, block }, out, split);
    expect(Array.from(await out.data()), dev.describe()).to.deep.equal(expected);
    if (testDevice().backend !== "cpu") return;
    const check = fl.device("cpu", { check: true });
    const checked = fl.full([block], -1, { dtype: "i32", device: check });
    fl.compile(source, { device: check }).fn("split_barrier").launch({ grid: 1, block }, checked, split);
    await expectRejects(check.synchronize(), fl.DeviceError, literal(
      "kernel 'split_barrier': the threads of block (0,0,0) reached different __syncthreads() (a divergent barrier, " +
      "undefined in CUDA; a GPU lets them go on once all have arrived, as plain mode does): threads (0,0,0) and 39 more " +
      "wait at __syncthreads() on line 7; threads (40,0,0) and 55 more wait at __syncthreads() on line 10"));
    await expectWorking(check);
  });

  it("ends a launch through a wild pointer with an error naming the address, block and thread, and keeps working", async () => {
    const dev = fl.device("cpu");
    const wild = fl.compile(`
__global__ void wild_write(float* out) {
  if (blockIdx.x == 3 && threadIdx.x == 17) *(float*)(size_t)0x40 = 1.0f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = 2.0f;
}`, { device: dev }).fn("wild_write");
    const out = fl.empty([8 * 64], { device: dev });
    wild.launch({ grid: 8, block: 64 }, out);
    await expectRejects(dev.synchronize(), fl.DeviceError, literal(
      "kernel 'wild_write' made an invalid memory access at 0x40 (block (3,0,0), thread (17,0,0))"));
    await expectWorking(dev);
  });

  for (const check of [false, true]) {
    it(`ends every read and write through a null or near-null pointer with an error${check ? " in check mode" : ""}, however the compiler sees the pointer`, async () => {
      // The host compiler must neither drop these accesses as undefined nor
      // turn them into traps: a GPU reports each one as an illegal address.
      const origins: Record<string, (address: string) => string> = {
        known: (address) => `float* p = reinterpret_cast<float*>(${address});`,
        volatile: (address) => `float* volatile p = reinterpret_cast<float*>(${address});`,
        compared: (address) => `float* p = reinterpret_cast<float*>(static_cast<unsigned long long>(in[0] != in[0]) + ${address});`,
        argument: () => `float* p = reinterpret_cast<float*>(address);`,
      };
      const accesses: Record<string, (at: string) => string> = { write: (at) => `${at} = in[i];`, read: (at) => `out[i] = ${at};` };
      // One thread of four blocks of 64 makes the access while the others copy,
      // or the one thread of a launch (i == 0) makes it at p[i] and does nothing else.
      const shapes = [
        { suffix: "", body: "out[i] = in[i]; if (blockIdx.x == 2 && threadIdx.x == 5)", at: "*p", grid: 4, block: 64, where: "(block (2,0,0), thread (5,0,0))" },
        { suffix: "_alone", body: "", at: "p[i]", grid: 1, block: 1, where: "(block (0,0,0), thread (0,0,0))" },
      ];
      const kernels: { name: string; address: string; shape: (typeof shapes)[number] }[] = [];
      let source = "";
      for (const address of ["0x0", "0x10", "0xffc"])
        for (const [origin, declare] of Object.entries(origins))
          for (const [access, statement] of Object.entries(accesses))
            for (const shape of shapes) {
              const name = `${access}_${origin}_${address}${shape.suffix}`;
              kernels.push({ name, address, shape });
              source += `
__global__ void ${name}(float* out, const float* in, long long address) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  ${shape.body} { ${declare(address)} ${statement(shape.at)} }
}`;
            }
      const dev = fl.device("cpu", { check });
      const module = fl.compile(source, { device: dev, name: "near_null" });
      const input = fl.tensor(range(4 * 64), { device: dev });
      const out = fl.empty([4 * 64], { device: dev });
      // Every kernel runs, and the test names each one that went wrong.
      const wrong: string[] = [];
      for (const { name, address, shape } of kernels) {
        module.fn(name).launch({ grid: shape.grid, block: shape.block }, out, input, Number(address));
        let said = "no error";
        await dev.synchronize().catch((e: unknown) => (said = e instanceof fl.DeviceError ? e.message : `${e}`));
        if (!said.includes(`kernel '${name}' made an invalid memory access at ${address} ${shape.where}`)) wrong.push(`${name}: ${said}`);
      }
      expect(wrong).to.deep.equal([]);
      await expectWorking(dev);
    });
  }

  it("ends a launch that overflows a fiber's stack or divides an integer by zero, and keeps working", async () => {
    const dev = fl.device("cpu");
    const module = fl.compile(`
__device__ float deep(int n, volatile float* scratch) {
  volatile float local[256];
  local[n % 256] = scratch[0];
  return n == 0 ? local[0] : deep(n - 1, scratch) + local[n % 256];
}
__global__ void stack_hog(float* out) {
  __syncthreads();
  out[threadIdx.x] = deep(1000, out);
}
__global__ void divide(int* out, int d) { out[threadIdx.x] = 10 / d; }`, { device: dev });
    const floats = fl.zeros([64], { device: dev });
    module.fn("stack_hog").launch({ grid: 1, block: 64 }, floats);
    await expectRejects(dev.synchronize(), fl.DeviceError, /kernel 'stack_hog' .*overflowed its 64 KiB fiber stack/);
    await expectWorking(dev);
    const ints = fl.zeros([4], { dtype: "i32", device: dev });
    module.fn("divide").launch({ grid: 1, block: 4 }, ints, 0);
    await expectRejects(dev.synchronize(), fl.DeviceError, /kernel 'divide' .*divided an integer by zero/);
    await expectWorking(dev);
  });

  for (const check of [false, true]) {
    it(`turns a device-side assert into an error naming kernel, expression, line, block and thread${check ? " in check mode" : ""}, and keeps working`, async () => {
      const dev = fl.device("cpu", check ? { check: true } : {});
      const module = fl.compile(`
__global__ void checked_scale(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(in[i] >= 0.0f);
  out[i] = 2.0f * in[i];
}
__global__ void checked_after_barrier(float* out, int bad) {
  __shared__ float tile[64];
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  assert(blockIdx.x * blockDim.x + threadIdx.x != bad);
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[63 - threadIdx.x];
}`, { device: dev, name: "asserts" });
      const values = range(8 * 64).map((i) => (i === 3 * 64 + 17 ? -1 : i));
      const out = fl.empty([8 * 64], { device: dev });
      module.fn("checked_scale").launch({ grid: 8, block: 64 }, out, fl.tensor(values, { device: dev }), 8 * 64);
      await expectRejects(dev.synchronize(), fl.DeviceError, literal(
        "kernel 'checked_scale': device-side assertion `in[i] >= 0.0f' failed at asserts.hip:4 (block (3,0,0), thread (17,0,0))"));
      await expectWorking(dev);
      // In a block whose threads run as fibers: the other fibers are dropped, the next launch is whole.
      module.fn("checked_after_barrier").launch({ grid: 8, block: 64 }, out, 5 * 64 + 40);
      expectThrows(() => out.toArray(), fl.DeviceError, literal(
        "kernel 'checked_after_barrier': device-side assertion `blockIdx.x * blockDim.x + threadIdx.x != bad' failed at asserts.hip:11 (block (5,0,0), thread (40,0,0))"));
      module.fn("checked_after_barrier").launch({ grid: 8, block: 64 }, out, -1);
      expect(Array.from(out.toArray())).to.deep.equal(range(8 * 64).map((i) => 63 - (i % 64)));
    });
  }

  it("ends a launch that calls __trap() or abort() with an error, and keeps working", async () => {
    const dev = fl.device("cpu");
    const module = fl.compile(`
__global__ void trap_at(float* out, int bad) {
  if (threadIdx.x == bad) __trap();
  out[threadIdx.x] = 1.0f;
}
__global__ void abort_at(float* out, int bad) {
  if (threadIdx.x == bad) abort();
  out[threadIdx.x] = 1.0f;
}`, { device: dev, name: "stops" });
    const out = fl.empty([64], { device: dev });
    module.fn("trap_at").launch({ grid: 1, block: 64 }, out, 9);
    await expectRejects(dev.synchronize(), fl.DeviceError, literal(
      "kernel 'trap_at': __trap() was called at stops.hip:3 (block (0,0,0), thread (9,0,0))"));
    await expectWorking(dev);
    module.fn("abort_at").launch({ grid: 1, block: 64 }, out, 33);
    await expectRejects(dev.synchronize(), fl.DeviceError, literal("kernel 'abort_at' called abort() (block (0,0,0), thread (33,0,0))"));
    await expectWorking(dev);
  });

  it("stops a launch that runs past timeoutMs", async () => {
    const dev = fl.device("cpu", { timeoutMs: 200 });
    const spin = fl.compile(`
__global__ void spin(int* flag) {
  while (*(volatile int*)flag == 0) {}
}`, { device: dev }).fn("spin");
    const flag = fl.zeros([1], { dtype: "i32", device: dev });
    spin.launch({ grid: 2, block: 32 }, flag);
    await expectRejects(dev.synchronize(), fl.DeviceError, literal("kernel 'spin' ran past the 200 ms limit"));
    await expectWorking(dev);
  });

  it("stops kernels inside C library calls at their time limit and leaves the device sound", () => {
    // A stop lands only in the kernel's own code, never inside malloc (whose
    // locks it would leave held): later launches allocate, and the process exits.
    const run = runScript(`
const dev = fl.device("cpu", { timeoutMs: 100 });
const module = fl.compile(\`
__global__ void churn(int* flag) {
  unsigned s = threadIdx.x * 2654435761u;
  while (*(volatile int*)flag == 0) {
    s = s * 1664525u + 1013904223u;
    void* p = malloc(16 + (s >> 17));
    free(p);
  }
}
__global__ void allocate(int* out) {
  int* p = (int*)malloc(4096 + 64 * threadIdx.x);
  p[1000] = blockIdx.x * blockDim.x + threadIdx.x;
  out[p[1000]] = p[1000];
  free(p);
}\`, { device: dev });
const flag = fl.zeros([1], { dtype: "i32", device: dev });
const errors = [];
for (let i = 0; i < 8; i++) {
  module.fn("churn").launch({ grid: 16, block: 64 }, flag);
  try { flag.toArray(); errors.push("no error"); } catch (e) { errors.push(e.message); }
}
const out = fl.zeros([64 * 64], { dtype: "i32", device: dev });
module.fn("allocate").launch({ grid: 64, block: 64 }, out);
console.log(JSON.stringify({ errors: [...new Set(errors)], sum: out.toArray().reduce((a, b) => a + b, 0) }));`);
    expect(run.status, run.stderr).to.equal(0);
    expect(JSON.parse(run.stdout)).to.deep.equal({
      errors: ["cpu download: kernel 'churn' ran past the 100 ms limit"],
      sum: (64 * 64 * (64 * 64 - 1)) / 2,
    });
  });

  it("stops a kernel that waits in a system call once the stop has waited 2 s for it", async () => {
    const dev = fl.device("cpu", { timeoutMs: 100, warpSize: 64 });
    const sleeper = fl.compile(`#include <unistd.h>
__global__ void sleeper(int* flag) {
  while (*(volatile int*)flag == 0) sleep(1);
}`, { device: dev }).fn("sleeper");
    const flag = fl.zeros([1], { dtype: "i32", device: dev });
    const started = Date.now();
    sleeper.launch({ grid: 1, block: 1 }, flag);
    await expectRejects(dev.synchronize(), fl.DeviceError, literal("kernel 'sleeper' ran past the 100 ms limit"));
    expect(Date.now() - started).to.be.within(2000, 10_000);
    await expectWorking(dev);
  });

  it("reads a kernel's parameter types after preprocessing (#define float double), and refuses f32 tensors for them", () => {
    const dev = fl.device("cpu");
    const scale = fl.compile(`#define float double
__global__ void scale(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}`, { device: dev }).fn("scale");
    expect(scale.params.map((p) => p.type)).to.deep.equal(["f64", "f64", "i32"]);
    const x = fl.zeros([4], { device: dev });
    expectThrows(() => scale.launch({ grid: 1, block: 4 }, x, x, 4), fl.ArgumentError,
      /^kernel scale: argument 0 \(out\) must be an f64 tensor/);
  });

  it("refuses static __shared__ memory past the device's limit and a local array past a fiber's stack when compiling", () => {
    const dev = fl.device("cpu");
    expectThrows(() => fl.compile(`
__global__ void huge_tile(float* out) {
  __shared__ float tile[16 * 1024 * 1024];  // 64 MiB
  tile[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}`, { device: dev }), fl.DeviceError, /the kernel huge_tile\(float\*\) has 67108864 bytes of static __shared__ memory, more than the 65536 bytes a kernel may declare/);
    // Counted per kernel, as a GPU's compiler counts it: the arrays of the device functions each kernel calls.
    const perKernel = `
template <int N> __device__ __noinline__ float tile_sum(const float* x) {
  __shared__ float tile[N];
  tile[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  float s = 0;
  for (int i = 0; i < blockDim.x; i++) s += tile[i];
  return s;
}
__device__ __noinline__ float via_helper(const float* x) { return tile_sum<10000>(x); }
__global__ void one(float* out, const float* x) { out[threadIdx.x] = via_helper(x); }
__global__ void other(float* out, const float* x) { out[threadIdx.x] = tile_sum<10001>(x); }
`;
    const two = fl.compile(perKernel, { device: dev });
    const x = fl.tensor(range(8), { device: dev });
    const sums = fl.full([8], NaN, { device: dev });
    two.fn("one").launch({ grid: 1, block: 8 }, sums, x);
    two.fn("other").launch({ grid: 1, block: 8 }, sums, x);
    expect(Array.from(sums.toArray())).to.deep.equal(range(8).map(() => 28));
    expectThrows(() => fl.compile(`${perKernel}__global__ void both(float* out, const float* x) { out[0] = via_helper(x) + tile_sum<10001>(x); }\n`, { device: dev }),
      fl.DeviceError, /the kernel both\(float\*, float const\*\) has 80004 bytes of static __shared__ memory, more than the 65536 bytes a kernel may declare/);
    const local = expectThrows(() => fl.compile(`
__global__ void huge_local(float* out, int n) {
  float scratch[100000];
  for (int i = 0; i < n; i++) scratch[i] = i;
  out[threadIdx.x] = scratch[threadIdx.x % n];
}`, { device: dev }), fl.DeviceError, /compilation failed/);
    // 400000 bytes of the array, and a few of the run time's.
    expect(local.message).to.match(/huge_local\.hip:\d+:\d+: error: the frame size of 400\d{3} bytes is larger than 49152 bytes/);
    // Just under the limit still compiles and runs.
    const fits = fl.compile(`
__global__ void full_tile(float* out) {
  __shared__ float tile[16 * 1024 - 64];
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}`, { device: dev }).fn("full_tile");
    const out = fl.empty([64], { device: dev });
    fits.launch({ grid: 1, block: 64 }, out);
    expect(Array.from(out.toArray())).to.deep.equal(range(64).map((i) => 63 - i));
  });

  it("adds with atomics across blocks", async () => {
    const dev = testDevice();
    const count = fl.compile(`
__global__ void count(int* total, float* sum, int* most) {
  atomicAdd(total, 1);
  atomicAdd(sum, 0.25f);
  atomicMax(most, (int)(blockIdx.x * blockDim.x + threadIdx.x));
}`, { device: dev }).fn("count");
    const total = fl.zeros([1], { dtype: "i32", device: dev });
    const sum = fl.zeros([1], { device: dev });
    const most = fl.zeros([1], { dtype: "i32", device: dev });
    const blocks = 500;
    count.launch({ grid: blocks, block: 128 }, total, sum, most);
    await dev.synchronize();
    expect(total.toArray()[0]).to.equal(blocks * 128);
    expect(sum.toArray()[0]).to.equal(blocks * 128 * 0.25);
    expect(most.toArray()[0]).to.equal(blocks * 128 - 1);
  });

  it("rounds f32 to f16 and bf16 to nearest even, keeping Inf and NaN", async () => {
    const dev = testDevice();
    const convert = fl.compile(`
__global__ void to_halves(__half* h, fl_bf16* b, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    h[i] = __float2half(in[i]);
    b[i] = __float2bfloat16(in[i]);
  }
}`, { device: dev }).fn("to_halves");
    const cases = [
      // [input, f16, bf16]
      [1, 1, 1],
      [1 + 2 ** -11, 1, 1],                      // f16 tie: to even
      [1 + 3 * 2 ** -11, 1 + 2 ** -9, 1],        // f16 tie: to even, upwards
      [1 + 2 ** -8, 1.00390625, 1],              // bf16 tie: to even
      [1 + 3 * 2 ** -8, 1.01171875, 1 + 2 ** -6],
      [65519, 65504, 65536],
      [65520, Infinity, 65536],                  // past the largest f16
      [2 ** -25, 0, 2 ** -25],                   // f16 tie with zero
      [1.5 * 2 ** -25, 2 ** -24, 1.5 * 2 ** -25], // smallest f16 subnormal
      [-Infinity, -Infinity, -Infinity],
      [NaN, NaN, NaN],
    ];
    const n = cases.length;
    const input = fl.tensor(cases.map((c) => c[0]), { device: dev });
    const h = fl.empty([n], { dtype: "f16", device: dev });
    const b = fl.empty([n], { dtype: "bf16", device: dev });
    convert.launch({ grid: 1, block: 32 }, h, b, input, n);
    await dev.synchronize();
    expect(Array.from(h.toArray())).to.deep.equal(cases.map((c) => c[1]));
    expect(Array.from(b.toArray())).to.deep.equal(cases.map((c) => c[2]));
  });

  it("round-trips every f16 and bf16 value through a kernel", async () => {
    const dev = testDevice();
    const roundTrip = fl.compile(`
__global__ void round_trip(__half* h, fl_bf16* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    h[i] = __float2half(__half2float(h[i]));
    b[i] = __float2bfloat16(__bfloat162float(b[i]));
  }
}`, { device: dev }).fn("round_trip");
    // Every finite value of each type (the u16 bit patterns whose exponent is not all ones).
    const finiteF16 = range(65536).filter((bits) => (bits & 0x7c00) !== 0x7c00);
    const finiteBf16 = range(65536).filter((bits) => (bits & 0x7f80) !== 0x7f80);
    const values16 = finiteF16.map((bits) => fl.f16BitsToF32(bits));
    const valuesBf = finiteBf16.map((bits) => fl.bf16BitsToF32(bits));
    const n = Math.min(values16.length, valuesBf.length);
    const h = fl.tensor(values16.slice(0, n), { dtype: "f16", device: dev });
    const b = fl.tensor(valuesBf.slice(0, n), { dtype: "bf16", device: dev });
    roundTrip.launch({ grid: Math.ceil(n / 256), block: 256 }, h, b, n);
    await dev.synchronize();
    expect(Array.from(h.toArray())).to.deep.equal(values16.slice(0, n));
    expect(Array.from(b.toArray())).to.deep.equal(valuesBf.slice(0, n));
  });
});
