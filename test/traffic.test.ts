// The traffic model: each fused op's ledger against its unfused chain's, with
// exact byte counts for a small shape, and the ledger's own behaviour.
import { expect } from "chai";
import * as fl from "../src";
import { recordTraffic } from "../src/traffic";

// x: [4, 8] f32 = 128 bytes; a bias over its rows: [8] = 32 bytes.
const ROWS = 4, COLS = 8;
const X = ROWS * COLS * 4, BIAS = COLS * 4;

type Entry = [op: string, kernel: string, bytesRead: number, bytesWritten: number, launches: number];

function entries(ledger: fl.Ledger): Entry[] {
  return ledger.entries.map((e) => [e.op, e.kernel, e.bytesRead, e.bytesWritten, e.launches]);
}

describe("traffic", () => {
  const dev = () => fl.device();
  const randn = (shape: number[], seed: number, dtype: "f32" | "f16" = "f32") =>
    fl.randn(shape, { dtype, device: dev(), seed });
  let a: fl.Tensor, b: fl.Tensor, bias: fl.Tensor, halves: fl.Tensor, gate: fl.Tensor, up: fl.Tensor;
  before(() => {
    a = randn([ROWS, COLS], 1);
    b = randn([ROWS, COLS], 2);
    bias = randn([COLS], 3);
    halves = randn([ROWS, 2, COLS], 4);
    gate = randn([ROWS, COLS], 5);
    up = randn([ROWS, COLS], 6);
  });

  // [fused op, its ledger entries, unfused chain, its ledger entries]
  const cases: [string, () => unknown, Entry[], () => unknown, Entry[]][] = [
    ["addRelu", () => fl.fused.addRelu(a, b), [["fused.addRelu", "add_relu_f32", 2 * X, X, 1]],
      () => fl.ops.relu(fl.ops.add(a, b)), [["ops.add", "add_f32", 2 * X, X, 1], ["ops.relu", "relu_f32", X, X, 1]]],
    ["addReluScale", () => fl.fused.addReluScale(a, b, 0.5), [["fused.addReluScale", "add_relu_scale_f32", 2 * X, X, 1]],
      () => fl.ops.scale(fl.ops.relu(fl.ops.add(a, b)), 0.5),
      [["ops.add", "add_f32", 2 * X, X, 1], ["ops.relu", "relu_f32", X, X, 1], ["ops.scale", "scale_f32", X, X, 1]]],
    ["reluScaleBias", () => fl.fused.reluScaleBias(a, 0.5, bias),
      [["fused.reluScaleBias", "relu_scale_bias_f32", X + BIAS, X, 1]],
      () => fl.ops.biasAdd(fl.ops.scale(fl.ops.relu(a), 0.5), bias),
      [["ops.relu", "relu_f32", X, X, 1], ["ops.scale", "scale_f32", X, X, 1], ["ops.biasAdd", "bias_add_f32", X + BIAS, X, 1]]],
    ["reluScaleBias without bias", () => fl.fused.reluScaleBias(a, 0.5), [["fused.reluScaleBias", "relu_scale_f32", X, X, 1]],
      () => fl.ops.scale(fl.ops.relu(a), 0.5), [["ops.relu", "relu_f32", X, X, 1], ["ops.scale", "scale_f32", X, X, 1]]],
    ["scaleBias", () => fl.fused.scaleBias(a, 0.5, bias), [["fused.scaleBias", "scale_bias_f32", X + BIAS, X, 1]],
      () => fl.ops.biasAdd(fl.ops.scale(a, 0.5), bias),
      [["ops.scale", "scale_f32", X, X, 1], ["ops.biasAdd", "bias_add_f32", X + BIAS, X, 1]]],
    ["biasGelu", () => fl.fused.biasGelu(a, bias, { approximate: "tanh" }),
      [["fused.biasGelu", "bias_gelu_tanh_f32", X + BIAS, X, 1]],
      () => fl.ops.gelu(fl.ops.biasAdd(a, bias), { approximate: "tanh" }),
      [["ops.biasAdd", "bias_add_f32", X + BIAS, X, 1], ["ops.gelu", "gelu_tanh_f32", X, X, 1]]],
    ["siluAndMul", () => fl.fused.siluAndMul(halves), [["fused.siluAndMul", "silu_and_mul_f32", 2 * X, X, 1]],
      () => fl.ops.mul(fl.ops.silu(gate), up), [["ops.silu", "silu_f32", X, X, 1], ["ops.mul", "mul_f32", 2 * X, X, 1]]],
    ["geluAndMul", () => fl.fused.geluAndMul(halves), [["fused.geluAndMul", "gelu_and_mul_f32", 2 * X, X, 1]],
      () => fl.ops.mul(fl.ops.gelu(gate), up), [["ops.gelu", "gelu_f32", X, X, 1], ["ops.mul", "mul_f32", 2 * X, X, 1]]],
  ];

  for (const [name, fusedFn, fusedEntries, chainFn, chainEntries] of cases) {
    it(`${name}: one launch against the chain's ${chainEntries.length}, fewer bytes`, () => {
      const fused = fl.traffic(fusedFn);
      const chain = fl.traffic(chainFn);
      expect(entries(fused)).to.deep.equal(fusedEntries);
      expect(entries(chain)).to.deep.equal(chainEntries);
      expect(fused.launches).to.equal(1);
      expect(chain.launches).to.equal(chainEntries.length);
      expect(chain.bytesRead).to.equal(chainEntries.reduce((s, e) => s + e[2], 0));
      expect(chain.bytesWritten).to.equal(chainEntries.reduce((s, e) => s + e[3], 0));
      expect(fused.bytes).to.be.below(chain.bytes);
    });
  }

  it("counts bytes of the storage dtype: f16 moves half of f32", () => {
    const x16 = randn([ROWS, COLS], 7, "f16"), y16 = randn([ROWS, COLS], 8, "f16");
    const ledger = fl.traffic(() => fl.fused.addRelu(x16, y16));
    expect(entries(ledger)).to.deep.equal([["fused.addRelu", "add_relu_f16", X, X / 2, 1]]);
  });

  it("sums repeated launches of one op and kernel into one entry", () => {
    const ledger = fl.traffic(() => fl.ops.add(fl.ops.add(a, b), b));
    expect(entries(ledger)).to.deep.equal([["ops.add", "add_f32", 4 * X, 2 * X, 2]]);
  });

  it("nests: the outer ledger also counts the inner one's launches", () => {
    let inner: fl.Ledger | undefined;
    const outer = fl.traffic(() => {
      fl.ops.relu(a);
      inner = fl.traffic(() => fl.ops.silu(a));
    });
    expect(entries(inner!)).to.deep.equal([["ops.silu", "silu_f32", X, X, 1]]);
    expect(entries(outer)).to.deep.equal([["ops.relu", "relu_f32", X, X, 1], ["ops.silu", "silu_f32", X, X, 1]]);
  });

  it("records nothing outside traffic(), and a thrown error closes the ledger", () => {
    recordTraffic("ops.test", "test_f32", 1, 1);
    expect(() => fl.traffic(() => { throw new Error("boom"); })).to.throw("boom");
    fl.ops.relu(a);
    expect(fl.traffic(() => undefined).entries).to.deep.equal([]);
  });

  it("prints aligned tables in MB", () => {
    const ledger = fl.traffic(() => {
      recordTraffic("ops.add", "add_f32", 268_435_456, 134_217_728);
      recordTraffic("fused.addRelu", "add_relu_f32", 2_000_000, 1_000_000);
    });
    const lines = ledger.toString().split("\n");
    expect(lines).to.deep.equal([
      "op             kernel        read MB  written MB  launches",
      "-------------  ------------  -------  ----------  --------",
      "ops.add        add_f32       268.435     134.218         1",
      "fused.addRelu  add_relu_f32    2.000       1.000         1",
      "-------------  ------------  -------  ----------  --------",
      "total                        270.435     135.218         2",
    ]);
    expect(ledger.toMarkdown().split("\n")).to.deep.equal([
      "| op | kernel | read MB | written MB | launches |",
      "| --- | --- | ---: | ---: | ---: |",
      "| ops.add | add_f32 | 268.435 | 134.218 | 1 |",
      "| fused.addRelu | add_relu_f32 | 2.000 | 1.000 | 1 |",
      "| total |  | 270.435 | 135.218 | 2 |",
    ]);
  });

  it("wants a synchronous function", () => {
    expect(() => fl.traffic(42 as unknown as () => void)).to.throw(fl.ArgumentError)
      .with.property("message", "fl.traffic: fn must be a function, got 42");
    expect(() => fl.traffic(async () => fl.ops.relu(a))).to.throw(fl.ArgumentError).with.property("message",
      "fl.traffic: fn must be a synchronous function (launches after an await are not counted), " +
      "got a function that returned a Promise");
  });
});
