// The built-in kernels and the ops' declarations agree: every kernel an op
// declares is built in, every built-in kernel is launched by an op (or, for the
// copy, by fl.copyCeiling), and an op launches only the kernels it declares.
import { expect } from "chai";
import * as fl from "../src";
import type { FloatDType } from "../src/ops/declare";

const DTYPES: FloatDType[] = ["f32", "f16", "bf16"];
// Launched by the library itself rather than by an op.
const LIBRARY_KERNELS = ["copy_f32x4"];
// Small rows of whole Q4_0 blocks (32 values).
const [ROWS, COLS] = [3, 32];

describe("built-in kernels", () => {
  const families = Object.values(fl.declarations);
  const declared = (kernels: readonly fl.KernelsByDType[]) => kernels.flatMap((k) => Object.values(k));
  const declaredKernels = new Set([
    ...families.flatMap((f) => f.ops.flatMap((op: fl.OpDeclaration) => declared(op.kernels))),
    ...families.flatMap((f) => f.fused.flatMap((op: fl.FusedOpDeclaration) => [...declared(op.kernels), ...declared(op.chainKernels ?? [])])),
  ]);

  it("has every kernel an op declares", () => {
    const built = new Set(fl.builtins().kernels);
    expect([...declaredKernels].filter((k) => !built.has(k))).to.deep.equal([]);
  });

  it("are each declared by an op, or launched by the library", () => {
    const unclaimed = fl.builtins().kernels.filter((k) => !declaredKernels.has(k) && !LIBRARY_KERNELS.includes(k));
    expect(unclaimed).to.deep.equal([]);
  });

  it("are each launched by some op's examples, and ops launch only what they declare", () => {
    const launched = new Set<string>();
    const strays: string[] = [];
    for (const dtype of DTYPES) {
      const make: fl.MakeTensor = (shape, kind) => !kind ? fl.randn(shape, { dtype, seed: 1 })
        : "below" in kind
          ? fl.tensor(Int32Array.from({ length: shape.reduce((p, d) => p * d, 1) }, (_, i) => i % kind.below), { shape, dtype: "i32" })
          : fl.quant.quantizeQ4_0(fl.randn(shape, { dtype, seed: 1 }));
      const run = (fn: (...a: unknown[]) => unknown, allowed: string[], args: unknown[]) => {
        for (const record of fl.traffic(() => fn(...args)).records) {
          launched.add(record.kernel.name);
          if (!allowed.includes(record.kernel.name)) strays.push(`${record.op} launched ${record.kernel.name}`);
        }
      };
      for (const family of families) {
        for (const op of family.ops as readonly fl.OpDeclaration[]) {
          for (const example of op.examples) run(op.fn as never, declared(op.kernels), example.args(make, ROWS, COLS, dtype));
        }
        for (const op of family.fused as readonly fl.FusedOpDeclaration[]) {
          for (const example of op.examples) {
            run(op.fused as never, declared(op.kernels), example.args(make, ROWS, COLS, dtype));
            run(op.unfused as never, [...declaredKernels], example.args(make, ROWS, COLS, dtype));
          }
        }
      }
    }
    expect(strays).to.deep.equal([]);
    expect([...declaredKernels].filter((k) => !launched.has(k)), "declared but never launched").to.deep.equal([]);
  });

  it("mirror compiled modules: fn(name), one kernel object per name, close names on a miss", () => {
    const module = fl.builtins();
    expect(module.fn("add_relu_f32")).to.equal(module.fn("add_relu_f32"));
    expect(fl.builtins(fl.device())).to.equal(module);
    expect(() => module.fn("add_relu_f64")).to.throw(fl.ArgumentError, /close names: add_relu_f\d/);
    expect(() => module.dispose()).to.throw(fl.FuselabError, /cannot be unloaded/);
    expect(() => fl.builtins("cpu" as unknown as fl.Device)).to.throw(fl.ArgumentError,
      'fl.builtins: device must be a device from fl.device(), got "cpu"');
  });
});
