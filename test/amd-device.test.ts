// AMD's device pass: a HIP source on a 64-lane device compiles as hipcc's
// device pass for a CDNA GPU reads it (__HIP_DEVICE_COMPILE__, __AMDGCN__,
// __GFX9__, __gfx942__) and runs clang's __builtin_amdgcn_* as the GPU does.
// References are written here from AMD's instruction set reference. Each test
// runs on the CPU's 64-lane device, plain and in check mode, and on the device
// under test where it is an AMD GPU.
import { expect } from "chai";
import * as fl from "../src";
import { expectRejects, expectThrows, range, testDevice } from "./helpers";

const WAVE = 64;

function wave64Devices(): fl.Device[] {
  const tested = testDevice();
  const amd = tested.kind === "gpu" && tested.backend === "hip" && tested.props.warpSize === WAVE ? [tested] : [];
  return [fl.device("cpu", { warpSize: WAVE }), fl.device("cpu", { warpSize: WAVE, check: true }), ...amd];
}

/** A generator of 32-bit words, the same for every run. */
function words(n: number, seed: number): number[] {
  let s = seed >>> 0 || 1;
  return range(n).map(() => {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    return s | 0;
  });
}

/** The lane a DPP control reads for `lane`, or -1 where it has none. */
function dppSource(control: number, lane: number): number {
  const row = lane & ~15, inRow = lane & 15, n = control & 15;
  if (control <= 0xff) return (lane & ~3) | ((control >> (2 * (lane & 3))) & 3);
  if (control >= 0x101 && control <= 0x10f) return inRow + n < 16 ? lane + n : -1;
  if (control >= 0x111 && control <= 0x11f) return inRow >= n ? lane - n : -1;
  if (control >= 0x121 && control <= 0x12f) return row + ((inRow - n + 16) % 16);
  const table: Record<number, number> = {
    0x130: lane < 63 ? lane + 1 : -1, 0x134: (lane + 1) % 64, 0x138: lane > 0 ? lane - 1 : -1, 0x13c: (lane + 63) % 64,
    0x140: row + 15 - inRow, 0x141: (lane & ~7) + 7 - (lane & 7), 0x142: row >= 16 ? row - 1 : -1, 0x143: row >= 32 ? 31 : -1,
  };
  return table[control];
}

/** update_dpp(old, v, control, rowMask, bankMask, boundCtrl) for every lane. */
function updateDpp(old: number[], v: number[], control: number, rowMask: number, bankMask: number, bound: boolean): number[] {
  return range(WAVE).map((lane) => {
    if (!((rowMask >> (lane >> 4)) & 1) || !((bankMask >> ((lane >> 2) & 3)) & 1)) return old[lane];
    const source = dppSource(control, lane);
    return source < 0 ? (bound ? 0 : old[lane]) : v[source];
  });
}

/** ds_swizzle's source lane for `lane` under `offset`. */
function swizzleSource(offset: number, lane: number): number {
  if (offset & 0x8000) return (lane & ~3) | ((offset >> (2 * (lane & 3))) & 3);
  const and = offset & 31, or = (offset >> 5) & 31, xor = (offset >> 10) & 31;
  return (lane & 32) | (((lane & 31 & and) | or) ^ xor);
}

/** The signed or unsigned fields of `bits` bits of a 32-bit word. */
function fields(word: number, bits: number, signed: boolean): number[] {
  return range(32 / bits).map((i) => {
    const u = (word >>> (i * bits)) & ((1 << bits) - 1);
    return signed && u >> (bits - 1) ? u - (1 << bits) : u;
  });
}

function dot(a: number, b: number, c: number, bits: number, signedA: boolean, signedB: boolean, clamp: boolean, unsignedResult: boolean): number {
  const x = fields(a, bits, signedA), y = fields(b, bits, signedB);
  let sum = BigInt(c);
  for (let i = 0; i < x.length; i++) sum += BigInt(x[i] * y[i]);
  if (unsignedResult) return Number(clamp && sum > 0xffffffffn ? 0xffffffffn : BigInt.asUintN(32, sum)) | 0;
  if (clamp) sum = sum > 0x7fffffffn ? 0x7fffffffn : sum < -0x80000000n ? -0x80000000n : sum;
  return Number(BigInt.asIntN(32, sum));
}

function perm(a: number, b: number, selector: number): number {
  const bytes = (BigInt(a >>> 0) << 32n) | BigInt(b >>> 0);
  let r = 0;
  for (let i = 0; i < 4; i++) {
    const s = (selector >>> (8 * i)) & 0xff;
    const byte = s <= 7 ? Number((bytes >> BigInt(8 * s)) & 0xffn) : s <= 11 ? ((bytes >> BigInt(16 * (s - 8) + 15)) & 1n ? 0xff : 0) : s === 12 ? 0 : 0xff;
    r |= byte << (8 * i);
  }
  return r | 0;
}

describe("AMD's device pass on a 64-lane device", () => {
  it("predefines what hipcc's device pass for the GPU does: gfx942's by default, options.arch's, none in the host pass", () => {
    const source = `#include <hip/hip_runtime.h>
__global__ void which(int* out) {
  if (threadIdx.x != 0) return;
#if defined(__HIP_DEVICE_COMPILE__) && defined(__AMDGCN__) && defined(__GFX9__) && __AMDGCN_WAVEFRONT_SIZE == 64
#if defined(__gfx90a__)
  out[0] = 90;
#elif defined(__gfx942__)
  out[0] = 942;
#else
  out[0] = 9;
#endif
#elif defined(__HIP_DEVICE_COMPILE__)
  out[0] = 1;
#else
  out[0] = 0;
#endif
#if defined(__HIP_PLATFORM_AMD__)
  out[1] = warpSize;
#endif
}`;
    const wave64 = fl.device("cpu", { warpSize: WAVE });
    for (const [arch, expected] of [[undefined, 942], ["gfx90a", 90], ["host", 0]] as const) {
      const out = fl.full([2], -1, { dtype: "i32", device: wave64 });
      fl.compile(source, { device: wave64, arch }).fn("which").launch({ grid: 1, block: 64 }, out);
      expect(Array.from(out.toArray()), String(arch)).to.deep.equal([expected, 64]);
    }
    // With 32-lane warps a HIP source is on NVIDIA's platform: a device pass, not AMD's.
    const nvidia = fl.device("cpu");
    const out = fl.full([2], -1, { dtype: "i32", device: nvidia });
    fl.compile(source, { device: nvidia }).fn("which").launch({ grid: 1, block: 32 }, out);
    expect(Array.from(out.toArray())).to.deep.equal([1, -1]);
    expectThrows(() => fl.compile(source, { device: nvidia, arch: "gfx942" }), fl.ArgumentError,
      /options\.arch must be a GPU architecture whose device code the CPU emulator compiles \("sm_80", "sm_90"\), or "host", got "gfx942"/);
    expectThrows(() => fl.compile(source, { device: wave64, defines: { __GFX9__: 1 } }), fl.ArgumentError, /macros other than those a GPU's compiler defines itself/);
  });

  it("compiles the host pass where the device pass calls a builtin the CPU does not have, and names it when the pass is asked for", () => {
    const source = `#include <hip/hip_runtime.h>
__global__ void scale(float* x) {
#if defined(__gfx942__)
  x[threadIdx.x] = __builtin_amdgcn_mfma_f32_4x4x1f32(x[threadIdx.x], 2.0f, x[threadIdx.x], 0, 0, 0)[0];
#else
  x[threadIdx.x] *= 2.0f;
#endif
}`;
    const wave64 = fl.device("cpu", { warpSize: WAVE });
    const x = fl.tensor(Float32Array.from(range(64)), { device: wave64 });
    fl.compile(source, { device: wave64 }).fn("scale").launch({ grid: 1, block: 64 }, x);
    expect(Array.from(x.toArray())).to.deep.equal(range(64).map((i) => 2 * i));
    expectThrows(() => fl.compile(source, { device: wave64, arch: "gfx942" }), fl.DeviceError,
      /__builtin_amdgcn_mfma_f32_4x4x1f32 is an instruction of AMD's GPUs \(hipcc's builtin\)/);
  });

  it("moves values across lanes as DPP, ds_swizzle, ds_bpermute, readlane and readfirstlane do", () => {
    const controls: [number, number, number, boolean][] = [
      [0x1b, 0xf, 0xf, false], [0xe4, 0x5, 0xf, true], [0x101, 0xf, 0xf, true], [0x10f, 0xf, 0x3, false], [0x111, 0xf, 0xf, true],
      [0x112, 0xf, 0xf, false], [0x118, 0xf, 0xe, true], [0x121, 0xf, 0xf, false], [0x12f, 0x9, 0xf, true], [0x130, 0xf, 0xf, true],
      [0x134, 0xf, 0xf, false], [0x138, 0xf, 0xf, false], [0x13c, 0xf, 0xf, true], [0x140, 0xf, 0xf, true], [0x141, 0xf, 0x5, false],
      [0x142, 0xa, 0xf, false], [0x142, 0xf, 0xf, true], [0x143, 0xc, 0xf, false], [0x143, 0xf, 0xf, true],
    ];
    const swizzles = [0x041f, 0x201f, 0x001e, 0x03e0 | 0x0000, 0x8000 | 0x1b, 0x8000 | 0xaa, 0x7c00 | 0x1f, 0x0010];
    const lines = [
      ...controls.map(([c, r, b, bound], i) => `out[${i} * 64 + lane] = __builtin_amdgcn_update_dpp(old, v, ${c}, ${r}, ${b}, ${bound});`),
      ...swizzles.map((p, i) => `out[${controls.length + i} * 64 + lane] = __builtin_amdgcn_ds_swizzle(v, ${p});`),
    ];
    const rows = controls.length + swizzles.length;
    const source = `#include <hip/hip_runtime.h>
__global__ void moves(int* out, int* more, const int* values, const int* olds, const int* addresses) {
  const int lane = threadIdx.x;
  const int v = values[lane], old = olds[lane];
  ${lines.join("\n  ")}
  more[lane] = __builtin_amdgcn_ds_bpermute(addresses[lane], v);
  more[64 + lane] = __builtin_amdgcn_readlane(v, 37);
  more[128 + lane] = __hip_ds_bpermute(addresses[lane], v);
  more[192 + lane] = __builtin_amdgcn_mbcnt_hi(0xf0f0f0f0u, __builtin_amdgcn_mbcnt_lo(0x0000ffffu, 100u));
}
__global__ void first_lane(int* out, const int* values) {
  if (threadIdx.x % 64 < 5) return;  // the wave's lanes 0-4 have exited
  out[threadIdx.x] = __builtin_amdgcn_readfirstlane(values[threadIdx.x]);
}`;
    const values = words(64, 7), olds = words(64, 8), addresses = range(64).map((i) => ((i * 37 + 11) % 64) * 4 + (i % 4));
    const expected = [
      ...controls.flatMap(([c, r, b, bound]) => updateDpp(olds, values, c, r, b, bound)),
      ...swizzles.flatMap((p) => range(64).map((lane) => values[swizzleSource(p, lane)])),
    ];
    const bpermuted = range(64).map((lane) => values[(addresses[lane] >> 2) & 63]);
    const counted = range(64).map((lane) => {
      const below = (mask: number, n: number) => range(Math.max(0, Math.min(n, 32))).filter((i) => (mask >>> i) & 1).length;
      return 100 + below(0x0000ffff, lane) + below(0xf0f0f0f0, lane - 32);
    });
    for (const device of wave64Devices()) {
      const module = fl.compile(source, { device });
      const out = fl.full([rows * 64], -1, { dtype: "i32", device }), more = fl.full([256], -1, { dtype: "i32", device });
      const t = (a: number[]) => fl.tensor(Int32Array.from(a), { device });
      module.fn("moves").launch({ grid: 1, block: 64 }, out, more, t(values), t(olds), t(addresses));
      const got = Array.from(out.toArray());
      for (let row = 0; row < rows; row++) {
        const what = row < controls.length ? `update_dpp 0x${controls[row][0].toString(16)}` : `ds_swizzle 0x${swizzles[row - controls.length].toString(16)}`;
        expect(got.slice(row * 64, row * 64 + 64), `${what} on ${device.describe()}`).to.deep.equal(expected.slice(row * 64, row * 64 + 64));
      }
      expect(Array.from(more.toArray()), device.describe()).to.deep.equal([...bpermuted, ...range(64).map(() => values[37]), ...bpermuted, ...counted]);
      // Two waves, the second partial (100 threads): each reads its first live lane.
      const firsts = fl.full([100], -1, { dtype: "i32", device });
      const hundred = words(100, 9);
      module.fn("first_lane").launch({ grid: 1, block: 100 }, firsts, t(hundred));
      expect(Array.from(firsts.toArray()), device.describe()).to.deep.equal(range(100).map((i) => (i % 64 < 5 ? -1 : hundred[i < 64 ? 5 : 69])));
    }
  });

  it("reads the exec mask in a branch (readfirstlane, ballots, HIP's votes), sends with ds_permute, and takes the builtins as functions", () => {
    const source = `#include <hip/hip_runtime.h>
template <typename To, typename From> __device__ To bits_of(From x) { return __builtin_bit_cast(To, x); }
__global__ void branch(unsigned long long* out, int* sent, const int* values, int skipped) {
  const int i = threadIdx.x;
  unsigned long long first = 0, ballot = 0, any = 0, all = 0;
  if (i >= skipped) {
    first = (unsigned long long)__builtin_amdgcn_readfirstlane(values[i]);
    ballot = __builtin_amdgcn_ballot_w64(values[i] % 3 == 0);
    any = __any(values[i] < 0);
    all = (unsigned long long)__all(values[i] >= 0) << 1 | __ballot(1) == __builtin_amdgcn_read_exec();
  }
  const unsigned long long whole = __ballot(1);  // after the branch: the whole wave again
  out[5 * i] = first;
  out[5 * i + 1] = ballot;
  out[5 * i + 2] = any;
  out[5 * i + 3] = all;
  out[5 * i + 4] = whole;
  // Each lane sends to lane 63 - i; the template's comma and the :: are no macro's arguments.
  sent[i] = ::__builtin_amdgcn_ds_permute((63 - i) * 4, bits_of<int, float>(static_cast<float>(values[i])));
  sent[64 + i] = (int)__builtin_amdgcn_sad_u16(0x00100005u + i, 0x00170001u, 100u);
}`;
    const skipped = 9, values = range(64).map((i) => (i * 7919) % 1000);
    const expectedOut = range(64).flatMap((i) => {
      if (i < skipped) return [0n, 0n, 0n, 0n, 0xffffffffffffffffn];
      const ballot = range(64).filter((l) => l >= skipped && values[l] % 3 === 0).reduce((m, l) => m | (1n << BigInt(l)), 0n);
      return [BigInt(values[skipped]), ballot, 0n, 3n, 0xffffffffffffffffn];
    });
    const floatBits = (v: number) => new Int32Array(Float32Array.of(v).buffer)[0];
    const expectedSent = [...range(64).map((i) => floatBits(values[63 - i])), ...range(64).map((i) => Math.abs(((5 + i) & 0xffff) - 1) + Math.abs(((0x10 + ((5 + i) >> 16)) & 0xffff) - 0x17) + 100)];
    for (const device of wave64Devices()) {
      const out = fl.full([5 * 64], 7, { dtype: "u64", device }), sent = fl.full([128], -1, { dtype: "i32", device });
      fl.compile(source, { device }).fn("branch").launch({ grid: 1, block: 64 }, out, sent, fl.tensor(Int32Array.from(values), { device }), skipped);
      expect(Array.from(out.toArray() as BigUint64Array), device.describe()).to.deep.equal(expectedOut);
      expect(Array.from(sent.toArray()), device.describe()).to.deep.equal(expectedSent);
    }
  });

  it("gives HIP's lane masks on AMD: the running lanes below and above, and the lane itself", () => {
    const source = `#include <hip/hip_runtime.h>
__global__ void masks(unsigned long long* out) {
  if (threadIdx.x % 3 == 0) return;
  out[3 * threadIdx.x] = __lanemask_lt();
  out[3 * threadIdx.x + 1] = __lanemask_gt();
  out[3 * threadIdx.x + 2] = __lanemask_eq();
}`;
    const running = range(64).filter((l) => l % 3 !== 0).reduce((m, l) => m | (1n << BigInt(l)), 0n);
    const all = (1n << 64n) - 1n;
    const expected = range(64).flatMap((l) => (l % 3 === 0 ? [7n, 7n, 7n]
      : [((1n << BigInt(l)) - 1n) & running, l === 63 ? 0n : ((all << BigInt(l + 1)) & all) & running, 1n << BigInt(l)]));
    for (const device of wave64Devices()) {
      const out = fl.full([192], 7n, { dtype: "u64", device });
      fl.compile(source, { device }).fn("masks").launch({ grid: 1, block: 64 }, out);
      expect(Array.from(out.toArray() as BigUint64Array), device.describe()).to.deep.equal(expected);
    }
  });

  it("runs HIP's __shfl, __shfl_up, __shfl_down and __shfl_xor among a branch's lanes, reading 0 from a lane not running, as HIP's code for AMD does", () => {
    const source = `#include <hip/hip_runtime.h>
__global__ void branches(int* out, const int* values, int split, int width) {
  const int i = threadIdx.x;
  const int v = values[i];
  int a = -1, b = -1;
  if (i < split) {
    a = __shfl_down(v, 3, width);
    b = __shfl(v, 5, width);
  } else {
    a = __shfl_xor(v, 6, width);
    b = __shfl_up(v, 2, width);
  }
  out[2 * i] = a;
  out[2 * i + 1] = b;
}`;
    const values = range(64).map((i) => 1000 + (i * 37) % 101);
    // HIP's amd_warp_functions.h: each lane's source lane, read with ds_bpermute (modulo 64) among the running lanes.
    const expected = (split: number, width: number) => range(64).flatMap((self) => {
      const running = (lane: number) => (self < split) === (lane < split);
      const read = (lane: number) => (running(lane & 63) ? values[lane & 63] : 0);
      const segment = self & ~(width - 1);
      if (self < split) {
        const down = (self & (width - 1)) + 3 >= width ? self : self + 3;
        return [read(down), read((5 & (width - 1)) + segment)];
      }
      const xor = self ^ 6, up = self - 2;
      return [read(xor >= ((self + width) & ~(width - 1)) ? self : xor), read(up < segment ? self : up)];
    });
    for (const device of wave64Devices()) {
      const module = fl.compile(source, { device });
      // Widths of 4 and 2: source lane 5 lies past the segment and is read modulo its width.
      for (const [split, width] of [[40, 64], [21, 16], [64, 8], [0, 64], [33, 4], [64, 2]]) {
        const out = fl.full([128], 7, { dtype: "i32", device });
        module.fn("branches").launch({ grid: 1, block: 64 }, out, fl.tensor(Int32Array.from(values), { device }), split, width);
        expect(Array.from(out.toArray()), `${device.describe()}, split ${split}, width ${width}`).to.deep.equal(expected(split, width));
      }
    }
    // A CUDA GPU's warp, and the CPU's 32-lane one, run HIP's shuffles over the whole warp: a branch's shuffle is refused there.
    const warp32 = fl.device("cpu");
    const out = fl.full([128], 7, { dtype: "i32", device: warp32 });
    fl.compile(source, { device: warp32 }).fn("branches").launch({ grid: 1, block: 64 }, out, fl.tensor(Int32Array.from(values), { device: warp32 }), 40, 32);
    expectThrows(() => out.toArray(), fl.DeviceError,
      /the lanes of warp 1 in block \(0,0,0\) wait at different warp operations: thread \(32,0,0\) at __shfl_down on line 7 .*thread \(40,0,0\) at __shfl_xor on line 10/);
  });

  it("takes clang's vector types (ext_vector_type) for copies, arithmetic and elements by index, as AMD's kernels move data", () => {
    const source = `#include <hip/hip_runtime.h>
using floatx4 = float __attribute__((ext_vector_type(4)));
typedef unsigned short bf16x8 __attribute__((ext_vector_type(8)));
typedef int __attribute__((ext_vector_type(2))) intx2;
template <typename T> using vec4 = T __attribute__((ext_vector_type(4)));
// The attribute before the type, and clang's underscored spelling, as AMD's aiter writes them.
using u32x4 = __attribute__((__ext_vector_type__(4))) uint32_t;
typedef __attribute__((ext_vector_type(2))) float prefixed2;
__global__ void vectors(float* out, const float* in, unsigned short* raw, const unsigned short* raw_in, int* ints) {
  const int i = threadIdx.x;
  const floatx4 v = *reinterpret_cast<const floatx4*>(in + 4 * i);
  const vec4<float> w = {1.0f, 2.0f, 3.0f, 4.0f};
  *reinterpret_cast<floatx4*>(out + 4 * i) = v * 2.0f + w;
  reinterpret_cast<bf16x8*>(raw)[i] = reinterpret_cast<const bf16x8*>(raw_in)[i];
  intx2 pair = {i, -i};
  pair += pair;
  ints[2 * i] = pair[0];
  ints[2 * i + 1] = pair[1] + (int)sizeof(floatx4) + (int)alignof(bf16x8) + (int)sizeof(u32x4) + (int)sizeof(prefixed2);
  const u32x4 u = {1u, 2u, 3u, static_cast<uint32_t>(i)};
  ints[2 * i] += static_cast<int>((u + u)[3]);
}`;
    const n = 8, x = range(4 * n).map((i) => i * 0.5 - 3), raw = range(8 * n).map((i) => (i * 2654435761) % 65536);
    for (const device of [...wave64Devices(), fl.device("cpu")]) {
      const out = fl.full([4 * n], NaN, { device }), rawOut = fl.zeros([8 * n], { dtype: "u16", device }), ints = fl.full([2 * n], 7, { dtype: "i32", device });
      fl.compile(source, { device }).fn("vectors").launch({ grid: 1, block: n }, out, fl.tensor(x, { device }), rawOut,
        fl.tensor(Uint16Array.from(raw), { device }), ints);
      expect(Array.from(out.toArray()), device.describe()).to.deep.equal(x.map((v, i) => v * 2 + (i % 4) + 1));
      expect(Array.from(rawOut.toArray()), device.describe()).to.deep.equal(raw);
      expect(Array.from(ints.toArray()), device.describe()).to.deep.equal(range(n).flatMap((i) => [4 * i, -2 * i + 16 + 16 + 16 + 8]));
    }
    // On the CPU they are GCC's vectors: elements by index, and a declaration the CPU cannot read is refused, never a scalar.
    const cpu = fl.device("cpu", { warpSize: WAVE });
    expectThrows(() => fl.compile(`typedef float f4 __attribute__((ext_vector_type(4)));
__global__ void k(float* o) { f4 v = {1, 2, 3, 4}; o[0] = v.x; }`, { device: cpu }), fl.DeviceError, /by index \(v\[0\], not v\.x\)/);
    expectThrows(() => fl.compile(`__global__ void k(float* o) {
  float __attribute__((ext_vector_type(4))) v = {1, 2, 3, 4};
  o[0] = v[0];
}`, { device: cpu }), fl.ArgumentError, /clang's ext_vector_type in a type alias .* got one written otherwise on line 2$/);
  });

  it("sums a wavefront with DPP row shifts and broadcasts, as rocPRIM's warp reduction does", () => {
    const source = `#include <hip/hip_runtime.h>
// The sum of a wave's 64 values, in lane 63, then read by every lane.
__device__ int wave_sum(int x) {
  x += __builtin_amdgcn_update_dpp(0, x, 0x111, 0xf, 0xf, false);  // row_shr:1
  x += __builtin_amdgcn_update_dpp(0, x, 0x112, 0xf, 0xf, false);  // row_shr:2
  x += __builtin_amdgcn_update_dpp(0, x, 0x114, 0xf, 0xe, false);  // row_shr:4, banks 1-3
  x += __builtin_amdgcn_update_dpp(0, x, 0x118, 0xf, 0xc, false);  // row_shr:8, banks 2-3
  x += __builtin_amdgcn_update_dpp(0, x, 0x142, 0xa, 0xf, false);  // row_bcast:15 into rows 1 and 3
  x += __builtin_amdgcn_update_dpp(0, x, 0x143, 0xc, 0xf, false);  // row_bcast:31 into rows 2 and 3
  return __builtin_amdgcn_readlane(x, 63);
}
__global__ void sums(int* out, const int* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int total = wave_sum(i < n ? in[i] : 0);
  if (threadIdx.x % 64 == 0) out[i / 64] = total;
}`;
    const n = 1000, data = words(n, 3).map((w) => w % 100000);
    const expected = range(Math.ceil(n / 64)).map((w) => data.slice(w * 64, w * 64 + 64).reduce((a, b) => a + b, 0));
    for (const device of wave64Devices()) {
      const out = fl.full([expected.length], -1, { dtype: "i32", device });
      fl.compile(source, { device }).fn("sums").launch({ grid: 4, block: 256 }, out, fl.tensor(Int32Array.from(data), { device }), n);
      expect(Array.from(out.toArray()), device.describe()).to.deep.equal(expected);
    }
  });

  it("computes the dot-product, byte and bit-field instructions exactly, and HIP's amd_mixed_dot", () => {
    const source = `#include <hip/hip_runtime.h>
__global__ void integer_ops(int* out, const int* a, const int* b, const int* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int x = a[i], y = b[i], z = c[i];
  int* o = out + 17 * i;
  o[0] = __builtin_amdgcn_sdot4(x, y, z, false);
  o[1] = __builtin_amdgcn_sdot4(x, y, z, true);
  o[2] = (int)__builtin_amdgcn_udot4((unsigned)x, (unsigned)y, (unsigned)z, true);
  o[3] = __builtin_amdgcn_sdot8(x, y, z, false);
  o[4] = (int)__builtin_amdgcn_udot8((unsigned)x, (unsigned)y, (unsigned)z, false);
  o[5] = __builtin_amdgcn_sudot4(true, x, false, y, z, false);
  o[6] = (int)__builtin_amdgcn_perm((unsigned)x, (unsigned)y, (unsigned)z & 0x0f0f0f0fu);
  o[7] = (int)__builtin_amdgcn_alignbit((unsigned)x, (unsigned)y, (unsigned)z);
  o[8] = (int)__builtin_amdgcn_alignbyte((unsigned)x, (unsigned)y, (unsigned)z);
  o[9] = (int)__builtin_amdgcn_ubfe((unsigned)x, (unsigned)z & 31u, ((unsigned)z >> 8) & 31u);
  o[10] = __builtin_amdgcn_sbfe(x, (unsigned)z & 31u, ((unsigned)z >> 8) & 31u);
  o[11] = (int)__builtin_amdgcn_lerp((unsigned)x, (unsigned)y, (unsigned)z);
  // HIP's amd_mixed_dot over the same bits as 16-bit pairs, bytes and nibbles.
  const short2 xs = make_short2((short)(x & 0xffff), (short)(x >> 16)), ys = make_short2((short)(y & 0xffff), (short)(y >> 16));
  o[12] = amd_mixed_dot(xs, ys, z, true);
  o[13] = (int)amd_mixed_dot(make_ushort2((unsigned short)xs.x, (unsigned short)xs.y), make_ushort2((unsigned short)ys.x, (unsigned short)ys.y), (unsigned)z, false);
  o[14] = amd_mixed_dot(make_char4((char)x, (char)(x >> 8), (char)(x >> 16), (char)(x >> 24)), make_char4((char)y, (char)(y >> 8), (char)(y >> 16), (char)(y >> 24)), z, false);
  o[15] = (int)amd_mixed_dot(make_uchar4((unsigned char)x, (unsigned char)(x >> 8), (unsigned char)(x >> 16), (unsigned char)(x >> 24)),
                             make_uchar4((unsigned char)y, (unsigned char)(y >> 8), (unsigned char)(y >> 16), (unsigned char)(y >> 24)), (unsigned)z, true);
  o[16] = amd_mixed_dot(x, y, z, true);
}`;
    const n = 77, a = words(n, 11), b = words(n, 12), c = words(n, 13);
    // Some near the limits, so that clamping and wrapping show.
    a[0] = 0x7f7f7f7f; b[0] = 0x7f7f7f7f; c[0] = 0x7fffff00;
    a[1] = 0x80808080; b[1] = 0x7f7f7f7f; c[1] = -0x7fffff00;
    a[2] = -1; b[2] = -1; c[2] = -2;
    const ubfe = (x: number, off: number, width: number) => (width === 0 ? 0 : ((x >>> off) & (2 ** width - 1)) >>> 0) | 0;
    const sbfe = (x: number, off: number, width: number) => (width === 0 ? 0 : (ubfe(x, off, width) << (32 - width)) >> (32 - width));
    const expected = range(n).flatMap((i) => {
      const x = a[i], y = b[i], z = c[i], off = z & 31, width = (z >>> 8) & 31;
      const lerp = range(4).reduce((r, k) => r | ((((x >>> (8 * k)) & 0xff) + ((y >>> (8 * k)) & 0xff) + ((z >>> (8 * k)) & 1)) >> 1) << (8 * k), 0);
      const pair = (BigInt(x >>> 0) << 32n) | BigInt(y >>> 0);
      return [
        dot(x, y, z, 8, true, true, false, false), dot(x, y, z, 8, true, true, true, false), dot(x, y, z >>> 0, 8, false, false, true, true),
        dot(x, y, z, 4, true, true, false, false), dot(x, y, z >>> 0, 4, false, false, false, true), dot(x, y, z, 8, true, false, false, false),
        perm(x, y, z & 0x0f0f0f0f), Number(BigInt.asIntN(32, pair >> BigInt(z & 31))), Number(BigInt.asIntN(32, pair >> BigInt(8 * (z & 3)))),
        ubfe(x, off, width), sbfe(x, off, width), lerp | 0,
        dot(x, y, z, 16, true, true, true, false), dot(x, y, z >>> 0, 16, false, false, false, true), dot(x, y, z, 8, true, true, false, false),
        dot(x, y, z >>> 0, 8, false, false, true, true), dot(x, y, z, 4, true, true, true, false),
      ];
    });
    for (const device of wave64Devices()) {
      const out = fl.full([17 * n], -1, { dtype: "i32", device });
      const t = (v: number[]) => fl.tensor(Int32Array.from(v), { device });
      fl.compile(source, { device }).fn("integer_ops").launch({ grid: 2, block: 64 }, out, t(a), t(b), t(c), n);
      const got = Array.from(out.toArray());
      for (let i = 0; i < n; i++) expect(got.slice(17 * i, 17 * i + 17), `element ${i} on ${device.describe()}`).to.deep.equal(expected.slice(17 * i, 17 * i + 17));
    }
  });

  it("packs floats into bytes as v_cvt_pk_u8_f32 does (rounded to even, held to 0..255), as rpp and MIVisionX pack pixels", () => {
    const source = `#include <hip/hip_runtime.h>
__global__ void pack(const float4* in, unsigned* out) {
  const float4 s = in[threadIdx.x];
  out[threadIdx.x] = __builtin_amdgcn_cvt_pk_u8_f32(s.w, 3, __builtin_amdgcn_cvt_pk_u8_f32(s.z, 2,
                     __builtin_amdgcn_cvt_pk_u8_f32(s.y, 1, __builtin_amdgcn_cvt_pk_u8_f32(s.x, 0, 0xa5a5a5a5u))));
  out[blockDim.x + threadIdx.x] = __builtin_amdgcn_cvt_pk_u8_f32(s.x, 6, 0x11223344u);
}`;
    const values = [1.4, 2.5, 300, -5, 0, 127.5, 254.6, 255, NaN, 3.5, -0.4, 128.5];
    const byte = (v: number) => (Number.isNaN(v) ? 0 : Math.min(255, Math.max(0, v - Math.floor(v) === 0.5 ? 2 * Math.round(v / 2) : Math.round(v))));
    const quads = range(values.length / 4).map((q) => values.slice(4 * q, 4 * q + 4));
    for (const device of wave64Devices()) {
      const out = fl.full([2 * quads.length], 7, { dtype: "u32", device });
      fl.compile(source, { device }).fn("pack").launch({ grid: 1, block: quads.length }, fl.tensor(values, { device }), out);
      expect(Array.from(out.toArray()), device.describe()).to.deep.equal([
        ...quads.map((q) => q.reduce((word, v, k) => word + byte(v) * 2 ** (8 * k), 0)),
        ...quads.map((q) => (0x11223344 & ~0xff0000) + byte(q[0]) * 0x10000)]);
    }
  });

  it("gives HIP's vector types their arithmetic and constructors on AMD's platform, element by element with a vector or a scalar, as amd_hip_vector_types.h does", () => {
    const source = `#include <hip/hip_runtime.h>
__global__ void arithmetic(float* out, int* ints, const float* in) {
  const int i = threadIdx.x;
  float2 sum = {0.0f, 0.0f};
  const float2 a = {in[2 * i], in[2 * i + 1]}, b = {1.5f, -2.0f};
  sum += a * b;  // ROCm's vLLM HGEMV: sum2[i] += a2[i][offset] * x2[offset]
  // rpp's (float4) of a value, which fills every element, as HIP's vector classes make it.
  const float4 f = 2.0f * float4(in[i], 1.0f, 2.0f, 3.0f) - (float4)1.0f / 4.0f;
  out[6 * i] = sum.x;
  out[6 * i + 1] = sum.y;
  out[6 * i + 2] = f.x;
  out[6 * i + 3] = f.w;
  const float2 negated = -a;
  out[6 * i + 4] = negated.x;
  out[6 * i + 5] = (a / 2).y;
  int4 n = make_int4(i, 7, -8, 255);
  n *= 3;
  n = (n % 5) ^ make_int4(1, 1, 1, 1);
  ints[4 * i] = n.x;
  ints[4 * i + 1] = (n << 2).y;
  ints[4 * i + 2] = (~n).z;
  ints[4 * i + 3] = (n & 6).w;
}`;
    const n = 5, x = range(2 * n).map((v) => v * 0.75 - 2);
    for (const device of wave64Devices().filter((d) => d.kind === "cpu")) {
      const out = fl.full([6 * n], NaN, { device }), ints = fl.full([4 * n], -1, { dtype: "i32", device });
      fl.compile(source, { device }).fn("arithmetic").launch({ grid: 1, block: n }, out, ints, fl.tensor(x, { device }));
      expect(Array.from(out.toArray()), device.describe()).to.deep.equal(range(n).flatMap((i) =>
        [x[2 * i] * 1.5, x[2 * i + 1] * -2, 2 * x[i] - 0.25, 6 - 0.25, -x[2 * i], x[2 * i + 1] / 2]));
      const cTrunc = (a: number, b: number) => a - b * Math.trunc(a / b);
      expect(Array.from(ints.toArray()), device.describe()).to.deep.equal(range(n).flatMap((i) => {
        const m = [3 * i, 21, -24, 765].map((v) => cTrunc(v, 5) ^ 1);
        return [m[0], m[1] << 2, ~m[2], m[3] & 6];
      }));
    }
    // CUDA's vector types, and HIP's on NVIDIA's platform, have none.
    expectThrows(() => fl.compile(source, { device: fl.device("cpu") }), fl.DeviceError, /no match for .operator\*/);
  });

  it("takes AMD's device library (__ocml_*_f32 and _f64), which HIP's math is built on and sources call", () => {
    const source = `#include <hip/hip_runtime.h>
__global__ void ocml(float* out, double* wide, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = in[i];
  float c;
  const float s = __ocml_sincos_f32(x, &c);
  out[4 * i] = x / (1.0f + __ocml_exp_f32(-x));
  out[4 * i + 1] = __ocml_fma_f32(s, s, c * c);
  out[4 * i + 2] = __ocml_pow_f32(__ocml_fabs_f32(x), 1.5f) + __ocml_rsqrt_f32(4.0f) + (float)__ocml_isnan_f32(x);
  out[4 * i + 3] = __ocml_pown_f32(x, 3);
  wide[i] = __ocml_tanh_f64((double)x) + __ocml_log1p_f64(0.0);
}`;
    const x = [-3, -1.5, -0.25, 0, 0.5, 1, 2.75];
    for (const device of wave64Devices()) {
      const out = fl.full([4 * x.length], NaN, { device }), wide = fl.full([x.length], NaN, { dtype: "f64", device });
      fl.compile(source, { device }).fn("ocml").launch({ grid: 1, block: 64 }, out, wide, fl.tensor(x, { device }), x.length);
      const got = Array.from(out.toArray());
      x.forEach((v, i) => {
        const expected = [v / (1 + Math.exp(-v)), 1, Math.abs(v) ** 1.5 + 0.5, v ** 3];
        expected.forEach((e, k) => expect(Math.abs(got[4 * i + k] - e), `${device.describe()} x=${v} ${k}`).to.be.below(1e-5 * Math.max(1, Math.abs(e))));
      });
      Array.from(wide.toArray()).forEach((w, i) => expect(Math.abs(w - Math.tanh(x[i])), device.describe()).to.be.below(1e-15));
    }
  });

  it("runs clang's __hip_atomic_* with their orders and scopes, and HIP's float atomics", () => {
    const source = `#include <hip/hip_runtime.h>
__global__ void atomics(int* counter, float* total, float* biggest, float* smallest, int* flags, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __hip_atomic_fetch_add(counter, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  unsafeAtomicAdd(total, x[i]);
  atomicMax(biggest, x[i]);
  atomicMin(smallest, x[i]);
  int expected = 0;
  if (__hip_atomic_compare_exchange_strong(flags, &expected, i + 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP))
    __hip_atomic_store(flags + 1, __hip_atomic_load(flags, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT), __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
}`;
    const n = 300, x = range(n).map((i) => ((i * 7919) % 601) - 300);
    for (const device of wave64Devices()) {
      const counter = fl.zeros([1], { dtype: "i32", device }), total = fl.zeros([1], { device });
      const biggest = fl.full([1], -1000, { device }), smallest = fl.full([1], 1000, { device }), flags = fl.zeros([2], { dtype: "i32", device });
      fl.compile(source, { device }).fn("atomics").launch({ grid: 5, block: 64 }, counter, total, biggest, smallest, flags,
        fl.tensor(Float32Array.from(x), { device }), n);
      expect([counter.toArray()[0], total.toArray()[0], biggest.toArray()[0], smallest.toArray()[0]], device.describe())
        .to.deep.equal([n, x.reduce((s, v) => s + v, 0), Math.max(...x), Math.min(...x)]);
      const [winner, copied] = Array.from(flags.toArray());
      expect(winner >= 1 && winner <= n && copied === winner, `${winner} ${copied} on ${device.describe()}`).to.equal(true);
    }
  });

  it("stops a launch whose DPP control is none of the GPU's, naming the line", async () => {
    const source = `#include <hip/hip_runtime.h>
__global__ void bad(int* out, int control) {
  out[threadIdx.x] = __builtin_amdgcn_mov_dpp(out[threadIdx.x], control, 0xf, 0xf, true);
}`;
    const device = fl.device("cpu", { warpSize: WAVE });
    const out = fl.zeros([64], { dtype: "i32", device });
    fl.compile(source, { device }).fn("bad").launch({ grid: 1, block: 64 }, out, 0x150);
    await expectRejects(device.synchronize(), fl.DeviceError, /kernel 'bad': a DPP move on line 3: dpp_ctrl must be one of gfx9's controls .*, got 0x150/);
  });
});
