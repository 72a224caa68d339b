// A corpus of kernels written the way real projects write them (test/corpus/*.cu):
// CUDA-samples style, cub-based, cooperative groups, macro-made families,
// templated reductions, half2 and bf16 arithmetic, partial-warp scans,
// softmax, norms, histograms with atomics. Each is compiled as written, its
// outputs poisoned before launch, and compared with an independent TS
// reference, on awkward sizes. On the CPU each also runs in check mode, and
// with 64-lane warps where it does not assume 32; under test:gpu the same
// tests run on the GPU.
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import * as fl from "../src";
import { f32ToBf16Bits, f32ToF16Bits, bf16BitsToF32 } from "../src/dtype";
import { expectThrows, range, testDevice } from "./helpers";
import { roundF16, roundF16Fma } from "./reference/half";

const CORPUS = path.resolve(__dirname, "..", "..", "test", "corpus");

function source(file: string): string {
  return fs.readFileSync(path.join(CORPUS, file), "utf8");
}

function compile(file: string, dev: fl.Device): fl.Module {
  return fl.compile(source(file), { device: dev, name: file.replace(/\.\w+$/, "") });
}

/** The devices a corpus kernel runs on: the test device; on the CPU also check mode, and 64-lane warps when `anyWarpSize`. */
function variants(anyWarpSize: boolean): { label: string; dev: () => fl.Device }[] {
  const list = [{ label: "", dev: testDevice }];
  if (testDevice().backend !== "cpu") return list;
  list.push({ label: " (check mode)", dev: () => fl.device("cpu", { check: true }) });
  if (anyWarpSize) list.push({ label: " (64-lane warps)", dev: () => fl.device("cpu", { warpSize: 64 }) });
  return list;
}

function erf(x: number): number {
  // Abramowitz and Stegun 7.1.26: |error| < 1.5e-7, well inside the bf16 tolerance it serves.
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return Math.sign(x) * y;
}

const bf16 = (x: number) => bf16BitsToF32(f32ToBf16Bits(x));

describe("kernel corpus", () => {
  for (const { label, dev } of variants(false)) {
    it(`softmax_rows.cu: row softmax with warp shuffles and a template block size${label}`, () => {
      const rows = 37, cols = 1000;
      const x = fl.randn([rows, cols], { device: dev(), seed: 11 });
      const out = fl.full([rows, cols], NaN, { device: dev() });
      compile("softmax_rows.cu", dev()).fn("softmax_rows<128>").launch({ grid: rows, block: 128 }, out, x, cols);
      const xs = x.toArray();
      const expected = range(rows).flatMap((r) => {
        const row = Array.from(xs.subarray(r * cols, (r + 1) * cols));
        const max = Math.max(...row);
        const sum = row.reduce((s, v) => s + Math.exp(v - max), 0);
        return row.map((v) => Math.exp(v - max) / sum);
      });
      fl.assertClose(out, expected, { rtol: 2e-5, atol: 1e-7 });
    });

    it(`reduce_templated.cu: a templated sum reduction, instances named at launch${label}`, () => {
      const module = compile("reduce_templated.cu", dev());
      for (const [name, n, blocks, threads] of [["reduce_sum<256, false>", 100003, 64, 256], ["reduce_sum<128,true>", 65536, 32, 128]] as const) {
        const x = fl.randn([n], { device: dev(), seed: n });
        const partial = fl.full([blocks], NaN, { device: dev() });
        module.fn(name).launch({ grid: blocks, block: threads }, x, partial, n);
        const total = Array.from(partial.toArray()).reduce((s, v) => s + v, 0);
        const expected = Array.from(x.toArray()).reduce((s, v) => s + v, 0);
        expect(Math.abs(total - expected), name).to.be.lessThan(1e-3 * Math.sqrt(n));
      }
    });

    it(`reduce_warp_volatile.cu: sums and maxima whose last warp steps through volatile shared memory without barriers${label}`, () => {
      const module = compile("reduce_warp_volatile.cu", dev());
      const n = 70001, blocks = 37;
      const values = range(n).map((i) => ((i * 2654435761) % 1999) - 999);
      const sums = fl.full([blocks], -7, { dtype: "i32", device: dev() });
      module.fn("block_sums<int, 256>").launch({ grid: blocks, block: 256 }, fl.tensor(values, { dtype: "i32", device: dev() }), sums, n);
      const expectedSums = range(blocks).map((b) => values.filter((_v, i) => Math.floor(i / 256) % blocks === b).reduce((a, v) => a + v, 0));
      expect(Array.from(sums.toArray())).to.deep.equal(expectedSums);
      const doubles = fl.full([blocks], NaN, { dtype: "f64", device: dev() });
      module.fn("block_sums<double, 128>").launch({ grid: blocks, block: 128 }, fl.tensor(values.map((v) => v / 8), { dtype: "f64", device: dev() }), doubles, n);
      const expectedDoubles = range(blocks).map((b) => values.filter((_v, i) => Math.floor(i / 128) % blocks === b).reduce((a, v) => a + v / 8, 0));
      expect(Array.from(doubles.toArray())).to.deep.equal(expectedDoubles);  // exact: eighths of integers far below 2^50
      const m = 1000, maxima = fl.full([8], -7, { dtype: "i32", device: dev() });
      module.fn("block_max").launch({ grid: 8, block: 128 }, fl.tensor(values.slice(0, m), { dtype: "i32", device: dev() }), maxima, m);
      expect(Array.from(maxima.toArray())).to.deep.equal(range(8).map((b) => Math.max(...values.slice(b * 128, Math.min(m, b * 128 + 128)))));
    });

    it(`warp_scan_partial.cu: inclusive scans over ballot masks, with a partial last warp${label}`, () => {
      const n = 250, threads = 100;
      const values = range(n).map((i) => ((i * 7919) % 23) - 11);
      const x = fl.tensor(values, { dtype: "i32", device: dev() });
      const out = fl.full([n], -999999, { dtype: "i32", device: dev() });
      compile("warp_scan_partial.cu", dev()).fn("block_inclusive_scan").launch({ grid: Math.ceil(n / threads), block: threads }, out, x, n);
      const expected = values.map((_v, i) => values.slice(i - (i % threads), i + 1).reduce((a, b) => a + b, 0));
      expect(Array.from(out.toArray())).to.deep.equal(expected);
    });
  }

  for (const { label, dev } of variants(true)) {
    it(`torch_extension.cu: a PyTorch extension's kernels, its tensor accessors (32-bit and size_t indices) taking tensors${label}`, () => {
      const module = compile("torch_extension.cu", dev());
      const batch = 3, state = 50;
      for (const dtype of ["f32", "f64"] as const) {
        const gates = fl.randn([batch, 3, state], { device: dev(), dtype, seed: 31 });
        const oldCell = fl.randn([batch, state], { device: dev(), dtype, seed: 32 });
        const h = fl.full([batch, state], NaN, { device: dev(), dtype });
        const cell = fl.full([batch, state], NaN, { device: dev(), dtype });
        module.fn(`gated_update_kernel<${dtype === "f32" ? "float" : "double"}>`).launch({ grid: [2, batch], block: 32 }, gates, oldCell, h, cell);
        const g = gates.toArray(), o = oldCell.toArray();
        const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
        const cells = range(batch * state).map((i) => {
          const n = Math.floor(i / state), c = i % state;
          return o[i] + Math.tanh(g[n * 3 * state + 2 * state + c]) * sigmoid(g[n * 3 * state + c]);
        });
        const hs = cells.map((v, i) => Math.tanh(v) * sigmoid(g[Math.floor(i / state) * 3 * state + state + (i % state)]));
        const tolerance = dtype === "f32" ? { rtol: 1e-5, atol: 1e-6 } : { rtol: 1e-12, atol: 1e-13 };
        fl.assertClose(cell, cells, tolerance);
        fl.assertClose(h, hs, tolerance);
      }
      const rows = 7, cols = 45;
      const values = range(rows * cols).map((i) => i * 3 - 100);
      const transposed = fl.full([cols, rows], -1, { device: dev(), dtype: "i32" });
      module.fn("transpose_kernel<int>").launch({ grid: [2, rows], block: 32 }, fl.tensor(values, { device: dev(), dtype: "i32", shape: [rows, cols] }), transposed);
      expect(Array.from(transposed.toArray())).to.deep.equal(range(cols * rows).map((i) => values[(i % rows) * cols + Math.floor(i / rows)]));
    });

    it(`torch_stable_extension.cu: an extension on PyTorch's stable ABI, host code left out, fastAtomicAdd of the header-only API (float, c10::Half)${label}`, () => {
      const module = compile("torch_stable_extension.cu", dev());
      const batch = 2, channels = 3, plane = 17, rois = 3, pooled = 5;
      const argmax = range(rois * channels * pooled).map((i) => (i % 7 === 0 ? -1 : (i * 5) % plane));
      const grad = range(rois * channels * pooled).map((i) => (i % 9) - 4);
      const roiRows = [1, 0, 0, 3, 3, 0, 1, 1, 2, 2, 1, 0, 2, 3, 1];
      const expected = new Array(batch * channels * plane).fill(0);
      argmax.forEach((a, i) => {
        const roi = Math.floor(i / (pooled * channels)), c = Math.floor(i / pooled) % channels;
        if (a !== -1) expected[(roiRows[roi * 5] * channels + c) * plane + a] += grad[i];
      });
      for (const [type, dtype] of [["float", "f32"], ["c10::Half", "f16"]] as const) {
        const gradInput = fl.full([batch * channels * plane], 0, { device: dev(), dtype });
        module.fn(`pooling::scatter_back<${type}>`).launch({ grid: 1, block: 64 }, rois * channels * pooled, fl.tensor(grad, { device: dev(), dtype }),
          fl.tensor(argmax, { device: dev(), dtype: "i32" }), channels, plane, pooled, gradInput, fl.tensor(roiRows, { device: dev(), dtype }), batch * channels * plane);
        expect(Array.from(gradInput.toArray()), type).to.deep.equal(expected);
      }
    });

    it(`torch_ops_legacy.cu: THC's and ATen's helpers, CUDA_KERNEL_LOOP under C10_LAUNCH_BOUNDS_1, the scalar type by value (float, double, at::Half)${label}`, () => {
      const module = compile("torch_ops_legacy.cu", dev());
      const n = 1111;
      const values = range(n).map((i) => ((i * 37) % 101) / 16 - 3);
      for (const [type, dtype, round] of [["float", "f32", Math.fround], ["double", "f64", (v: number) => v], ["at::Half", "f16", roundF16]] as const) {
        const out = fl.full([n], NaN, { device: dev(), dtype });
        // Fewer blocks than elements: the loop strides over the grid.
        module.fn(`scale_offset_kernel<${type}>`).launch({ grid: 3, block: 256 }, n, fl.tensor(values, { device: dev(), dtype }), 0.75, -1.25, out);
        const x = values.map(round);
        expect(Array.from(out.toArray()), type).to.deep.equal(x.map((v) => round(round(v * 0.75) - 1.25)));
      }
      const count = 3001, bins = 17;
      const binOf = range(count).map((i) => (i * 7919) % bins);
      const weights = range(count).map((i) => (i % 5) - 1);
      for (const [type, dtype] of [["float", "f32"], ["at::Half", "f16"]] as const) {
        for (const weighted of [true, false]) {
          const sums = fl.zeros([bins], { device: dev(), dtype });
          module.fn(`bin_sum_kernel<${type}>`).launch({ grid: 4, block: 128 }, BigInt(count), fl.tensor(binOf, { device: dev(), dtype: "i64" }),
            weighted ? fl.tensor(weights, { device: dev(), dtype }) : null, sums, BigInt(bins));
          const expected = new Array(bins).fill(0);
          binOf.forEach((b, i) => { expected[b] += weighted ? weights[i] : 1; });
          expect(Array.from(sums.toArray()), `${type}${weighted ? "" : ", no weights"}`).to.deep.equal(expected);
        }
      }
      const y = fl.full([n], NaN, { device: dev() });
      const tiles = fl.full([1], -1, { device: dev(), dtype: "i32" });
      module.fn("softplus_kernel").launch({ grid: 2, block: 256 }, n, fl.tensor(values, { device: dev() }), y, tiles);
      fl.assertClose(y, values.map((v) => Math.log1p(Math.exp(-Math.abs(v))) + Math.max(v, 0)), { rtol: 1e-6, atol: 1e-6 });
      expect(Array.from(tiles.toArray())).to.deep.equal([Math.ceil(n / 32) + Math.ceil(n / 64) * 1000]);
    });

    it(`torch_extension.cu: c10::Half and c10::BFloat16 round each operation as PyTorch does, to the bit${label}`, () => {
      const module = compile("torch_extension.cu", dev());
      const n = 1001, alpha = 0.3;
      for (const [type, dtype, round] of [["c10::Half", "f16", roundF16], ["at::BFloat16", "bf16", bf16]] as const) {
        const x = fl.randn([n], { device: dev(), dtype, seed: 41 });
        const y = fl.randn([n], { device: dev(), dtype, seed: 42 });
        const out = fl.full([n], NaN, { device: dev(), dtype });
        module.fn(`ext::axpby_kernel<${type}>`).launch({ grid: Math.ceil(n / 128), block: 128 }, out, x, y, alpha, n);
        const xs = x.toArray(), ys = y.toArray();
        const expected = range(n).map((i) => {
          const scaled = round(Math.fround(round(Math.fround(xs[i] * round(Math.fround(alpha)))) + ys[i]));
          return scaled > xs[i] || scaled <= -1 ? round(Math.fround(scaled - xs[i] * 0.5)) : round(Math.fround(scaled - round(xs[i] / 2)));
        });
        expect(Array.from(out.toArray()), type).to.deep.equal(expected);
      }
    });

    it(`torch_extension.cu: an RMS norm on scalar_t, computed in at::opmath_type, reduced over C10_WARP_SIZE lanes${label}`, () => {
      const module = compile("torch_extension.cu", dev());
      const tokens = 5, hidden = 777, eps = 1e-6;
      for (const [type, dtype] of [["float", "f32"], ["c10::Half", "f16"], ["c10::BFloat16", "bf16"]] as const) {
        const x = fl.randn([tokens, hidden], { device: dev(), dtype, seed: 51 });
        const w = fl.randn([hidden], { device: dev(), dtype, seed: 52 });
        const out = fl.full([tokens, hidden], NaN, { device: dev(), dtype });
        module.fn(`ext::rms_norm_kernel<${type}>`).launch({ grid: tokens, block: 192 }, out, x, w, eps, hidden);
        const xs = x.toArray(), ws = w.toArray();
        const round = dtype === "f16" ? roundF16 : dtype === "bf16" ? bf16 : (v: number) => v;
        const expected = range(tokens * hidden).map((i) => {
          const t = Math.floor(i / hidden);
          let squares = 0;
          for (let j = 0; j < hidden; j++) squares += xs[t * hidden + j] ** 2;
          return round(round(xs[i] / Math.sqrt(squares / hidden + eps)) * ws[i % hidden]);
        });
        // One rounding step of the 16-bit type apart at most: the scale is a float on the GPU, a double here.
        fl.assertClose(out, expected, dtype === "f32" ? { rtol: 1e-5, atol: 1e-6 } : dtype === "f16" ? { rtol: 2e-3, atol: 1e-3 } : { rtol: 1.6e-2, atol: 1e-2 });
      }
    });

    it(`torch_extension.cu: gpuAtomicAdd on float, c10::Half and c10::BFloat16 through a 64-bit accessor${label}`, () => {
      const module = compile("torch_extension.cu", dev());
      const rows = 21, cols = 300;
      // Small integers: every order of the atomic adds gives the same sums, exactly, in 16 bits too.
      const values = range(rows * cols).map((i) => ((i * 7) % 5) - 2);
      for (const [type, dtype] of [["float", "f32"], ["c10::Half", "f16"], ["c10::BFloat16", "bf16"]] as const) {
        const x = fl.tensor(values, { device: dev(), dtype, shape: [rows, cols] });
        const sums = fl.zeros([cols], { device: dev(), dtype });
        module.fn(`ext::column_sum_kernel<${type}>`).launch({ grid: [Math.ceil(cols / 128), rows], block: 128 }, x, sums);
        const expected = range(cols).map((c) => range(rows).reduce((s, r) => s + values[r * cols + c], 0));
        expect(Array.from(sums.toArray()), type).to.deep.equal(expected);
      }
    });

    it(`torch_extension.cu: std::numeric_limits of float, c10::Half and c10::BFloat16, row maxima from -infinity${label}`, () => {
      const module = compile("torch_extension.cu", dev());
      const rows = 37, cols = 13;
      const limits = {
        f32: [-3.4028234663852886e38, 3.4028234663852886e38, 2 ** -126, 2 ** -23, 2 ** -149],
        f16: [-65504, 65504, 2 ** -14, 2 ** -10, 2 ** -24],
        bf16: [-3.3895313892515355e38, 3.3895313892515355e38, 2 ** -126, 2 ** -7, 2 ** -133],
      };
      for (const [type, dtype] of [["float", "f32"], ["c10::Half", "f16"], ["c10::BFloat16", "bf16"]] as const) {
        // Every row negative, one of them all -infinity: the maximum never stays at its start by accident.
        const values = range(rows * cols).map((i) => (Math.floor(i / cols) === 5 ? -Infinity : -1 - ((i * 37) % 101) / 4));
        const x = fl.tensor(values, { device: dev(), dtype, shape: [rows, cols] });
        const maxima = fl.full([rows], NaN, { device: dev(), dtype });
        const found = fl.full([7], NaN, { device: dev(), dtype });
        module.fn(`ext::row_max_kernel<${type}>`).launch({ grid: 2, block: 32 }, x, maxima, found, rows, cols);
        expect(Array.from(found.toArray()), type).to.deep.equal([...limits[dtype], Infinity, -Infinity]);
        expect(Array.from(maxima.toArray()), type).to.deep.equal(range(rows).map((r) => Math.max(...values.slice(r * cols, (r + 1) * cols))));
      }
    });

    it(`torch_extension.cu: an accessor takes only a tensor of its dtype and dimensions${label}`, () => {
      const kernel = compile("torch_extension.cu", dev()).fn("gated_update_kernel<float>");
      const cell = fl.zeros([2, 8], { device: dev() });
      const args = (gates: fl.KernelArg) => [gates, cell, cell, cell];
      expectThrows(() => kernel.launch({ grid: 1, block: 8 }, ...args(fl.zeros([2, 24], { device: dev() }))), fl.ArgumentError,
        /argument 0 \(gates\) must be an f32 tensor of 3 dimensions \(torch::PackedTensorAccessor32<float, 3, torch::RestrictPtrTraits>\), got .*\[2, 24\]/);
      expectThrows(() => kernel.launch({ grid: 1, block: 8 }, ...args(fl.zeros([2, 3, 8], { device: dev(), dtype: "f16" }))), fl.ArgumentError,
        /argument 0 \(gates\) must be an f32 tensor of 3 dimensions/);
      expectThrows(() => kernel.launch({ grid: 1, block: 8 }, ...args(fl.zeros([48], { device: dev() }).view(0, 8))), fl.ArgumentError,
        /argument 0 \(gates\) must be an f32 tensor of 3 dimensions .*, got .*a view/);
      expectThrows(() => kernel.launch({ grid: 1, block: 8 }, ...args(null)), fl.ArgumentError, /argument 0 \(gates\) must be an f32 tensor of 3 dimensions .*, got null/);
    });

    it(`cub_tiled_scan.cu: cub::BlockLoad, BlockScan over each thread's items with a running prefix functor, BlockStore, and cuda::maximum${label}`, () => {
      const threads = 64;
      const module = compile("cub_tiled_scan.cu", dev());
      for (const n of [1000, 37]) {
        const values = range(n).map((i) => ((i * 7919) % 61) - 30);
        const sums = fl.full([n], -1, { dtype: "i32", device: dev() });
        const maxima = fl.full([threads + 1], -1, { dtype: "i32", device: dev() });
        module.fn("scan_tiles<64, 4>").launch({ grid: 1, block: threads }, sums, maxima, fl.tensor(values, { dtype: "i32", device: dev() }), n);
        let total = 0;
        expect(Array.from(sums.toArray()), `n = ${n}`).to.deep.equal(values.map((v) => { const before = total; total += v; return before; }));
        const firsts = range(threads).map((t) => (t < n ? values[t] : -(2 ** 31)));
        let best = -(2 ** 31);
        expect(Array.from(maxima.toArray()), `n = ${n}`).to.deep.equal([...firsts.map((v) => (best = Math.max(best, v))), best]);
      }
    });

    it(`cg_thread_group.cu: one reduction over cg::thread_group for a block, a thread_block_tile<32> and a tile sized at run time${label}`, () => {
      const n = 300, threads = 128, blocks = Math.ceil(n / threads);
      const values = range(n).map((i) => ((i * 7919) % 201) - 100);
      const padded = range(blocks * threads).map((i) => (i < n ? values[i] : 0));
      const sumsOf = (size: number) => range((blocks * threads) / size).map((g) => padded.slice(g * size, (g + 1) * size).reduce((a, v) => a + v, 0));
      const module = compile("cg_thread_group.cu", dev());
      for (const tile of [1, 8, 16]) {
        const blockSums = fl.full([blocks], -1, { dtype: "i32", device: dev() });
        const warpSums = fl.full([(blocks * threads) / 32], -1, { dtype: "i32", device: dev() });
        const tileSums = fl.full([(blocks * threads) / tile], -1, { dtype: "i32", device: dev() });
        module.fn("sums_by_group").launch({ grid: blocks, block: threads, sharedBytes: threads * 4 }, blockSums, warpSums, tileSums,
          fl.tensor(values, { dtype: "i32", device: dev() }), n, tile);
        expect(Array.from(blockSums.toArray())).to.deep.equal(sumsOf(threads));
        expect(Array.from(warpSums.toArray())).to.deep.equal(sumsOf(32));
        expect(Array.from(tileSums.toArray()), `tiles of ${tile}`).to.deep.equal(sumsOf(tile));
      }
    });

    it(`hip_row_stats.cpp: a HIP source as written (hipCUB, bf16, HIP_DYNAMIC_SHARED, maskless __shfl_xor, a main() left out)${label}`, () => {
      const rows = 19, cols = 1001, threads = 256;
      const x = fl.randn([rows, cols], { device: dev(), seed: 41 });
      const xb = fl.randn([rows, cols], { device: dev(), dtype: "bf16", seed: 42 });
      const maxima = fl.full([rows], NaN, { device: dev() });
      const sums = fl.full([rows], NaN, { device: dev() });
      const module = compile("hip_row_stats.cpp", dev());
      module.fn("row_max").launch({ grid: rows, block: threads, sharedBytes: (threads / 32) * 4 }, maxima, x, cols);
      module.fn("row_sum_bf16<128>").launch({ grid: rows, block: 128 }, sums, xb, cols);
      const xs = x.toArray(), xbs = xb.toArray();
      const rowOf = (values: ArrayLike<number>, r: number) => Array.from(values).slice(r * cols, (r + 1) * cols);
      expect(Array.from(maxima.toArray())).to.deep.equal(range(rows).map((r) => Math.max(...rowOf(xs, r))));
      fl.assertClose(sums, range(rows).map((r) => rowOf(xbs, r).reduce((a, v) => a + v, 0)), { rtol: 1e-5, atol: 1e-4 });
    });

    it(`rmsnorm_cub.cu: cub::BlockReduce RMS norm in a namespace, instantiated by a macro for float and __half${label}`, () => {
      const module = compile("rmsnorm_cub.cu", dev());
      expect(module.kernels).to.deep.equal(["serving::rms_norm_kernel<float, 256>", "serving::rms_norm_kernel<__half, 256>"]);
      const tokens = 9, hidden = 1000, eps = 1e-6;
      for (const dtype of ["f32", "f16"] as const) {
        const x = fl.randn([tokens, hidden], { device: dev(), dtype, seed: 3 });
        const w = fl.randn([hidden], { device: dev(), dtype, seed: 4 });
        const out = fl.full([tokens, hidden], NaN, { device: dev(), dtype });
        const kernel = module.fn(`serving::rms_norm_kernel<${dtype === "f32" ? "float" : "__half"}, 256>`);
        kernel.launch({ grid: tokens, block: 256 }, out, x, w, eps, tokens, hidden);
        const xs = x.toArray(), ws = w.toArray();
        const expected = range(tokens * hidden).map((i) => {
          const t = Math.floor(i / hidden);
          let squares = 0;
          for (let j = 0; j < hidden; j++) squares += xs[t * hidden + j] ** 2;
          const scale = 1 / Math.sqrt(squares / hidden + eps);
          return dtype === "f32" ? xs[i] * scale * ws[i % hidden] : roundF16(roundF16(xs[i] * scale) * ws[i % hidden]);
        });
        fl.assertClose(out, expected, dtype === "f32" ? { rtol: 1e-5, atol: 1e-6 } : { rtol: 4e-3, atol: 1e-3 });
      }
      // Fewer threads than BLOCK, the last warp partial (vLLM launches min(hidden, 1024) threads): Sum(v, blockDim.x).
      const narrow = 77;
      const x = fl.randn([2, narrow], { device: dev(), seed: 5 });
      const w = fl.full([narrow], 1, { device: dev() });
      const out = fl.full([2, narrow], NaN, { device: dev() });
      module.fn("serving::rms_norm_kernel<float, 256>").launch({ grid: 2, block: narrow }, out, x, w, eps, 2, narrow);
      const xs = Array.from(x.toArray());
      fl.assertClose(out, xs.map((v, i) => {
        const row = xs.slice(Math.floor(i / narrow) * narrow, (Math.floor(i / narrow) + 1) * narrow);
        return v / Math.sqrt(row.reduce((a, r) => a + r * r, 0) / narrow + eps);
      }), { rtol: 1e-5, atol: 1e-6 });
    });

    it(`layernorm_cg.cu: layer norm with cooperative groups' tiles and cg::reduce${label}`, () => {
      const rows = 5, n = 777, eps = 1e-5;
      const x = fl.randn([rows, n], { device: dev(), seed: 21 });
      const gamma = fl.randn([n], { device: dev(), seed: 22 });
      const beta = fl.randn([n], { device: dev(), seed: 23 });
      const y = fl.full([rows, n], NaN, { device: dev() });
      compile("layernorm_cg.cu", dev()).fn("layer_norm").launch({ grid: rows, block: 96 }, y, x, gamma, beta, n, eps);
      const xs = x.toArray(), g = gamma.toArray(), b = beta.toArray();
      const expected = range(rows).flatMap((r) => {
        const row = Array.from(xs.subarray(r * n, (r + 1) * n));
        const mean = row.reduce((s, v) => s + v, 0) / n;
        const variance = row.reduce((s, v) => s + (v - mean) ** 2, 0) / n;
        return row.map((v, i) => ((v - mean) / Math.sqrt(variance + eps)) * g[i] + b[i]);
      });
      fl.assertClose(y, expected, { rtol: 1e-4, atol: 1e-5 });
    });

    it(`activations_macro.cu: a macro-made family of extern "C" kernels with grid-stride loops${label}`, () => {
      const module = compile("activations_macro.cu", dev());
      expect(module.kernels).to.deep.equal(["gelu_f32", "silu_f32", "relu_f32"]);
      const n = 10007;
      const x = fl.randn([n], { device: dev(), seed: 5 });
      const xs = Array.from(x.toArray());
      const references: Record<string, (v: number) => number> = {
        gelu_f32: (v) => 0.5 * v * (1 + Math.tanh(0.7978845608028654 * (v + 0.044715 * v ** 3))),
        silu_f32: (v) => v / (1 + Math.exp(-v)),
        relu_f32: (v) => Math.max(v, 0),
      };
      for (const [name, reference] of Object.entries(references)) {
        const out = fl.full([n], NaN, { device: dev() });
        module.fn(name).launch({ grid: 20, block: 128 }, out, x, n);
        fl.assertClose(out, xs.map(reference), { rtol: 1e-5, atol: 1e-6 });
      }
    });

    it(`half2_axpy.cu: half2 fma, bit for bit, with an odd tail and a half scalar${label}`, () => {
      const module = compile("half2_axpy.cu", dev());
      const n = 1001, a = 0.3;
      const x = fl.randn([n], { device: dev(), dtype: "f16", seed: 7 });
      const y0 = fl.randn([n], { device: dev(), dtype: "f16", seed: 8 });
      const xs = x.toArray(), ys = y0.toArray();
      const a16 = roundF16(a);
      for (const [name, reference] of [
        ["haxpy", (i: number) => roundF16Fma(a16, xs[i], ys[i])],
        ["haxpy_unfused", (i: number) => roundF16(roundF16(a16 * xs[i]) + ys[i])],
      ] as const) {
        const y = fl.tensor(ys, { device: dev(), dtype: "f16" });
        module.fn(name).launch({ grid: 4, block: 64 * (name === "haxpy" ? 1 : 4) }, n, a, x, y);
        expect(Array.from(y.toArray(), (v) => f32ToF16Bits(v)), name).to.deep.equal(range(n).map((i) => f32ToF16Bits(reference(i))));
      }
    });

    it(`histogram_atomics.cu: a byte histogram with shared and global atomics on uchar4 loads${label}`, () => {
      const words = 5003;
      const bytes = range(4 * words).map((i) => (i * 2654435761) % 251 ^ (i & 3));
      const data = fl.tensor(bytes, { dtype: "u8", device: dev() });
      const counts = fl.zeros([256], { dtype: "i32", device: dev() });
      compile("histogram_atomics.cu", dev()).fn("histogram256").launch({ grid: 8, block: 96 }, counts, data, words);
      const expected = new Array(256).fill(0);
      for (const b of bytes) expected[b & 255]++;
      expect(Array.from(counts.toArray())).to.deep.equal(expected);
    });

    it(`bf16_gelu_mul.cu: __nv_bfloat162 arithmetic after a float activation${label}`, () => {
      const pairs = 777;
      const gate = fl.randn([2 * pairs], { device: dev(), dtype: "bf16", seed: 31 });
      const up = fl.randn([2 * pairs], { device: dev(), dtype: "bf16", seed: 32 });
      const out = fl.full([2 * pairs], NaN, { device: dev(), dtype: "bf16" });
      compile("bf16_gelu_mul.cu", dev()).fn("gelu_and_mul_bf16").launch({ grid: Math.ceil(pairs / 128), block: 128 }, out, gate, up, pairs);
      const g = gate.toArray(), u = up.toArray();
      const expected = range(2 * pairs).map((i) => bf16(bf16(g[i] * 0.5 * (1 + erf(g[i] / Math.SQRT2))) * u[i]));
      fl.assertClose(out, expected, { rtol: 1e-2, atol: 1e-2 });
    });

    it(`matmul_struct.cu: a tiled GEMM taking Matrix structs by value, a sub-matrix as a view of its parent${label}`, () => {
      // C (13 x 19) = A (13 x 11, from row 3, column 5 of a 17 x 20 parent) * B (11 x 19), integers: exact sums.
      const parentCols = 20, m = 13, k = 11, n = 19;
      const parent = range(17 * parentCols).map((i) => ((i * 7) % 5) - 2);
      const b = range(k * n).map((i) => ((i * 3) % 7) - 3);
      const parentTensor = fl.tensor(parent, { device: dev() });
      const c = fl.full([m * n], NaN, { device: dev() });
      const A = { width: k, height: m, stride: parentCols, elements: parentTensor.view(3 * parentCols + 5) };
      const B = { width: n, height: k, stride: n, elements: fl.tensor(b, { device: dev() }) };
      const C = { width: n, height: m, stride: n, elements: c };
      compile("matmul_struct.cu", dev()).fn("matmul_tiled").launch({ grid: [Math.ceil(n / 8), Math.ceil(m / 8)], block: [8, 8] }, A, B, C);
      const expected = range(m * n).map((i) => {
        const row = Math.floor(i / n), col = i % n;
        return range(k).reduce((sum, j) => sum + parent[(3 + row) * parentCols + 5 + j] * b[j * n + col], 0);
      });
      expect(Array.from(c.toArray())).to.deep.equal(expected);
    });

    it(`matmul_struct.cu: a struct of pointers (nested, typedef'd, an array of planes, an optional null one)${label}`, () => {
      const count = 301, tableSize = 50;
      const index = range(count).map((i) => (i * 17) % tableSize);
      const table = range(tableSize).map((i) => i * 0.5 - 7);
      const bias = range(count).map((i) => (i % 9) - 4);
      const gather = compile("matmul_struct.cu", dev()).fn("gather_planes");
      for (const withBias of [false, true]) {
        const planes = [fl.full([Math.ceil(count / 2)], NaN, { device: dev() }), fl.full([Math.floor(count / 2)], NaN, { device: dev() })];
        const counter = fl.zeros([1], { dtype: "u32", device: dev() });
        gather.launch({ grid: Math.ceil(count / 64), block: 64 }, {
          index: { data: fl.tensor(index, { dtype: "i32", device: dev() }), n: count },
          table: fl.tensor(table, { device: dev() }),
          bias: withBias ? fl.tensor(bias, { device: dev() }) : null,
          planes, count: counter,
        });
        const values = range(count).map((i) => table[index[i]] + (withBias ? bias[i] : 0));
        expect(Array.from(planes[0].toArray())).to.deep.equal(values.filter((_, i) => i % 2 === 0));
        expect(Array.from(planes[1].toArray())).to.deep.equal(values.filter((_, i) => i % 2 === 1));
        expect(Array.from(counter.toArray())).to.deep.equal([count]);
      }
    });

    it(`transpose_tiled.cu: a padded shared tile on a 2D grid of 2D blocks${label}`, () => {
      const width = 100, height = 67;
      const x = fl.tensor(range(width * height), { device: dev() });
      const out = fl.full([width * height], NaN, { device: dev() });
      compile("transpose_tiled.cu", dev()).fn("transpose").launch({ grid: [Math.ceil(width / 32), Math.ceil(height / 32)], block: [32, 8] },
        out, x, width, height);
      expect(Array.from(out.toArray())).to.deep.equal(range(width * height).map((i) => (i % height) * width + Math.floor(i / height)));
    });

    it(`cub_compact.cu: cub::BlockScan slots and cub::WarpReduce counts${label}`, () => {
      const n = 300, threads = 128, blocks = Math.ceil(n / threads), perBlock = threads / 32 + 1;
      const values = range(n).map((i) => ((i * 37) % 19) - 9 + 0.5);
      const x = fl.tensor(values, { device: dev() });
      const out = fl.full([blocks * threads], NaN, { device: dev() });
      const counts = fl.full([blocks * perBlock], -1, { dtype: "i32", device: dev() });
      compile("cub_compact.cu", dev()).fn("compact_positive<128>").launch({ grid: blocks, block: threads }, out, counts, x, n);
      const outs = out.toArray(), got = Array.from(counts.toArray());
      for (let b = 0; b < blocks; b++) {
        const items = range(threads).map((t) => b * threads + t).map((i) => (i < n ? values[i] : 0));
        const kept = items.filter((v) => v > 0);
        const warps = range(threads / 32).map((w) => items.slice(32 * w, 32 * w + 32).filter((v) => v > 0).length);
        expect(got.slice(b * perBlock, (b + 1) * perBlock)).to.deep.equal([kept.length, ...warps]);
        expect(Array.from(outs.subarray(b * threads, b * threads + kept.length))).to.deep.equal(kept);
      }
    });
  }
});

/** A reproducible stream of integers in [0, bound). */
function integers(n: number, bound: number, seed: number): number[] {
  let state = seed >>> 0;
  return range(n).map(() => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return Math.floor((state / 2 ** 32) * bound);
  });
}

/** A stable sort of positions by `key` (ascending, or descending), as cub's sorts order. */
function stableOrder(count: number, key: (i: number) => number, descending = false): number[] {
  return range(count).sort((a, b) => (descending ? key(b) - key(a) : key(a) - key(b)) || a - b);
}

describe("kernel corpus: cub's sorts, exchanges and segments", () => {
  for (const { label, dev } of variants(true)) {
    it(`cub_block_sort.cu: BlockLoad, BlockRadixSort and BlockStore in one union, for int, float (with -0.0, infinities) and __half keys${label}`, () => {
      const module = compile("cub_block_sort.cu", dev());
      const ints = integers(2 * 128 * 16, 2000, 7).map((v) => v - 1000);
      const sortedInts = fl.full([ints.length], -1, { dtype: "i32", device: dev() });
      module.fn("block_sort<int, 128, 16>").launch({ grid: 2, block: 128 }, sortedInts, fl.tensor(ints, { dtype: "i32", device: dev() }));
      const tiles = (values: number[], size: number) => range(values.length / size).map((b) => values.slice(b * size, (b + 1) * size));
      expect(Array.from(sortedInts.toArray())).to.deep.equal(tiles(ints, 2048).flatMap((t) => [...t].sort((a, b) => a - b)));

      const floats = integers(3 * 320, 1000, 8).map((v) => (v - 500) / 8);
      floats[5] = -0; floats[9] = 0; floats[11] = -0; floats[700] = Infinity; floats[701] = -Infinity; floats[702] = -0; floats[703] = 0;
      const sortedFloats = fl.full([floats.length], NaN, { device: dev() });
      module.fn("block_sort<float, 64, 5>").launch({ grid: 3, block: 64 }, sortedFloats, fl.tensor(floats, { device: dev() }));
      // -0.0 and +0.0 rank alike and keep their order.
      const expected = tiles(floats, 320).flatMap((t) => stableOrder(t.length, (i) => t[i] + 0).map((i) => t[i]));
      const got = Array.from(sortedFloats.toArray());
      expect(got).to.deep.equal(expected);
      expect(got.map((v) => Object.is(v, -0)), "the signs of the zeros").to.deep.equal(expected.map((v) => Object.is(v, -0)));

      const halves = fl.randn([2 * 96], { device: dev(), dtype: "f16", seed: 9 });
      const sortedHalves = fl.full([2 * 96], NaN, { device: dev(), dtype: "f16" });
      module.fn("block_sort<__half, 32, 3>").launch({ grid: 2, block: 32 }, sortedHalves, halves);
      expect(Array.from(sortedHalves.toArray())).to.deep.equal(tiles(Array.from(halves.toArray()), 96).flatMap((t) => [...t].sort((a, b) => a - b)));
    });

    it(`cub_block_sort.cu: a top-k of each row from BlockRadixSort's descending key-value sort, ties to the lower column${label}`, () => {
      const rows = 5, k = 10;
      const module = compile("cub_block_sort.cu", dev());
      for (const cols of [256, 77]) {
        const logits = integers(rows * cols, 40, cols).map((v) => v / 4 - 5);
        const values = fl.full([rows * k], NaN, { device: dev() });
        const indices = fl.full([rows * k], -1, { dtype: "i32", device: dev() });
        module.fn("row_topk<64, 4, 10>").launch({ grid: rows, block: 64 }, values, indices, fl.tensor(logits, { device: dev() }), cols);
        const tops = range(rows).map((r) => stableOrder(cols, (c) => logits[r * cols + c], true).slice(0, k));
        expect(Array.from(indices.toArray()), `${cols} columns`).to.deep.equal(tops.flat());
        expect(Array.from(values.toArray()), `${cols} columns`).to.deep.equal(tops.flatMap((top, r) => top.map((c) => logits[r * cols + c])));
      }
    });

    it(`cub_block_sort.cu: BlockRadixSort on a range of bits, stable, stored striped; BlockMergeSort with a comparator over a partial tile${label}`, () => {
      const module = compile("cub_block_sort.cu", dev());
      const count = 32 * 7;
      const codes = integers(count, 2 ** 32, 11);
      for (const [begin, end] of [[4, 12], [0, 32], [28, 32]]) {
        const out = fl.full([count], 0, { dtype: "u32", device: dev() });
        const positions = fl.full([count], -1, { dtype: "i32", device: dev() });
        module.fn("sort_bits_striped<32, 7>").launch({ grid: 1, block: 32 }, out, positions, fl.tensor(codes, { dtype: "u32", device: dev() }), begin, end);
        const order = stableOrder(count, (i) => Math.floor(codes[i] / 2 ** begin) % 2 ** (end - begin));
        expect(Array.from(positions.toArray()), `bits [${begin}, ${end})`).to.deep.equal(order);
        expect(Array.from(out.toArray()), `bits [${begin}, ${end})`).to.deep.equal(order.map((i) => codes[i]));
      }
      for (const n of [160, 131]) {
        const values = integers(n, 21, n).map((v) => (v - 10) / 2);
        const out = fl.full([n], NaN, { device: dev() });
        const positions = fl.full([n], -1, { dtype: "i32", device: dev() });
        module.fn("merge_sort_by_magnitude<32, 5>").launch({ grid: 1, block: 32 }, out, positions, fl.tensor(values, { device: dev() }), n);
        const order = stableOrder(n, (i) => Math.abs(values[i]));
        expect(Array.from(positions.toArray()), `n = ${n}`).to.deep.equal(order);
        expect(Array.from(out.toArray()), `n = ${n}`).to.deep.equal(order.map((i) => values[i]));
      }
    });
  }

  for (const { label, dev } of variants(false)) {
    it(`cub_block_sort.cu: BlockExchange from striped to blocked, to warp-striped, and scattered by rank${label}`, () => {
      const threads = 64, items = 3, count = threads * items;
      const input = integers(count, 1000, 5);
      const ranks = stableOrder(count, (i) => integers(count, 997, 6)[i]);
      const blocked = fl.full([count], -1, { dtype: "i32", device: dev() });
      const warpStriped = fl.full([count], -1, { dtype: "i32", device: dev() });
      const scattered = fl.full([count], -1, { dtype: "i32", device: dev() });
      compile("cub_block_sort.cu", dev()).fn("exchanges<64, 3>").launch({ grid: 1, block: threads }, blocked, warpStriped, scattered,
        fl.tensor(input, { dtype: "i32", device: dev() }), fl.tensor(ranks, { dtype: "i32", device: dev() }));
      expect(Array.from(blocked.toArray())).to.deep.equal(input);
      const warpSlot = (t: number, k: number) => Math.floor(t / 32) * 32 * items + k * 32 + (t % 32);
      expect(Array.from(warpStriped.toArray())).to.deep.equal(range(count).map((i) => input[warpSlot(Math.floor(i / items), i % items)]));
      const expected = new Array<number>(count);
      ranks.forEach((rank, i) => (expected[rank] = input[i]));
      expect(Array.from(scattered.toArray())).to.deep.equal(expected);
    });

    it(`cub_segments.cu: BlockHistogram of bytes (atomic and sort algorithms) added into a global histogram${label}`, () => {
      const module = compile("cub_segments.cu", dev());
      for (const [name, tile] of [["byte_histogram<64, 4, cub::BLOCK_HISTO_ATOMIC>", 256], ["byte_histogram<128, 2, cub::BLOCK_HISTO_SORT>", 256]] as const) {
        const n = 1000;
        const bytes = integers(n, 256, 3).map((v, i) => (i % 5 === 0 ? 17 : v));
        const histogram = fl.zeros([256], { dtype: "u32", device: dev() });
        module.fn(name).launch({ grid: Math.ceil(n / tile), block: tile / (name.includes("64,") ? 4 : 2) }, histogram, fl.tensor(bytes, { dtype: "u8", device: dev() }), n);
        const expected = new Array<number>(256).fill(0);
        for (const b of bytes) expected[b]++;
        expect(Array.from(histogram.toArray()), name).to.deep.equal(expected);
      }
    });

    it(`cub_segments.cu: BlockDiscontinuity run heads and tails across tiles, and a flag op taking the item's index${label}`, () => {
      const module = compile("cub_segments.cu", dev());
      const n = 250, tile = 96;
      const keys = integers(n, 4, 12).map((v, i) => Math.floor(i / 3) + (v === 0 ? 1 : 0));
      const heads = fl.full([n], -1, { dtype: "i32", device: dev() });
      const tails = fl.full([n], -1, { dtype: "i32", device: dev() });
      module.fn("run_flags<32, 3>").launch({ grid: Math.ceil(n / tile), block: 32 }, heads, tails, fl.tensor(keys, { dtype: "i32", device: dev() }), n);
      expect(Array.from(heads.toArray())).to.deep.equal(keys.map((k, i) => (i === 0 || keys[i - 1] !== k ? 1 : 0)));
      expect(Array.from(tails.toArray())).to.deep.equal(keys.map((k, i) => (i === n - 1 || keys[i + 1] !== k ? 1 : 0)));

      const x = integers(128, 9, 13).map((v) => v - 4.5);
      const signHeads = fl.full([128], -1, { dtype: "i32", device: dev() });
      module.fn("sign_heads<32, 4>").launch({ grid: 1, block: 32 }, signHeads, fl.tensor(x, { device: dev() }), 7);
      expect(Array.from(signHeads.toArray())).to.deep.equal(x.map((v, i) => (i === 0 || i % 7 === 0 || (x[i - 1] < 0) !== (v < 0) ? 1 : 0)));
    });

    it(`cub_segments.cu: BlockAdjacentDifference delta encoding over partial tiles, left with the tile's predecessor and right${label}`, () => {
      const n = 200, tile = 96;
      const x = integers(n, 10000, 14);
      const deltas = fl.full([n], -1, { dtype: "i32", device: dev() });
      const backward = fl.full([n], -1, { dtype: "i32", device: dev() });
      compile("cub_segments.cu", dev()).fn("delta_encode<32, 3>").launch({ grid: Math.ceil(n / tile), block: 32 }, deltas, backward, fl.tensor(x, { dtype: "i32", device: dev() }), n);
      expect(Array.from(deltas.toArray())).to.deep.equal(x.map((v, i) => (i === 0 ? v : v - x[i - 1])));
      const tileEnd = (i: number) => Math.min(n, (Math.floor(i / tile) + 1) * tile);
      expect(Array.from(backward.toArray())).to.deep.equal(x.map((v, i) => (i + 1 < tileEnd(i) ? v - x[i + 1] : v)));
    });

    it(`cub_segments.cu: WarpReduce HeadSegmentedSum and TailSegmentedSum${label}`, () => {
      const n = 200, threads = 128;
      const x = integers(n, 100, 15);
      const flags = integers(n, 5, 16).map((v) => (v === 0 ? 1 : 0));
      const headSums = fl.full([n], -2, { dtype: "i32", device: dev() });
      const tailSums = fl.full([n], -2, { dtype: "i32", device: dev() });
      compile("cub_segments.cu", dev()).fn("warp_segment_sums").launch({ grid: Math.ceil(n / threads), block: threads }, headSums, tailSums,
        fl.tensor(x, { dtype: "i32", device: dev() }), fl.tensor(flags, { dtype: "i32", device: dev() }), n);
      // A segment starts at a flagged lane or a warp's first lane, and ends before the next start or at the warp's end.
      const starts = (i: number) => flags[i] === 1 || i % 32 === 0;
      const segmentSum = (i: number) => {
        let sum = 0;
        for (let j = i; j < n && (j === i || !starts(j)) && j < (Math.floor(i / 32) + 1) * 32; j++) sum += x[j];
        return sum;
      };
      const expected = range(n).map((i) => (starts(i) ? segmentSum(i) : -1));
      expect(Array.from(headSums.toArray())).to.deep.equal(expected);
      expect(Array.from(tailSums.toArray())).to.deep.equal(expected);
    });

    it(`cub_segments.cu: a row's arg-max by BlockReduce and arg-min by WarpReduce over cub::KeyValuePair, first on ties${label}`, () => {
      const rows = 6, cols = 300;
      const logits = integers(rows * cols, 50, 17).map((v) => v / 5);
      const bestColumn = fl.full([rows], -2, { dtype: "i32", device: dev() });
      const bestValue = fl.full([rows], NaN, { device: dev() });
      const worstColumn = fl.full([rows], -2, { dtype: "i32", device: dev() });
      compile("cub_segments.cu", dev()).fn("row_argmax<128>").launch({ grid: rows, block: 128 }, bestColumn, bestValue, worstColumn,
        fl.tensor(logits, { device: dev() }), cols);
      const row = (r: number) => Array.from(fl.tensor(logits).toArray()).slice(r * cols, (r + 1) * cols);
      expect(Array.from(bestColumn.toArray())).to.deep.equal(range(rows).map((r) => row(r).indexOf(Math.max(...row(r)))));
      expect(Array.from(bestValue.toArray())).to.deep.equal(range(rows).map((r) => Math.max(...row(r))));
      expect(Array.from(worstColumn.toArray())).to.deep.equal(range(rows).map((r) => row(r).indexOf(Math.min(...row(r)))));
    });

    it(`cub_segments.cu: __syncthreads_count, __syncthreads_or and cub 1's CTA_SYNC, LaneId, ThreadLoad and DivideAndRoundUp${label}`, () => {
      const n = 300, threads = 128, blocks = Math.ceil(n / threads);
      const x = integers(n, 200, 18).map((v) => v - 120);
      const positives = fl.full([blocks], -1, { dtype: "i32", device: dev() });
      const anyAbove = fl.full([blocks], -1, { dtype: "i32", device: dev() });
      const lanes = fl.full([Math.ceil(n / 32)], -1, { dtype: "i32", device: dev() });
      compile("cub_segments.cu", dev()).fn("block_votes").launch({ grid: blocks, block: threads }, positives, anyAbove, lanes, fl.tensor(x, { device: dev() }), n, 70);
      const tileOf = (b: number) => x.slice(b * threads, (b + 1) * threads);
      expect(Array.from(positives.toArray())).to.deep.equal(range(blocks).map((b) => tileOf(b).filter((v) => v > 0).length));
      expect(Array.from(anyAbove.toArray())).to.deep.equal(range(blocks).map((b) => (tileOf(b).some((v) => v > 70) ? 1 : 0)));
      expect(Array.from(lanes.toArray())).to.deep.equal(range(Math.ceil(n / 32)).map((w) => Math.ceil((n - 32 * w) / 32)));
    });
  }
});

/** out[i][j] = sum over k of a(i, k) b(k, j), in double. */
function matmul(M: number, N: number, K: number, a: (i: number, k: number) => number, b: (k: number, j: number) => number): number[][] {
  return range(M).map((i) => range(N).map((j) => range(K).reduce((sum, k) => sum + a(i, k) * b(k, j), 0)));
}

/** tf32 as __float_to_tf32 rounds a float: to 10 bits of mantissa, ties away from zero. */
function tf32(x: number): number {
  const bits = new Uint32Array(new Float32Array([x]).buffer)[0];
  return new Float32Array(new Uint32Array([((bits + 0x1000) & 0xffffe000) >>> 0]).buffer)[0];
}

describe("kernel corpus: the CUDA samples' helper_math.h", () => {
  const n = 77, f = Math.fround;
  const add3 = (a: number[], b: number[]) => a.map((v, k) => f(v + b[k]));
  const scale3 = (a: number[], s: number) => a.map((v) => f(v * s));
  const dot3 = (a: number[], b: number[]) => f(f(f(a[0] * b[0]) + f(a[1] * b[1])) + f(a[2] * b[2]));
  const length3 = (a: number[]) => f(Math.sqrt(dot3(a, a)));
  const cross3 = (a: number[], b: number[]) => [f(a[1] * b[2] - a[2] * b[1]), f(a[2] * b[0] - a[0] * b[2]), f(a[0] * b[1] - a[1] * b[0])];
  const normalize3 = (a: number[]) => scale3(a, 1 / Math.sqrt(dot3(a, a)));
  for (const { label, dev } of variants(true)) {
    it(`particles_helper_math.cu: an integration step on float3 and float4 math, walls reflected, cells as int3${label}`, () => {
      const pos0 = fl.rand([n, 4], { device: dev(), seed: 61 }).toArray().map((v, i) => (i % 4 === 3 ? 1 + (i >> 2) : 2 * v - 1));
      const vel0 = fl.randn([n, 4], { device: dev(), seed: 62 }).toArray();
      const pos = fl.tensor(Array.from(pos0), { device: dev() }), vel = fl.tensor(Array.from(vel0), { device: dev() });
      const cells = fl.full([n * 3], -1, { dtype: "i32", device: dev() }), speeds = fl.full([n], NaN, { device: dev() });
      const p = { gravity: { x: 0, y: -0.5, z: 0 }, damping: 0.99, bounce: 0.5, radius: 0.05, grid: { x: 8, y: 8, z: 4 } };
      const dt = 0.25;
      compile("particles_helper_math.cu", dev()).fn("integrate").launch({ grid: 2, block: 64 }, pos, vel, cells, speeds, p, dt, n);
      const limit = f(1 - p.radius), grid = [8, 8, 4];
      const expectedPos: number[] = [], expectedVel: number[] = [], expectedCells: number[] = [], expectedSpeeds: number[] = [];
      for (let i = 0; i < n; i++) {
        let v = [vel0[4 * i], vel0[4 * i + 1], vel0[4 * i + 2]];
        v = scale3(add3(v, scale3([0, -0.5, 0], dt)), f(p.damping));
        let x = add3([pos0[4 * i], pos0[4 * i + 1], pos0[4 * i + 2]], scale3(v, dt));
        for (const axis of [0, 1]) {
          if (Math.abs(x[axis]) <= limit) continue;
          const normal = [0, 0, 0];
          normal[axis] = x[axis] > 0 ? -1 : 1;
          v = scale3(add3(v, scale3(normal, -2 * dot3(normal, v))), 0.5);
        }
        x = x.map((c) => Math.min(limit, Math.max(-limit, c)));
        expectedPos.push(...x, pos0[4 * i + 3]);
        expectedVel.push(...v, length3(v));
        expectedCells.push(...x.map((c, k) => Math.min(grid[k] - 1, Math.max(0, Math.floor(f(f(f(c + 1) / 2) * grid[k]))))));
        const y = Math.min(1, Math.max(0, length3(v) / 2));
        expectedSpeeds.push(y * y * (3 - 2 * y));
      }
      fl.assertClose(pos, expectedPos, { rtol: 1e-5, atol: 1e-6 });
      fl.assertClose(vel, expectedVel, { rtol: 1e-5, atol: 1e-6 });
      expect(Array.from(cells.toArray())).to.deep.equal(expectedCells);
      fl.assertClose(speeds, expectedSpeeds, { rtol: 1e-5, atol: 1e-6 });
    });

    it(`particles_helper_math.cu: frames from cross products, colours by lerp and fracf, integer vector min, max and dot${label}`, () => {
      const module = compile("particles_helper_math.cu", dev());
      const vel0 = fl.randn([n, 4], { device: dev(), seed: 63 }).toArray();
      const side = fl.full([n * 3], NaN, { device: dev() }), up = fl.full([n * 3], NaN, { device: dev() });
      module.fn("frames").launch({ grid: 2, block: 64 }, side, up, fl.tensor(Array.from(vel0), { device: dev() }), n);
      const sides: number[] = [], ups: number[] = [];
      for (let i = 0; i < n; i++) {
        const forward = normalize3([vel0[4 * i], vel0[4 * i + 1], vel0[4 * i + 2]]);
        const s = normalize3(cross3(forward, [0, 0, 1]));
        sides.push(...s);
        ups.push(...cross3(s, forward));
      }
      fl.assertClose(side, sides, { rtol: 1e-5, atol: 1e-5 });
      fl.assertClose(up, ups, { rtol: 1e-5, atol: 1e-5 });
      const t = range(n).map((i) => i * 0.37 - 5);
      const colour = fl.full([n * 4], NaN, { device: dev() }), packed = fl.full([n * 2], 0, { dtype: "u32", device: dev() });
      module.fn("shade").launch({ grid: 2, block: 64 }, colour, packed, fl.tensor(t, { device: dev() }), n);
      const cold = [0, 0.2, 1, 1], hot = [1, 0.3, 0, 1];
      fl.assertClose(colour, t.flatMap((v) => { const w = f(v) - Math.floor(f(v)); return cold.map((c, k) => c + w * (hot[k] - c)); }), { rtol: 1e-5, atol: 1e-6 });
      expect(Array.from(packed.toArray())).to.deep.equal(range(n).flatMap((i) => [(i - Math.min(i, 1)) * 2 + ((2 * i * i) % 7), (i - Math.min(-i, 1)) * 2 + 1]));
    });
  }
});

describe("kernel corpus: coalesced groups", () => {
  // Elements of a few warps: positive and not, buckets and parities mixed, a partial last warp.
  const n = 150, threads = 64, blocks = Math.ceil(n / threads);
  const values = range(n).map((i) => ((i * 7919) % 97) - 40);
  const warpsOf = <T>(f: (lanes: number[]) => T[]) => range(Math.ceil(n / 32)).flatMap((w) => f(range(32).map((l) => w * 32 + l).filter((i) => i < n)));
  for (const { label, dev } of variants(false)) {
    it(`cg_coalesced.cu: warp-aggregated atomics through coalesced_threads() compact the positive elements${label}`, () => {
      const out = fl.full([n], -1, { dtype: "i32", device: dev() });
      const count = fl.zeros([1], { dtype: "i32", device: dev() });
      compile("cg_coalesced.cu", dev()).fn("compact_positive").launch({ grid: blocks, block: threads }, out, count, fl.tensor(values, { dtype: "i32", device: dev() }), n);
      const positive = values.filter((v) => v > 0);
      expect(count.toArray()[0]).to.equal(positive.length);
      const kept = Array.from(out.toArray());
      expect(kept.slice(0, positive.length).sort((a, b) => a - b)).to.deep.equal(positive.sort((a, b) => a - b));
      expect(kept.slice(positive.length)).to.deep.equal(range(n - positive.length).map(() => -1));
    });

    it(`cg_coalesced.cu: labeled_partition's leaders count buckets, binary_partition ranks by parity${label}`, () => {
      const module = compile("cg_coalesced.cu", dev());
      const buckets = values.map((v) => (v + 40) % 7);
      const bins = fl.zeros([7], { dtype: "i32", device: dev() });
      module.fn("bucket_counts").launch({ grid: blocks, block: threads }, bins, fl.tensor(buckets, { dtype: "i32", device: dev() }), n);
      expect(Array.from(bins.toArray())).to.deep.equal(range(7).map((b) => buckets.filter((x) => x === b).length));
      const rank = fl.full([n], -1, { dtype: "i32", device: dev() }), size = fl.full([n], -1, { dtype: "i32", device: dev() });
      module.fn("parity_ranks").launch({ grid: blocks, block: threads }, rank, size, fl.tensor(values, { dtype: "i32", device: dev() }), n);
      // The lanes past n in a warp have the value 0: even.
      const expected = range(Math.ceil(n / 32)).flatMap((w) => {
        const all = range(32).map((l) => w * 32 + l);
        const odd = (i: number) => i < n && (values[i] & 1) !== 0;
        return all.filter((i) => i < n).map((i) => {
          const same = all.filter((j) => odd(j) === odd(i));
          return [same.indexOf(i), same.length];
        });
      });
      expect(Array.from(rank.toArray())).to.deep.equal(expected.map(([r]) => r));
      expect(Array.from(size.toArray())).to.deep.equal(expected.map(([, s]) => s));
    });

    it(`cg_coalesced.cu: cg::reduce, cg::exclusive_scan, ballot and shfl_down over the lanes that took a branch${label}`, () => {
      const outs = range(4).map(() => fl.full([n], -999, { dtype: "i32", device: dev() }));
      compile("cg_coalesced.cu", dev()).fn("positive_lanes").launch({ grid: blocks, block: threads }, ...outs, fl.tensor(values, { dtype: "i32", device: dev() }), n);
      const expected = range(4).map(() => range(n).map(() => -999));
      warpsOf((lanes) => {
        const active = lanes.filter((i) => values[i] > 0);
        let before = 0;
        active.forEach((i, r) => {
          expected[0][i] = active.reduce((s, j) => s + values[j], 0);
          expected[1][i] = before;
          before += values[i];
          expected[2][i] = active.filter((j) => values[j] > 50).length;
          expected[3][i] = r + 1 < active.length ? values[active[r + 1]] : -1;
        });
        return [];
      });
      outs.forEach((out, k) => expect(Array.from(out.toArray()), ["sum", "prefix", "above", "next"][k]).to.deep.equal(expected[k]));
    });

    it(`cg_coalesced.cu: a coalesced group handed on as a cg::thread_group${label}`, () => {
      const out = fl.full([n], -1, { dtype: "i32", device: dev() });
      compile("cg_coalesced.cu", dev()).fn("odd_ranks").launch({ grid: blocks, block: threads }, out, fl.tensor(values, { dtype: "i32", device: dev() }), n);
      const expected = range(n).map(() => -1);
      warpsOf((lanes) => {
        const odd = lanes.filter((i) => (values[i] & 1) !== 0);
        odd.forEach((i, r) => (expected[i] = r * 1000 + odd.length));
        return [];
      });
      expect(Array.from(out.toArray())).to.deep.equal(expected);
    });
  }
});

describe("kernel corpus: tensor cores through nvcuda::wmma", () => {
  for (const { label, dev } of variants(false)) {
    it(`wmma_gemm.cu: C = alpha A B + beta C with half inputs and float accumulators, column-major, one warp a tile${label}`, () => {
      const M = 48, N = 32, K = 64, alpha = 1.5, beta = -0.5;
      const a = fl.randn([M * K], { device: dev(), dtype: "f16", seed: 51 });
      const b = fl.randn([K * N], { device: dev(), dtype: "f16", seed: 52 });
      const cValues = fl.randn([M * N], { device: dev(), seed: 53 }).toArray();
      const c = fl.tensor(Array.from(cValues), { device: dev() });
      compile("wmma_gemm.cu", dev()).fn("wmma_gemm").launch({ grid: [Math.ceil(M / 64), Math.ceil(N / 16)], block: [128, 1] }, a, b, c, M, N, K, alpha, beta);
      const as = a.toArray(), bs = b.toArray();
      const ab = matmul(M, N, K, (i, k) => as[i + k * M], (k, j) => bs[k + j * K]);
      const expected = range(M * N).map((e) => alpha * ab[e % M][Math.floor(e / M)] + beta * cValues[e]);
      fl.assertClose(c, expected, { rtol: 1e-4, atol: 1e-4 });
    });

    it(`wmma_gemm.cu: bf16 on the 32 x 8 x 16 shape, int8 with int accumulators (exact), tf32 and double${label}`, () => {
      const module = compile("wmma_gemm.cu", dev());
      {
        const M = 64, N = 24, K = 48;
        const a = fl.randn([M * K], { device: dev(), dtype: "bf16", seed: 54 });
        const b = fl.randn([K * N], { device: dev(), dtype: "bf16", seed: 55 });
        const out = fl.full([M * N], NaN, { device: dev() });
        module.fn("wmma_bf16_32x8").launch({ grid: [M / 32, N / 8], block: 32 }, out, a, b, M, N, K);
        const as = a.toArray(), bs = b.toArray();
        fl.assertClose(out, matmul(M, N, K, (i, k) => as[i * K + k], (k, j) => bs[k + j * K]).flat(), { rtol: 1e-4, atol: 1e-4 });
      }
      {
        const M = 32, N = 48, K = 64;
        const a = integers(M * K, 256, 56).map((v) => v - 128), b = integers(K * N, 256, 57).map((v) => v - 128);
        const bias = integers(M * N, 2 ** 31, 58).map((v) => v - 2 ** 30);
        const out = fl.full([M * N], -1, { dtype: "i32", device: dev() });
        module.fn("wmma_int8").launch({ grid: [M / 16, N / 16], block: 32 }, out, fl.tensor(a, { dtype: "i8", device: dev() }),
          fl.tensor(b, { dtype: "i8", device: dev() }), fl.tensor(bias, { dtype: "i32", device: dev() }), M, N, K);
        const ab = matmul(M, N, K, (i, k) => a[i * K + k], (k, j) => b[k * N + j]).flat();
        expect(Array.from(out.toArray())).to.deep.equal(ab.map((v, e) => v + bias[e]));
      }
      {
        const M = 32, N = 16, K = 40;
        const a = fl.randn([M * K], { device: dev(), seed: 59 }), b = fl.randn([K * N], { device: dev(), seed: 60 });
        const out = fl.full([M * N], NaN, { device: dev() });
        module.fn("wmma_tf32").launch({ grid: [M / 16, N / 16], block: 32 }, out, a, b, M, N, K);
        const as = a.toArray(), bs = b.toArray();
        fl.assertClose(out, matmul(M, N, K, (i, k) => tf32(as[i * K + k]), (k, j) => tf32(bs[k * N + j])).flat(), { rtol: 1e-4, atol: 1e-4 });
      }
      {
        const M = 16, N = 24, K = 12;
        const a = fl.randn([M * K], { device: dev(), dtype: "f64", seed: 61 }), b = fl.randn([K * N], { device: dev(), dtype: "f64", seed: 62 });
        const out = fl.full([M * N], NaN, { device: dev(), dtype: "f64" });
        module.fn("wmma_f64").launch({ grid: [M / 8, N / 8], block: 32 }, out, a, b, M, N, K);
        const as = a.toArray(), bs = b.toArray();
        fl.assertClose(out, matmul(M, N, K, (i, k) => as[i * K + k], (k, j) => bs[k * N + j]).flat(), { rtol: 1e-12, atol: 1e-12 });
      }
    });

    it(`wmma_gemm.cu: half accumulators, A staged through shared memory, two warps' products added${label}`, () => {
      const a = fl.randn([2 * 256], { device: dev(), dtype: "f16", seed: 63 });
      const b = fl.randn([2 * 256], { device: dev(), dtype: "f16", seed: 64 });
      const out = fl.full([256], NaN, { device: dev(), dtype: "f16" });
      compile("wmma_gemm.cu", dev()).fn("wmma_half_accumulate").launch({ grid: 1, block: 64 }, out, a, b);
      const as = a.toArray(), bs = b.toArray();
      const product = (w: number) => matmul(16, 16, 16, (i, k) => as[w * 256 + i * 16 + k], (k, j) => bs[w * 256 + k * 16 + j]).flat();
      const p0 = product(0), p1 = product(1);
      fl.assertClose(out, range(256).map((e) => roundF16(roundF16(p0[e]) + roundF16(p1[e]))), { rtol: 1e-2, atol: 1e-2 });
      // A sum just past a half's midpoint, 1 + 2^-11 + 2^-24: the emulator rounds it once, to 1 + 2^-10
      // (through a float it would round to 1 + 2^-11, then to 1); a GPU's tensor cores, summing their own
      // way, give one of the two.
      const tieA = range(512).map((i) => [1, 2 ** -11, 2 ** -12][i] ?? 0), tieB = range(512).map((i) => (i === 0 || i === 16 ? 1 : i === 32 ? 2 ** -12 : 0));
      const tie = fl.full([256], NaN, { device: dev(), dtype: "f16" });
      compile("wmma_gemm.cu", dev()).fn("wmma_half_accumulate")
        .launch({ grid: 1, block: 64 }, tie, fl.tensor(tieA, { device: dev(), dtype: "f16" }), fl.tensor(tieB, { device: dev(), dtype: "f16" }));
      expect(dev().backend === "cpu" ? [1 + 2 ** -10] : [1, 1 + 2 ** -10]).to.include(tie.toArray()[0]);
    });
  }
});
