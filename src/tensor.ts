// Tensors: one device buffer each, with a shape and a dtype; and the functions
// that make them. Every argument is checked here, worded by errors.ts.
import { inspect } from "util";
import { ArgumentError, FuselabError, aDtype, checkOptionsObject, describe, shapeString } from "./errors";
import {
  DTYPES, DTYPE_BYTES, DType, HostArray, INTEGER_RANGES, NumberDType, Storage, decode, encode, holdsValuesOf, isBigDType, isDType, isFloatDType, storageFor,
} from "./dtype";
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
export interface TensorOptions<D extends DType = DType> {
  /** Element type; "f32" when left out (or the typed array's own type for `tensor()`). */
  dtype?: D;
  /** The device to allocate on; `device()` (the default device) when left out. */
  device?: Device;
}

/** Options of `tensor()`: the shape, when the data is flat. */
export interface TensorDataOptions<D extends DType = DType> extends TensorOptions<D> {
  shape?: readonly number[];
}

/** Options of `randn()` and `rand()`. */
export interface RandomOptions<D extends RandomDType = RandomDType> extends TensorOptions<D> {
  /** Same seed, same numbers, on every device; successive calls without one differ. */
  seed?: number;
}

/** The dtypes `randn()` and `rand()` draw: the float types. */
export type RandomDType = "f32" | "f16" | "bf16" | "f64";

/**
 * Values `tensor()` accepts: a number, nested arrays of numbers, or a typed
 * array; bigints where the dtype is an integer type (i64 and u64 values beyond
 * 2^53 must be bigints).
 */
export type TensorData = number | bigint | NestedNumbers | ArrayLike<number> | ArrayLike<bigint>;
export interface NestedNumbers extends ReadonlyArray<number | bigint | NestedNumbers> {}

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
 * `D` is its dtype where known; `Tensor` alone is a tensor of numbers (any dtype
 * but i64 and u64, whose values are bigints).
 */
export class Tensor<D extends DType = NumberDType> {
  readonly #shape: readonly number[];
  readonly #dtype: D;
  readonly #device: Device;
  readonly #size: number;
  readonly #serial: number;
  #buffer: BufferHandle | undefined;

  /** @internal Tensors are made by `tensor`, `empty`, `zeros`, ... */
  constructor(shape: readonly number[], dtype: D, dev: Device, buffer: BufferHandle) {
    this.#shape = Object.freeze([...shape]);
    this.#dtype = dtype;
    this.#device = dev;
    this.#size = elementCount(shape);
    this.#serial = ++tensorsMade;
    this.#buffer = buffer;
    Object.freeze(this);
  }

  /** Whether `value` is a tensor made by fuselab (not a look-alike, not a Proxy of one). */
  static isTensor(value: unknown): value is Tensor<DType> {
    return typeof value === "object" && value !== null && #buffer in value;
  }

  /** Sizes of each dimension. */
  get shape(): readonly number[] { return this.#shape; }
  /** Element type. */
  get dtype(): D { return this.#dtype; }
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

  /**
   * The elements, copied to the host: a Float32Array for f32, f16 and bf16, the
   * dtype's own typed array for the others (BigInt64Array for i64, BigUint64Array for u64).
   */
  toArray(): HostArray<D> {
    return this.download("tensor.toArray", 0, this.size);
  }

  /** As `toArray()`, waiting off the main thread. */
  async data(): Promise<HostArray<D>> {
    const handle = this.handle("tensor.data");
    const storage = storageFor(this.dtype, this.size);
    // No elements: one element's read all the same, which waits for the launches before it and reports their faults.
    await nativeAsync(() => native().downloadAsync(handle, this.size > 0 ? storage : storageFor(this.dtype, 1)));
    return decode(this.dtype, storage) as HostArray<D>;
  }

  /** @internal `count` elements from element `first`, copied to the host. */
  download(where: string, first: number, count: number): HostArray<D> {
    const handle = this.handle(where);
    const storage = storageFor(this.dtype, count);
    // No elements: one element's read all the same, which waits for the launches before it and reports their faults.
    nativeCall(() => (count > 0 ? native().download(handle, storage, first * DTYPE_BYTES[this.dtype]) : native().download(handle, storageFor(this.dtype, 1))));
    return decode(this.dtype, storage) as HostArray<D>;
  }

  /**
   * Elements `offset` to `offset + length - 1` as one stretch, for a kernel
   * parameter that points into the middle of the tensor: the kernel gets the
   * tensor's address plus `offset` elements. `length` (to the end when left
   * out) is as far as the kernel may reach through it: the CPU emulator's check
   * mode holds it to the view's end (before its start, the tensor's elements are
   * there, as a stencil's halo reads them), and a built-in kernel's extent is
   * checked against it.
   */
  view(offset: number, length?: number): TensorView<D> {
    return TensorView.within("tensor.view", this, 0, this.size, offset, length);
  }

  /** A copy on `target` (a new tensor, also when `target` is this tensor's device). */
  to(target: Device): Tensor<D> {
    const handle = this.handle("tensor.to");
    if (!(target instanceof Device)) throw new ArgumentError("tensor.to", "device", "a device from fl.device()", describe(target));
    const out = allocate(this.shape, this.dtype, target, false);
    if (target === this.device) {
      nativeCall(() => native().copy(out.handle("tensor.to"), handle, this.bytes));
    } else if (this.size > 0) {
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

  /** "an f32 tensor of shape [4, 7] on cpu". */
  describe(): string {
    return `${aDtype(this.#dtype)} tensor of shape ${shapeString(this.#shape)} on ${this.#device.describe()}`;
  }

  toString(): string {
    return this.describe();
  }

  /**
   * @internal The top-left corner of the tensor seen as rows of its last dimension:
   * up to `rows` rows of up to `columns` values, read without copying the rest.
   */
  corner(rows: number, columns: number): (number | bigint)[][] {
    const width = this.shape[this.shape.length - 1];
    const height = width === 0 ? 0 : this.size / width;
    const take = Math.min(columns, width);
    const corner: (number | bigint)[][] = [];
    for (let row = 0; row < Math.min(rows, height); row++) {
      corner.push(Array.from(this.download("tensor.corner", row * width, take) as ArrayLike<number | bigint>));
    }
    return corner;
  }

  /** What console.log and a notebook's last expression show: the description and the first values. */
  [inspect.custom](): string {
    return inspectRich(this, () => tensorText(this));
  }
}

/**
 * A stretch of a tensor's elements, made by `tensor.view(offset, length)`: a
 * kernel's pointer parameter takes it as the tensor's address plus `offset`
 * elements, and may reach `size` elements from there. A view holds its tensor
 * (it cannot outlive it: once the tensor is disposed, the view is refused) and
 * lies within it; a view of a view lies within that view.
 */
export class TensorView<D extends DType = NumberDType> {
  readonly #tensor: Tensor<D>;
  readonly #offset: number;
  readonly #size: number;

  private constructor(tensor: Tensor<D>, offset: number, size: number) {
    this.#tensor = tensor;
    this.#offset = offset;
    this.#size = size;
    Object.freeze(this);
  }

  /** @internal A view of elements `first + offset` onward of `tensor`, checked to lie within [first, first + count). */
  static within<D extends DType>(where: string, tensor: Tensor<D>, first: number, count: number, offset: unknown, length: unknown): TensorView<D> {
    checkNotDisposed(where, "the tensor", tensor);
    if (typeof offset !== "number" || !Number.isInteger(offset) || offset < 0 || offset > count) {
      throw new ArgumentError(where, "offset", `an integer from 0 to ${count} (the elements it may start at)`, describe(offset));
    }
    const left = count - offset;
    const size = length ?? left;
    if (typeof size !== "number" || !Number.isInteger(size) || size < 0 || size > left) {
      throw new ArgumentError(where, "length", `an integer from 0 to ${left} (the elements from offset ${offset} to the end)`, describe(length));
    }
    return new TensorView(tensor, first + offset, size);
  }

  /** Whether `value` is a view made by fuselab (not a look-alike, not a Proxy of one). */
  static isView(value: unknown): value is TensorView<DType> {
    return typeof value === "object" && value !== null && #tensor in value;
  }

  /** The tensor it is a view of. */
  get tensor(): Tensor<D> { return this.#tensor; }
  /** Its first element's index in the tensor (flat). */
  get offset(): number { return this.#offset; }
  /** Number of elements. */
  get size(): number { return this.#size; }
  get dtype(): D { return this.#tensor.dtype; }
  get device(): Device { return this.#tensor.device; }
  /** Bytes the elements take. */
  get bytes(): number { return this.#size * DTYPE_BYTES[this.dtype]; }
  /** Where its elements start, in bytes from the tensor's start. */
  get byteOffset(): number { return this.#offset * DTYPE_BYTES[this.dtype]; }

  /** Elements `offset` to `offset + length - 1` of this view, as a view of the same tensor. */
  view(offset: number, length?: number): TensorView<D> {
    return TensorView.within("view.view", this.#tensor, this.#offset, this.#size, offset, length);
  }

  /** The view's elements, copied to the host (as `tensor.toArray()` gives them). */
  toArray(): HostArray<D> {
    return this.#tensor.download("view.toArray", this.#offset, this.#size);
  }

  /** "elements 4 to 9 of an f32 tensor of shape [16] on cpu". */
  describe(): string {
    const range = this.#size === 0 ? `no elements (at ${this.#offset})` : `elements ${this.#offset} to ${this.#offset + this.#size - 1}`;
    return `${range} of ${this.#tensor.describe()}`;
  }

  toString(): string {
    return this.describe();
  }

  [inspect.custom](): string {
    return `view: ${this.describe()}`;
  }
}

/** @internal The tensor an argument holds memory of: a tensor, or a view's tensor. */
export function tensorOf(value: unknown): Tensor<DType> | undefined {
  if (Tensor.isTensor(value)) return value;
  if (TensorView.isView(value)) return value.tensor;
  return undefined;
}

/** Rows and columns of a tensor's corner that its text and HTML show. */
export const PREVIEW_ROWS = 4;
export const PREVIEW_COLUMNS = 8;

/** A value as tensors show it: four significant digits, integers whole. */
export function previewNumber(value: number | bigint): string {
  if (typeof value === "bigint" || Number.isInteger(value) || !Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  return abs !== 0 && (abs < 1e-3 || abs >= 1e5) ? value.toExponential(3) : String(Number(value.toPrecision(4)));
}

/** "tensor f32 [256, 1024] on cpu:0" and the corner of its values, "..." where there are more. */
export function tensorText(t: Tensor<DType>): string {
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
export function checkNotDisposed(where: string, argument: string, t: Tensor<DType>): void {
  if (t.disposed) throw new ArgumentError(where, argument, "a tensor that has not been disposed", `a disposed ${t.dtype} tensor of shape ${shapeString(t.shape)}`);
}

/** Whether `value` is a typed array of numbers (not a DataView, not a BigInt array). */
export function isNumberArray(value: unknown): value is ArrayLike<number> {
  return ArrayBuffer.isView(value) && !(value instanceof DataView) && !isBigIntArray(value);
}

/** Whether `value` is a BigInt64Array or BigUint64Array. */
export function isBigIntArray(value: unknown): value is BigInt64Array | BigUint64Array {
  return value instanceof BigInt64Array || value instanceof BigUint64Array;
}

/** The most dimensions a tensor may have. */
export const MAX_DIMS = 16;

/**
 * The shape as a fresh array, each element read once (a getter or Proxy cannot
 * answer one thing when checked and another when used); throws for anything but
 * 1 to MAX_DIMS non-negative integer dims within the limits (a tensor may have no elements).
 */
export function checkShape(where: string, given: unknown, dtype: DType, dev: Device): number[] {
  if (!Array.isArray(given)) throw new ArgumentError(where, "shape", "an array of non-negative integers", describe(given));
  const length = given.length;
  if (length === 0) throw new ArgumentError(where, "shape", "an array of at least one dimension", "[]");
  if (length > MAX_DIMS) throw new ArgumentError(where, "shape", `an array of at most ${MAX_DIMS} dimensions`, `${length} dimensions`);
  const shape: unknown[] = [];
  for (let i = 0; i < length; i++) shape.push(i in given ? given[i] : undefined);
  shape.forEach((dim, i) => {
    if (typeof dim !== "number" || !Number.isInteger(dim) || dim < 0) {
      throw new ArgumentError(where, `shape[${i}]`, "a non-negative integer", describe(dim));
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

// A tensor of `shape`, uninitialised (or NaN-poisoned when debug.poison is on). One of
// no elements holds a buffer of one, which a launch passes as a view of none.
function allocate<D extends DType>(shape: readonly number[], dtype: D, dev: Device, poison: boolean): Tensor<D> {
  const buffer = nativeCall(() => native().alloc(dev.handle, Math.max(1, elementCount(shape)) * DTYPE_BYTES[dtype]));
  const t = new Tensor(shape, dtype, dev, buffer);
  if (poison) nativeCall(() => native().fill(buffer, 0xff));
  return t;
}

// What a value must be to be stored in `dtype`, or undefined when it may be:
// floats take numbers; integers take integers in range, as numbers or bigints,
// and a 64-bit value beyond 2^53 only as a bigint (a number there is already rounded).
function valueProblem(dtype: DType, value: unknown): string | undefined {
  const range = INTEGER_RANGES[dtype];
  if (!range) return typeof value === "number" ? undefined : "a number";
  const expected = `an integer from ${range[0]} to ${range[1]} (${dtype})`;
  if (typeof value === "bigint") return value >= range[0] && value <= range[1] ? undefined : expected;
  if (typeof value !== "number") return isBigDType(dtype) ? "a number or a bigint" : "a number";
  if (!Number.isInteger(value) || value < Number(range[0]) || value > Number(range[1])) return expected;
  if (!Number.isSafeInteger(value)) return `a bigint beyond 2^53 (a number there is already rounded) (${dtype})`;
  return undefined;
}

function checkValues(where: string, what: string, dtype: DType, values: ArrayLike<number | bigint>): void {
  // A typed array of the dtype's own storage cannot hold a bad value; float dtypes take any array of numbers.
  if (holdsValuesOf(dtype, values)) return;
  if (isFloatDType(dtype) && isNumberArray(values)) return;
  for (let i = 0; i < values.length; i++) {
    const problem = valueProblem(dtype, values[i]);
    if (problem) throw new ArgumentError(where, `${what}[${i}]`, problem, describe(values[i]));
  }
}

// The shape of nested arrays (from their first elements) and their elements in
// order, each read once; at most MAX_DIMS deep, with no holes.
function flatten(where: string, data: NestedNumbers): { shape: number[]; values: (number | bigint)[] } {
  const shape: number[] = [];
  for (let level: unknown = data; Array.isArray(level); level = level.length > 0 ? level[0] : undefined) {
    if (shape.length === MAX_DIMS) throw new ArgumentError(where, "data", `arrays nested at most ${MAX_DIMS} deep`, "deeper arrays");
    shape.push(level.length);
  }
  const values: (number | bigint)[] = [];
  const walk = (node: unknown, depth: number, path: string): void => {
    if (depth === shape.length) {
      if (Array.isArray(node)) throw new ArgumentError(where, path, "a number (the arrays are nested unevenly)", describe(node));
      values.push(node as number | bigint);
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

// The dtype data makes when none is given: a typed array's own, i64 for bigints, else f32.
const TYPED_ARRAY_DTYPES: readonly [new (n: number) => Storage | Uint8ClampedArray, DType][] = [
  [Float64Array, "f64"], [Int8Array, "i8"], [Uint8Array, "u8"], [Uint8ClampedArray, "u8"], [Int16Array, "i16"],
  [Uint16Array, "u16"], [Int32Array, "i32"], [Uint32Array, "u32"], [BigInt64Array, "i64"], [BigUint64Array, "u64"],
];

function inferredDType(data: unknown, values: ArrayLike<unknown>): DType {
  const typed = TYPED_ARRAY_DTYPES.find(([Type]) => data instanceof Type);
  if (typed) return typed[1];
  for (let i = 0; i < values.length; i++) if (typeof values[i] === "bigint") return "i64";
  return "f32";
}

/**
 * A tensor from host data: a number, nested arrays (shape inferred) or a flat
 * array or typed array (shape given, or 1-D). The dtype, when left out, is a
 * typed array's own (Float64Array: f64, BigInt64Array: i64 ...), i64 for
 * bigints, else f32.
 */
export function tensor<D extends DType = NumberDType>(data: TensorData, options?: TensorDataOptions<D>): Tensor<D> {
  const where = "fl.tensor";
  const o = checkOptionsObject(where, options, ["shape", "dtype", "device"]);
  let values: ArrayLike<number | bigint>;
  let inferred: number[];
  if (typeof data === "number" || typeof data === "bigint") {
    values = [data];
    inferred = [1];
  } else if (Array.isArray(data)) {
    const flat = flatten(where, data as NestedNumbers);
    values = flat.values;
    inferred = flat.shape;
  } else if (isNumberArray(data) || isBigIntArray(data)) {
    values = data;
    inferred = [values.length];
  } else {
    throw new ArgumentError(where, "data", "a number, nested arrays of numbers or a typed array", describe(data));
  }
  const dtype = checkDType(where, o.dtype, inferredDType(data, values)) as D;
  const dev = checkDevice(where, o.device);
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
function checkMade<D extends DType>(where: string, shape: unknown, options: unknown): { shape: number[]; dtype: D; dev: Device } {
  const o = checkOptionsObject(where, options, ["dtype", "device"]);
  const dtype = checkDType(where, o.dtype, "f32") as D;
  const dev = checkDevice(where, o.device);
  return { shape: checkShape(where, shape, dtype, dev), dtype, dev };
}

/** An uninitialised tensor (NaN-poisoned when `debug.poison` is on). */
export function empty<D extends DType = NumberDType>(shape: readonly number[], options?: TensorOptions<D>): Tensor<D> {
  const made = checkMade<D>("fl.empty", shape, options);
  return allocate(made.shape, made.dtype, made.dev, debug.poison);
}

/** A tensor of zeros. */
export function zeros<D extends DType = NumberDType>(shape: readonly number[], options?: TensorOptions<D>): Tensor<D> {
  const made = checkMade<D>("fl.zeros", shape, options);
  const t = allocate(made.shape, made.dtype, made.dev, false);
  nativeCall(() => native().fill(t.handle("fl.zeros"), 0));
  return t;
}

function filled<D extends DType>(where: string, shape: readonly number[], value: unknown, options: unknown): Tensor<D> {
  const { shape: checked, dtype, dev } = checkMade<D>(where, shape, options);
  const problem = valueProblem(dtype, value);
  if (problem) throw new ArgumentError(where, "value", problem, describe(value));
  const t = allocate(checked, dtype, dev, false);
  const storage = storageFor(dtype, t.size);
  (storage as { fill(v: number | bigint): unknown }).fill(encode(dtype, [value as number | bigint])[0]);
  nativeCall(() => native().upload(t.handle(where), storage));
  return t;
}

/** A tensor of ones. */
export function ones<D extends DType = NumberDType>(shape: readonly number[], options?: TensorOptions<D>): Tensor<D> {
  return filled("fl.ones", shape, 1, options);
}

/** A tensor with every element `value` (a bigint or a number for i64 and u64). */
export function full<D extends DType = NumberDType>(shape: readonly number[], value: number | bigint, options?: TensorOptions<D>): Tensor<D> {
  return filled("fl.full", shape, value, options);
}

function random<D extends RandomDType>(where: string, shape: readonly number[], options: unknown,
                                       generate: (size: number, seed: number) => Float32Array): Tensor<D> {
  const o = checkOptionsObject(where, options, ["dtype", "device", "seed"]);
  const dtype = checkDType(where, o.dtype, "f32") as D;
  if (!isFloatDType(dtype)) throw new ArgumentError(where, "options.dtype", "f32, f16, bf16 or f64", describe(dtype));
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

/** Standard normal numbers, seeded: the same on every device (f64 gets the same f32 numbers, widened). */
export function randn<D extends RandomDType = "f32">(shape: readonly number[], options?: RandomOptions<D>): Tensor<D> {
  return random("fl.randn", shape, options, normal);
}

/** Numbers uniform in [0, 1), seeded: the same on every device (f64 gets the same f32 numbers, widened). */
export function rand<D extends RandomDType = "f32">(shape: readonly number[], options?: RandomOptions<D>): Tensor<D> {
  return random("fl.rand", shape, options, uniform);
}
