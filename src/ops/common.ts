// Helpers shared by every op family: argument checks worded by errors.ts, output
// allocation, launch shapes, the choice of vector width, and the launch itself.
import { ArgumentError, checkOptionsObject, describe, shapeString } from "../errors";
import { DTYPE_BYTES, DType, isFloatDType } from "../dtype";
import { builtins } from "../module";
import { Tensor, empty } from "../tensor";
import type { Device } from "../device";
import { FLOAT_DTYPES, FloatDType, KernelsByDType } from "./declare";


/** Threads in a block for the grid-stride kernels. */
const BLOCK_THREADS = 256;

// Blocks of BLOCK_THREADS per emulator worker in a grid-stride launch on the CPU,
// where every thread costs a fiber switch: the loop covers the rest. A GPU gets a
// covering grid (each thread one work item, one trip round the loop): on an H100
// at 32768x4096, add_relu reached 101% of the copy ceiling so, against 96.7% with
// 32 blocks a multiprocessor striding over the data
// (bench/results/nvidia-h100-80gb-hbm3-2026-11-23-add-relu-variants.log).
const BLOCKS_PER_CPU_WORKER = 32;

// Rows a GPU thread of a row kernel takes by default, keeping its column's
// operand in registers across them (the elementwise row ops choose their own,
// by dtype: src/ops/elementwise.ts).
const ROWS_PER_GPU_THREAD = 4;

/** Kernels index elements with 32-bit ints; larger tensors are refused before launch. */
const MAX_KERNEL_ELEMENTS = 2 ** 31 - 1;

/** A grid and block as `Kernel.launch` takes them. */
export interface LaunchShape {
  grid: [number, number];
  block: [number, number];
}

/** `value` as a tensor that is still alive, or an ArgumentError naming `name`. */
function checkTensor(where: string, name: string, value: unknown): Tensor<DType> {
  if (!Tensor.isTensor(value)) throw new ArgumentError(where, name, "a tensor", describe(value));
  if (value.disposed) {
    throw new ArgumentError(where, name, "a tensor that has not been disposed",
      `a disposed ${value.dtype} tensor of shape ${shapeString(value.shape)}`);
  }
  if (value.size > MAX_KERNEL_ELEMENTS) {
    throw new ArgumentError(where, name, `a tensor of at most ${MAX_KERNEL_ELEMENTS} elements`,
      `${value.size} elements (shape ${shapeString(value.shape)})`);
  }
  return value;
}

/** A live tensor of f32, f16 or bf16 (the dtypes the built-in kernels come in). */
export function checkFloatTensor(where: string, name: string, value: unknown): Tensor<FloatDType> {
  const t = checkTensor(where, name, value);
  if (!(FLOAT_DTYPES as readonly DType[]).includes(t.dtype)) {
    throw new ArgumentError(where, name, "a tensor of dtype f32, f16 or bf16", `a tensor of dtype ${t.dtype}`);
  }
  return t as Tensor<FloatDType>;
}

/** A live tensor of `dtype`. */
export function checkTensorOf<D extends DType>(where: string, name: string, value: unknown, dtype: D): Tensor<D> {
  const t = checkTensor(where, name, value);
  if (t.dtype !== dtype) throw new ArgumentError(where, name, `a tensor of dtype ${dtype}`, `a tensor of dtype ${t.dtype}`);
  return t as Tensor<D>;
}

/** `t` lives on the device of `ref` (named `refName` in the message). */
export function checkSameDevice(where: string, name: string, t: Tensor<DType>, refName: string, ref: Tensor<DType>): void {
  if (t.device !== ref.device) {
    throw new ArgumentError(where, name, `on ${describe(ref.device)} (the device of ${refName})`,
      `a tensor on ${describe(t.device)}`);
  }
}

/** `t` has the dtype of `ref`. */
export function checkSameDtype(where: string, name: string, t: Tensor<DType>, refName: string, ref: Tensor<DType>): void {
  if (t.dtype !== ref.dtype) {
    throw new ArgumentError(where, name, `of dtype ${ref.dtype} (the dtype of ${refName})`, t.dtype);
  }
}

/** `t` has the shape of `ref`. */
function checkSameShape(where: string, name: string, t: Tensor<DType>, refName: string, ref: Tensor<DType>): void {
  if (!sameShape(t.shape, ref.shape)) {
    throw new ArgumentError(where, name, `have shape ${shapeString(ref.shape)} (the shape of ${refName})`,
      shapeString(t.shape));
  }
}

/** A live tensor on the device of `ref`, with its dtype and shape. */
export function checkLike(where: string, name: string, value: unknown, refName: string, ref: Tensor): Tensor {
  const t = checkTensor(where, name, value);
  checkSameDevice(where, name, t, refName, ref);
  checkSameDtype(where, name, t, refName, ref);
  checkSameShape(where, name, t, refName, ref);
  return t as Tensor;  // of ref's dtype
}

/**
 * A live 1-D tensor as long as the last dim of `ref`, on its device, of its dtype
 * (a bias, weight, gamma or beta applied to every row of `ref`).
 */
export function checkRowVector(where: string, name: string, value: unknown, refName: string, ref: Tensor): Tensor {
  const t = checkTensor(where, name, value);
  checkSameDevice(where, name, t, refName, ref);
  checkSameDtype(where, name, t, refName, ref);
  const cols = lastDim(ref.shape);
  if (t.shape.length !== 1 || t.shape[0] !== cols) {
    throw new ArgumentError(where, name, `have shape [${cols}] (the last dim of ${refName})`, shapeString(t.shape));
  }
  return t as Tensor;  // of ref's dtype
}

/** A finite number (a scale, an epsilon). */
export function checkFiniteNumber(where: string, name: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new ArgumentError(where, name, "a finite number", describe(value));
  }
  return value;
}

/** An options object whose keys are all among `keys` (a misspelt option is an error, not ignored). */
export function checkOptions<T extends object>(where: string, value: unknown, keys: readonly (keyof T & string)[]): Partial<T> {
  return checkOptionsObject(where, value, keys) as Partial<T>;
}

/** One of a fixed set of strings, or `fallback` when undefined. */
export function checkChoice<T extends string>(where: string, name: string, value: unknown,
                                              choices: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value !== "string" || !(choices as readonly string[]).includes(value)) {
    const expected = choices.map((c) => JSON.stringify(c));
    const last = expected[expected.length - 1];
    const listed = expected.length > 1 ? `${expected.slice(0, -1).join(", ")} or ${last}` : last;
    throw new ArgumentError(where, name, listed, describe(value));
  }
  return value as T;
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** The last dim of a shape (the row length); every tensor has at least one dim. */
export function lastDim(shape: readonly number[]): number {
  return shape[shape.length - 1];
}

/** The number of rows: every dim but the last, multiplied. */
export function rowCount(shape: readonly number[]): number {
  return shape.slice(0, -1).reduce((p, d) => p * d, 1);
}

/** Options of an op that can write into a tensor you give. */
export interface OutOptions {
  /** The tensor to write the result into (its dtype, shape and device must be the result's); may be an input, for in place. */
  out?: Tensor;
}

/** `options.out` checked against `like`, or a new tensor like it. */
export function outputFor(where: string, options: unknown, like: Tensor): Tensor {
  const o = checkOptions<OutOptions>(where, options, ["out"]);
  return o.out === undefined ? emptyLike(like) : checkLike(where, "options.out", o.out, "the result", like);
}

/** A new tensor of `shape` with the dtype and device of `like` (poisoned when debug.poison is set). */
export function emptyLike(like: Tensor, shape: readonly number[] = like.shape): Tensor {
  return empty([...shape], { dtype: like.dtype, device: like.device });
}

/** Elements of `dtype` in one 16-byte (128-bit) access. */
export function vectorWidth(dtype: FloatDType): number {
  return 16 / DTYPE_BYTES[dtype];
}

/**
 * Whether rows of `rowLength` elements can be read with 16-byte accesses: buffers
 * start 256-byte aligned, so every row start is aligned when the row length is a
 * multiple of the vector width.
 */
export function rowsVectorizable(dtype: FloatDType, rowLength: number): boolean {
  return rowLength % vectorWidth(dtype) === 0;
}

/** The accesses a row kernel makes along a row: 16-byte vectors when `rowsVectorizable`, else elements. */
export function rowChunks(dtype: FloatDType, rowLength: number): number {
  return rowsVectorizable(dtype, rowLength) ? rowLength / vectorWidth(dtype) : rowLength;
}

/**
 * One launch of the built-in kernel for `ref`'s dtype among `kernels`, on behalf
 * of `op`, which states the bytes the launch must move (its traffic model).
 */
export function launchBuiltin(op: string, kernels: KernelsByDType, ref: Tensor, shape: LaunchShape, bytesRead: number,
                              bytesWritten: number, args: (Tensor | number)[]): void {
  const kernel = builtins(ref.device).fn(kernels[ref.dtype as FloatDType]);
  // Outputs of no elements (a batch of no rows): nothing to write, so no launch, whose grid would have no blocks.
  const outputs = args.filter((a, i) => kernel.params[i].pointer && !kernel.params[i].isConst) as Tensor[];
  if (outputs.length > 0 && outputs.every((t) => t.size === 0)) return;
  kernel.launchAs({ op, bytesRead, bytesWritten }, shape, args);
}

/** The sum of the bytes of `tensors`, each counted once (an argument passed twice is read once). */
export function distinctBytes(tensors: readonly (Tensor | null | undefined)[]): number {
  const seen = new Set<Tensor>();
  for (const t of tensors) if (t) seen.add(t);
  return [...seen].reduce((sum, t) => sum + t.bytes, 0);
}

/** The most blocks a grid-stride launch takes on `device`: none beyond the grid's limits on a GPU. */
function mostBlocks(device: Device): number {
  return device.kind === "cpu" ? Math.max(1, device.props.multiprocessors * BLOCKS_PER_CPU_WORKER) : Infinity;
}

/**
 * Launch shape for a 1-D grid-stride kernel over `items` work items (vectors or
 * elements): enough blocks to cover them, within the device's limits.
 */
export function launch1D(device: Device, items: number): LaunchShape {
  const blocks = Math.min(Math.ceil(items / BLOCK_THREADS), mostBlocks(device), device.props.maxGridDim[0]);
  return { grid: [Math.max(1, blocks), 1], block: [BLOCK_THREADS, 1] };
}

/**
 * Launch shape for a 2-D grid-stride kernel over `rows` rows of `rowItems` work
 * items each: x runs along a row (consecutive threads, coalesced accesses), y over
 * rows. Narrow rows get a narrow, tall block so that no thread idles; the grid
 * covers the rows (a few a thread on a GPU) within the device's limits.
 */
export function launchRows(device: Device, rows: number, rowItems: number, rowsPerGpuThread = ROWS_PER_GPU_THREAD): LaunchShape {
  const blockX = Math.min(BLOCK_THREADS, nextPowerOfTwo(rowItems));
  const blockY = BLOCK_THREADS / blockX;
  const most = mostBlocks(device);
  const gridX = Math.min(Math.ceil(rowItems / blockX), most, device.props.maxGridDim[0]);
  const rowsPerThread = device.kind === "cpu" ? 1 : rowsPerGpuThread;
  const gridY = Math.min(Math.ceil(rows / (blockY * rowsPerThread)), Math.max(1, Math.floor(most / gridX)), device.props.maxGridDim[1]);
  return { grid: [gridX, gridY], block: [blockX, blockY] };
}

/** The smallest power of two >= n (1 for n <= 1). */
export function nextPowerOfTwo(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}
