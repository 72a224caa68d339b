// The declaration of an op: everything about it in one place, from which come
// `fl.ops.X`, `fl.fused.X` and `fl.unfused.X`, the tests that compare them, the
// traffic tests, the bench pairs and what the lessons show.
import type { Tensor } from "../tensor";

/** The storage types the op kernels are built for (arithmetic is f32 inside). */
export type FloatDType = "f32" | "f16" | "bf16";
export const FLOAT_DTYPES: readonly FloatDType[] = ["f32", "f16", "bf16"];

/**
 * What `make` makes besides random values of the dtype under test: i32 integers
 * from 0 to below - 1 (positions, indices), or the Q4_0 blocks of random values
 * of the shape (u8, the last dim in bytes: shape's last dim / 32 * 18).
 */
export type MadeKind = { below: number } | { quantized: "q4_0" };

/**
 * Makes a tensor of `shape` for an example: random values, the dtype and device
 * under test, or what `kind` says.
 */
export type MakeTensor = (shape: number[], kind?: MadeKind) => Tensor;

/**
 * An argument read only at some of its rows: `table` (an argument's index) at the
 * rows its first dim that the i32 argument `index` names. Its traffic is each
 * distinct row named, once.
 */
export interface Gather {
  table: number;
  index: number;
  /** Rows each index value names, from it on (1 when left out): a prompt's tokens take consecutive positions. */
  span?: (args: any[]) => number;
}

/**
 * An argument written in place only in part, and never read: `into` (an
 * argument's index), at as many elements as the argument `from` holds (a KV
 * cache, at the slots its new tokens take). Its traffic is those elements,
 * written once.
 */
export interface Scatter {
  into: number;
  from: number;
}

/** Example arguments of an op on data of `rows` rows of `cols` (tests and benchmarks run every example). */
export interface OpExample {
  /** "" for the main example, else what differs: "tanh", "no bias". */
  label: string;
  /**
   * The op's arguments (checked by the op itself when the tests run every
   * example); `dtype` is the dtype under test, for an op whose inputs do not
   * carry it (dequantizeQ4_0's output).
   */
  args(make: MakeTensor, rows: number, cols: number, dtype: FloatDType): unknown[];
}

/**
 * An argument read, and when changed in place written, only in part: the
 * `fraction(args)` of its bytes that the op touches (qkNormRope's q and k heads
 * of a packed qkv, not its v heads).
 */
export interface PartialAccess {
  arg: number;
  fraction: (args: any[]) => number;
}

/** One built-in kernel name per storage dtype, written out so that each can be found by search. */
export type KernelsByDType = Readonly<Record<FloatDType, string>>;

/** An unfused op: one launch of one kernel. */
export interface OpDeclaration<N extends string = string, A extends unknown[] = any[], R = unknown> {
  name: N;
  /** Every built-in kernel it can launch. */
  kernels: readonly KernelsByDType[];
  fn: (...args: A) => R;
  /** Arguments it reads only in part (a table read at given rows); every other tensor is read whole. */
  gathers?: readonly Gather[];
  /** Arguments it writes in place only in part (returned too); every output it makes is written whole. */
  scatters?: readonly Scatter[];
  /** Between them, the examples launch every kernel of `kernels`. */
  examples: readonly OpExample[];
}

/** A fused op, and the chain of unfused launches it replaces. */
export interface FusedOpDeclaration<N extends string = string, A extends unknown[] = any[], R = unknown> {
  name: N;
  /** What it computes, as a formula: "relu(a + b)". */
  computes: string;
  /** The unfused chain as code: "ops.relu(ops.add(a, b))". */
  chain: string;
  /** Every built-in kernel the fused form can launch (one launch). */
  kernels: readonly KernelsByDType[];
  /** Kernels of the chain that are not those of a public op (none for most ops). */
  chainKernels?: readonly KernelsByDType[];
  /** Arguments changed in place, by parameter name (returned too). */
  mutates: readonly string[];
  /** Tables read only at the rows an index names (as OpDeclaration's). */
  gathers?: readonly Gather[];
  /** Arguments it touches only in part. */
  partial?: readonly PartialAccess[];
  /** Arguments of `mutates` that it writes only in part and never reads (as OpDeclaration's). */
  scatters?: readonly Scatter[];
  /** One launch: checks its arguments, picks the kernel and launch shape, states its traffic. */
  fused: (...args: A) => R;
  /** The chain: same arguments, same result, one launch a step. */
  unfused: (...args: A) => R;
  examples: readonly OpExample[];
}

/** Declares an op (a function, so that its name keeps its literal type). */
export function declareOp<N extends string, A extends unknown[], R>(d: OpDeclaration<N, A, R>): OpDeclaration<N, A, R> {
  return Object.freeze(d);
}

/** Declares a fused op. */
export function declareFused<N extends string, F extends (...args: any[]) => unknown>(
  d: FusedOpDeclaration<N, Parameters<F>, ReturnType<F>> & { fused: F; unfused: F },
): FusedOpDeclaration<N, Parameters<F>, ReturnType<F>> & { fused: F; unfused: F } {
  return Object.freeze(d);
}

/** The kernel names of one variant, per dtype, checked to end in their dtype. */
export function kernelsByDType(f32: string, f16: string, bf16: string): KernelsByDType {
  const names = { f32, f16, bf16 };
  for (const [dtype, name] of Object.entries(names)) {
    if (!name.endsWith(`_${dtype}`)) throw new Error(`kernel name ${name} does not end in _${dtype}`);
  }
  return Object.freeze(names);
}

/** `{ add: fn, mul: fn }` from op declarations. */
export function opTable<D extends readonly OpDeclaration[]>(declarations: D): { [K in D[number] as K["name"]]: K["fn"] } {
  return Object.fromEntries(declarations.map((d) => [d.name, d.fn])) as never;
}

/** `{ addRelu: fused, ... }` from fused op declarations. */
export function fusedTable<D extends readonly FusedOpDeclaration[]>(declarations: D): { [K in D[number] as K["name"]]: K["fused"] } {
  return Object.fromEntries(declarations.map((d) => [d.name, d.fused])) as never;
}

/** `{ addRelu: unfused, ... }` from fused op declarations. */
export function unfusedTable<D extends readonly FusedOpDeclaration[]>(declarations: D): { [K in D[number] as K["name"]]: K["unfused"] } {
  return Object.fromEntries(declarations.map((d) => [d.name, d.unfused])) as never;
}
