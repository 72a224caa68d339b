// Devices: what the backends offer, the default device, and one Device object
// per (backend, index, options), shared by everything that runs there.
import * as os from "os";
import { ArgumentError, DeviceError, checkOptionsObject, describe } from "./errors";
import { BackendStatus, DeviceHandle, DeviceProps, OpenOptions, native, nativeAsync, nativeCall } from "./native";

/** Where a device computes: the CPU emulator or a GPU. */
export type DeviceKind = "cpu" | "gpu";

/** What `device()` accepts: a kind, or a backend by name. */
export type DeviceRequest = DeviceKind | "cuda" | "hip";

/** Options of the CPU emulator (a GPU device takes none). */
export interface DeviceOptions {
  /** Lanes of a warp: 32 (the default, as on NVIDIA) or 64 (as on AMD CDNA). */
  warpSize?: 32 | 64;
  /** Guard bands around buffers, NaN-poisoned outputs and shuffled thread order. */
  check?: boolean;
  /** Worker threads, from 1 to the cores this process may use (`os.availableParallelism()`, the default). */
  threads?: number;
  /**
   * On the CPU, a launch running longer than this (in ms) is stopped with an
   * error; on a GPU, which cannot stop a kernel, a wait for the device's work
   * (a download, `synchronize()`) gives up after this long with an error
   * saying so. 0: no limit. Left out: `FUSELAB_TIMEOUT_MS` when set, else
   * 30 000 ms in a notebook (NOTEBOOK_TIMEOUT_MS) and no limit elsewhere.
   */
  timeoutMs?: number;
}

/** One device of one loaded backend, as `devices()` lists it. */
export interface DeviceInfo {
  backend: string;
  index: number;
  name: string;
  kind: DeviceKind;
}

const GPU_BACKENDS = ["cuda", "hip"];

/** The CPU launch time limit in a notebook, unless set: a cell with an endless kernel ends with an error. */
export const NOTEBOOK_TIMEOUT_MS = 30_000;

function kindOf(backend: string): DeviceKind {
  return GPU_BACKENDS.includes(backend) ? "gpu" : "cpu";
}

/** A device: memory and a stream of work, on one backend (its built-in kernels: `fl.builtins(device)`). */
export class Device {
  /** The backend's name: "cpu", "cuda" or "hip". */
  readonly backend: string;
  /** "cpu" for the emulator, "gpu" otherwise. */
  readonly kind: DeviceKind;
  /** The device's index within its backend. */
  readonly index: number;
  /** The device's name, as the backend reports it. */
  readonly name: string;
  /** Limits and facts: warp size, block and grid limits, memory, bandwidth. */
  readonly props: Readonly<DeviceProps>;
  /** The options the device was opened with. */
  readonly options: Readonly<DeviceOptions>;
  /** The launch time limit in ms (a GPU's: how long a wait for its work may last; see `DeviceOptions.timeoutMs`); 0: none. */
  readonly timeoutMs: number;
  /** The addon's handle (internal). */
  readonly handle: DeviceHandle;

  private readonly label: string;

  /** @internal Use `device()`: it returns one shared Device per backend, index and options. */
  constructor(backend: string, index: number, options: DeviceOptions) {
    this.backend = backend;
    this.kind = kindOf(backend);
    this.index = index;
    this.options = Object.freeze({ ...options });
    this.timeoutMs = launchTimeLimit(options);
    this.handle = nativeCall(() => native().open(backend, index, { ...options, timeoutMs: this.timeoutMs } as OpenOptions));
    this.props = Object.freeze(nativeCall(() => native().props(this.handle)));
    this.name = this.props.name;
    const onlyDevice = (backendStatus(backend)?.deviceCount ?? 1) <= 1;
    const base = onlyDevice ? backend : `${backend}:${index}`;
    const flags = Object.entries(this.options).map(([k, v]) => (v === true ? k : `${k} ${v}`));
    this.label = flags.length > 0 ? `${base} (${flags.join(", ")})` : base;
  }

  /** Resolves once all work queued on the device so far is done (off the main thread). */
  synchronize(): Promise<void> {
    return nativeAsync(() => native().synchronize(this.handle));
  }

  /**
   * Stops the launch running now where the backend can (the CPU emulator: the
   * launch ends with "kernel '...' was cancelled") and a running `fl.bench`
   * loop. Returns whether anything was stopped.
   */
  cancel(): boolean {
    return nativeCall(() => native().cancel(this.handle));
  }

  /** "cpu", "cuda:1", "cpu (warpSize 64, check)": how messages name the device. */
  describe(): string {
    return this.label;
  }

  toString(): string {
    return this.describe();
  }
}

/** Every backend plugin the addon looked for: built, loaded, devices, and why not. */
export function backends(): BackendStatus[] {
  return native().backends();
}

// The addon loads its plugins once, so their statuses never change: `device()`,
// called for every tensor made without a device, reads them from here.
let statuses: readonly BackendStatus[] | undefined;
export function backendStatus(name: string): BackendStatus | undefined {
  statuses ??= backends();
  return statuses.find((b) => b.name === name);
}

/** Every device of every loaded backend, GPUs first. */
export function devices(): DeviceInfo[] {
  const list: DeviceInfo[] = [];
  for (const status of backends()) {
    if (!status.loaded) continue;
    for (let index = 0; index < status.deviceCount; index++) {
      const dev = openDevice(status.name, index, {});
      list.push({ backend: dev.backend, index, name: dev.name, kind: dev.kind });
    }
  }
  return list;
}

const opened = new Map<string, Device>();

function openDevice(backend: string, index: number, options: DeviceOptions): Device {
  const key = `${backend}:${index}:${JSON.stringify(options)}`;
  let dev = opened.get(key);
  if (!dev) {
    dev = new Device(backend, index, options);
    opened.set(key, dev);
  }
  cancelOnInterrupt();
  return dev;
}

// A notebook kernel (tslab) listens for SIGINT to interrupt the running cell:
// then the cell's CPU launch or timing loop is stopped too, rather than running
// on unseen, and a wait for a GPU's work ends (its kernel cannot be stopped),
// also while the cell waits in a synchronous call such as toArray()
// (the addon cancels from a thread of its own). Where nobody listens (a plain
// script), SIGINT keeps its default, ending the process, so nothing is added there.
let interruptHooked = false;
function cancelOnInterrupt(): void {
  if (!inNotebook()) return;
  native().watchInterrupts();
  if (interruptHooked) return;
  interruptHooked = true;
  process.on("SIGINT", () => {
    for (const dev of opened.values()) dev.cancel();
  });
}

// In a notebook kernel: someone listens for SIGINT to interrupt cells.
function inNotebook(): boolean {
  return process.listenerCount("SIGINT") > 0;
}

// The time limit a device opens with: its option, else FUSELAB_TIMEOUT_MS, else the notebook default.
function launchTimeLimit(options: DeviceOptions): number {
  if (options.timeoutMs !== undefined) return options.timeoutMs;
  const fromEnvironment = process.env.FUSELAB_TIMEOUT_MS;
  if (fromEnvironment !== undefined && fromEnvironment !== "") {
    const ms = Number(fromEnvironment);
    if (!Number.isInteger(ms) || ms < 0 || ms > 2 ** 31 - 1) {
      throw new ArgumentError("fl.device", "the environment variable FUSELAB_TIMEOUT_MS", "a whole number of milliseconds (0: no limit)", describe(fromEnvironment));
    }
    return ms;
  }
  return inNotebook() ? NOTEBOOK_TIMEOUT_MS : 0;
}

// The options with defaults left out, checked, in a fixed key order (the cache key).
function checkOptions(options: unknown, backend: string): DeviceOptions {
  const known = ["warpSize", "check", "threads", "timeoutMs"];
  const o = checkOptionsObject("fl.device", options, known);
  const cpuOnly = known.filter((k) => k !== "timeoutMs");
  const given = cpuOnly.filter((k) => o[k] !== undefined);
  if (kindOf(backend) === "gpu" && given.length > 0) {
    throw new ArgumentError("fl.device", "options", `only timeoutMs for a GPU device (${cpuOnly.join(", ")} are options of the CPU emulator)`, `{ ${given.join(", ")} }`);
  }
  const checked: DeviceOptions = {};
  if (o.warpSize !== undefined) {
    if (o.warpSize !== 32 && o.warpSize !== 64) throw new ArgumentError("fl.device", "options.warpSize", "32 or 64", describe(o.warpSize));
    if (o.warpSize === 64) checked.warpSize = 64;
  }
  if (o.check !== undefined) {
    if (typeof o.check !== "boolean") throw new ArgumentError("fl.device", "options.check", "a boolean", describe(o.check));
    if (o.check) checked.check = true;
  }
  if (o.threads !== undefined) {
    // More workers than cores would only contend, and an absurd count would exhaust the process.
    const cores = os.availableParallelism();
    if (typeof o.threads !== "number" || !Number.isInteger(o.threads) || o.threads < 1 || o.threads > cores) {
      throw new ArgumentError("fl.device", "options.threads", `a whole number from 1 to ${cores} (the cores this process may use)`, describe(o.threads));
    }
    checked.threads = o.threads;
  }
  if (o.timeoutMs !== undefined) {
    if (typeof o.timeoutMs !== "number" || !Number.isInteger(o.timeoutMs) || o.timeoutMs < 0 || o.timeoutMs > 2 ** 31 - 1) {
      throw new ArgumentError("fl.device", "options.timeoutMs", "a whole number of milliseconds (0: no limit)", describe(o.timeoutMs));
    }
    checked.timeoutMs = o.timeoutMs;
  }
  return checked;
}

function gpuBackend(): { backend: string } | { reasons: string[] } {
  const reasons: string[] = [];
  for (const name of GPU_BACKENDS) {
    const status = backendStatus(name);
    if (status?.loaded && status.deviceCount > 0) return { backend: name };
    reasons.push(`${name}: ${status?.reason ?? "unknown backend"}`);
  }
  return { reasons };
}

const REQUESTS: readonly DeviceRequest[] = ["cpu", "gpu", "cuda", "hip"];

/**
 * The device to run on, opened once and shared. `kind`: "cpu", "gpu" (the first
 * GPU of cuda or hip), or a backend by name; left out, `FUSELAB_DEVICE` decides,
 * else a GPU when there is one, else the CPU. Asking for a GPU where there is
 * none is an error that gives each backend's reason: never a silent CPU.
 */
export function device(kind?: DeviceRequest, options?: DeviceOptions): Device {
  let request: unknown = kind;
  let argument = "kind";
  if (request === undefined && process.env.FUSELAB_DEVICE) {
    request = process.env.FUSELAB_DEVICE;
    argument = "the environment variable FUSELAB_DEVICE";
  }
  if (request !== undefined && !(REQUESTS as readonly unknown[]).includes(request)) {
    throw new ArgumentError("fl.device", argument, REQUESTS.map((r) => JSON.stringify(r)).join(", ") + " or left out", describe(request));
  }
  let backend: string;
  if (request === undefined) {
    const gpu = gpuBackend();
    backend = "backend" in gpu ? gpu.backend : "cpu";
  } else if (request === "gpu") {
    const gpu = gpuBackend();
    if (!("backend" in gpu)) throw new DeviceError(`fl.device: a GPU was asked for (${argument}), but no GPU backend has a device: ${gpu.reasons.join("; ")}`);
    backend = gpu.backend;
  } else {
    backend = request as string;
    const status = backendStatus(backend);
    if (!status?.loaded || status.deviceCount === 0) {
      throw new DeviceError(`fl.device: backend ${backend} has no device: ${status?.reason ?? "unknown backend"}`);
    }
  }
  return openDevice(backend, 0, checkOptions(options, backend));
}

/** `options.device` (or the argument `argument`) of a function that works on a device: a Device, or left out for `device()`. */
export function checkDevice(where: string, value: unknown, argument = "options.device"): Device {
  if (value === undefined) return device();
  if (!(value instanceof Device)) throw new ArgumentError(where, argument, "a device from fl.device()", describe(value));
  return value;
}
