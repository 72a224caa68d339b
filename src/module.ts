// Modules: a set of kernels on one device, launched by name. Built-in kernels
// (kernels/*.hip, compiled ahead of time) are a module like a compiled one:
// `fl.builtins(device).fn(name)` as `fl.compile(source).fn(name)`.
import { ArgumentError, DeviceError, FuselabError, checkOptionsObject, describe } from "./errors";
import { Device, checkDevice } from "./device";
import { Kernel, KernelParam } from "./kernel";
import { ModuleHandle, native, nativeCall } from "./native";
import { paramsFromSignature } from "./signature";

/** A kernel of a module: its name and parameters, before it is loaded. */
export interface KernelEntry {
  name: string;
  params: readonly KernelParam[];
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

/** Kernels on one device, launched through `fn(name)`. */
export class Module {
  /** The names of the module's kernels. */
  readonly kernels: readonly string[];
  private handle: ModuleHandle | undefined;
  private readonly entries: ReadonlyMap<string, KernelEntry>;
  private readonly functions = new Map<string, Kernel>();

  /** @internal Modules come from `compile()` and `builtins()`. */
  constructor(readonly device: Device, handle: ModuleHandle, entries: readonly KernelEntry[],
              private readonly what: string, private readonly onDispose?: () => void) {
    this.handle = handle;
    this.entries = new Map(entries.map((e) => [e.name, e]));
    this.kernels = Object.freeze(entries.map((e) => e.name));
  }

  /** Whether `dispose()` has unloaded the module. */
  get disposed(): boolean {
    return this.handle === undefined;
  }

  /** The kernel `name`; an error lists close names when there is none. */
  fn(name: string): Kernel {
    if (this.handle === undefined) throw new FuselabError(`module.fn: the module of ${this.kernels.join(", ")} was used after dispose()`);
    const cached = this.functions.get(name);
    if (cached) return cached;
    const entry = typeof name === "string" ? this.entries.get(name) : undefined;
    if (!entry) throw new ArgumentError("module.fn", "name", this.expectedName(name), describe(name));
    const handle = this.handle;
    const kernel = new Kernel(name, this.device, nativeCall(() => native().kernel(handle, name)), entry.params, this);
    this.functions.set(name, kernel);
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
    const handle = this.handle;
    this.handle = undefined;
    this.onDispose();
    nativeCall(() => native().unload(handle));
  }

  /** "the built-in kernels of cpu", "a module of saxpy". */
  describe(): string {
    return this.what;
  }

  private expectedName(name: unknown): string {
    if (typeof name !== "string") return "a kernel name (a string)";
    if (this.kernels.length <= 8) return `one of the module's kernels (${this.kernels.join(", ")})`;
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
