// fl.onnx: graphs written as ONNX models, and what ONNX Runtime's optimizer fuses in
// them. The runtime is an optional package; CI installs it (FUSELAB_REQUIRE_ORT=1
// makes its absence a failure), elsewhere the tests that run it are skipped.
import { expect } from "chai";
import * as fl from "../src";
import { expectRejects, expectThrows } from "./helpers";

const COLS = 256;
const SHAPE = [2, 8, COLS];
const ELEMENTS = SHAPE.reduce((p, n) => p * n, 1);
const F32 = 4;
const vector = (seed: number) => ({ shape: [COLS], values: Array.from({ length: COLS }, (_, i) => Math.sin(seed + i)) });

// gelu(x + bias) written out with erf, the pattern ONNX Runtime's BiasGelu fusion matches.
const biasGeluErf: fl.onnx.OnnxGraph = {
  inputs: { x: SHAPE },
  constants: { bias: vector(1), sqrt2: Math.SQRT2, one: 1, half: 0.5 },
  nodes: [
    ["Add", ["x", "bias"], "xb"], ["Div", ["xb", "sqrt2"], "scaled"], ["Erf", ["scaled"], "erf"],
    ["Add", ["erf", "one"], "erf1"], ["Mul", ["xb", "erf1"], "product"], ["Mul", ["product", "half"], "y"],
  ],
  output: "y",
};

describe("fl.onnx.model", () => {
  const where = "fl.onnx.model";
  it("refuses a node that reads a name not defined before it", () => {
    expectThrows(() => fl.onnx.model({ inputs: { x: SHAPE }, nodes: [["Relu", ["y"], "y"]], output: "y" }),
      fl.ArgumentError, `${where}: graph.nodes[0] input 0 must be an input, a constant or an earlier node's output, got "y"`);
  });
  it("refuses a shape that is not positive integers", () => {
    expectThrows(() => fl.onnx.model({ inputs: { x: [4, 0] }, nodes: [["Relu", ["x"], "y"]], output: "y" }),
      fl.ArgumentError, `${where}: graph.inputs.x must be a shape of positive integers, got [4, 0]`);
  });
  it("refuses a constant whose values do not fill its shape", () => {
    expectThrows(() => fl.onnx.model({ inputs: { x: SHAPE }, constants: { b: { shape: [3], values: [1, 2] } }, nodes: [["Add", ["x", "b"], "y"]], output: "y" }),
      fl.ArgumentError, /^fl\.onnx\.model: graph\.constants\.b must be a number or \{ shape, values \} with one value per element, got /);
  });
  it("refuses a name written twice", () => {
    expectThrows(() => fl.onnx.model({ inputs: { x: SHAPE }, nodes: [["Relu", ["x"], "x"]], output: "x" }),
      fl.ArgumentError, `${where}: graph.nodes[0] output must be a name not used before, got "x"`);
  });
  it("refuses an output no node writes", () => {
    expectThrows(() => fl.onnx.model({ inputs: { x: SHAPE }, nodes: [["Relu", ["x"], "y"]], output: "z" }),
      fl.ArgumentError, `${where}: graph.output must be the output name of one of the nodes, got "z"`);
  });
  it("refuses a node that is not [op type, inputs, output]", () => {
    expectThrows(() => fl.onnx.model({ inputs: { x: SHAPE }, nodes: [["Relu", "x", "y"] as unknown as fl.onnx.OnnxNode], output: "y" }),
      fl.ArgumentError, /^fl\.onnx\.model: graph\.nodes\[0\] must be \[op type, input names, output name, attributes\?\], got /);
  });
  it("refuses an attribute that is not a number or a list of integers", () => {
    expectThrows(() => fl.onnx.model({ inputs: { x: SHAPE }, nodes: [["Softmax", ["x"], "y", { axis: NaN }]], output: "y" }),
      fl.ArgumentError, `${where}: graph.nodes[0] attribute axis must be a finite number or a list of integers, got NaN`);
  });
});

describe("fl.onnx.fuse (ONNX Runtime on the CPU)", function () {
  this.timeout(120_000);
  before(function () {
    if (fl.onnx.runtime() !== undefined) return;
    if (process.env.FUSELAB_REQUIRE_ORT === "1") throw new Error("FUSELAB_REQUIRE_ORT=1 but onnxruntime-node cannot be loaded");
    this.skip();
  });

  it("names the runtime it loaded", () => {
    expect(fl.onnx.runtime()).to.match(/^onnxruntime-node \d+\.\d+\.\d+$/);
  });

  it("fuses bias + GELU written with erf into one BiasGelu kernel, with the bytes ONNX Runtime counts", async () => {
    const report = await fl.onnx.fuse(biasGeluErf, { repeats: 3 });
    expect(report.unoptimized.kernels.map((k) => k.op)).to.deep.equal(["Add", "Div", "Erf", "Add", "Mul", "Mul"]);
    expect(report.optimized.kernels.map((k) => k.op)).to.deep.equal(["BiasGelu"]);
    // Each kernel reads its inputs and writes its output once: counted from the shapes here.
    const tensor = ELEMENTS * F32;
    const scalar = F32;
    const unfusedBytes = [tensor + COLS * F32 + tensor, tensor + scalar + tensor, 2 * tensor, tensor + scalar + tensor, 3 * tensor, tensor + scalar + tensor];
    expect(report.unoptimized.kernels.map((k) => k.bytes)).to.deep.equal(unfusedBytes);
    expect(report.unoptimized.bytes).to.equal(unfusedBytes.reduce((s, b) => s + b, 0));
    expect(report.optimized.bytes).to.equal(tensor + COLS * F32 + tensor);
    expect(report.maxAbsDiff).to.be.below(1e-5);
    expect(report.unoptimized.medianMs).to.be.above(0);
    expect(report.runtime).to.match(/, CPU execution provider$/);
  });

  it("leaves add + ReLU as two kernels: no pattern of its optimizer matches it", async () => {
    const report = await fl.onnx.fuse({ inputs: { a: SHAPE, b: SHAPE }, nodes: [["Add", ["a", "b"], "sum"], ["Relu", ["sum"], "y"]], output: "y" }, { repeats: 1 });
    expect(report.optimized.kernels.map((k) => k.op)).to.deep.equal(["Add", "Relu"]);
    expect(report.maxAbsDiff).to.equal(0);
  });

  it("passes integer and float attributes as the operator reads them", async () => {
    const report = await fl.onnx.fuse({
      inputs: { x: SHAPE, r: SHAPE }, constants: { gamma: vector(2), beta: vector(3) },
      nodes: [["Add", ["x", "r"], "sum"], ["LayerNormalization", ["sum", "gamma", "beta"], "y", { axis: -1, epsilon: 1e-5 }]],
      output: "y",
    }, { repeats: 1 });
    expect(report.optimized.kernels.map((k) => k.op)).to.deep.equal(["SkipLayerNormalization"]);
    expect(report.maxAbsDiff).to.be.below(1e-5);
  });

  it("says that ONNX Runtime refused a graph, with its reason", async () => {
    await expectRejects(fl.onnx.fuse({ inputs: { x: SHAPE }, nodes: [["NoSuchOperator", ["x"], "y"]], output: "y" }),
      fl.FuselabError, /^fl\.onnx\.fuse: ONNX Runtime refused the graph: .*NoSuchOperator/);
  });

  it("checks its options", async () => {
    await expectRejects(fl.onnx.fuse(biasGeluErf, { repeats: 0 }), fl.ArgumentError,
      "fl.onnx.fuse: options.repeats must be a positive integer, got 0");
  });
});
