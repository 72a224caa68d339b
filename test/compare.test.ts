// fl.compare, fl.allclose and fl.assertClose: the tolerance rule at its edge,
// NaN and infinities, mismatched shapes and dtypes, the report word for word,
// and options checked like every other options object.
import { expect } from "chai";
import * as fl from "../src";
import { expectThrows } from "./helpers";

describe("compare", () => {
  const dev = () => fl.device();

  it("is close exactly up to atol + rtol * |b|, and not one step past it", () => {
    // |a - b| = 0.25 against atol 0.05 + rtol 0.1 * |2| = 0.25: close; a hair more is not.
    expect(fl.allclose([2.25], [2], { rtol: 0.1, atol: 0.05 })).to.equal(true);
    expect(fl.allclose([2.2500001], [2], { rtol: 0.1, atol: 0.05 })).to.equal(false);
    // b is the reference: the tolerance scales with |b|, not |a|.
    expect(fl.allclose([4], [2], { rtol: 0.5, atol: 0 })).to.equal(false);
    expect(fl.allclose([2], [4], { rtol: 0.5, atol: 0 })).to.equal(true);
  });

  it("uses rtol 1e-5 and atol 1e-8 when left out", () => {
    expect(fl.allclose([1 + 1e-5], [1])).to.equal(true);
    expect(fl.allclose([1 + 1.1e-5], [1])).to.equal(false);
    expect(fl.allclose([1e-8], [0])).to.equal(true);
    expect(fl.allclose([1.1e-8], [0])).to.equal(false);
  });

  it("never finds NaN close, unless asked", () => {
    expect(fl.allclose([NaN], [NaN])).to.equal(false);
    expect(fl.allclose([NaN], [1], { atol: 1e300 })).to.equal(false);
    expect(fl.allclose([1], [NaN], { atol: 1e300 })).to.equal(false);
    expect(fl.allclose([NaN, 1], [NaN, 1], { equalNan: true })).to.equal(true);
    expect(fl.allclose([NaN], [1], { equalNan: true })).to.equal(false);
  });

  it("finds equal infinities close and no others, whatever the tolerance", () => {
    expect(fl.allclose([Infinity, -Infinity], [Infinity, -Infinity])).to.equal(true);
    expect(fl.allclose([-Infinity], [Infinity], { rtol: 10 })).to.equal(false);
    expect(fl.allclose([1e308], [Infinity], { rtol: 10 })).to.equal(false);
    expect(fl.allclose([Infinity], [1e308], { rtol: 10 })).to.equal(false);
  });

  it("reports the worst elements by index, word for word", () => {
    const report = fl.compare([[1, 2.00003, 3], [NaN, -Infinity, 6]], [[1, 2, 3.1], [NaN, Infinity, 6]]);
    expect(report.close).to.equal(false);
    expect(report.mismatches).to.equal(4);
    expect(report.shape).to.deep.equal([2, 3]);
    expect(report.toString()).to.equal([
      "4 of 6 elements differ (rtol 0.00001, atol 1e-8); max abs error Infinity, max rel error 0.0323",
      "  at [1, 0]: got NaN, expected NaN (abs error NaN, rel error NaN)",
      "  at [1, 1]: got -Infinity, expected Infinity (abs error Infinity, rel error NaN)",
      "  at [0, 2]: got 3, expected 3.1 (abs error 0.100, rel error 0.0323)",
      "  at [0, 1]: got 2.00003, expected 2 (abs error 3.00e-5, rel error 1.50e-5)",
    ].join("\n"));
    expect(fl.compare([1, 2], [1, 2]).toString()).to.equal(
      "all 2 elements are close (rtol 0.00001, atol 1e-8); max abs error 0, max rel error 0");
  });

  it("compares 64-bit integers exactly, past 2^53, where a difference of one is lost in a double", () => {
    const wide = 2n ** 60n;
    const t = fl.tensor([wide + 1n, -3n], { dtype: "i64", device: dev() });
    const report = fl.compare(t, [wide, -3n], { rtol: 0, atol: 0.5 });
    expect(report.close).to.equal(false);
    expect(report.mismatches).to.equal(1);
    expect(report.worst[0]).to.include({ actual: wide + 1n, expected: wide, absError: 1 });
    expect(report.toString().split("\n")[1]).to.equal(
      "  at [0]: got 1152921504606846977, expected 1152921504606846976 (abs error 1.00, rel error 8.67e-19)");
    expect(fl.allclose(t, BigInt64Array.of(wide + 1n, -3n), { rtol: 0, atol: 0 })).to.equal(true);
    // Numbers and bigints compare by value; a fraction against a bigint as doubles.
    expect(fl.allclose([5n, 2], [5, 2n], { rtol: 0, atol: 0 })).to.equal(true);
    expect(fl.compare([4n], [4.25], { rtol: 0, atol: 0 }).maxAbsError).to.equal(0.25);
    const u = fl.tensor([2n ** 64n - 1n], { dtype: "u64", device: dev() });
    expect(fl.allclose(u, fl.tensor([2n ** 64n - 1n], { dtype: "u64", device: dev() }), { rtol: 0, atol: 0 })).to.equal(true);
    expect(fl.allclose(u, [2n ** 64n - 2n], { rtol: 0, atol: 0 })).to.equal(false);
  });

  it("shows at most 8 of many mismatches and counts the rest", () => {
    const a = Array.from({ length: 20 }, (_, i) => i + 1);
    const lines = fl.compare(a, a.map(() => 0)).toString().split("\n");
    expect(lines).to.have.length(10);
    expect(lines[1]).to.equal("  at [19]: got 20, expected 0 (abs error 20.0, rel error Infinity)");
    expect(lines[9]).to.equal("  ... and 12 more");
  });

  it("assertClose throws the report, and passes silently when close", () => {
    expectThrows(() => fl.assertClose([1, 5], [1, 4]), fl.FuselabError,
      "fl.assertClose: 1 of 2 elements differ (rtol 0.00001, atol 1e-8); max abs error 1.00, max rel error 0.250\n" +
      "  at [1]: got 5, expected 4 (abs error 1.00, rel error 0.250)");
    fl.assertClose([1, 4], [1, 4]);
  });

  it("compares tensors by their values and index by their shape", () => {
    const t = fl.tensor([[1, 2], [3, 4]], { device: dev() });
    expect(fl.compare(t, [1, 2, 3, 5]).worst[0].index).to.deep.equal([1, 1]);
    expect(fl.compare([1, 2, 3, 5], t).worst[0].index).to.deep.equal([1, 1]);
    expect(fl.allclose(t, Float32Array.of(1, 2, 3, 4))).to.equal(true);
    expect(fl.compare(t.view(1, 3), [2, 3, 5]).worst[0].index).to.deep.equal([2]);
  });

  it("names mismatched shapes, dtypes and sizes", () => {
    const a = fl.zeros([2, 3], { device: dev() });
    expectThrows(() => fl.compare(a, fl.zeros([3, 2], { device: dev() })), fl.ArgumentError,
      "fl.compare: b must be of shape [2, 3] (the shape of a), got [3, 2]");
    expectThrows(() => fl.allclose(a, fl.zeros([2, 3], { dtype: "f16", device: dev() })), fl.ArgumentError,
      "fl.allclose: b must be of dtype f32 (the dtype of a; compare with b.toArray() across dtypes), got f16");
    expectThrows(() => fl.assertClose(a, [1, 2]), fl.ArgumentError,
      "fl.assertClose: b must be 6 elements (as many as a), got 2 elements");
    expectThrows(() => fl.compare([[1, 2], [3]], [1, 2, 3]), fl.ArgumentError,
      "fl.compare: a must be numbers in evenly nested arrays, got [[1, 2], [3]]");
  });

  it("checks its options like every options object", () => {
    expectThrows(() => fl.allclose([1], [1], { rtoll: 1e-3 } as fl.CloseOptions), fl.ArgumentError,
      'fl.allclose: options must be an object with keys among rtol, atol, equalNan, got the key "rtoll"');
    expectThrows(() => fl.compare([1], [1], { rtol: -1 }), fl.ArgumentError,
      "fl.compare: options.rtol must be a finite number >= 0, got -1");
    expectThrows(() => fl.compare([1], [1], { atol: Infinity }), fl.ArgumentError,
      "fl.compare: options.atol must be a finite number >= 0, got Infinity");
    expectThrows(() => fl.compare([1], [1], { equalNan: 1 as unknown as boolean }), fl.ArgumentError,
      "fl.compare: options.equalNan must be a boolean, got 1");
    expectThrows(() => fl.compare([1], [1], 0.1 as unknown as fl.CloseOptions), fl.ArgumentError,
      "fl.compare: options must be an object, got 0.1");
  });
});
