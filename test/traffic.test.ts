// The ledger: launch records, their grouping and tables, nesting, direct
// launches. (Each op's traffic is checked from its declaration with its family:
// test/op-tests.ts.) A few byte counts are written out here as numbers, as a
// reader would work them out, for a small shape.
import { expect } from "chai";
import * as fl from "../src";
import type { LaunchRecord } from "../src/kernel";

// x: [4, 8] f32 = 128 bytes.
const ROWS = 4, COLS = 8;
const X = ROWS * COLS * 4;

type Entry = [op: string, kernel: string, bytesRead: number, bytesWritten: number, launches: number];

function entries(ledger: fl.Ledger): Entry[] {
  return ledger.entries.map((e) => [e.op, e.kernel, e.bytesRead, e.bytesWritten, e.launches]);
}

describe("traffic", () => {
  const dev = () => fl.device();
  const randn = (shape: number[], seed: number, dtype: "f32" | "f16" = "f32") =>
    fl.randn(shape, { dtype, device: dev(), seed });
  let a: fl.Tensor, b: fl.Tensor, halves: fl.Tensor;
  before(() => {
    a = randn([ROWS, COLS], 1);
    b = randn([ROWS, COLS], 2);
    halves = randn([ROWS, 2, COLS], 4);
  });

  it("add + relu: 3 X fused, 5 X unfused (the intermediate written and read again)", () => {
    expect(entries(fl.traffic(() => fl.fused.addRelu(a, b)))).to.deep.equal([["fused.addRelu", "add_relu_f32", 2 * X, X, 1]]);
    expect(entries(fl.traffic(() => fl.unfused.addRelu(a, b)))).to.deep.equal([
      ["ops.add", "add_f32", 2 * X, X, 1], ["ops.relu", "relu_f32", X, X, 1]]);
  });

  it("silu and mul over [4, 2, 8]: the chain reads x's halves as views, 5 halves against 3", () => {
    expect(entries(fl.traffic(() => fl.fused.siluAndMul(halves)))).to.deep.equal([["fused.siluAndMul", "silu_and_mul_f32", 2 * X, X, 1]]);
    expect(entries(fl.traffic(() => fl.unfused.siluAndMul(halves)))).to.deep.equal([
      ["unfused.siluAndMul", "silu_gate_f32", X, X, 1], ["unfused.siluAndMul", "mul_up_f32", 2 * X, X, 1]]);
  });

  it("counts bytes of the storage dtype: f16 moves half of f32", () => {
    const x16 = randn([ROWS, COLS], 7, "f16"), y16 = randn([ROWS, COLS], 8, "f16");
    const ledger = fl.traffic(() => fl.fused.addRelu(x16, y16));
    expect(entries(ledger)).to.deep.equal([["fused.addRelu", "add_relu_f16", X, X / 2, 1]]);
  });

  it("keeps one record a launch and sums repeated launches of one op and kernel into one entry", () => {
    let first: fl.Tensor | undefined;
    const ledger = fl.traffic(() => fl.ops.add((first = fl.ops.add(a, b)), b));
    expect(entries(ledger)).to.deep.equal([["ops.add", "add_f32", 4 * X, 2 * X, 2]]);
    expect(ledger.records).to.have.length(2);
    const [r0, r1] = ledger.records;
    expect(r0.kernel.name).to.equal("add_f32");
    expect(r0.op).to.equal("ops.add");
    expect(r0.args[1]).to.equal(a);
    expect(r1.args[1]).to.equal(first);
    expect(r0.block[0] * r0.block[1] * r0.block[2]).to.be.greaterThan(0);
    expect(r0.sharedBytes).to.equal(0);
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

  it("ledgers a kernel launched directly, with no traffic model", () => {
    const copy = fl.builtins(dev()).fn("copy_f32x4");
    const out = fl.empty([ROWS * COLS], { device: dev() });
    const flat = randn([ROWS * COLS], 9);
    const ledger = fl.traffic(() => copy.launch({ grid: 1, block: 32 }, out, flat, ROWS * COLS));
    expect(ledger.entries).to.deep.equal([{ op: "kernel.launch", kernel: "copy_f32x4", bytesRead: 0, bytesWritten: 0, launches: 1, modelled: false }]);
    expect(ledger.records[0].op).to.equal(null);
    expect(ledger.toString().split("\n")[2]).to.equal("kernel.launch  copy_f32x4        -           -         1");
  });

  it("records nothing outside traffic(), and a thrown error closes the ledger", () => {
    expect(() => fl.traffic(() => { throw new Error("boom"); })).to.throw("boom");
    fl.ops.relu(a);
    expect(fl.traffic(() => undefined).entries).to.deep.equal([]);
  });

  it("prints aligned tables in MB", () => {
    const ledger = new fl.Ledger();
    const record = (op: string, kernel: string, bytesRead: number, bytesWritten: number): LaunchRecord => ({
      kernel: { name: kernel } as fl.Kernel, grid: [1, 1, 1], block: [1, 1, 1], sharedBytes: 0, args: [], op, bytesRead, bytesWritten,
    });
    ledger.add(record("ops.add", "add_f32", 268_435_456, 134_217_728));
    ledger.add(record("fused.addRelu", "add_relu_f32", 2_000_000, 1_000_000));
    expect(ledger.toString().split("\n")).to.deep.equal([
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
