// What notebooks read from the package: kernel definitions and committed results.
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import * as fl from "../src";

const ROOT = path.resolve(__dirname, "..", "..");

describe("kernel sources and committed results", () => {
  it("lists the kernel files and returns a whole file when no name is given", () => {
    expect(fl.kernelFiles()).to.include.members(["elementwise.hip", "norm.hip", "copy.hip"]);
    expect(fl.kernelSource("norm.hip")).to.equal(fs.readFileSync(path.join(ROOT, "kernels", "norm.hip"), "utf8"));
  });

  it("cuts out a function with its comment and template lines, braces balanced", () => {
    const text = fl.kernelSource("norm.hip", "block_sum");
    const lines = text.split("\n");
    expect(lines[0]).to.match(/^\/\/ The sum of v over the block/);
    expect(lines.some((l) => l.startsWith("__device__ __forceinline__ float block_sum("))).to.equal(true);
    expect(lines[lines.length - 1]).to.equal("}");
    expect(text).to.not.include("load_chunk");
    const opened = (text.match(/\{/g) ?? []).length, closed = (text.match(/\}/g) ?? []).length;
    expect(opened).to.equal(closed);
  });

  it("cuts out one-line structs, templates and constants, in the order asked", () => {
    const text = fl.kernelSource("elementwise.hip", "AddReluFn", "add_relu_kernel");
    expect(text.indexOf("struct AddReluFn")).to.be.lessThan(text.indexOf("add_relu_kernel("));
    expect(text).to.include("template <typename T>\n__global__ void add_relu_kernel(");
    expect(fl.kernelSource("norm.hip", "kCachedChunks").trim().endsWith("constexpr int kCachedChunks = 4;")).to.equal(true);
  });

  it("names the argument when a file or a name is not there", () => {
    expect(() => fl.kernelSource("nope.hip")).to.throw(/fl.kernelSource: file must be one of .*norm.hip.*, got "nope.hip"/);
    expect(() => fl.kernelSource("norm.hip", "no_such_fn")).to.throw(/names\[0\] must be a function, struct or constant defined in norm.hip, got "no_such_fn"/);
    expect(() => fl.kernelSource("norm.hip", "a b")).to.throw(/names\[0\] must be a C\+\+ identifier/);
  });

  it("reads the newest committed bench run of a device, labelled, with its rows", () => {
    const files = fl.resultsFiles();
    const h100 = files.filter((f) => f.startsWith("nvidia-h100"));
    expect(h100.length).to.be.greaterThan(0);
    const run = fl.committedResults("nvidia-h100")!;
    expect(run.file).to.equal(h100[h100.length - 1]);
    expect(run.device.props.name).to.match(/H100/);
    const bench = fl.committedBench("nvidia-h100", ["addRelu", "biasGelu"])!;
    expect([...new Set(bench.rows.map((r) => r.op))].sort()).to.deep.equal(["addRelu", "biasGelu", "biasGelu (tanh)"]);
    const raw = JSON.parse(fs.readFileSync(path.join(ROOT, "bench", "results", run.file), "utf8"));
    const rawRow = raw.results.find((r: { op: string; dtype: string }) => r.op === "addRelu" && r.dtype === "f32");
    expect(bench.row("addRelu").fusedMs).to.equal(rawRow.fused.medianMs);
    expect(bench.row("addRelu").speedup).to.equal(rawRow.speedup);
    expect(bench.toString()).to.include(`measured on ${raw.device.props.name} (${run.file}`);
    expect(() => bench.row("siluAndMul")).to.throw(/op must be one of addRelu, biasGelu, biasGelu \(tanh\) in f32, got "siluAndMul"/);
  });

  it("returns undefined where nothing is committed, and refuses an empty prefix", () => {
    expect(fl.committedResults("no-such-device")).to.equal(undefined);
    expect(fl.committedBench("no-such-device")).to.equal(undefined);
    expect(() => fl.committedResults("")).to.throw(/prefix must be the start of a results file name/);
  });
});
