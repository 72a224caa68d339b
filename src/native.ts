// The Node addon's interface (native/addon). Everything here is internal: user
// code goes through device.ts, tensor.ts, compile.ts. The addon trusts nothing:
// it re-checks handles, sizes and argument kinds, and turns every failure into
// a JS Error (never a crash); but wording for users is done here in TS.
import * as path from "path";
import { DeviceError, FuselabError } from "./errors";
import type { ScalarType } from "./layout";

/** Opaque handles (N-API externals). */
export interface DeviceHandle { readonly __device: unique symbol }
export interface BufferHandle { readonly __buffer: unique symbol }
export interface ModuleHandle { readonly __module: unique symbol }
export interface KernelHandle { readonly __kernel: unique symbol }
export interface LaunchHandle { readonly __launch: unique symbol }

export interface BackendStatus {
  name: string;            // "cpu" | "cuda" | "hip"
  library: string;         // absolute path of the plugin
  built: boolean;          // the plugin file exists
  loaded: boolean;         // dlopen + probe succeeded
  reason?: string;         // why not, when not loaded or no devices
  notes: string[];         // from the plugin's notes()
  deviceCount: number;
}

export interface DeviceProps {
  name: string; arch: string; warpSize: number; multiprocessors: number;
  maxThreadsPerBlock: number; maxBlockDim: [number, number, number];
  maxGridDim: [number, number, number]; sharedPerBlock: number;
  sharedPerBlockOptin: number; totalMemory: number; l2Bytes: number;
  peakBandwidthGBs: number;
}

export interface OpenOptions { warpSize?: number; check?: boolean; threads?: number; timeoutMs?: number }

/**
 * A kernel argument: a buffer; a view into one (the pointer is the buffer's
 * plus byteOffset, and may reach `bytes`); a null pointer; a scalar with its C
 * type; a struct's bytes, as the C ABI lays them out.
 */
export type NativeArg =
  | BufferHandle
  | { buffer: BufferHandle; byteOffset: number; bytes: number }
  | null
  | { type: ScalarType | "bool"; value: number | bigint }
  | { type: "struct"; bytes: Uint8Array; pointers?: { offset: number; buffer: BufferHandle; byteOffset?: number; bytes?: number }[] }
  /** A pointer to a device function: the value the module's variable `symbol` holds, which the addon reads at the launch. */
  | { type: "function"; module: ModuleHandle; symbol: string }
  /** The address of the kernel's module's variable `symbol`, which the addon looks up. */
  | { type: "symbol"; symbol: string };

/** A buffer's address to write into a variable's bytes (a pointer variable, a struct's pointer member). */
export interface SymbolPointer {
  offset: number;
  buffer: BufferHandle;
  byteOffset?: number;
  bytes?: number;
}

export interface NativeKernelStats {
  registers: number;
  localBytes: number;
  staticSharedBytes: number;
  constBytes: number;
  maxThreadsPerBlock: number;
  blocksPerMultiprocessor: number;
  maxThreadsPerMultiprocessor: number;
}

export interface Native {
  backends(): BackendStatus[];
  open(backend: string, index: number, options: OpenOptions): DeviceHandle;
  close(dev: DeviceHandle): void;
  props(dev: DeviceHandle): DeviceProps;

  /** Frees itself when garbage-collected unless release()d first. */
  alloc(dev: DeviceHandle, bytes: number): BufferHandle;
  release(buf: BufferHandle): void;
  upload(buf: BufferHandle, src: ArrayBufferView, byteOffset?: number): void;
  download(buf: BufferHandle, dst: ArrayBufferView, byteOffset?: number): void;
  downloadAsync(buf: BufferHandle, dst: ArrayBufferView): Promise<void>;
  copy(dst: BufferHandle, src: BufferHandle, bytes: number): void;
  fill(buf: BufferHandle, byte: number): void;

  builtin(dev: DeviceHandle): ModuleHandle;
  /**
   * Throws (or rejects) with an Error whose .log holds the compiler log on a compile error.
   * timeoutMs: the compile is stopped after this long (0: no limit), where the backend can.
   */
  compile(dev: DeviceHandle, source: string, kernelNames: string[], options: string[], timeoutMs: number): ModuleHandle;
  compileAsync(dev: DeviceHandle, source: string, kernelNames: string[], options: string[], timeoutMs: number): Promise<ModuleHandle>;
  /**
   * Compiles for a GPU architecture ("gfx90a", "sm_90") with no device, loading nothing:
   * each kernel name's symbol, in order, and the compiler's log. Throws an Error whose .log
   * holds the compiler log on a compile error.
   */
  compileCheck(backend: string, arch: string, source: string, kernelNames: string[], options: string[]): { symbols: string[]; log: string };
  /** Marks the module dead: later use of it or its kernels throws. Its code is freed once no kernel or prepared launch refers to it. */
  unload(mod: ModuleHandle): void;
  /**
   * signature: "f32* out,const f32* x,i32 n", with names where the export gives
   * them ("f32*,const f32*,i32" otherwise), null where the backend cannot know
   * (NVRTC, hiprtc). params: the export's names and pointer extents
   * ("out[n] x[n] n"), null where it gives none (compiled kernels).
   */
  kernels(mod: ModuleHandle): { name: string; signature: string | null; params: string | null }[];
  /** The size in bytes of a compiled module's __constant__ variable. */
  symbol(mod: ModuleHandle, name: string): number;
  /** Writes `data` at the start of the variable, in stream order (cudaMemcpyToSymbol). */
  writeSymbol(mod: ModuleHandle, name: string, data: ArrayBufferView, pointers?: SymbolPointer[]): void;
  /** Reads the start of a module variable into `data` once the launches before it are done (cudaMemcpyFromSymbol). */
  readSymbol(mod: ModuleHandle, name: string, data: ArrayBufferView): void;
  kernel(mod: ModuleHandle, name: string): KernelHandle;
  /** The compiler's facts about a kernel and its occupancy at blockThreads; null where the backend has no compiler (cpu). */
  kernelStats(k: KernelHandle, blockThreads: number, dynamicSharedBytes: number): NativeKernelStats | null;

  /**
   * Launch now. The addon checks each arg's kind against the signature where
   * known, and each buffer's size against its extent where the export gives one.
   */
  launch(k: KernelHandle, grid: [number, number, number], block: [number, number, number],
         sharedBytes: number, args: NativeArg[]): void;
  /** A launch packed once, replayed by launchPrepared() and bench() without re-marshalling. */
  prepare(k: KernelHandle, grid: [number, number, number], block: [number, number, number],
          sharedBytes: number, args: NativeArg[]): LaunchHandle;
  launchPrepared(l: LaunchHandle): void;
  synchronize(dev: DeviceHandle): Promise<void>;
  cancel(dev: DeviceHandle): boolean;
  /** From now on SIGINT also cancels every device's running CPU launch at once, even while the main thread waits in a synchronous call. */
  watchInterrupts(): void;

  /**
   * Times `steps` off the main thread: for each of warmup + iters iterations,
   * optionally fills `flush` (to evict L2), records an event, launches every
   * prepared launch of the step in order, records an event. Resolves to the
   * iters per-iteration times in ms (warm-up excluded).
   */
  bench(dev: DeviceHandle, steps: LaunchHandle[], options: { warmup: number; iters: number; flush?: BufferHandle }): Promise<Float64Array>;

  /**
   * Locks this process with a seccomp filter, on every thread, for good: no
   * sockets, ptrace, other processes' memory, or signals to others; no fork or
   * exec unless `processes`; no new threads unless `threads`. Refused calls fail with EPERM.
   */
  sandboxLock(options: { processes: boolean; threads: boolean }): void;
}

let loaded: Native | undefined;

/** The addon, loaded on first use from build/Release (or FUSELAB_ADDON). */
export function native(): Native {
  if (!loaded) {
    const file = process.env.FUSELAB_ADDON ?? path.join(packageRoot(), "build", "Release", "fuselab.node");
    try {
      loaded = require(file) as Native;
    } catch (e) {
      throw new Error(`fuselab: the native addon could not be loaded from ${file}: ${(e as Error).message}. ` +
        `Build it with 'npm run build' (see README).`);
    }
  }
  return loaded;
}

/** The package's root folder (holds kernels/, build/, notebooks/, and bench/ with its results and scripts). */
export function packageRoot(): string {
  // dist/src/native.js -> two levels up
  return path.resolve(__dirname, "..", "..");
}

/** Runs a native call, turning its failure into a DeviceError (with the compiler log, if any). */
export function nativeCall<T>(call: () => T): T {
  try {
    return call();
  } catch (e) {
    throw asDeviceError(e);
  }
}

/** As nativeCall, for the addon's promises. */
export async function nativeAsync<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw asDeviceError(e);
  }
}

function asDeviceError(e: unknown): Error {
  if (e instanceof FuselabError) return e;
  const error = e as Error & { log?: string };
  return new DeviceError(error?.message ?? String(e), error?.log);
}
