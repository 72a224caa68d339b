// Kernels: a launch checks every argument against the kernel's parameters
// (count, tensor or number, integer range, element type, device) and the launch
// shape against the device's limits before anything reaches the device.
import { ArgumentError, FuselabError, checkOptionsObject, describe, shapeString } from "./errors";
import type { Device } from "./device";
import { KernelHandle, LaunchHandle, NativeArg, native, nativeCall } from "./native";
import { f32ToBf16Bits, f32ToF16Bits } from "./dtype";
import { KernelParam, SCALAR_TYPES } from "./signature";
import { Tensor, checkNotDisposed } from "./tensor";

export type { KernelParam } from "./signature";

/** A grid or block size: a number (x) or [x, y?, z?]. */
export type Dim = number | readonly number[];

/** How a kernel is launched. */
export interface LaunchConfig {
  grid: Dim;
  block: Dim;
  /** Dynamic shared memory per block, in bytes (0 when left out). */
  sharedBytes?: number;
}

/** What a kernel argument may be: a tensor for a pointer, a number (or bigint) for a scalar. */
export type KernelArg = Tensor | number | bigint;

type ScalarType = (typeof SCALAR_TYPES)[number];

// Inclusive integer ranges of the integer scalar types.
const INTEGER_RANGES: Partial<Record<ScalarType, [bigint, bigint]>> = {
  i8: [-(2n ** 7n), 2n ** 7n - 1n], u8: [0n, 2n ** 8n - 1n],
  i16: [-(2n ** 15n), 2n ** 15n - 1n], u16: [0n, 2n ** 16n - 1n],
  i32: [-(2n ** 31n), 2n ** 31n - 1n], u32: [0n, 2n ** 32n - 1n],
  i64: [-(2n ** 63n), 2n ** 63n - 1n], u64: [0n, 2n ** 64n - 1n],
};

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
  constructor(readonly kernel: Kernel, readonly handle: LaunchHandle, private readonly tensors: readonly Tensor[]) {}

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
  ) {}

  /** "scale(float* out, const float* x, float s, int n)". */
  signature(): string {
    return `${this.name}(${this.params.map((p) => (p.name ? `${p.declaration} ${p.name}` : p.declaration)).join(", ")})`;
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
    return new PreparedLaunch(this, handle, args.filter((a): a is Tensor => Tensor.isTensor(a)));
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
    const sharedBytes = c.sharedBytes ?? 0;
    const sharedLimit = Math.max(p.sharedPerBlock, p.sharedPerBlockOptin);
    if (typeof sharedBytes !== "number" || !Number.isInteger(sharedBytes) || sharedBytes < 0) {
      throw new ArgumentError(where, "sharedBytes", "a non-negative integer", describe(sharedBytes));
    }
    if (sharedBytes > sharedLimit) {
      throw new ArgumentError(where, "sharedBytes", `at most ${sharedLimit} (the device's limit)`, String(sharedBytes));
    }
    if (args.length !== this.params.length) {
      throw new ArgumentError(where, "the arguments", `${this.params.length} values: ${this.signature()}`, `${args.length} values`);
    }
    const nativeArgs = args.map((arg, i) => this.argument(where, i, arg));
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

  private argument(where: string, index: number, arg: unknown): NativeArg {
    const param = this.params[index];
    const label = param.name ? `argument ${index} (${param.name})` : `argument ${index}`;
    if (param.pointer) {
      const wanted = param.type === "void" ? "a tensor" : `a ${param.type} tensor`;
      if (!Tensor.isTensor(arg)) throw new ArgumentError(where, label, `${wanted} (${param.declaration})`, describe(arg));
      checkNotDisposed(where, label, arg);
      if (param.type !== "void" && arg.dtype !== param.type) throw new ArgumentError(where, label, `${wanted} (${param.declaration})`, arg.describe());
      if (arg.device !== this.device) {
        throw new ArgumentError(where, label, `a tensor on ${this.device.describe()} (the kernel's device)`, `a tensor on ${arg.device.describe()}`);
      }
      return arg.handle(where);
    }
    const type = param.type as ScalarType;
    if (!(SCALAR_TYPES as readonly string[]).includes(type)) {
      throw new ArgumentError(where, label, "of a type fuselab can pass (integers, half, float, double, pointers)", param.declaration);
    }
    if (type === "f16" || type === "bf16") {
      if (typeof arg !== "number") throw new ArgumentError(where, label, `a number (${param.declaration})`, describe(arg));
      return { type, value: type === "f16" ? f32ToF16Bits(arg) : f32ToBf16Bits(arg) };
    }
    const range = INTEGER_RANGES[type];
    if (!range) {
      if (typeof arg !== "number") throw new ArgumentError(where, label, `a number (${param.declaration})`, describe(arg));
      return { type, value: arg };
    }
    if (typeof arg !== "bigint") {
      if (typeof arg !== "number" || !Number.isInteger(arg)) throw new ArgumentError(where, label, `an integer (${param.declaration})`, describe(arg));
      if (!Number.isSafeInteger(arg)) throw new ArgumentError(where, label, `an integer within 2^53 (pass larger ones as a bigint) (${param.declaration})`, describe(arg));
    }
    if (BigInt(arg) < range[0] || BigInt(arg) > range[1]) {
      throw new ArgumentError(where, label, `an integer from ${range[0]} to ${range[1]} (${param.declaration})`, describe(arg));
    }
    return { type, value: arg };
  }
}
