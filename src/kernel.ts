// Kernels: a launch checks every argument against the kernel's parameters
// (count, tensor, view, null or number, integer range, element type, device,
// a struct's fields) and the launch shape against the device's limits before
// anything reaches the device.
import { ArgumentError, FuselabError, aDtype, checkOptionsObject, describe, shapeString } from "./errors";
import type { Device } from "./device";
import { DType, fp8Code } from "./dtype";
import { MemberType, PointerReader, ScalarType, StructLayout, isPlainObject, packStruct, scalarValue } from "./layout";
import { BufferHandle, KernelHandle, LaunchHandle, ModuleHandle, NativeArg, native, nativeCall } from "./native";
import { KernelParam, MdspanParam, SCALAR_TYPES, TensorAccessor } from "./signature";
import { Tensor, TensorView, checkNotDisposed, tensorOf } from "./tensor";

export type { KernelParam } from "./signature";

/**
 * @internal Module variables that hold a pointer to a `__device__` function
 * (`module.constant(name)` of one), each with its module, its type and a reader
 * of its value: what a kernel's argument of that type is given, so that no
 * address comes from TS itself.
 */
export const functionPointerVariables = new WeakMap<object, { owner: object; name: string; type: string; where: () => { module: ModuleHandle; symbol: string } }>();

/**
 * @internal Every module variable (`module.constant(name)`) with its module, its
 * symbol and its element type ("void" for another type): a kernel's pointer
 * argument takes it for the variable's address, as cudaGetSymbolAddress gives it.
 */
export const moduleVariables = new WeakMap<object, { owner: object; name: string; symbol: string; type: string }>();

/** A grid or block size: a number (x) or [x, y?, z?]. */
export type Dim = number | readonly number[];

/** How a kernel is launched. */
export interface LaunchConfig {
  grid: Dim;
  block: Dim;
  /** Dynamic shared memory per block, in bytes (0 when left out). */
  sharedBytes?: number;
}

/**
 * What a kernel argument may be: for a pointer, a tensor, a view into one
 * (`tensor.view(offset, length)`) or null; a number (or bigint) for a scalar;
 * an object with the struct's fields for a struct passed by value; for a
 * pointer to a `__device__` function, the module's variable holding one
 * (`module.constant("p_min")`) or null.
 */
export type KernelArg = Tensor<DType> | TensorView<DType> | null | number | bigint | boolean | StructValue | ModuleVariable;

/**
 * A variable of the kernel's module (`module.constant(name)`): a pointer argument
 * takes it for its address, a function pointer argument for the function it holds.
 */
export interface ModuleVariable { readonly name: string; readonly type: string; readonly bytes: number }

/** A struct's value: its fields by name (nested structs as objects, fixed arrays as arrays). */
export interface StructValue { readonly [field: string]: unknown }

/** Who launched a kernel and the bytes its traffic model says the launch moves. */
export interface LaunchAttribution {
  /** The public op, e.g. "ops.add", "fused.addRelu", "unfused.siluAndMul". */
  op: string;
  bytesRead: number;
  bytesWritten: number;
}

/** One launch, as it was queued: what `fl.traffic()` ledgers and `fl.bench()` replays are made of. */
export interface LaunchRecord {
  kernel: Kernel;
  grid: [number, number, number];
  block: [number, number, number];
  sharedBytes: number;
  args: readonly KernelArg[];
  /** The op that launched it; null for a kernel launched directly (`kernel.launch`). */
  op: string | null;
  /** The op's traffic model; 0 for a direct launch, which has none. */
  bytesRead: number;
  bytesWritten: number;
}

type LaunchObserver = (record: LaunchRecord) => void;
const observers = new Set<LaunchObserver>();

/** @internal Calls `observer` with the record of every launch from now on; returns the function that stops it. */
export function observeLaunches(observer: LaunchObserver): () => void {
  const own = (record: LaunchRecord) => observer(record);
  observers.add(own);
  return () => observers.delete(own);
}

/** A launch packed once: `launch()` replays it; `bench()` times it off the main thread. */
export class PreparedLaunch {
  /** @internal */
  constructor(readonly kernel: Kernel, readonly handle: LaunchHandle, private readonly tensors: readonly Tensor<DType>[]) {}

  /** Queues the launch again, with the same arguments. */
  launch(): void {
    this.check();
    nativeCall(() => native().launchPrepared(this.handle));
  }

  /** Throws when a tensor of the launch was disposed, or the kernel's module was. */
  check(): void {
    this.kernel.checkAlive();
    for (const t of this.tensors) t.handle(`kernel ${this.kernel.name} (prepared launch)`);
  }
}

/** A kernel on one device: a built-in one (`device.builtin`) or a compiled one (`module.fn`). */
export class Kernel {
  /** @internal Kernels come from `device.builtin(name)` and `module.fn(name)`. */
  constructor(
    readonly name: string,
    readonly device: Device,
    readonly handle: KernelHandle,
    readonly params: readonly KernelParam[],
    private readonly owner?: { readonly disposed: boolean },
    /** The most threads a block may have: the kernel's `__launch_bounds__`, where it has them. */
    readonly maxThreads?: number,
  ) {}

  /** "scale(float* out, const float* x, float s, int n)". */
  signature(): string {
    const fallback = (p: KernelParam) => (p.fallback === undefined ? "" : ` = ${p.fallback === null ? "nullptr" : typeof p.fallback === "object" ? p.fallback.text : String(p.fallback)}`);
    return `${this.name}(${this.params.map((p) => `${p.name ? `${p.declaration} ${p.name}` : p.declaration}${fallback(p)}`).join(", ")})`;
  }

  /** Checks every argument and queues one launch. */
  launch(config: LaunchConfig, ...args: KernelArg[]): void {
    this.launchAs(null, config, args);
  }

  /** @internal A launch on behalf of an op, which states its traffic. */
  launchAs(attribution: LaunchAttribution | null, config: LaunchConfig, args: readonly KernelArg[]): void {
    const { grid, block, sharedBytes, nativeArgs } = this.checked(config, args);
    nativeCall(() => native().launch(this.handle, grid, block, sharedBytes, nativeArgs));
    if (observers.size === 0) return;
    const record: LaunchRecord = {
      kernel: this, grid, block, sharedBytes, args: Object.freeze([...args]),
      op: attribution?.op ?? null, bytesRead: attribution?.bytesRead ?? 0, bytesWritten: attribution?.bytesWritten ?? 0,
    };
    for (const observer of observers) observer(record);
  }

  /** Checks every argument once and packs the launch, for `bench()` and repeated launches. */
  prepare(config: LaunchConfig, ...args: KernelArg[]): PreparedLaunch {
    const { grid, block, sharedBytes, nativeArgs } = this.checked(config, args);
    const handle = nativeCall(() => native().prepare(this.handle, grid, block, sharedBytes, nativeArgs));
    return new PreparedLaunch(this, handle, this.tensorsOf(args).map((t) => t.tensor));
  }

  /**
   * @internal The tensors that checked arguments hold, pointer parameters' and
   * structs' pointer members' alike, each with whether the kernel may write it
   * (a pointer to non-const elements).
   */
  tensorsOf(args: readonly KernelArg[]): { tensor: Tensor<DType>; writable: boolean }[] {
    const found: { tensor: Tensor<DType>; writable: boolean }[] = [];
    const visit = (type: MemberType, value: unknown): void => {
      if (type.kind === "pointer") {
        const tensor = tensorOf(value);
        if (tensor) found.push({ tensor, writable: !type.isConst });
      } else if (type.kind === "struct") {
        for (const m of type.layout.members) visit(m.type, (value as Record<string, unknown>)[m.name]);
      } else if (type.kind === "array") {
        for (let i = 0; i < type.length; i++) visit(type.element, (value as ArrayLike<unknown>)[i]);
      }
    };
    args.forEach((arg, i) => {
      const param = this.params[i];
      if (param.accessor?.tensorInfo && isPlainObject(arg)) visit({ kind: "struct", layout: param.layout! }, arg);
      else if (param.pointer || param.accessor || param.span || (param.mdspan && !isPlainObject(arg))) visit({ kind: "pointer", element: param.type, isConst: param.isConst }, arg);
      else if (param.layout) visit({ kind: "struct", layout: param.layout }, arg);
    });
    return found;
  }

  /** @internal Throws when the kernel's module was disposed. */
  checkAlive(): void {
    if (this.owner?.disposed) throw new FuselabError(`kernel ${this.name}: its module was disposed`);
  }

  private checked(config: LaunchConfig, args: readonly KernelArg[]) {
    this.checkAlive();
    const where = `kernel ${this.name}`;
    const expected = "an object { grid, block, sharedBytes? }";
    if (typeof config !== "object" || config === null || Array.isArray(config)) {
      throw new ArgumentError(where, "the launch configuration", expected, describe(config));
    }
    let c: Record<string, unknown>;
    try {
      c = checkOptionsObject(where, config, ["grid", "block", "sharedBytes"]);
    } catch (e) {
      const received = e instanceof ArgumentError ? e.received : describe(config);
      throw new ArgumentError(where, "the launch configuration", expected, received);
    }
    const p = this.device.props;
    const grid = this.dims(where, "grid", c.grid, p.maxGridDim);
    const block = this.dims(where, "block", c.block, p.maxBlockDim);
    const threads = block[0] * block[1] * block[2];
    if (threads > p.maxThreadsPerBlock) {
      throw new ArgumentError(where, "block", `at most ${p.maxThreadsPerBlock} threads in all (the device's limit)`,
        `${shapeString(block)} (${threads} threads)`);
    }
    if (this.maxThreads !== undefined && threads > this.maxThreads) {
      throw new ArgumentError(where, "block", `at most ${this.maxThreads} threads in all (the kernel's __launch_bounds__, which a GPU holds a launch to)`,
        `${shapeString(block)} (${threads} threads)`);
    }
    const sharedBytes = c.sharedBytes ?? 0;
    const sharedLimit = Math.max(p.sharedPerBlock, p.sharedPerBlockOptin);
    if (typeof sharedBytes !== "number" || !Number.isInteger(sharedBytes) || sharedBytes < 0) {
      throw new ArgumentError(where, "sharedBytes", "a non-negative integer", describe(sharedBytes));
    }
    if (sharedBytes > sharedLimit) {
      throw new ArgumentError(where, "sharedBytes", `at most ${sharedLimit} (the device's limit)`, String(sharedBytes));
    }
    const all = this.withDefaults(where, args);
    const nativeArgs = all.map((arg, i) => this.argument(where, i, arg));
    return { grid, block, sharedBytes, nativeArgs };
  }

  private dims(where: string, what: string, value: unknown, limits: readonly number[]): [number, number, number] {
    const list = typeof value === "number" ? [value] : Array.isArray(value) ? Array.from(value) : value;
    const expected = "a positive integer or an array of 1 to 3 positive integers";
    if (!Array.isArray(list) || list.length < 1 || list.length > 3) throw new ArgumentError(where, what, expected, describe(value));
    const dims: [number, number, number] = [1, 1, 1];
    list.forEach((d: unknown, i: number) => {
      const label = typeof value === "number" ? what : `${what}[${i}]`;
      if (typeof d !== "number" || !Number.isInteger(d) || d < 1) throw new ArgumentError(where, label, "a positive integer", describe(d));
      if (d > limits[i]) throw new ArgumentError(where, label, `at most ${limits[i]} (the device's limit)`, String(d));
      dims[i] = d;
    });
    return dims;
  }

  // "argument 2 (x)" in messages, or "argument 2" for a parameter with no name.
  private argumentLabel(index: number): string {
    const name = this.params[index].name;
    return name ? `argument ${index} (${name})` : `argument ${index}`;
  }

  // The arguments with the defaults of those left out (`bool negate = false`), as a launch in C++ fills them in.
  private withDefaults(where: string, args: readonly unknown[]): readonly unknown[] {
    let required = this.params.length;
    while (required > 0 && this.params[required - 1].fallback !== undefined) required--;
    if (args.length < required || args.length > this.params.length) {
      const count = required === this.params.length ? `${required}` : `${required} to ${this.params.length}`;
      throw new ArgumentError(where, "the arguments", `${count} values: ${this.signature()}`, `${args.length} values`);
    }
    return [...args, ...this.params.slice(args.length).map((param, n) => {
      const fallback = param.fallback;
      if (fallback === null || typeof fallback !== "object") return fallback;
      const index = args.length + n;
      throw new ArgumentError(where, this.argumentLabel(index),
        `given, as its default (${fallback.text}) is an expression fuselab does not evaluate`, "none");
    })];
  }

  private argument(where: string, index: number, arg: unknown): NativeArg {
    const param = this.params[index];
    const label = this.argumentLabel(index);
    if (param.pointer) {
      const variable = arg !== null && typeof arg === "object" ? moduleVariables.get(arg) : undefined;
      return variable ? this.variableAddress(where, label, param, variable) : pointerTarget(where, label, this.device, param, arg);
    }
    if (param.functionPointer) return this.functionArgument(where, label, param.functionPointer, arg);
    if (param.accessor) return this.accessor(where, label, param, param.accessor, arg);
    if (param.span) {
      // A span takes a tensor or a view (its elements) for its pointer and size.
      const tensor = tensorOf(arg);
      if (!tensor) throw new ArgumentError(where, label, `${aDtype(param.span.element)} tensor or a view of one (${param.declaration})`, describe(arg));
      const size = TensorView.isView(arg) ? arg.size : tensor.size;
      return { type: "struct", ...packStruct(where, label, param.layout!, { data: arg, size }, pointerReader(where, this.device)) };
    }
    if (param.mdspan) return this.mdspanArgument(where, label, param, param.mdspan, arg);
    if (param.fp8) {
      if (typeof arg !== "number") throw new ArgumentError(where, label, `a number (${param.declaration})`, describe(arg));
      return { type: "struct", bytes: Uint8Array.of(fp8Code(arg, param.fp8)) };
    }
    if (param.layout) return { type: "struct", ...packStruct(where, label, param.layout, arg, pointerReader(where, this.device)) };
    if (param.type === "bool") return { type: "bool", value: scalarValue(where, label, "bool", param.declaration, arg) };
    const type = param.type as ScalarType;
    if (!(SCALAR_TYPES as readonly string[]).includes(type)) {
      throw new ArgumentError(where, label, "of a type fuselab can pass (integers, half, float, double, structs, pointers)", param.declaration);
    }
    return { type, value: scalarValue(where, label, type, param.declaration, arg) };
  }

  // An mdspan's argument: a tensor of its rank (its shape the extents; row-major, so
  // not for layout_left), or { data, extents, strides } (strides for layout_stride
  // alone), its data a tensor, a view or null holding every element the mapping reaches.
  private mdspanArgument(where: string, label: string, param: KernelParam, mdspan: MdspanParam, arg: unknown): NativeArg {
    const rank = mdspan.extents.length;
    const fieldsWanted = `{ data, extents${mdspan.layout === "stride" ? ", strides" : ""} }, data ${aDtype(mdspan.element)} tensor or a view of one`;
    const wanted = mdspan.layout === "left"
      ? `${fieldsWanted} (${param.declaration}: column-major, which a tensor's shape does not give)`
      : `${aDtype(mdspan.element)} tensor of ${rank} dimension${rank === 1 ? "" : "s"}, or ${fieldsWanted} (${param.declaration})`;
    let fields: { data: unknown; extents: unknown; strides?: unknown };
    if (Tensor.isTensor(arg) && mdspan.layout !== "left") {
      fields = { data: arg, extents: arg.shape };
      if (arg.shape.length !== rank) throw new ArgumentError(where, label, wanted, arg.describe());
    } else if (isPlainObject(arg) && "data" in arg && "extents" in arg) {
      const extra = Object.keys(arg).find((k) => !["data", "extents", ...(mdspan.layout === "stride" ? ["strides"] : [])].includes(k));
      if (extra) throw new ArgumentError(where, `${label}.${extra}`, `no such field: ${wanted}`, describe(arg[extra]));
      fields = arg as typeof fields;
    } else {
      throw new ArgumentError(where, label, wanted, describe(arg));
    }
    const limit = { i16: 2 ** 15, u16: 2 ** 16, i32: 2 ** 31, u32: 2 ** 32, i64: 2 ** 53, u64: 2 ** 53 }[mdspan.index] ?? 2 ** 31;
    const counts = (name: string, value: unknown): number[] => {
      if (!Array.isArray(value) || value.length !== rank || value.some((n) => !Number.isInteger(n) || n < 0 || n >= limit)) {
        throw new ArgumentError(where, `${label}.${name}`, `${rank} integer${rank === 1 ? "" : "s"} from 0 to ${limit - 1}`, describe(value));
      }
      return value as number[];
    };
    const extents = counts("extents", fields.extents);
    mdspan.extents.forEach((fixed, r) => {
      if (fixed !== null && extents[r] !== fixed) {
        throw new ArgumentError(where, `${label}.extents`, `extent ${r} of ${fixed}, as ${param.declaration} fixes it`, describe(extents));
      }
    });
    const rowMajor = rowMajorStrides(extents);
    const columnMajor = extents.map((_n, r) => extents.slice(0, r).reduce((a, b) => a * b, 1));
    const strides = mdspan.layout === "stride" ? (Tensor.isTensor(arg) ? rowMajor : counts("strides", fields.strides))
      : mdspan.layout === "left" ? columnMajor : rowMajor;
    // The elements the mapping reaches, which the data must hold: what a GPU would read past otherwise.
    const reach = extents.includes(0) ? 0 : 1 + extents.reduce((sum, n, r) => sum + (n - 1) * strides[r], 0);
    const data = fields.data;
    const held = data === null ? 0 : TensorView.isView(data) ? data.size : tensorOf(data)?.size ?? 0;
    if (reach > held && tensorOf(data) !== undefined || (data === null && reach > 0)) {
      throw new ArgumentError(where, `${label}.data`, `${reach} element${reach === 1 ? "" : "s"} at least, which extents ${shapeString(extents)}` +
        `${mdspan.layout === "stride" ? ` and strides ${shapeString(strides)}` : ""} reach`, data === null ? "null" : `${held}`);
    }
    const dynamic = extents.filter((_n, r) => mdspan.extents[r] === null);
    const packed = { data, ...(dynamic.length ? { extents: dynamic } : {}), ...(mdspan.layout === "stride" ? { strides } : {}) };
    return { type: "struct", ...packStruct(where, label, param.layout!, packed, pointerReader(where, this.device)) };
  }

  // The address of a variable of the kernel's module, which the addon looks up in the
  // module the kernel is in (a template instance fn() compiled has a copy of its own).
  private variableAddress(where: string, label: string, param: KernelParam, variable: { owner: object; name: string; symbol: string; type: string }): NativeArg {
    const wanted = param.type === "void" ? "a variable" : `${aDtype(param.type)} variable`;
    if (variable.owner !== this.owner) throw new ArgumentError(where, label, `${wanted} of the kernel's module (${param.declaration})`, `the variable ${variable.name} of another module`);
    if (param.type !== "void" && variable.type !== param.type) {
      throw new ArgumentError(where, label, `${wanted} of the kernel's module, a tensor, a view of one or null (${param.declaration})`,
        `the variable ${variable.name}, ${variable.type === "void" ? "not of a scalar type" : aDtype(variable.type)}`);
    }
    return { type: "symbol", symbol: variable.symbol };
  }

  // A pointer to a device function: the value of the module's variable holding one, read
  // now, as cudaMemcpyFromSymbol reads it before the launch; or null.
  private functionArgument(where: string, label: string, type: string, arg: unknown): NativeArg {
    if (arg === null) return null;
    const variable = typeof arg === "object" ? functionPointerVariables.get(arg) : undefined;
    if (variable && variable.owner === this.owner && variable.type === type) return { type: "function", ...variable.where() };
    throw new ArgumentError(where, label, `a __device__ variable of the kernel's module holding a ${type}, module.constant(name), or null`,
      variable ? `the variable ${variable.name}, ${variable.owner === this.owner ? `a ${variable.type}` : "of another module"}` : describe(arg));
  }

  // A tensor accessor's argument: a tensor of its dtype and dimensions, passed as its
  // data pointer, sizes and strides (row-major, in elements).
  // A TensorInfo's argument: a tensor of its dtype and up to 25 dimensions, passed as
  // its data pointer, sizes and strides (the unused ones 0) and its dimensions' count;
  // or an object of those fields, its data a tensor or a view (strides of one's own).
  private accessor(where: string, label: string, param: KernelParam, accessor: TensorAccessor, arg: unknown): NativeArg {
    if (accessor.tensorInfo && isPlainObject(arg)) return { type: "struct", ...packStruct(where, label, param.layout!, arg, pointerReader(where, this.device)) };
    const dimensions = accessor.tensorInfo ? `up to ${accessor.dims} dimensions` : `${accessor.dims} dimension${accessor.dims === 1 ? "" : "s"}`;
    const wanted = `${aDtype(accessor.element)} tensor of ${dimensions} (${param.declaration})`;
    if (!Tensor.isTensor(arg)) throw new ArgumentError(where, label, wanted, TensorView.isView(arg) ? `${arg.describe()}, a view` : describe(arg));
    checkNotDisposed(where, label, arg);
    const dimsFit = accessor.tensorInfo ? arg.shape.length <= accessor.dims : arg.shape.length === accessor.dims;
    if (arg.dtype !== accessor.element || !dimsFit) throw new ArgumentError(where, label, wanted, arg.describe());
    checkOnDevice(where, label, this.device, arg);
    const strides = rowMajorStrides(arg.shape);
    const limit = { i32: 2 ** 31, u32: 2 ** 32, i64: 2 ** 63, u64: 2 ** 64 }[accessor.index];
    if ([...arg.shape, ...strides].some((n) => n >= limit)) {
      throw new ArgumentError(where, label, `${wanted}, each size and stride below 2^${Math.log2(limit)} (PackedTensorAccessor64 takes larger)`, arg.describe());
    }
    const layout = param.layout as StructLayout;
    if (accessor.tensorInfo) {
      const padded = (values: readonly number[]) => [...values, ...new Array<number>(accessor.dims - values.length).fill(0)];
      const fields = { data: arg, sizes: padded(arg.shape), strides: padded(strides), dims: arg.shape.length };
      return { type: "struct", ...packStruct(where, label, layout, fields, pointerReader(where, this.device)) };
    }
    const { bytes } = packStruct(where, label, layout, { data: 0, sizes: arg.shape, strides }, pointerReader(where, this.device));
    return { type: "struct", bytes, pointers: [{ offset: 0, buffer: arg.handle(where) }] };
  }

}

/** Each dimension's stride, in elements, of a row-major array of `shape`. */
function rowMajorStrides(shape: readonly number[]): number[] {
  return shape.map((_n, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
}

/**
 * Where a pointer (a kernel's parameter, a struct's member, a `__device__` pointer
 * variable) points: a tensor of its element type ("void": any) on `device` (its
 * buffer), a view of one (its buffer from the view's offset, for the view's bytes),
 * or null. Throws naming `label`.
 */
export function pointerTarget(where: string, label: string, device: Device, param: Pick<KernelParam, "type" | "declaration">, arg: unknown):
  BufferHandle | { buffer: BufferHandle; byteOffset: number; bytes: number } | null {
  if (arg === null) return null;
  const wanted = param.type === "void" ? "a tensor" : `${aDtype(param.type)} tensor`;
  const tensor = tensorOf(arg);
  if (!tensor) throw new ArgumentError(where, label, `${wanted}, a view of one or null (${param.declaration})`, describe(arg));
  checkNotDisposed(where, label, tensor);
  const what = TensorView.isView(arg) ? arg.describe() : tensor.describe();
  if (param.type !== "void" && tensor.dtype !== param.type) throw new ArgumentError(where, label, `${wanted} (${param.declaration})`, what);
  checkOnDevice(where, label, device, tensor);
  const buffer = tensor.handle(where);
  if (TensorView.isView(arg)) return { buffer, byteOffset: arg.byteOffset, bytes: arg.bytes };
  // A tensor of no elements: its buffer, with nothing to reach (check mode reports any access).
  return tensor.size === 0 ? { buffer, byteOffset: 0, bytes: 0 } : buffer;
}

/** A struct's pointer member (`struct Matrix { float* elements; }`): a tensor on `device`, a view or null, as a pointer argument. */
export function pointerReader(where: string, device: Device): PointerReader<BufferHandle> {
  return (label, type, declaration, value) => {
    const target = pointerTarget(where, label, device, { type: type.element, declaration }, value);
    return target === null || "buffer" in target ? target : { buffer: target };
  };
}

function checkOnDevice(where: string, label: string, device: Device, tensor: Tensor<DType>): void {
  if (tensor.device !== device) {
    throw new ArgumentError(where, label, `a tensor on ${device.describe()} (the kernel's device)`, `a tensor on ${tensor.device.describe()}`);
  }
}
