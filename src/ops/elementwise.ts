// Elementwise ops (kernels/elementwise.hip): one launch each. `ops` are the
// unfused building blocks; `fused` do a chain of them in one pass over memory.
import type { Tensor } from "../tensor";
import { ArgumentError, shapeString } from "../errors";
import {
  FloatDType, LaunchShape, checkChoice, checkFiniteNumber, checkFloatTensor, checkLike, checkOptions,
  checkRowVector, emptyLike, lastDim, launch1D, launchBuiltin, launchRows, rowChunks, rowCount,
  rowsVectorizable, vectorWidth,
} from "./common";

/** GELU's form, named as PyTorch names it: "none" uses erf, "tanh" the tanh approximation. */
export type GeluApproximation = "none" | "tanh";
export interface GeluOptions { approximate?: GeluApproximation }
const GELU_APPROXIMATIONS: readonly GeluApproximation[] = ["none", "tanh"];

function geluApproximation(where: string, options: unknown): GeluApproximation {
  const o = checkOptions<GeluOptions>(where, options, ["approximate"]);
  return checkChoice(where, "options.approximate", o.approximate, GELU_APPROXIMATIONS, "none");
}

/** The kernel's op name for gelu-based kernels: `<base>` for erf, `<tanhBase>` for tanh. */
function geluKernelOp(approximate: GeluApproximation, base: string, tanhBase: string): string {
  return approximate === "tanh" ? tanhBase : base;
}

/** A flat kernel: 16-byte vectors over all elements, then a scalar tail. */
function flatShape(x: Tensor): LaunchShape {
  return launch1D(x.device, Math.ceil(x.size / vectorWidth(x.dtype as FloatDType)));
}

/** A row kernel over `rows` rows of `cols`: vectorized when every row start is 16-byte aligned. */
function rowsShape(x: Tensor, rows: number, cols: number): { shape: LaunchShape; vectorized: number } {
  const dtype = x.dtype as FloatDType;
  const vectorized = rowsVectorizable(dtype, cols) ? 1 : 0;
  return { shape: launchRows(x.device, rows, rowChunks(dtype, cols)), vectorized };
}

/** a and b: tensors of one float dtype, shape and device. */
function checkPair(where: string, a: unknown, b: unknown): [Tensor, Tensor] {
  const x = checkFloatTensor(where, "a", a);
  return [x, checkLike(where, "b", b, "a", x)];
}

// out = f(a, b), elementwise over two tensors of one shape.
function binary(op: string, kernelOp: string, a: Tensor, b: Tensor, scalar?: number): Tensor {
  const out = emptyLike(a);
  const args = scalar === undefined ? [out, a, b, a.size] : [out, a, b, scalar, a.size];
  launchBuiltin(op, kernelOp, a, flatShape(a), a.bytes + b.bytes, out.bytes, args);
  return out;
}

// out = f(x), elementwise.
function unary(op: string, kernelOp: string, x: Tensor, scalar?: number): Tensor {
  const out = emptyLike(x);
  const args = scalar === undefined ? [out, x, x.size] : [out, x, scalar, x.size];
  launchBuiltin(op, kernelOp, x, flatShape(x), x.bytes, out.bytes, args);
  return out;
}

// out[r, c] = f(x[r, c], bias[c]) [with a scale before the bias].
function withBias(op: string, kernelOp: string, x: Tensor, bias: Tensor, scalar?: number): Tensor {
  const out = emptyLike(x);
  const rows = rowCount(x.shape), cols = lastDim(x.shape);
  const { shape, vectorized } = rowsShape(x, rows, cols);
  const args = scalar === undefined
    ? [out, x, bias, rows, cols, vectorized]
    : [out, x, scalar, bias, rows, cols, vectorized];
  launchBuiltin(op, kernelOp, x, shape, x.bytes + bias.bytes, out.bytes, args);
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
function actAndMul(op: string, kernelOp: string, x: Tensor): Tensor {
  const d = lastDim(x.shape);
  const out = emptyLike(x, [...x.shape.slice(0, -2), d]);
  const rows = rowCount(out.shape);
  const { shape, vectorized } = rowsShape(x, rows, d);
  launchBuiltin(op, kernelOp, x, shape, x.bytes, out.bytes, [out, x, rows, d, vectorized]);
  return out;
}

/** a + b. */
export function add(a: Tensor, b: Tensor): Tensor {
  return binary("ops.add", "add", ...checkPair("fl.ops.add", a, b));
}

/** a * b. */
export function mul(a: Tensor, b: Tensor): Tensor {
  return binary("ops.mul", "mul", ...checkPair("fl.ops.mul", a, b));
}

/** x * s. */
export function scale(x: Tensor, s: number): Tensor {
  const t = checkFloatTensor("fl.ops.scale", "x", x);
  return unary("ops.scale", "scale", t, checkFiniteNumber("fl.ops.scale", "s", s));
}

/** x + bias, bias broadcast over the rows of x (bias: 1-D, the last dim of x). */
export function biasAdd(x: Tensor, bias: Tensor): Tensor {
  const t = checkFloatTensor("fl.ops.biasAdd", "x", x);
  return withBias("ops.biasAdd", "bias_add", t, checkRowVector("fl.ops.biasAdd", "bias", bias, "x", t));
}

/** max(x, 0). */
export function relu(x: Tensor): Tensor {
  return unary("ops.relu", "relu", checkFloatTensor("fl.ops.relu", "x", x));
}

/** x * Phi(x): erf form by default, `{ approximate: "tanh" }` for the tanh approximation. */
export function gelu(x: Tensor, options?: GeluOptions): Tensor {
  const t = checkFloatTensor("fl.ops.gelu", "x", x);
  const approximate = geluApproximation("fl.ops.gelu", options);
  return unary("ops.gelu", geluKernelOp(approximate, "gelu", "gelu_tanh"), t);
}

/** x * sigmoid(x). */
export function silu(x: Tensor): Tensor {
  return unary("ops.silu", "silu", checkFloatTensor("fl.ops.silu", "x", x));
}

/** relu(a + b); unfused: `ops.relu(ops.add(a, b))`. */
export function addRelu(a: Tensor, b: Tensor): Tensor {
  return binary("fused.addRelu", "add_relu", ...checkPair("fl.fused.addRelu", a, b));
}

/** relu(a + b) * s; unfused: `ops.scale(ops.relu(ops.add(a, b)), s)`. */
export function addReluScale(a: Tensor, b: Tensor, s: number): Tensor {
  const where = "fl.fused.addReluScale";
  const [x, y] = checkPair(where, a, b);
  return binary("fused.addReluScale", "add_relu_scale", x, y, checkFiniteNumber(where, "s", s));
}

/**
 * relu(x) * scale [+ bias] (bias optional: omitted or null); unfused:
 * `ops.biasAdd(ops.scale(ops.relu(x), scale), bias)`.
 */
export function reluScaleBias(x: Tensor, scale: number, bias?: Tensor | null): Tensor {
  const where = "fl.fused.reluScaleBias";
  const t = checkFloatTensor(where, "x", x);
  const s = checkFiniteNumber(where, "scale", scale);
  if (bias === undefined || bias === null) return unary("fused.reluScaleBias", "relu_scale", t, s);
  return withBias("fused.reluScaleBias", "relu_scale_bias", t, checkRowVector(where, "bias", bias, "x", t), s);
}

/**
 * x * scale + bias: reluScaleBias's kernel without the relu; unfused:
 * `ops.biasAdd(ops.scale(x, scale), bias)`.
 */
export function scaleBias(x: Tensor, scale: number, bias: Tensor): Tensor {
  const where = "fl.fused.scaleBias";
  const t = checkFloatTensor(where, "x", x);
  const s = checkFiniteNumber(where, "scale", scale);
  return withBias("fused.scaleBias", "scale_bias", t, checkRowVector(where, "bias", bias, "x", t), s);
}

/** gelu(x + bias), bias broadcast over rows; unfused: `ops.gelu(ops.biasAdd(x, bias), options)`. */
export function biasGelu(x: Tensor, bias: Tensor, options?: GeluOptions): Tensor {
  const where = "fl.fused.biasGelu";
  const t = checkFloatTensor(where, "x", x);
  const b = checkRowVector(where, "bias", bias, "x", t);
  const approximate = geluApproximation(where, options);
  return withBias("fused.biasGelu", geluKernelOp(approximate, "bias_gelu", "bias_gelu_tanh"), t, b);
}

/**
 * x: [..., 2, d] → [..., d]: silu(x[..., 0, :]) * x[..., 1, :] (vLLM's silu_and_mul);
 * unfused, over separate gate and up tensors: `ops.mul(ops.silu(gate), up)`.
 */
export function siluAndMul(x: Tensor): Tensor {
  return actAndMul("fused.siluAndMul", "silu_and_mul", checkStackedHalves("fl.fused.siluAndMul", x));
}

/** x: [..., 2, d] → [..., d]: gelu(x[..., 0, :]) * x[..., 1, :]; unfused: `ops.mul(ops.gelu(gate, options), up)`. */
export function geluAndMul(x: Tensor, options?: GeluOptions): Tensor {
  const t = checkStackedHalves("fl.fused.geluAndMul", x);
  const approximate = geluApproximation("fl.fused.geluAndMul", options);
  return actAndMul("fused.geluAndMul", geluKernelOp(approximate, "gelu_and_mul", "gelu_tanh_and_mul"), t);
}

export const elementwiseOps = { add, mul, scale, biasAdd, relu, gelu, silu };
export const elementwiseFused = { addRelu, addReluScale, reluScaleBias, scaleBias, biasGelu, siluAndMul, geluAndMul };
