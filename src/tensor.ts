// Tensors: one device buffer each, with a shape and a dtype; and the functions
// that make them. Every argument is checked here, worded by errors.ts.
import { inspect } from "util";
import { ArgumentError, FuselabError, checkOptionsObject, describe, shapeString } from "./errors";
import { DTYPES, DTYPE_BYTES, DType, HostArray, decode, encode, isDType, isFloatDType, storageFor } from "./dtype";
import { Device, checkDevice } from "./device";
import { formatBytes } from "./format";
import { BufferHandle, native, nativeAsync, nativeCall } from "./native";
import { normal, seedOrNext, uniform } from "./random";
import { inspectRich } from "./tslab";

/** Switches for debugging kernels. */
export const debug = {
  /** When true, new tensors start as NaN (every byte 0xFF), so outputs a kernel forgot to write show up. */
  poison: false,
};

/** The most elements one tensor may have. */
export const MAX_ELEMENTS = 2 ** 31;

/** Where and how a tensor is made. */
export interface TensorOptions {
  /** Element type; "f32" when left out (or the typed array's own type for `tensor()`). */
  dtype?: DType;
  /** The device to allocate on; `device()` (the default device) when left out. */
  device?: Device;
}

/** Options of `tensor()`: the shape, when the data is flat. */
export interface TensorDataOptions extends TensorOptions {
  shape?: readonly number[];
}

/** Options of `randn()` and `rand()`. */
export interface RandomOptions extends TensorOptions {
  /** Same seed, same numbers, on every device; successive calls without one differ. */
  seed?: number;
}

/** Values `tensor()` accepts: a number, nested arrays of numbers, or a typed array. */
export type TensorData = number | NestedNumbers | ArrayLike<number>;
export interface NestedNumbers extends ReadonlyArray<number | NestedNumbers> {}

let tensorsMade = 0;

/** @internal How many tensors have been made so far (the last one's `serial`). */
export function tensorCount(): number {
  return tensorsMade;
}

/**
 * An n-dimensional array in device memory. Its shape, dtype, size and device are
 * fixed when it is made and kept in private state: reassigning them, shadowing
 * them or wrapping the tensor in a Proxy cannot make an op read or write memory
 * the tensor does not own (ops accept only tensors that `isTensor` vouches for).
 */
export class Tensor {
  readonly #shape: readonly number[];
  readonly #dtype: DType;
  readonly #device: Device;
  readonly #size: number;
  readonly #serial: number;
  #buffer: BufferHandle | undefined;

  /** @internal Tensors are made by `tensor`, `empty`, `zeros`, ... */
  constructor(shape: readonly number[], dtype: DType, dev: Device, buffer: BufferHandle) {
    this.#shape = Object.freeze([...shape]);
    this.#dtype = dtype;
    this.#device = dev;
    this.#size = elementCount(shape);
    this.#serial = ++tensorsMade;
    this.#buffer = buffer;
    Object.freeze(this);
  }

  /** Whether `value` is a tensor made by fuselab (not a look-alike, not a Proxy of one). */
  static isTensor(value: unknown): value is Tensor {
    return typeof value === "object" && value !== null && #buffer in value;
  }

  /** Sizes of each dimension. */
  get shape(): readonly number[] { return this.#shape; }
  /** Element type. */
  get dtype(): DType { return this.#dtype; }
  /** The device that holds the elements. */
  get device(): Device { return this.#device; }
  /** Number of elements. */
  get size(): number { return this.#size; }
  /** Bytes of device memory the elements take. */
  get bytes(): number { return this.#size * DTYPE_BYTES[this.#dtype]; }
  /** @internal Creation order, from 1: `bench()` tells the tensors a case made from its inputs. */
  get serial(): number { return this.#serial; }

  /** Whether `dispose()` has freed the tensor's memory. */
  get disposed(): boolean {
    return this.#buffer === undefined;
  }

  /** @internal The device buffer, for launches; throws once disposed. */
  handle(where: string): BufferHandle {
    if (this.#buffer === undefined) throw new FuselabError(`${where}: ${this.describe()} was used after dispose()`);
    return this.#buffer;
  }

  /** The elements, copied to the host: a Float32Array for f32/f16/bf16, Int32Array for i32, Uint8Array for u8. */
  toArray(): HostArray {
    const handle = this.handle("tensor.toArray");
    const storage = storageFor(this.dtype, this.size);
    nativeCall(() => native().download(handle, storage));
    return decode(this.dtype, storage);
  }

  /** As `toArray()`, waiting off the main thread. */
  async data(): Promise<HostArray> {
    const handle = this.handle("tensor.data");
    const storage = storageFor(this.dtype, this.size);
    await nativeAsync(() => native().downloadAsync(handle, storage));
    return decode(this.dtype, storage);
  }

  /** A copy on `target` (a new tensor, also when `target` is this tensor's device). */
  to(target: Device): Tensor {
    const handle = this.handle("tensor.to");
    if (!(target instanceof Device)) throw new ArgumentError("tensor.to", "device", "a device from fl.device()", describe(target));
    const out = allocate(this.shape, this.dtype, target, false);
    if (target === this.device) {
      nativeCall(() => native().copy(out.handle("tensor.to"), handle, this.bytes));
    } else {
      const storage = storageFor(this.dtype, this.size);
      nativeCall(() => native().download(handle, storage));
      nativeCall(() => native().upload(out.handle("tensor.to"), storage));
    }
    return out;
  }

  /** Frees the device memory now (it is freed when the tensor is collected otherwise). Calling it again does nothing. */
  dispose(): void {
    if (this.#buffer === undefined) return;
    const buffer = this.#buffer;
    this.#buffer = undefined;
    nativeCall(() => native().release(buffer));
  }

  /** "a f32 tensor of shape [4, 7] on cpu". */
  describe(): string {
    return `a ${this.#dtype} tensor of shape ${shapeString(this.#shape)} on ${this.#device.describe()}`;
  }

  toString(): string {
    return this.describe();
  }

  /**
   * @internal The top-left corner of the tensor seen as rows of its last dimension:
   * up to `rows` rows of up to `columns` values, read without copying the rest.
   */
  corner(rows: number, columns: number): number[][] {
    const handle = this.handle("tensor.corner");
    const width = this.shape[this.shape.length - 1];
    const height = width === 0 ? 0 : this.size / width;
    const take = Math.min(columns, width);
    const corner: number[][] = [];
    for (let row = 0; row < Math.min(rows, height); row++) {
      const storage = storageFor(this.dtype, take);
      nativeCall(() => native().download(handle, storage, row * width * DTYPE_BYTES[this.dtype]));
      corner.push(Array.from(decode(this.dtype, storage)));
    }
    return corner;
  }

  /** What console.log and a notebook's last expression show: the description and the first values. */
  [inspect.custom](): string {
    return inspectRich(this, () => tensorText(this));
  }
}

/** Rows and columns of a tensor's corner that its text and HTML show. */
export const PREVIEW_ROWS = 4;
export const PREVIEW_COLUMNS = 8;

/** A value as tensors show it: four significant digits, integers whole. */
export function previewNumber(value: number): string {
  if (Number.isInteger(value) || !Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  return abs !== 0 && (abs < 1e-3 || abs >= 1e5) ? value.toExponential(3) : String(Number(value.toPrecision(4)));
}

/** "tensor f32 [256, 1024] on cpu:0" and the corner of its values, "..." where there are more. */
export function tensorText(t: Tensor): string {
  const head = `tensor ${t.dtype} ${shapeString(t.shape)} on ${t.device.describe()}`;
  if (t.disposed) return `${head} (disposed)`;
  if (t.size === 0) return `${head} (no elements)`;
  const width = t.shape[t.shape.length - 1];
  const rows = t.corner(PREVIEW_ROWS, PREVIEW_COLUMNS).map((row) =>
    "  " + row.map(previewNumber).join(", ") + (width > row.length ? ", ..." : ""));
  if (t.size / width > rows.length) rows.push("  ...");
  return [head, ...rows].join("\n");
}

/** The number of elements of a tensor of `shape`. */
export function elementCount(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** @internal Throws when `t`, passed as `argument`, has been disposed. */
export function checkNotDisposed(where: string, argument: string, t: Tensor): void {
  if (t.disposed) throw new ArgumentError(where, argument, "a tensor that has not been disposed", `a disposed ${t.dtype} tensor of shape ${shapeString(t.shape)}`);
}

/** Whether `value` is a typed array of numbers (not a DataView, not a BigInt array). */
export function isNumberArray(value: unknown): value is ArrayLike<number> {
  return ArrayBuffer.isView(value) && !(value instanceof DataView) && !(value instanceof BigInt64Array || value instanceof BigUint64Array);
}

/** The most dimensions a tensor may have. */
export const MAX_DIMS = 16;

/**
 * The shape as a fresh array, each element read once (a getter or Proxy cannot
 * answer one thing when checked and another when used); throws for anything but
 * 1 to MAX_DIMS positive integer dims within the limits.
 */
export function checkShape(where: string, given: unknown, dtype: DType, dev: Device): number[] {
  if (!Array.isArray(given)) throw new ArgumentError(where, "shape", "an array of positive integers", describe(given));
  const length = given.length;
  if (length === 0) throw new ArgumentError(where, "shape", "an array of at least one dimension", "[]");
  if (length > MAX_DIMS) throw new ArgumentError(where, "shape", `an array of at most ${MAX_DIMS} dimensions`, `${length} dimensions`);
  const shape: unknown[] = [];
  for (let i = 0; i < length; i++) shape.push(i in given ? given[i] : undefined);
  shape.forEach((dim, i) => {
    if (typeof dim !== "number" || !Number.isInteger(dim) || dim < 1) {
      throw new ArgumentError(where, `shape[${i}]`, "a positive integer", describe(dim));
    }
  });
  const size = elementCount(shape as number[]);
  if (size > MAX_ELEMENTS) {
    throw new ArgumentError(where, "shape", `at most ${MAX_ELEMENTS} (2^31) elements`, `${shapeString(shape as number[])} (${size} elements)`);
  }
  const bytes = size * DTYPE_BYTES[dtype];
  const memory = dev.props.totalMemory;
  if (memory > 0 && bytes > memory) {
    throw new ArgumentError(where, "shape", `a tensor that fits in the memory of ${dev.describe()} (${formatBytes(memory)})`,
      `${shapeString(shape as number[])} (${formatBytes(bytes)} of ${dtype})`);
  }
  return shape as number[];
}

function checkDType(where: string, dtype: unknown, fallback: DType): DType {
  if (dtype === undefined) return fallback;
  if (!isDType(dtype)) throw new ArgumentError(where, "options.dtype", `one of ${DTYPES.join(", ")}`, describe(dtype));
  return dtype;
}

// A tensor of `shape`, uninitialised (or NaN-poisoned when debug.poison is on).
function allocate(shape: readonly number[], dtype: DType, dev: Device, poison: boolean): Tensor {
  const buffer = nativeCall(() => native().alloc(dev.handle, elementCount(shape) * DTYPE_BYTES[dtype]));
  const t = new Tensor(shape, dtype, dev, buffer);
  if (poison) nativeCall(() => native().fill(buffer, 0xff));
  return t;
}

// What a value must be to be stored in `dtype`, or undefined when it may be.
function valueProblem(dtype: DType, value: unknown): string | undefined {
  if (typeof value !== "number") return "a number";
  if (dtype === "i32" && !(Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31)) return "an integer from -2147483648 to 2147483647 (i32)";
  if (dtype === "u8" && !(Number.isInteger(value) && value >= 0 && value <= 255)) return "an integer from 0 to 255 (u8)";
  return undefined;
}

function checkValues(where: string, what: string, dtype: DType, values: ArrayLike<number>): void {
  // Typed arrays of the same integer type cannot hold a bad value; others are checked one by one.
  if ((dtype === "i32" && values instanceof Int32Array) || (dtype === "u8" && values instanceof Uint8Array)) return;
  if (isFloatDType(dtype) && ArrayBuffer.isView(values)) return;
  for (let i = 0; i < values.length; i++) {
    const problem = valueProblem(dtype, values[i]);
    if (problem) throw new ArgumentError(where, `${what}[${i}]`, problem, describe(values[i]));
  }
}

// The shape of nested arrays (from their first elements) and their elements in
// order, each read once; at most MAX_DIMS deep, with no holes.
function flatten(where: string, data: NestedNumbers): { shape: number[]; values: number[] } {
  const shape: number[] = [];
  for (let level: unknown = data; Array.isArray(level); level = level.length > 0 ? level[0] : undefined) {
    if (shape.length === MAX_DIMS) throw new ArgumentError(where, "data", `arrays nested at most ${MAX_DIMS} deep`, "deeper arrays");
    shape.push(level.length);
  }
  const values: number[] = [];
  const walk = (node: unknown, depth: number, path: string): void => {
    if (depth === shape.length) {
      if (Array.isArray(node)) throw new ArgumentError(where, path, "a number (the arrays are nested unevenly)", describe(node));
      values.push(node as number);
      return;
    }
    if (!Array.isArray(node) || node.length !== shape[depth]) {
      throw new ArgumentError(where, path, `an array of length ${shape[depth]} (as its siblings)`, describe(node));
    }
    for (let i = 0; i < shape[depth]; i++) {
      if (!(i in node)) throw new ArgumentError(where, `${path}[${i}]`, "a number", "an empty slot (a hole in the array)");
      walk(node[i], depth + 1, `${path}[${i}]`);
    }
  };
  walk(data, 0, "data");
  return { shape, values };
}

function typedArrayDType(data: unknown): DType {
  if (data instanceof Int32Array) return "i32";
  if (data instanceof Uint8Array) return "u8";
  return "f32";
}

/**
 * A tensor from host data: a number, nested arrays (shape inferred) or a flat
 * array or typed array (shape given, or 1-D).
 */
export function tensor(data: TensorData, options?: TensorDataOptions): Tensor {
  const where = "fl.tensor";
  const o = checkOptionsObject(where, options, ["shape", "dtype", "device"]);
  let values: ArrayLike<number>;
  let inferred: number[];
  if (typeof data === "number") {
    values = [data];
    inferred = [1];
  } else if (Array.isArray(data)) {
    const flat = flatten(where, data as NestedNumbers);
    values = flat.values;
    inferred = flat.shape;
  } else if (isNumberArray(data)) {
    values = data;
    inferred = [values.length];
  } else {
    throw new ArgumentError(where, "data", "a number, nested arrays of numbers or a typed array", describe(data));
  }
  const dtype = checkDType(where, o.dtype, typedArrayDType(data));
  const dev = checkDevice(where, o.device);
  if (values.length === 0) throw new ArgumentError(where, "data", "at least one element", describe(data));
  const shape = checkShape(where, o.shape ?? inferred, dtype, dev);
  const size = elementCount(shape);
  if (size !== values.length) {
    throw new ArgumentError(where, "options.shape", `a shape of ${values.length} elements (the length of data)`, `${shapeString(shape)} (${size} elements)`);
  }
  checkValues(where, "data", dtype, values);
  const t = allocate(shape, dtype, dev, false);
  nativeCall(() => native().upload(t.handle(where), encode(dtype, values)));
  return t;
}

// The options, dtype, device and shape of empty(), zeros(), ones() and full(), checked in that order.
function checkMade(where: string, shape: unknown, options: unknown): { shape: number[]; dtype: DType; dev: Device } {
  const o = checkOptionsObject(where, options, ["dtype", "device"]);
  const dtype = checkDType(where, o.dtype, "f32");
  const dev = checkDevice(where, o.device);
  return { shape: checkShape(where, shape, dtype, dev), dtype, dev };
}

/** An uninitialised tensor (NaN-poisoned when `debug.poison` is on). */
export function empty(shape: readonly number[], options?: TensorOptions): Tensor {
  const made = checkMade("fl.empty", shape, options);
  return allocate(made.shape, made.dtype, made.dev, debug.poison);
}

/** A tensor of zeros. */
export function zeros(shape: readonly number[], options?: TensorOptions): Tensor {
  const made = checkMade("fl.zeros", shape, options);
  const t = allocate(made.shape, made.dtype, made.dev, false);
  nativeCall(() => native().fill(t.handle("fl.zeros"), 0));
  return t;
}

function filled(where: string, shape: readonly number[], value: unknown, options: unknown): Tensor {
  const { shape: checked, dtype, dev } = checkMade(where, shape, options);
  const problem = valueProblem(dtype, value);
  if (problem) throw new ArgumentError(where, "value", problem, describe(value));
  const t = allocate(checked, dtype, dev, false);
  const storage = storageFor(dtype, t.size);
  storage.fill(encode(dtype, [value as number])[0]);
  nativeCall(() => native().upload(t.handle(where), storage));
  return t;
}

/** A tensor of ones. */
export function ones(shape: readonly number[], options?: TensorOptions): Tensor {
  return filled("fl.ones", shape, 1, options);
}

/** A tensor with every element `value`. */
export function full(shape: readonly number[], value: number, options?: TensorOptions): Tensor {
  return filled("fl.full", shape, value, options);
}

function random(where: string, shape: readonly number[], options: unknown, generate: (size: number, seed: number) => Float32Array): Tensor {
  const o = checkOptionsObject(where, options, ["dtype", "device", "seed"]);
  const dtype = checkDType(where, o.dtype, "f32");
  if (!isFloatDType(dtype)) throw new ArgumentError(where, "options.dtype", "f32, f16 or bf16", describe(dtype));
  if (o.seed !== undefined && !(typeof o.seed === "number" && Number.isSafeInteger(o.seed) && o.seed >= 0)) {
    throw new ArgumentError(where, "options.seed", "a non-negative integer", describe(o.seed));
  }
  const dev = checkDevice(where, o.device);
  const checked = checkShape(where, shape, dtype, dev);
  const values = generate(elementCount(checked), seedOrNext(o.seed as number | undefined));
  const t = allocate(checked, dtype, dev, false);
  nativeCall(() => native().upload(t.handle(where), encode(dtype, values)));
  return t;
}

/** Standard normal numbers, seeded: the same on every device. */
export function randn(shape: readonly number[], options?: RandomOptions): Tensor {
  return random("fl.randn", shape, options, normal);
}

/** Numbers uniform in [0, 1), seeded: the same on every device. */
export function rand(shape: readonly number[], options?: RandomOptions): Tensor {
  return random("fl.rand", shape, options, uniform);
}
