// Run-time compilation of kernel source (a notebook cell): NVRTC on NVIDIA,
// hiprtc on AMD, the host compiler on the CPU emulator. Modules are cached per
// device by a hash of what was compiled.
import { createHash } from "crypto";
import * as path from "path";
import { ArgumentError, DeviceError, FuselabError, describe } from "./errors";
import { Device, device as defaultDevice, nativeAsync, nativeCall } from "./device";
import { Kernel } from "./kernel";
import { ModuleHandle, native, packageRoot } from "./native";
import { KernelDeclaration, KernelTemplate, canonicalName, findKernels, instantiate, parseNameExpression } from "./signature";

/** Options of `compile()`. */
export interface CompileOptions {
  /** Where the module runs; the default device when left out. */
  device?: Device;
  /** The file name compiler messages use (`<name>.hip`); the first kernel's name when left out. */
  name?: string;
}

/** Lines of the compiler's log a compile error's message shows (`.log` holds it all). */
const LOG_LINES_SHOWN = 40;

/** A compiled source: its `__global__` kernels, launched through `fn(name)`. */
export class Module {
  /** The kernels compiled: `__global__` functions and the explicit instantiations of template ones ("k<float>"). */
  readonly kernels: readonly string[];
  /** The template `__global__` functions ("k", "ns::k"); `fn("k<float, 256>")` makes an instance. */
  readonly templates: readonly string[];
  private handle: ModuleHandle | undefined;
  private readonly functions = new Map<string, Kernel>();
  // Template instances asked for by name, each compiled as a module of its own.
  private readonly instances: ModuleHandle[] = [];

  /** @internal Modules come from `compile()`. */
  constructor(readonly device: Device, handle: ModuleHandle, private readonly declarations: readonly KernelDeclaration[],
              private readonly kernelTemplates: readonly KernelTemplate[], private readonly source: Prepared,
              private readonly onDispose: () => void) {
    this.handle = handle;
    this.kernels = Object.freeze(declarations.map((d) => d.name));
    this.templates = Object.freeze(kernelTemplates.map((t) => t.name));
  }

  /** Whether `dispose()` has unloaded the module. */
  get disposed(): boolean {
    return this.handle === undefined;
  }

  /**
   * The kernel `name`, with its parameters parsed from the source. A template
   * instance is named as NVRTC's name expressions are ("norm<float, 256>"); one
   * the source does not instantiate is compiled now.
   */
  fn(name: string): Kernel {
    const known = [...this.kernels, ...this.templates.map((t) => `${t}<...>`)].join(", ");
    if (this.handle === undefined) throw new FuselabError(`module.fn: the module of ${known} was used after dispose()`);
    const canonical = typeof name === "string" ? canonicalName(name) : undefined;
    const cached = canonical === undefined ? undefined : this.functions.get(canonical);
    if (cached) return cached;
    const wanted = `one of the module's kernels (${known})`;
    if (canonical === undefined) throw new ArgumentError("module.fn", "name", wanted, describe(name));
    const declaration = this.declarations.find((d) => d.name === canonical);
    let kernel: Kernel;
    if (declaration) {
      const handle = this.handle;
      kernel = new Kernel(canonical, this.device, nativeCall(() => native().kernel(handle, canonical)), declaration.params, this);
    } else {
      const parsed = parseNameExpression(canonical)!;
      const template = this.kernelTemplates.find((t) => t.name === parsed.name);
      if (!template || !canonical.includes("<")) throw new ArgumentError("module.fn", "name", wanted, describe(name));
      const instance = instantiate(template, parsed.args);
      const handle = compileNames("module.fn", this.source, [instance.name]);
      this.instances.push(handle);
      kernel = new Kernel(instance.name, this.device, nativeCall(() => native().kernel(handle, instance.name)), instance.params, this);
    }
    this.functions.set(canonical, kernel);
    return kernel;
  }

  /** Unloads the module; its kernels refuse to launch afterwards. A second call does nothing. */
  dispose(): void {
    if (this.handle === undefined) return;
    const handles = [this.handle, ...this.instances.splice(0)];
    this.handle = undefined;
    this.onDispose();
    for (const handle of handles) nativeCall(() => native().unload(handle));
  }
}

const cache = new Map<Device, Map<string, Module>>();

interface Prepared {
  dev: Device;
  key: string;
  text: string;
  declarations: KernelDeclaration[];
  templates: KernelTemplate[];
  flags: string[];
  cached?: Module;
}

// What the compiler of each backend predefines, so that signatures are read as it will read them.
function predefinedMacros(dev: Device): Record<string, string> {
  const common = { __cplusplus: "201703L" };
  if (dev.backend === "cuda") return { ...common, __CUDACC__: "1", __CUDACC_RTC__: "1", __NVCC__: "1" };
  if (dev.backend === "hip") return { ...common, __HIP__: "1", __HIPCC__: "1", __HIPCC_RTC__: "1", __HIP_PLATFORM_AMD__: "1" };
  return { ...common, FL_TARGET_CPU: "1" };
}

// Headers real kernels include that each target must find: on the CPU, the
// toolkit's (cuda_runtime.h, cuda_fp16.h, cooperative_groups.h, cub ...) as the
// emulator provides them; under NVRTC and hiprtc, which see no C or C++ library,
// device-side forms of the few C and C++ headers kernels include.
function includeFolders(dev: Device): string[] {
  const kernels = path.join(packageRoot(), "kernels");
  const own = dev.backend === "cpu" ? path.join(kernels, "fuselab", "emulator", "include") : path.join(kernels, "fuselab", "rtc");
  return [`-I${kernels}`, `-I${own}`];
}

function prepare(where: string, source: unknown, options: unknown): Prepared {
  if (typeof source !== "string") throw new ArgumentError(where, "source", "a string of HIP source", describe(source));
  if (options !== undefined && (typeof options !== "object" || options === null || Array.isArray(options))) {
    throw new ArgumentError(where, "options", "an object { device?, name? }", describe(options));
  }
  const o = (options ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (key !== "device" && key !== "name") throw new ArgumentError(where, "options", "an object { device?, name? }", `the key ${JSON.stringify(key)}`);
  }
  if (o.device !== undefined && !(o.device instanceof Device)) throw new ArgumentError(where, "options.device", "a device from fl.device()", describe(o.device));
  if (o.name !== undefined && !(typeof o.name === "string" && /^[A-Za-z0-9_.-]+$/.test(o.name))) {
    throw new ArgumentError(where, "options.name", "a file name of letters, digits, _ . -", describe(o.name));
  }
  const dev = (o.device as Device | undefined) ?? defaultDevice();
  const { kernels: declarations, templates } = findKernels(source, predefinedMacros(dev));
  if (declarations.length === 0 && templates.length === 0) throw new ArgumentError(where, "source", "a source with at least one __global__ function", "none");
  const first = declarations[0]?.name ?? templates[0].name;
  const name = (o.name as string | undefined) ?? first.replace(/\W+/g, "_");
  // The header comes first; #line makes the compiler count the user's lines from 1.
  const text = `#include <fuselab/fuselab.h>\n#line 1 "${name}.hip"\n${withPortableDynamicShared(source)}`;
  const flags = includeFolders(dev);
  const key = createHash("sha256").update(text).update("\0").update(flags.join(" ")).digest("hex");
  return { dev, key, text, declarations, templates, flags, cached: cache.get(dev)?.get(key) };
}

// Compiles the prepared source exporting `names`; a compile error shows the compiler's log.
function compileNames(where: string, p: Prepared, names: string[]): ModuleHandle {
  try {
    return nativeCall(() => native().compile(p.dev.handle, p.text, names, p.flags));
  } catch (e) {
    throw compileError(where, p.dev, e);
  }
}

// `extern __shared__ float tile[];`, as HIP and CUDA spell dynamic shared memory,
// cannot be expressed on the CPU emulator (its __shared__ is thread_local storage),
// and two such arrays of different types clash on the GPU. Each becomes
// FL_DYNAMIC_SHARED(float, tile), which every target defines; within the line,
// so compiler messages keep the user's line numbers.
const EXTERN_SHARED = /extern\s+__shared__\s+(?:(?:__align__|alignas)\s*\(\s*\d+\s*\)\s*|__attribute__\s*\(\([^)]*\)\)\s*)*([A-Za-z_][\w:]*(?:\s+[A-Za-z_][\w:]*)*?)\s+([A-Za-z_]\w*)\s*\[\s*\]\s*;/g;

export function withPortableDynamicShared(source: string): string {
  return source.replace(EXTERN_SHARED, (_all, type: string, name: string) => `FL_DYNAMIC_SHARED(${type}, ${name});`);
}

function compileError(where: string, dev: Device, e: unknown): Error {
  if (!(e instanceof DeviceError) || e.log === undefined) return e as Error;
  const lines = e.log.split("\n");
  const shown = lines.slice(0, LOG_LINES_SHOWN).join("\n");
  const more = lines.length > LOG_LINES_SHOWN ? `\n... ${lines.length - LOG_LINES_SHOWN} more lines in error.log` : "";
  return new DeviceError(`${where}: compilation failed on ${dev.describe()}:\n${shown}${more}`, e.log);
}

function remember(p: Prepared, handle: ModuleHandle): Module {
  let perDevice = cache.get(p.dev);
  if (!perDevice) cache.set(p.dev, (perDevice = new Map()));
  const existing = perDevice.get(p.key);
  if (existing) {
    // Two compileAsync calls of one source raced: keep the first, drop the second.
    nativeCall(() => native().unload(handle));
    return existing;
  }
  const module = new Module(p.dev, handle, p.declarations, p.templates, p, () => perDevice!.delete(p.key));
  perDevice.set(p.key, module);
  return module;
}

/**
 * Compiles `source` (HIP, with `fuselab/fuselab.h` included for you) for a
 * device. A second call with the same source returns the same module at once.
 * A compile error is a DeviceError showing the compiler's log, whose line
 * numbers count from the first line of `source`; `.log` holds all of it.
 */
export function compile(source: string, options?: CompileOptions): Module {
  const p = prepare("fl.compile", source, options);
  if (p.cached) return p.cached;
  return remember(p, compileNames("fl.compile", p, p.declarations.map((d) => d.name)));
}

/** As `compile()`, with the compiler running off the main thread. */
export async function compileAsync(source: string, options?: CompileOptions): Promise<Module> {
  const p = prepare("fl.compileAsync", source, options);
  if (p.cached) return p.cached;
  try {
    const handle = await nativeAsync(() => native().compileAsync(p.dev.handle, p.text, p.declarations.map((d) => d.name), p.flags));
    return remember(p, handle);
  } catch (e) {
    throw compileError("fl.compileAsync", p.dev, e);
  }
}
