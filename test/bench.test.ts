// fl.bench and fl.copyCeiling: the API works and its numbers agree with each
// other and with the traffic model. No timing is asserted: only consistency.
import { expect } from "chai";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as fl from "../src";
import { percentile } from "../src/bench";
import { wrongVariants } from "../bench/elementwise-variants";
import { TorchCase, runTorch } from "../bench/vs-torch";
import { expectRejects } from "./helpers";

describe("bench", function () {
  const dev = fl.device();
  const shape = [64, 256];
  let a: fl.Tensor;
  let b: fl.Tensor;

  before(function () {
    a = fl.randn(shape, { seed: 11, device: dev });
    b = fl.randn(shape, { seed: 12, device: dev });
  });

  after(function () {
    a.dispose();
    b.dispose();
  });

  it("times each case in order, with consistent statistics", async function () {
    const results = await fl.bench({
      unfused: () => fl.ops.relu(fl.ops.add(a, b)),
      fused: () => fl.fused.addRelu(a, b),
    }, { warmup: 1, iters: 7 });
    expect(results.map((r) => r.name)).to.deep.equal(["unfused", "fused"]);
    for (const r of results) {
      expect(r.device).to.equal(dev.describe());
      expect(r.iters).to.equal(7);
      expect(r.warmup).to.equal(1);
      expect(r.samplesMs).to.have.length(7);
      const sorted = [...r.samplesMs].sort((x, y) => x - y);
      expect(r.minMs).to.equal(sorted[0]).and.to.be.above(0);
      expect(r.p20Ms).to.be.within(r.minMs, r.medianMs);
      expect(r.medianMs).to.equal(sorted[3]);
      expect(r.p80Ms).to.be.within(r.medianMs, sorted[6]);
      expect(r.pctOfCopy).to.equal(undefined);
    }
    expect(results.get("unfused").launches).to.equal(2);
    expect(results.get("fused").launches).to.equal(1);
  });

  it("takes bytes from the traffic model and GB/s from bytes over the median", async function () {
    const unfusedLedger = fl.traffic(() => fl.ops.relu(fl.ops.add(a, b)));
    const fusedLedger = fl.traffic(() => fl.fused.addRelu(a, b));
    const results = await fl.bench({
      unfused: () => fl.ops.relu(fl.ops.add(a, b)),
      fused: () => fl.fused.addRelu(a, b),
    }, { warmup: 0, iters: 3, copyCeilingGBs: 100 });
    const [unfused, fused] = results;
    expect([unfused.bytesRead, unfused.bytesWritten]).to.deep.equal([unfusedLedger.bytesRead, unfusedLedger.bytesWritten]);
    expect([fused.bytesRead, fused.bytesWritten]).to.deep.equal([fusedLedger.bytesRead, fusedLedger.bytesWritten]);
    // add + relu: reads a, b, then the sum; writes the sum, then the output.
    expect(unfused.bytesRead + unfused.bytesWritten).to.equal(5 * a.bytes);
    expect(fused.bytesRead + fused.bytesWritten).to.equal(3 * a.bytes);
    for (const r of results) {
      expect(r.gbps).to.be.closeTo((r.bytesRead + r.bytesWritten) / r.medianMs / 1e6, 1e-9 * r.gbps);
      expect(r.pctOfCopy).to.be.closeTo(r.gbps, 1e-9 * r.gbps);
    }
  });

  it("reports speedups against a named case", async function () {
    const results = await fl.bench({
      unfused: () => fl.ops.relu(fl.ops.add(a, b)),
      fused: () => fl.fused.addRelu(a, b),
    }, { warmup: 0, iters: 3 });
    const speedup = results.speedupVs("unfused");
    expect(speedup.unfused).to.equal(1);
    expect(speedup.fused).to.equal(results[0].medianMs / results[1].medianMs);
    expect(() => results.speedupVs("nope")).to.throw('results.speedupVs: baseline must be one of "unfused", "fused", got "nope"');
  });

  it("prints text and Markdown tables with a row per case", async function () {
    const results = await fl.bench({
      unfused: () => fl.ops.relu(fl.ops.add(a, b)),
      fused: () => fl.fused.addRelu(a, b),
    }, { warmup: 0, iters: 3, copyCeilingGBs: 50 });
    const text = results.toString().split("\n");
    expect(text).to.have.length(4);
    expect(text[0]).to.match(/^case\s+launches\s+MB moved\s+median ms\s+p20-p80 ms\s+GB\/s\s+% of copy\s+x vs unfused$/);
    expect(text[2]).to.match(/^unfused\s+2\s/);
    expect(text[3]).to.match(/^fused\s+1\s.*%\s+\d+\.\d\dx$/);
    const markdown = results.toMarkdown().split("\n");
    expect(markdown).to.have.length(4);
    expect(markdown[1]).to.equal("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    expect(markdown[3]).to.match(/^\| fused \| 1 \| /);
  });

  it("frees the tensors a case made and keeps the ones it was given", async function () {
    const made: fl.Tensor[] = [];
    await fl.bench({
      unfused: () => {
        const sum = fl.ops.add(a, b);
        const out = fl.ops.relu(sum);
        made.push(sum, out);
        return out;
      },
    }, { warmup: 0, iters: 2 });
    expect(made.map((t) => t.disposed)).to.deep.equal([true, true]);
    expect([a.disposed, b.disposed]).to.deep.equal([false, false]);
  });

  it("leaves a tensor updated in place as one run of the case leaves it", async function () {
    const weight = fl.randn([shape[1]], { seed: 13, device: dev });
    const residual = fl.randn(shape, { seed: 14, device: dev });
    const expected = fl.ops.add(a, residual);
    await fl.bench({ fused: () => fl.fused.addRmsNorm(a, residual, weight) }, { warmup: 2, iters: 3 });
    expect(Array.from(residual.toArray())).to.deep.equal(Array.from(expected.toArray()));
    [weight, residual, expected].forEach((t) => t.dispose());
  });

  it("gets the output of fl.fused.addRelu from every variant bench:variants times", function () {
    // A flat tail (4097 is not a multiple of 4) and whole float4s only.
    expect(wrongVariants(dev, 3, 4097)).to.deep.equal([]);
    expect(wrongVariants(dev, 5, 64)).to.deep.equal([]);
  });

  it("times a compiled kernel, which has no traffic model", async function () {
    const module = fl.compile(`
      __global__ void negate(float* out, const float* x, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = -x[i];
      }`, { device: dev });
    const out = fl.empty(shape, { device: dev });
    const results = await fl.bench({ negate: () => module.fn("negate").launch({ grid: 64, block: 256 }, out, a, a.size) }, { warmup: 0, iters: 2 });
    const [r] = results;
    expect([r.launches, r.bytesRead, r.bytesWritten]).to.deep.equal([1, 0, 0]);
    expect(r.gbps).to.be.NaN;
    expect(results.toString().split("\n")[2]).to.match(/^negate\s+1\s+-\s.*\s-$/);
    expect(out.disposed).to.equal(false);
    out.dispose();
  });

  it("chooses fewer iterations when an iteration is long, and at least 3", async function () {
    const [r] = await fl.bench({ fused: () => fl.fused.addRelu(a, b) }, { targetMs: 1e-6 });
    expect(r.iters).to.equal(3);
    expect(r.warmup).to.equal(1);
  });

  it("rejects what it cannot time, word for word", async function () {
    const rejects = (promise: Promise<unknown>, message: string) => expectRejects(promise, fl.ArgumentError, message);
    await rejects(fl.bench([] as never), "fl.bench: cases must be an object of functions, e.g. { unfused: () => ..., fused: () => ... }, got []");
    await rejects(fl.bench({}), "fl.bench: cases must be an object of functions, e.g. { unfused: () => ..., fused: () => ... }, got an empty object");
    await rejects(fl.bench({ fused: 3 as never }), "fl.bench: cases.fused must be a function that launches work, got 3");
    await rejects(fl.bench({ idle: () => 1 }), "fl.bench: cases.idle must be a function that launches at least one kernel, got a function that launched none");
    await rejects(fl.bench({ later: async () => fl.fused.addRelu(a, b) }),
      "fl.bench: cases.later must be a synchronous function (launches after an await are not counted), got a function that returned a Promise");
    await rejects(fl.bench({ freed: () => { const t = fl.ops.add(a, b); fl.ops.relu(t); t.dispose(); } }),
      `fl.bench: cases.freed must be a function that keeps alive every tensor its launches use (they are replayed), got a function that disposed an f32 tensor of shape [64, 256] on ${dev.describe()}`);
    await rejects(fl.bench({ fused: () => fl.fused.addRelu(a, b) }, { iters: 0 }), "fl.bench: options.iters must be an integer from 1 to 1000000, got 0");
    await rejects(fl.bench({ fused: () => fl.fused.addRelu(a, b) }, { copyCeilingGBs: -1 }), "fl.bench: options.copyCeilingGBs must be a finite number > 0, got -1");
    await rejects(fl.bench({ fused: () => fl.fused.addRelu(a, b) }, { iter: 5 } as never), "fl.bench: options must be an object with keys among warmup, iters, targetMs, flushL2, copyCeilingGBs, got the key \"iter\"");
    await rejects(fl.copyCeiling({ device: dev, bytes: 100 }), "fl.copyCeiling: options.bytes must be a positive multiple of 16 (whole float4s), got 100");
  });

  it("measures the copy ceiling as bytes read and written over the median time", async function () {
    const bytes = 2 ** 20 + 16;
    const ceiling = await fl.copyCeiling({ device: dev, bytes, warmup: 1, iters: 3 });
    expect(ceiling.device).to.equal(dev.describe());
    expect([ceiling.bytes, ceiling.iters]).to.deep.equal([bytes, 3]);
    expect(ceiling.gbs).to.be.closeTo((2 * bytes) / ceiling.medianMs / 1e6, 1e-9 * ceiling.gbs);
  });

  it("copies every element with copy_f32x4, the vector part and the tail", async function () {
    const n = 4 * 1000 + 3;
    const source = fl.randn([n], { seed: 15, device: dev });
    const destination = fl.empty([n], { device: dev });
    fl.builtins(dev).fn("copy_f32x4").launch({ grid: 3, block: 64 }, destination, source, n);
    expect(Array.from(destination.toArray())).to.deep.equal(Array.from(source.toArray()));
    [source, destination].forEach((t) => t.dispose());
  });

  it("interpolates percentiles between neighbours", function () {
    expect(percentile([1, 2, 3, 4, 5], 0.5)).to.equal(3);
    expect(percentile([1, 2, 3, 4, 5], 0.2)).to.be.closeTo(1.8, 1e-12);
    expect(percentile([1, 2, 3, 4], 0.5)).to.equal(2.5);
    expect(percentile([7], 0.8)).to.equal(7);
  });
});

describe("bench --vs torch", function () {
  const cases: TorchCase[] = ["addRelu f32", "softmax f32", "softmax bf16"].map((id) => ({
    id, op: id.split(" ")[0], dtype: id.split(" ")[1], args: [{ $tensor: [4, 8] }], flushL2: true,
  }));
  let dir: string;

  beforeEach(function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-fake-python-"));
  });

  afterEach(function () {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A stand-in for python3 that answers the first `answered` cases of the spec, then exits with `status`. */
  function fakePython(answered: number, status: number): string {
    const file = path.join(dir, "python");
    fs.writeFileSync(file, `#!${process.execPath}
const fs = require("fs");
const [script, specFile, outFile, budget] = process.argv.slice(2);
const spec = JSON.parse(fs.readFileSync(specFile, "utf8"));
fs.writeFileSync(${JSON.stringify(path.join(dir, "argv.json"))}, JSON.stringify({ script, budget, spec }));
const results = spec.cases.slice(0, ${answered}).map((c, i) => ({ id: c.id, eagerMs: 1 + i, compileMs: 0.5 + i }));
if (${answered} > 0) fs.writeFileSync(outFile, JSON.stringify({ torch: "2.x", cuda: "13.0", device: "fake", results }));
process.exit(${status});
`, { mode: 0o755 });
    return file;
  }

  it("hands PyTorch the cases, iterations and time budget, and reads its times back", function () {
    const run = runTorch(cases, fakePython(3, 0), 10, 50, 600);
    const seen = JSON.parse(fs.readFileSync(path.join(dir, "argv.json"), "utf8"));
    expect(seen.script).to.match(/bench\/torch\/bench_torch\.py$/);
    expect(seen.budget).to.equal("600");
    expect(seen.spec).to.deep.equal({ warmup: 10, iters: 50, cases });
    expect(run.device).to.equal("fake");
    expect([...run.results.entries()]).to.deep.equal([
      ["addRelu f32", { eagerMs: 1, compileMs: 0.5 }], ["softmax f32", { eagerMs: 2, compileMs: 1.5 }], ["softmax bf16", { eagerMs: 3, compileMs: 2.5 }],
    ]);
  });

  it("keeps the cases a stopped run finished, and says why the others have no times", function () {
    const run = runTorch(cases, fakePython(1, 137), 10, 50, 600);
    expect(run.results.get("addRelu f32")).to.deep.equal({ eagerMs: 1, compileMs: 0.5 });
    for (const id of ["softmax f32", "softmax bf16"]) {
      expect(run.results.get(id)).to.deep.equal({ error: "not run: bench_torch.py stopped (exit 137) before this case" });
    }
  });

  it("says what to do when PyTorch gives nothing", function () {
    expect(() => runTorch(cases, fakePython(0, 1), 10, 50, 600)).to.throw(/--vs torch: .*bench_torch\.py failed \(exit 1\); it needs PyTorch with a CUDA device/);
    expect(() => runTorch(cases, path.join(dir, "no-such-python"), 10, 50, 600)).to.throw(/--vs torch: cannot run .*no-such-python .*give another with --python/);
  });
});

describe("npm run bench -- --ops", function () {
  this.timeout(120_000);
  const script = path.join(__dirname, "..", "bench", "run.js");
  let dir: string;

  beforeEach(function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-bench-ops-"));
  });

  afterEach(function () {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("times every example of the ops named, and no other", function () {
    execFileSync(process.execPath, [script, "--ops", "softmax,addRmsNorm", "--rows", "8", "--cols", "64", "--out", dir], { stdio: "pipe" });
    const json = fs.readdirSync(dir).find((f) => f.endsWith(".json"));
    const run = JSON.parse(fs.readFileSync(path.join(dir, json!), "utf8"));
    const ops = new Set(run.results.map((r: { op: string }) => r.op));
    expect([...ops].sort()).to.deep.equal(["addRmsNorm", "softmax"]);
    expect(run.results).to.have.length(4); // two ops, f32 and bf16
  });

  it("names an op it does not know, and lists those it does", function () {
    expect(() => execFileSync(process.execPath, [script, "--ops", "softmax,sofmax", "--out", dir], { stdio: "pipe" }))
      .to.throw(/--ops: no fused op "sofmax" \(there are addRelu, .*softmax/);
  });
});
