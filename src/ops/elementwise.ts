// Elementwise ops (kernels/elementwise.hip), each declared once: the unfused
// ops (one launch each) and the fused ops with the chains they replace.
import { DTYPE_BYTES, DType } from "../dtype";
import { ArgumentError, shapeString } from "../errors";
import type { Tensor } from "../tensor";
import {
  LaunchShape, OutOptions, checkChoice, checkFiniteNumber, checkFloatTensor, checkLike, checkOptions,
  checkRowVector, distinctBytes, emptyLike, lastDim, launch1D, launchBuiltin, launchRows, outputFor, rowChunks, rowCount,
  rowsVectorizable, vectorWidth,
} from "./common";
import { FloatDType, KernelsByDType, declareFused, declareOp, kernelsByDType } from "./declare";

/** GELU's form, named as PyTorch names it: "none" uses erf, "tanh" the tanh approximation. */
export type GeluApproximation = "none" | "tanh";
export interface GeluOptions { approximate?: GeluApproximation }
const GELU_APPROXIMATIONS: readonly GeluApproximation[] = ["none", "tanh"];

function geluApproximation(where: string, options: unknown): GeluApproximation {
  const o = checkOptions<GeluOptions>(where, options, ["approximate"]);
  return checkChoice(where, "options.approximate", o.approximate, GELU_APPROXIMATIONS, "none");
}

/** The erf or tanh variant of a gelu-based kernel. */
function geluKernels(approximate: GeluApproximation, erf: KernelsByDType, tanh: KernelsByDType): KernelsByDType {
  return approximate === "tanh" ? tanh : erf;
}

/** A flat kernel: 16-byte vectors over all elements, then a scalar tail. */
function flatShape(x: Tensor): LaunchShape {
  return launch1D(x.device, Math.ceil(x.size / vectorWidth(x.dtype as FloatDType)));
}

/** A row kernel over `rows` rows of `cols`: vectorized when every row start is 16-byte aligned. */
function rowsShape(x: Tensor, rows: number, cols: number, threadRows?: number): { shape: LaunchShape; vectorized: number } {
  const dtype = x.dtype as FloatDType;
  const vectorized = rowsVectorizable(dtype, cols) ? 1 : 0;
  return { shape: launchRows(x.device, rows, rowChunks(dtype, cols), threadRows), vectorized };
}

// Rows a GPU thread of a row op takes. On an H100 at 32768x4096 (docs/gpu-runs.md,
// 2026-11-24 night), f32 ran fastest with fewer than the default 4: scale_bias at
// 2 rows (0.3604 ms, against 0.3621 at 4 and 0.3856 at 1, where each 16 bytes of
// x brings its bias vector again), silu_and_mul and gelu_and_mul at 1 (0.5228
// and 0.5212 ms, against 0.5337 and 0.5328 at 4). 16-bit types at 1 row too
// (bf16 scale_bias 0.1815 ms, silu_and_mul 0.2666, against 0.1847 and 0.2697 at
// 4), except GELU's: a 16-bit vector holds 8 values, twice the math, and bf16
// gelu_and_mul ran 4% slower at 1 row than at 4 (0.2826 ms against 0.2722),
// bias_gelu slower still.
function rowsPerGpuThread(kind: "bias" | "halves", dtype: DType, gelu: boolean): number {
  if (DTYPE_BYTES[dtype] >= 4) return kind === "bias" ? 2 : 1;
  return gelu ? 4 : 1;
}

/** a and b: tensors of one float dtype, shape and device. */
function checkPair(where: string, a: unknown, b: unknown): [Tensor, Tensor] {
  const x = checkFloatTensor(where, "a", a);
  return [x, checkLike(where, "b", b, "a", x)];
}

// out = f(a, b), elementwise over two tensors of one shape (into `out` when given).
function binary(op: string, kernels: KernelsByDType, a: Tensor, b: Tensor, scalar?: number, out = emptyLike(a)): Tensor {
  const args = scalar === undefined ? [out, a, b, a.size] : [out, a, b, scalar, a.size];
  launchBuiltin(op, kernels, a, flatShape(a), distinctBytes([a, b]), out.bytes, args);
  return out;
}

// out = f(x), elementwise.
function unary(op: string, kernels: KernelsByDType, x: Tensor, scalar?: number): Tensor {
  const out = emptyLike(x);
  const args = scalar === undefined ? [out, x, x.size] : [out, x, scalar, x.size];
  launchBuiltin(op, kernels, x, flatShape(x), x.bytes, out.bytes, args);
  return out;
}

// out[r, c] = f(x[r, c], bias[c]) [with a scale before the bias].
function withBias(op: string, kernels: KernelsByDType, x: Tensor, bias: Tensor, scalar?: number, gelu = false): Tensor {
  const out = emptyLike(x);
  const rows = rowCount(x.shape), cols = lastDim(x.shape);
  const { shape, vectorized } = rowsShape(x, rows, cols, rowsPerGpuThread("bias", x.dtype, gelu));
  const args = scalar === undefined
    ? [out, x, bias, rows, cols, vectorized]
    : [out, x, scalar, bias, rows, cols, vectorized];
  launchBuiltin(op, kernels, x, shape, distinctBytes([x, bias]), out.bytes, args);
  return out;
}

/** x: a float tensor of shape [..., 2, d]. */
function checkStackedHalves(where: string, value: unknown): Tensor {
  const x = checkFloatTensor(where, "x", value);
  const rank = x.shape.length;
  if (rank < 2 || x.shape[rank - 2] !== 2) {
    throw new ArgumentError(where, "x", "of shape [..., 2, d] (gate and up stacked on the second-to-last dim)",
      shapeString(x.shape));
  }
  return x;
}

// x is [..., 2, d]: out[..., d] = act(x[..., 0, :]) * x[..., 1, :].
function actAndMul(op: string, kernels: KernelsByDType, x: Tensor, gelu = false): Tensor {
  const d = lastDim(x.shape);
  const out = emptyLike(x, [...x.shape.slice(0, -2), d]);
  const rows = rowCount(out.shape);
  const { shape, vectorized } = rowsShape(x, rows, d, rowsPerGpuThread("halves", x.dtype, gelu));
  launchBuiltin(op, kernels, x, shape, x.bytes, out.bytes, [out, x, rows, d, vectorized]);
  return out;
}

// The unfused act_and_mul chain, as a framework runs it on views of x's halves:
// act(gate) into a temporary (reading the gate half), then temporary * up.
function actThenMul(op: string, actKernels: KernelsByDType, x: Tensor): Tensor {
  const d = lastDim(x.shape);
  const outShape = [...x.shape.slice(0, -2), d];
  const rows = rowCount(outShape);
  const { shape, vectorized } = rowsShape(x, rows, d);
  const act = emptyLike(x, outShape);
  launchBuiltin(op, actKernels, x, shape, act.bytes, act.bytes, [act, x, rows, d, vectorized]);
  const out = emptyLike(x, outShape);
  launchBuiltin(op, MUL_UP, x, shape, 2 * act.bytes, out.bytes, [out, act, x, rows, d, vectorized]);
  return out;
}

// ---- unfused ops: one launch each -------------------------------------------------

// The scale of the examples: negative, so that a sign slip shows.
const S = -1.75;

const ADD = kernelsByDType("add_f32", "add_f16", "add_bf16");
const MUL = kernelsByDType("mul_f32", "mul_f16", "mul_bf16");
const SCALE = kernelsByDType("scale_f32", "scale_f16", "scale_bf16");
const BIAS_ADD = kernelsByDType("bias_add_f32", "bias_add_f16", "bias_add_bf16");
const RELU = kernelsByDType("relu_f32", "relu_f16", "relu_bf16");
const GELU = kernelsByDType("gelu_f32", "gelu_f16", "gelu_bf16");
const GELU_TANH = kernelsByDType("gelu_tanh_f32", "gelu_tanh_f16", "gelu_tanh_bf16");
const SILU = kernelsByDType("silu_f32", "silu_f16", "silu_bf16");
const EXP = kernelsByDType("exp_f32", "exp_f16", "exp_bf16");

/** a + b; into `options.out` when given (which may be a or b: in place). */
export const add = declareOp({
  name: "add", kernels: [ADD],
  fn: (a: Tensor, b: Tensor, options?: OutOptions): Tensor => {
    const [x, y] = checkPair("fl.ops.add", a, b);
    return binary("ops.add", ADD, x, y, undefined, outputFor("fl.ops.add", options, x));
  },
  examples: [{ label: "", args: (make, rows, cols) => [make([rows, cols]), make([rows, cols])] }],
});

/** a * b. */
export const mul = declareOp({
  name: "mul", kernels: [MUL],
  fn: (a: Tensor, b: Tensor): Tensor => binary("ops.mul", MUL, ...checkPair("fl.ops.mul", a, b)),
  examples: [{ label: "", args: (make, rows, cols) => [make([rows, cols]), make([rows, cols])] }],
});

/** x * s. */
export const scale = declareOp({
  name: "scale", kernels: [SCALE],
  fn: (x: Tensor, s: number): Tensor => {
    const t = checkFloatTensor("fl.ops.scale", "x", x);
    return unary("ops.scale", SCALE, t, checkFiniteNumber("fl.ops.scale", "s", s));
  },
  examples: [{ label: "", args: (make, rows, cols) => [make([rows, cols]), S] }],
});

/** x + bias, bias broadcast over the rows of x (bias: 1-D, the last dim of x). */
export const biasAdd = declareOp({
  name: "biasAdd", kernels: [BIAS_ADD],
  fn: (x: Tensor, bias: Tensor): Tensor => {
    const t = checkFloatTensor("fl.ops.biasAdd", "x", x);
    return withBias("ops.biasAdd", BIAS_ADD, t, checkRowVector("fl.ops.biasAdd", "bias", bias, "x", t));
  },
  examples: [{ label: "", args: (make, rows, cols) => [make([rows, cols]), make([cols])] }],
});

/** max(x, 0). */
export const relu = declareOp({
  name: "relu", kernels: [RELU],
  fn: (x: Tensor): Tensor => unary("ops.relu", RELU, checkFloatTensor("fl.ops.relu", "x", x)),
  examples: [{ label: "", args: (make, rows, cols) => [make([rows, cols])] }],
});

/** x * Phi(x): erf form by default, `{ approximate: "tanh" }` for the tanh approximation. */
export const gelu = declareOp({
  name: "gelu", kernels: [GELU, GELU_TANH],
  fn: (x: Tensor, options?: GeluOptions): Tensor => {
    const t = checkFloatTensor("fl.ops.gelu", "x", x);
    return unary("ops.gelu", geluKernels(geluApproximation("fl.ops.gelu", options), GELU, GELU_TANH), t);
  },
  examples: [
    { label: "", args: (make, rows, cols) => [make([rows, cols])] },
    { label: "tanh", args: (make, rows, cols) => [make([rows, cols]), { approximate: "tanh" }] },
  ],
});

/** x * sigmoid(x). */
export const silu = declareOp({
  name: "silu", kernels: [SILU],
  fn: (x: Tensor): Tensor => unary("ops.silu", SILU, checkFloatTensor("fl.ops.silu", "x", x)),
  examples: [{ label: "", args: (make, rows, cols) => [make([rows, cols])] }],
});

/** e^x. */
export const exp = declareOp({
  name: "exp", kernels: [EXP],
  fn: (x: Tensor): Tensor => unary("ops.exp", EXP, checkFloatTensor("fl.ops.exp", "x", x)),
  examples: [{ label: "", args: (make, rows, cols) => [make([rows, cols])] }],
});

// ---- fused ops ----------------------------------------------------------------------

const ADD_RELU = kernelsByDType("add_relu_f32", "add_relu_f16", "add_relu_bf16");
const ADD_RELU_SCALE = kernelsByDType("add_relu_scale_f32", "add_relu_scale_f16", "add_relu_scale_bf16");
const RELU_SCALE = kernelsByDType("relu_scale_f32", "relu_scale_f16", "relu_scale_bf16");
const RELU_SCALE_BIAS = kernelsByDType("relu_scale_bias_f32", "relu_scale_bias_f16", "relu_scale_bias_bf16");
const SCALE_BIAS = kernelsByDType("scale_bias_f32", "scale_bias_f16", "scale_bias_bf16");
const BIAS_GELU = kernelsByDType("bias_gelu_f32", "bias_gelu_f16", "bias_gelu_bf16");
const BIAS_GELU_TANH = kernelsByDType("bias_gelu_tanh_f32", "bias_gelu_tanh_f16", "bias_gelu_tanh_bf16");
const SILU_AND_MUL = kernelsByDType("silu_and_mul_f32", "silu_and_mul_f16", "silu_and_mul_bf16");
const GELU_AND_MUL = kernelsByDType("gelu_and_mul_f32", "gelu_and_mul_f16", "gelu_and_mul_bf16");
const GELU_TANH_AND_MUL = kernelsByDType("gelu_tanh_and_mul_f32", "gelu_tanh_and_mul_f16", "gelu_tanh_and_mul_bf16");
// The unfused act_and_mul chains' steps over x's halves.
const SILU_GATE = kernelsByDType("silu_gate_f32", "silu_gate_f16", "silu_gate_bf16");
const GELU_GATE = kernelsByDType("gelu_gate_f32", "gelu_gate_f16", "gelu_gate_bf16");
const GELU_TANH_GATE = kernelsByDType("gelu_tanh_gate_f32", "gelu_tanh_gate_f16", "gelu_tanh_gate_bf16");
const MUL_UP = kernelsByDType("mul_up_f32", "mul_up_f16", "mul_up_bf16");

/** relu(a + b). */
export const addRelu = declareFused({
  name: "addRelu", computes: "relu(a + b)", chain: "ops.relu(ops.add(a, b))",
  kernels: [ADD_RELU], mutates: [],
  fused: (a: Tensor, b: Tensor): Tensor => binary("fused.addRelu", ADD_RELU, ...checkPair("fl.fused.addRelu", a, b)),
  unfused: (a: Tensor, b: Tensor): Tensor => relu.fn(add.fn(a, b)),
  examples: [{ label: "", args: (make, rows, cols) => [make([rows, cols]), make([rows, cols])] }],
});

/** relu(a + b) * s. */
export const addReluScale = declareFused({
  name: "addReluScale", computes: "relu(a + b) * s", chain: "ops.scale(ops.relu(ops.add(a, b)), s)",
  kernels: [ADD_RELU_SCALE], mutates: [],
  fused: (a: Tensor, b: Tensor, s: number): Tensor => {
    const where = "fl.fused.addReluScale";
    const [x, y] = checkPair(where, a, b);
    return binary("fused.addReluScale", ADD_RELU_SCALE, x, y, checkFiniteNumber(where, "s", s));
  },
  unfused: (a: Tensor, b: Tensor, s: number): Tensor => scale.fn(relu.fn(add.fn(a, b)), s),
  examples: [{ label: "", args: (make, rows, cols) => [make([rows, cols]), make([rows, cols]), S] }],
});

/** relu(x) * scale [+ bias] (bias optional: omitted or null). */
export const reluScaleBias = declareFused({
  name: "reluScaleBias", computes: "relu(x) * scale + bias", chain: "ops.biasAdd(ops.scale(ops.relu(x), scale), bias)",
  kernels: [RELU_SCALE_BIAS, RELU_SCALE], mutates: [],
  fused: (x: Tensor, scale: number, bias?: Tensor | null): Tensor => {
    const where = "fl.fused.reluScaleBias";
    const t = checkFloatTensor(where, "x", x);
    const s = checkFiniteNumber(where, "scale", scale);
    if (bias === undefined || bias === null) return unary("fused.reluScaleBias", RELU_SCALE, t, s);
    return withBias("fused.reluScaleBias", RELU_SCALE_BIAS, t, checkRowVector(where, "bias", bias, "x", t), s);
  },
  unfused: (x: Tensor, s: number, bias?: Tensor | null): Tensor => {
    const scaled = scaleOp(relu.fn(x), s);
    return bias === undefined || bias === null ? scaled : biasAdd.fn(scaled, bias);
  },
  examples: [
    { label: "", args: (make, rows, cols) => [make([rows, cols]), S, make([cols])] },
    { label: "no bias", args: (make, rows, cols) => [make([rows, cols]), S, null] },
  ],
});

/** x * scale + bias: reluScaleBias's kernel without the relu. */
export const scaleBias = declareFused({
  name: "scaleBias", computes: "x * scale + bias", chain: "ops.biasAdd(ops.scale(x, scale), bias)",
  kernels: [SCALE_BIAS], mutates: [],
  fused: (x: Tensor, scale: number, bias: Tensor): Tensor => {
    const where = "fl.fused.scaleBias";
    const t = checkFloatTensor(where, "x", x);
    const s = checkFiniteNumber(where, "scale", scale);
    return withBias("fused.scaleBias", SCALE_BIAS, t, checkRowVector(where, "bias", bias, "x", t), s);
  },
  unfused: (x: Tensor, s: number, bias: Tensor): Tensor => biasAdd.fn(scaleOp(x, s), bias),
  examples: [{ label: "", args: (make, rows, cols) => [make([rows, cols]), S, make([cols])] }],
});

/** gelu(x + bias), bias broadcast over rows. */
export const biasGelu = declareFused({
  name: "biasGelu", computes: "gelu(x + bias)", chain: "ops.gelu(ops.biasAdd(x, bias), options)",
  kernels: [BIAS_GELU, BIAS_GELU_TANH], mutates: [],
  fused: (x: Tensor, bias: Tensor, options?: GeluOptions): Tensor => {
    const where = "fl.fused.biasGelu";
    const t = checkFloatTensor(where, "x", x);
    const b = checkRowVector(where, "bias", bias, "x", t);
    const approximate = geluApproximation(where, options);
    return withBias("fused.biasGelu", geluKernels(approximate, BIAS_GELU, BIAS_GELU_TANH), t, b, undefined, true);
  },
  unfused: (x: Tensor, bias: Tensor, options?: GeluOptions): Tensor => gelu.fn(biasAdd.fn(x, bias), options),
  examples: [
    { label: "", args: (make, rows, cols) => [make([rows, cols]), make([cols])] },
    { label: "tanh", args: (make, rows, cols) => [make([rows, cols]), make([cols]), { approximate: "tanh" }] },
  ],
});

/**
 * x: [..., 2, d] → [..., d]: silu(x[..., 0, :]) * x[..., 1, :] (vLLM's silu_and_mul).
 * The chain reads the halves as views: silu of the gate half, then times the up half.
 */
export const siluAndMul = declareFused({
  name: "siluAndMul", computes: "silu(gate) * up, x = [gate; up]", chain: "ops.mul(ops.silu(x[..., 0, :]), x[..., 1, :])",
  kernels: [SILU_AND_MUL], chainKernels: [SILU_GATE, MUL_UP], mutates: [],
  fused: (x: Tensor): Tensor => actAndMul("fused.siluAndMul", SILU_AND_MUL, checkStackedHalves("fl.fused.siluAndMul", x)),
  unfused: (x: Tensor): Tensor =>
    actThenMul("unfused.siluAndMul", SILU_GATE, checkStackedHalves("fl.unfused.siluAndMul", x)),
  examples: [{ label: "", args: (make, rows, cols) => [make([rows, 2, cols])] }],
});

/** x: [..., 2, d] → [..., d]: gelu(x[..., 0, :]) * x[..., 1, :]. */
export const geluAndMul = declareFused({
  name: "geluAndMul", computes: "gelu(gate) * up, x = [gate; up]",
  chain: "ops.mul(ops.gelu(x[..., 0, :], options), x[..., 1, :])",
  kernels: [GELU_AND_MUL, GELU_TANH_AND_MUL], chainKernels: [GELU_GATE, GELU_TANH_GATE, MUL_UP], mutates: [],
  fused: (x: Tensor, options?: GeluOptions): Tensor => {
    const t = checkStackedHalves("fl.fused.geluAndMul", x);
    const approximate = geluApproximation("fl.fused.geluAndMul", options);
    return actAndMul("fused.geluAndMul", geluKernels(approximate, GELU_AND_MUL, GELU_TANH_AND_MUL), t, true);
  },
  unfused: (x: Tensor, options?: GeluOptions): Tensor => {
    const t = checkStackedHalves("fl.unfused.geluAndMul", x);
    const approximate = geluApproximation("fl.unfused.geluAndMul", options);
    return actThenMul("unfused.geluAndMul", geluKernels(approximate, GELU_GATE, GELU_TANH_GATE), t);
  },
  examples: [
    { label: "", args: (make, rows, cols) => [make([rows, 2, cols])] },
    { label: "tanh", args: (make, rows, cols) => [make([rows, 2, cols]), { approximate: "tanh" }] },
  ],
});

// `scale` is also a parameter name of the fused ops above.
function scaleOp(x: Tensor, s: number): Tensor {
  return scale.fn(x, s);
}

export const ELEMENTWISE_OPS = [add, mul, scale, biasAdd, relu, gelu, silu, exp] as const;
export const ELEMENTWISE_FUSED = [addRelu, addReluScale, reluScaleBias, scaleBias, biasGelu, siluAndMul, geluAndMul] as const;
