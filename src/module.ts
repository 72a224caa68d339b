// Modules: a set of kernels on one device, launched by name. Built-in kernels
// (kernels/*.hip, compiled ahead of time) are a module like a compiled one:
// `fl.builtins(device).fn(name)` as `fl.compile(source).fn(name)`.
import { ArgumentError, DeviceError, FuselabError, checkOptionsObject, describe } from "./errors";
import { Device, checkDevice } from "./device";
import { Kernel, KernelParam, StructValue, functionPointerVariables, moduleVariables, pointerReader } from "./kernel";
import { PointerReader, StructLayout, isPlainObject, packStruct } from "./layout";
import { BufferHandle, ModuleHandle, SymbolPointer, native, nativeCall } from "./native";
import type { DType } from "./dtype";
import type { Tensor, TensorView } from "./tensor";
import { bf16BitsToF32, f16BitsToF32, f32ToBf16Bits, f32ToF16Bits } from "./dtype";
import { ConstantDeclaration, canonicalName, declaredVariable, paramsFromSignature } from "./signature";

/** A kernel of a module: its name and parameters, before it is loaded. */
export interface KernelEntry {
  name: string;
  params: readonly KernelParam[];
  /** Its `__launch_bounds__` thread count, where it has one. */
  maxThreads?: number;
  /** The name the module exports it by, where that differs (with its parameter types). */
  exportedAs?: string;
}

/** What the compiler decided for a kernel, and the occupancy that allows (`module.stats`). */
export interface KernelStats {
  kernel: string;
  /** The device, as `device.describe()` names it. */
  device: string;
  /** Registers a thread. */
  registers: number;
  /** Local memory a thread, in bytes: register spills and arrays the compiler could not keep in registers. */
  spillBytes: number;
  /** Static shared memory a block, in bytes (`__shared__` arrays of fixed size). */
  staticSharedBytes: number;
  constBytes: number;
  /** The most threads a block of this kernel may have (its registers can make it less than the device's). */
  maxThreadsPerBlock: number;
  /** The block size and dynamic shared memory the occupancy is for. */
  blockThreads: number;
  sharedBytes: number;
  /** Blocks resident on one multiprocessor at once. */
  blocksPerMultiprocessor: number;
  /** Resident threads / the most a multiprocessor can hold: 0 to 1. */
  occupancy: number;
}

/** Options of `module.stats()`. */
export interface KernelStatsOptions {
  /** Threads a block (256 when left out). */
  block?: number;
  /** Dynamic shared memory a block, in bytes (0 when left out). */
  sharedBytes?: number;
}

/** A compiled module's template kernels, instantiated on demand. */
export interface KernelTemplates {
  /** The templates' names ("k", "ns::k"). */
  names: readonly string[];
  /** Compiles the instance `name` ("k<float, 256>"); undefined when no template has that name. */
  instantiate(name: string): { handle: ModuleHandle; entry: KernelEntry } | undefined;
  /** Compiles the source with the variable template instance `expression` ("mask<float>") in it, for constant() to set before fn() made it. */
  instantiateVariable(expression: string): ModuleHandle;
}

/** What a compiled module has beyond its kernels. */
export interface CompiledParts {
  templates: KernelTemplates;
  constants: readonly ConstantDeclaration[];
  /** For a name the source spells only in text its preprocessor left out: the conditional that did. */
  leftOutBy?: (name: string) => string | undefined;
  /** The line of the source's first extended lambda (`[] __host__ __device__ (...)`), which host code may pass to a kernel template. */
  lambdaLine?: number;
  /** Kernels the source overloads, with the lines of their definitions: a name alone cannot pick one. */
  overloaded?: ReadonlyMap<string, readonly string[]>;
  /** How the overloads of a name ("k<32>") are named with their parameter types ("k<32>(float*, int)"). */
  overloadNames?: (name: string) => string[];
  /** The overloaded kernels that are not templates, by their names with parameter types ("k(float*, int)"). */
  typedKernels?: readonly string[];
  /** Kernels of the source TS cannot launch, with why (a parameter of a type fuselab cannot pass). */
  unlaunchable?: ReadonlyMap<string, ArgumentError>;
}

// Host arrays of each element type a __constant__ variable may have.
const HOST_ARRAYS: Record<string, new (n: number) => ArrayBufferView & ArrayLike<number | bigint> & { [i: number]: number | bigint }> = {
  i8: Int8Array, u8: Uint8Array, i16: Int16Array, u16: Uint16Array, i32: Int32Array, u32: Uint32Array,
  i64: BigInt64Array, u64: BigUint64Array, f16: Uint16Array, bf16: Uint16Array, f32: Float32Array, f64: Float64Array,
};

/** What a pointer variable or a struct variable with pointers is set from: tensors, read by `reader`. */
interface HeldPointers {
  /** A pointer variable's element type ("void": any tensor), and its type as the source spells it. */
  pointee?: string;
  /** A pointer to a device function: set from another variable of the module holding one of its type (or null), never from numbers. */
  functionPointer?: string;
  declaration: string;
  /** A struct variable's members. */
  layout?: StructLayout;
  reader: (where: string) => PointerReader<BufferHandle>;
}

/**
 * A `__constant__` or `__device__` variable of a compiled module, written from the
 * host before launches as cudaMemcpyToSymbol writes it: `module.constant("table").set([...])`,
 * and read back after them as cudaMemcpyFromSymbol reads it: `.get()`.
 */
export class Constant {
  /** @internal Constants come from `module.constant(name)`. */
  constructor(readonly name: string, readonly type: string, readonly bytes: number,
              private readonly write: (data: ArrayBufferView, pointers?: SymbolPointer[]) => void,
              private readonly read: (into: ArrayBufferView) => void,
              private readonly holds?: HeldPointers) {}

  /** How many elements of its type the variable holds. */
  get length(): number {
    return this.type === "void" ? this.bytes : Math.floor(this.bytes / HOST_ARRAYS[this.type].prototype.BYTES_PER_ELEMENT);
  }

  /**
   * Writes `values` at the start of the variable, in order with the launches
   * around it: numbers (bigints for 64-bit integers) of the variable's type,
   * or the bytes themselves (a Uint8Array) for a variable of another type; a
   * tensor, a view or null for a pointer; an object of its fields for a struct;
   * for a pointer to a device function, another variable of the module holding
   * one of its type (cudaMemcpyToSymbol(p, &h_other)), or null.
   */
  set(values: ArrayLike<number | bigint> | ArrayBufferView | Tensor<DType> | TensorView<DType> | StructValue | Constant | null): void {
    const where = `constant ${this.name}.set`;
    // A pointer variable (`__device__ float* data;`) takes a tensor, a view or null; a
    // struct (`__constant__ Params p;`) an object of its fields, its pointers among them.
    const holds = this.holds;
    if (holds?.functionPointer !== undefined) {
      const source = values === null ? undefined : functionPointerVariables.get(values);
      const own = functionPointerVariables.get(this);
      if (values !== null && (source?.owner !== own?.owner || source?.type !== holds.functionPointer)) {
        throw new ArgumentError(where, "values", `null or a __device__ variable of the module holding a ${holds.functionPointer} (module.constant(name))`,
          source ? `the variable ${source.name}, ${source.owner === own?.owner ? `a ${source.type}` : "of another module"}` : describe(values));
      }
      this.write(values instanceof Constant ? values.get() : new BigUint64Array(1));
      return;
    }
    if (holds?.pointee !== undefined) {
      const target = holds.reader(where)("values", { element: holds.pointee, isConst: false }, holds.declaration, values);
      this.write(new Uint8Array(8), target ? [{ ...target, offset: 0 }] : []);
      return;
    }
    if (holds?.layout && isPlainObject(values)) {
      const { bytes, pointers } = packStruct(where, "values", holds.layout, values, holds.reader(where));
      this.write(bytes, pointers);
      return;
    }
    values = values as ArrayLike<number | bigint> | ArrayBufferView;
    // A variable of another type (a struct) takes the bytes of any typed array or DataView.
    const given = describe(values);
    if (this.type === "void" && ArrayBuffer.isView(values) && !(values instanceof Uint8Array)) {
      values = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    }
    const isBytes = values instanceof Uint8Array && this.type !== "u8";
    const type = isBytes ? "u8" : this.type;
    if (type === "void") {
      throw new ArgumentError(where, "values", `a typed array of at most ${this.bytes} bytes (the variable's type is not a scalar type)`, describe(values));
    }
    const list = values as ArrayLike<number | bigint>;
    if (typeof list !== "object" || list === null || typeof list.length !== "number") {
      throw new ArgumentError(where, "values", `an array of ${type} values`, describe(values));
    }
    const Host = HOST_ARRAYS[type];
    const capacity = Math.floor(this.bytes / Host.prototype.BYTES_PER_ELEMENT);
    if (list.length > capacity) {
      throw new ArgumentError(where, "values", isBytes ? `at most ${capacity} bytes (the variable's size)` : `at most ${capacity} ${type} values (the variable's size)`,
        isBytes ? `${list.length} bytes (${given})` : `${list.length} values`);
    }
    const host = new Host(list.length);
    const isBig = type === "i64" || type === "u64";
    for (let i = 0; i < list.length; i++) {
      const v = list[i];
      if (isBig ? typeof v !== "bigint" && !Number.isSafeInteger(v) : typeof v !== "number") {
        throw new ArgumentError(where, `values[${i}]`, isBig ? "a bigint or a safe integer" : "a number", describe(v));
      }
      host[i] = type === "f16" ? f32ToF16Bits(v as number) : type === "bf16" ? f32ToBf16Bits(v as number) : isBig ? BigInt(v) : (v as number);
    }
    this.write(host);
  }

  /**
   * The variable's values once the launches before this call are done: numbers
   * of its type (f16 and bf16 as a Float32Array, 64-bit integers as bigints), or
   * its bytes (a Uint8Array) for a variable of another type. A template instance
   * that `fn()` compiled holds a copy of its own; this reads the module's.
   */
  get(): ArrayBufferView & ArrayLike<number | bigint> {
    const Host = this.type === "void" ? Uint8Array : HOST_ARRAYS[this.type];
    const host = new Host(this.length);
    this.read(host);
    if (this.type === "f16" || this.type === "bf16") return Float32Array.from(host as Uint16Array, this.type === "f16" ? f16BitsToF32 : bf16BitsToF32);
    return host;
  }
}

/** Kernels on one device, launched through `fn(name)`. */
export class Module {
  /**
   * The names of the module's kernels: `__global__` functions, the instances of templates the source makes
   * ("k<float>"), and kernels of one name overloaded in the source, by their parameter types ("k(float*, int)").
   */
  readonly kernels: readonly string[];
  /** The template `__global__` functions ("k", "ns::k"); `fn("k<float, 256>")` makes an instance (an overloaded one's is named with its parameter types). */
  readonly templates: readonly string[];
  private handle: ModuleHandle | undefined;
  private readonly entries: ReadonlyMap<string, KernelEntry>;
  private readonly functions = new Map<string, Kernel>();
  // Template instances fn() compiled, each a module of its own, unloaded with this one.
  private readonly instances: ModuleHandle[] = [];
  // What constant(name).set() wrote last, by symbol, written again into each instance compiled later that has it.
  private readonly constantValues = new Map<string, { data: ArrayBufferView; pointers?: SymbolPointer[] }>();

  /** @internal Modules come from `compile()` and `builtins()`. */
  constructor(readonly device: Device, handle: ModuleHandle, entries: readonly KernelEntry[],
              private readonly what: string, private readonly onDispose?: () => void,
              private readonly compiled?: CompiledParts) {
    this.handle = handle;
    this.entries = new Map(entries.map((e) => [e.name, e]));
    this.kernels = Object.freeze([...entries.map((e) => e.name), ...(compiled?.typedKernels ?? [])]);
    this.templates = Object.freeze([...(compiled?.templates.names ?? [])]);
  }

  /**
   * The `__constant__` or `__device__` variable `name` of the source, to set
   * before launches (as cudaMemcpyToSymbol sets either); a variable template's
   * instance by its name expression (`"mask<float>"`), in the module and in the
   * template instances `fn()` compiled that use it.
   */
  constant(name: string): Constant {
    const handle = this.handle;
    if (handle === undefined) throw new FuselabError(`module.constant: the module of ${this.kernels.join(", ")} was used after dispose()`);
    const declared = this.compiled?.constants ?? [];
    const found = typeof name === "string" ? declaredVariable(declared, canonicalName(name) ?? name) : undefined;
    if (!found) {
      const names = declared.map((c) => (c.templateParams ? `${c.name}<${c.templateParams.join(", ")}>` : c.name));
      throw new ArgumentError("module.constant", "name", names.length > 0 ? `one of the module's __constant__ or __device__ variables (${names.join(", ")})` :
        "a __constant__ or __device__ variable of the module (it declares none)", describe(name));
    }
    const { symbol, type, declaration } = found;
    const holders = () => [handle, ...this.instances].filter((h) => this.symbolBytes(h, symbol) !== undefined);
    let bytes = [handle, ...this.instances].map((h) => this.symbolBytes(h, symbol)).find((b) => b !== undefined);
    if (bytes === undefined && declaration.templateParams && this.compiled) {
      // An instance no code compiled yet has (cudaMemcpyToSymbol(mask<float>, ...) before
      // the first launch): compiled now, and kept, as fn() keeps a kernel instance.
      const made = this.compiled.templates.instantiateVariable(canonicalName(name) ?? name);
      this.instances.push(made);
      bytes = this.symbolBytes(made, symbol);
    }
    if (bytes === undefined) {
      throw new ArgumentError("module.constant", "name", `an instance of ${declaration.name} (line ${declaration.line}) that the module's code uses: ` +
        `launch a kernel instance that uses it first (module.fn(...)), or name it in the source (template __constant__ ... ${name};)`, describe(name));
    }
    const reader = (where: string) => pointerReader(where, this.device);
    const holds: HeldPointers | undefined = declaration.pointer !== undefined ? { pointee: declaration.type, declaration: `${declaration.pointer}*`, reader }
      : declaration.functionPointer !== undefined ? { functionPointer: declaration.functionPointer, declaration: declaration.functionPointer, reader }
      : declaration.layout ? { declaration: declaration.layout.name, layout: declaration.layout, reader } : undefined;
    const constant = new Constant(name, declaration.pointer !== undefined ? "u64" : type, bytes, (data, pointers) => {
      if (this.handle === undefined) throw new FuselabError(`constant ${name}.set: its module was disposed`);
      for (const h of holders()) nativeCall(() => native().writeSymbol(h, symbol, data, pointers));
      // Kept with the buffers it points to, for the instances fn() compiles later.
      this.constantValues.set(symbol, { data, pointers });
    }, (into) => {
      if (this.handle === undefined) throw new FuselabError(`constant ${name}.get: its module was disposed`);
      const h = holders()[0];
      nativeCall(() => native().readSymbol(h, symbol, into));
    }, holds);
    moduleVariables.set(constant, { owner: this, name, symbol, type: declaration.pointer !== undefined ? "u64" : type });
    if (declaration.functionPointer !== undefined && bytes === 8) {
      functionPointerVariables.set(constant, { owner: this, name, type: declaration.functionPointer, where: () => {
        if (this.handle === undefined) throw new FuselabError(`constant ${name}: its module was disposed`);
        return { module: holders()[0], symbol };
      } });
    }
    return constant;
  }

  // The size of variable `symbol` in the module `h`, or undefined where it has none.
  private symbolBytes(h: ModuleHandle, symbol: string): number | undefined {
    try {
      return nativeCall(() => native().symbol(h, symbol));
    } catch (e) {
      if (e instanceof DeviceError) return undefined;
      throw e;
    }
  }

  /** Whether `dispose()` has unloaded the module. */
  get disposed(): boolean {
    return this.handle === undefined;
  }

  /**
   * The kernel `name`; an error lists close names when there is none. A
   * template instance is named as NVRTC's name expressions name it
   * ("norm<float, 256>"); one the source does not make is compiled now.
   */
  fn(name: string): Kernel {
    if (this.handle === undefined) throw new FuselabError(`module.fn: the module of ${this.kernels.join(", ")} was used after dispose()`);
    const canonical = (typeof name === "string" ? canonicalName(name) : undefined) ?? name;
    const cached = this.functions.get(canonical);
    if (cached) return cached;
    let handle = this.handle;
    let entry = typeof canonical === "string" ? this.entries.get(canonical) : undefined;
    const refused = typeof canonical === "string" ? this.compiled?.unlaunchable?.get(canonical) : undefined;
    if (!entry && refused) {
      throw new ArgumentError("module.fn", "name", refused.expected.replace(/^kernels whose parameters are/, "a kernel whose parameters are"),
        `${describe(name)}, ${refused.received.startsWith("parameter ") ?
          `whose ${refused.received.replace(/^(parameter \d+) of .* \(((?:on )?line [^()]*)\) declared as/, "$1 ($2) is declared as")}` : refused.received}`);
    }
    if (!entry && typeof canonical === "string" && !canonical.includes("<") && this.templates.includes(canonical)) {
      // A template whose parameters all have defaults is launched by its bare name, as `k<<<grid, block>>>` launches it.
      let instance: Kernel | undefined;
      try {
        instance = this.fn(`${canonical}<>`);
      } catch (e) {
        // Not all defaulted: the error below lists its instances. A defaulted one that fails to compile says why.
        if (!(e instanceof ArgumentError)) throw e;
      }
      if (instance) {
        this.functions.set(canonical, instance);
        return instance;
      }
    }
    if (!entry && typeof canonical === "string") {
      const instance = this.compiled?.templates.instantiate(canonical);
      if (instance) {
        this.instances.push(instance.handle);
        for (const [symbol, { data, pointers }] of this.constantValues) {
          if (this.symbolBytes(instance.handle, symbol) !== undefined) nativeCall(() => native().writeSymbol(instance.handle, symbol, data, pointers));
        }
        ({ handle, entry } = instance);
      }
    }
    // An overloaded template is named with its arguments: its overloads are listed by its name.
    const overloads = typeof canonical === "string" ? this.compiled?.overloaded?.get(canonical) ?? this.compiled?.overloaded?.get(canonical.split("<", 1)[0]) : undefined;
    if (!entry && overloads) {
      const typed = this.compiled?.overloadNames?.(canonical) ?? [];
      throw new ArgumentError("module.fn", "name", "a kernel its name alone picks",
        `${describe(name)}, which the source overloads (lines ${overloads.join(" and ")}): name the one to launch with its parameter types` +
        (typed.length > 0 ? `, ${typed.map((t) => JSON.stringify(t)).join(" or ")}` : ` ("${canonical}<...>(float*, int)")`));
    }
    if (!entry) {
      const leftOut = typeof name === "string" ? this.compiled?.leftOutBy?.(name) : undefined;
      const lambda = this.compiled?.lambdaLine;
      const ofLambdas = typeof canonical === "string" && lambda !== undefined && this.templates.includes(canonical.split("<", 1)[0])
        ? `, a template whose arguments the source's host code may give as lambdas (line ${lambda}), whose types have no name a launch ` +
          `from TS can spell: instantiate it in the source with a named functor or __device__ function and launch that instance`
        : "";
      throw new ArgumentError("module.fn", "name", this.expectedName(name), `${describe(name)}${leftOut ? `, defined only under ${leftOut}` : ""}${ofLambdas}`);
    }
    const kernelName = entry.name, exported = entry.exportedAs ?? kernelName;
    const kernel = new Kernel(kernelName, this.device, nativeCall(() => native().kernel(handle, exported)), entry.params, this, entry.maxThreads);
    this.functions.set(canonical, kernel);
    return kernel;
  }

  /**
   * What the compiler decided for kernel `name` (registers a thread, spills,
   * static shared memory) and the occupancy that allows at `options.block`
   * threads a block: from NVRTC/hiprtc for compiled modules and the runtime for
   * built-in kernels. On the CPU emulator there is nothing to report (kernels run
   * as host code) and it throws saying so.
   */
  stats(name: string, options?: KernelStatsOptions): KernelStats {
    const where = "module.stats";
    const o = checkOptionsObject(where, options, ["block", "sharedBytes"]);
    const block = o.block ?? 256, sharedBytes = o.sharedBytes ?? 0;
    const maxThreads = this.device.props.maxThreadsPerBlock;
    if (typeof block !== "number" || !Number.isInteger(block) || block < 1 || block > maxThreads) {
      throw new ArgumentError(where, "options.block", `an integer from 1 to ${maxThreads} (threads a block on ${this.device.describe()})`, describe(block));
    }
    if (typeof sharedBytes !== "number" || !Number.isSafeInteger(sharedBytes) || sharedBytes < 0) {
      throw new ArgumentError(where, "options.sharedBytes", "an integer >= 0 (bytes)", describe(sharedBytes));
    }
    const kernel = this.fn(name);
    const raw = nativeCall(() => native().kernelStats(kernel.handle, block, sharedBytes));
    if (raw === null) {
      throw new DeviceError(`${where}: ${this.device.describe()} is the CPU emulator, which runs kernels as host code: ` +
        "it has no registers, spills or occupancy to report. Ask a GPU device, or read a GPU's from a committed run " +
        "(fl.committedResults(\"kernel-stats-nvidia-h100\"), written by 'npm run bench:stats' on that GPU).");
    }
    return {
      kernel: name, device: this.device.describe(),
      registers: raw.registers, spillBytes: raw.localBytes, staticSharedBytes: raw.staticSharedBytes, constBytes: raw.constBytes,
      maxThreadsPerBlock: raw.maxThreadsPerBlock, blockThreads: block, sharedBytes,
      blocksPerMultiprocessor: raw.blocksPerMultiprocessor,
      occupancy: raw.maxThreadsPerMultiprocessor > 0 ? (raw.blocksPerMultiprocessor * block) / raw.maxThreadsPerMultiprocessor : 0,
    };
  }

  /** Unloads a compiled module; its kernels refuse to launch afterwards. A second call does nothing. */
  dispose(): void {
    if (this.handle === undefined) return;
    if (!this.onDispose) throw new FuselabError(`module.dispose: the ${this.what} cannot be unloaded`);
    const handles = [this.handle, ...this.instances.splice(0)];
    this.handle = undefined;
    this.onDispose();
    for (const handle of handles) nativeCall(() => native().unload(handle));
  }

  /** "the built-in kernels of cpu", "a module of saxpy". */
  describe(): string {
    return this.what;
  }

  private expectedName(name: unknown): string {
    if (typeof name !== "string") return "a kernel name (a string)";
    const known = [...this.kernels, ...this.templates.map((t) => `${t}<...>`)];
    if (known.length <= 8) return `one of the module's kernels (${known.join(", ")})`;
    const close = closeNames(name, this.kernels);
    return close.length > 0 ? `one of ${this.what} (close names: ${close.join(", ")})` : `one of ${this.what} (${this.kernels.length} kernels)`;
  }
}

const builtinModules = new WeakMap<Device, Module>();

/** The kernels built into `device`'s backend ahead of time (kernels/*.hip); the default device when left out. */
export function builtins(device?: Device): Module {
  const dev = checkDevice("fl.builtins", device, "device");
  let module = builtinModules.get(dev);
  if (!module) {
    const handle = nativeCall(() => native().builtin(dev.handle));
    const entries = nativeCall(() => native().kernels(handle))
      .map((k) => ({ name: k.name, params: paramsFromSignature(k.signature ?? "") }));
    module = new Module(dev, handle, entries, `the built-in kernels of ${dev.describe()}`);
    builtinModules.set(dev, module);
  }
  return module;
}

// Up to five names a typo might have meant: same prefix or small edit distance.
function closeNames(name: string, names: readonly string[]): string[] {
  const scored = names
    .map((candidate) => ({ candidate, distance: editDistance(name, candidate) }))
    .filter(({ candidate, distance }) => distance <= Math.max(2, Math.floor(name.length / 3)) ||
      candidate.startsWith(name) || name.startsWith(candidate.split("_")[0] + "_"))
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate));
  return scored.slice(0, 5).map((s) => s.candidate);
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
