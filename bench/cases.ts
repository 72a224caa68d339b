// The bench's cases: every example of every fused op, from the ops'
// declarations, and the random inputs they are made from. Shared by the bench
// (bench/run.ts) and the profiler's driver (bench/profile.ts).
import * as fl from "../src";

/** One fused op's example, timed against its unfused chain. */
export interface Pair {
  op: string;
  example: fl.OpExample;
  declaration: fl.FusedOpDeclaration;
}

// Every example of every fused op, from the ops' declarations.
export const PAIRS: Pair[] = Object.values(fl.declarations).flatMap((family) =>
  family.fused.flatMap((declaration: fl.FusedOpDeclaration) => declaration.examples.map((example) => ({
    op: example.label ? `${declaration.name} (${example.label})` : declaration.name, example, declaration,
  }))));

/**
 * Random inputs, made once per dtype and shared by the pairs (random numbers are
 * made on the host, which takes seconds at 32768x4096): the i-th tensor of a
 * shape that an example asks for is the same tensor for every example.
 */
export class Inputs {
  private readonly made = new Map<string, fl.Tensor[]>();
  private seed = 1;
  constructor(private readonly options: fl.TensorOptions<fl.RandomDType>) {}

  /** The `make` of one example's arguments. */
  maker(): fl.MakeTensor {
    const used = new Map<string, number>();
    return (shape, kind) => {
      const key = !kind ? shape.join("x") : "below" in kind ? `${shape.join("x")} below ${kind.below}` : `${shape.join("x")} ${kind.quantized}`;
      const index = used.get(key) ?? 0;
      used.set(key, index + 1);
      const list = this.made.get(key) ?? [];
      this.made.set(key, list);
      list[index] ??= !kind ? fl.randn(shape, { ...this.options, seed: this.seed++ })
        : "below" in kind ? this.integers(shape, kind.below) : this.quantized(shape);
      return list[index];
    };
  }

  /** The Q4_0 blocks of normal values. */
  private quantized(shape: number[]): fl.Tensor {
    const values = fl.randn(shape, { ...this.options, seed: this.seed++ });
    const blocks = fl.quant.quantizeQ4_0(values);
    values.dispose();
    return blocks;
  }

  /** An i32 tensor of seeded integers from 0 to below - 1. */
  private integers(shape: number[], below: number): fl.Tensor {
    const values = fl.rand(shape, { dtype: "f32", device: this.options.device, seed: this.seed++ }).toArray();
    return fl.tensor(Int32Array.from(values, (u) => Math.min(below - 1, Math.floor(u * below))),
      { shape, dtype: "i32", device: this.options.device });
  }

  dispose(): void {
    for (const list of this.made.values()) list.forEach((t) => t.dispose());
  }
}
