// fl.ops (unfused, one launch each), fl.fused and fl.unfused (a fused op and the
// chain it replaces, with the same arguments), gathered from every op family's
// declarations.
import { fusedTable, opTable, unfusedTable } from "./declare";
import { ELEMENTWISE_FUSED, ELEMENTWISE_OPS } from "./elementwise";
import { KVCACHE_FUSED, KVCACHE_OPS } from "./kvcache";
import { NORM_FUSED, NORM_OPS } from "./norm";
import { QUANTIZERS, QUANT_FUSED, QUANT_OPS } from "./quant";
import { REDUCE_FUSED, REDUCE_OPS } from "./reduce";
import { ROPE_FUSED, ROPE_OPS } from "./rope";

export const ops = {
  ...opTable(ELEMENTWISE_OPS), ...opTable(NORM_OPS), ...opTable(REDUCE_OPS), ...opTable(ROPE_OPS), ...opTable(KVCACHE_OPS), ...opTable(QUANT_OPS),
};
export const fused = {
  ...fusedTable(ELEMENTWISE_FUSED), ...fusedTable(NORM_FUSED), ...fusedTable(REDUCE_FUSED), ...fusedTable(ROPE_FUSED),
  ...fusedTable(KVCACHE_FUSED), ...fusedTable(QUANT_FUSED),
};
export const unfused = {
  ...unfusedTable(ELEMENTWISE_FUSED), ...unfusedTable(NORM_FUSED), ...unfusedTable(REDUCE_FUSED), ...unfusedTable(ROPE_FUSED),
  ...unfusedTable(KVCACHE_FUSED), ...unfusedTable(QUANT_FUSED),
};
/** What makes quantized tensors (one launch each, as fl.ops): quantizeQ4_0. */
export const quant = opTable(QUANTIZERS);

/** Every op's declaration, by family: kernels, chains, examples (tests, benchmarks and lessons read them). */
export const declarations = Object.freeze({
  elementwise: { ops: ELEMENTWISE_OPS, fused: ELEMENTWISE_FUSED },
  norm: { ops: NORM_OPS, fused: NORM_FUSED },
  reduce: { ops: REDUCE_OPS, fused: REDUCE_FUSED },
  rope: { ops: ROPE_OPS, fused: ROPE_FUSED },
  kvcache: { ops: KVCACHE_OPS, fused: KVCACHE_FUSED },
  // quantizeQ4_0 (fl.quant) is among the family's ops, beside dequantizeQ4_0 (fl.ops).
  quant: { ops: [...QUANT_OPS, ...QUANTIZERS] as const, fused: QUANT_FUSED },
});

export type { FusedOpDeclaration, Gather, KernelsByDType, MadeKind, MakeTensor, OpDeclaration, OpExample, PartialAccess, Scatter } from "./declare";
export type { OutOptions } from "./common";
export type { GeluApproximation, GeluOptions } from "./elementwise";
export type { NormOptions } from "./norm";
export type { DequantizeOptions, Q4_0RmsNormOptions, Q4_0RmsNormVariant } from "./quant";
export type { QkNormRopeOptions, RopePositionsOptions } from "./rope";
export type { RopeAppendOptions } from "./kvcache";
