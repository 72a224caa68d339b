// Run-time compilation of kernel source (a notebook cell): NVRTC on NVIDIA,
// hiprtc on AMD, the host compiler on the CPU emulator. Modules are cached per
// device by a hash of what was compiled.
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";
import { ArgumentError, DeviceError, checkOptionsObject, describe } from "./errors";
import type { StructLayout } from "./layout";
import { Device, backendStatus, checkDevice } from "./device";
import { canonicalLines, guardFileAccess } from "./file-access";
import { Combined, checkDefines, checkHeaders, lineName, locatedMessage, withHeaders, withLineMarkers } from "./headers";
import { gridSyncFunctions } from "./grid-sync";
import { Directive, Preprocessor } from "./preprocess";
import { atNamespaceScope, withoutHostCode } from "./host-code";
import { withVolatileSteps } from "./volatile-steps";
import {
  DEVICE_PASS_MACRO, Target, checkKernelSource, extendedLambdaLine, gpuBuiltinHint, hostRuntimeCallHint, leftOutBy, missingHeaderHint, standardHint, productHint, textureReferenceHint, undefinedFunctionHint, userLogLines, vectorMemberHint,
  withAssemblyStopped, withPtxEmulated,
} from "./language";
import { KernelTemplates, Module } from "./module";
import { ModuleHandle, native, nativeAsync, nativeCall, packageRoot } from "./native";
import {
  ConstantDeclaration, KernelDeclaration, KernelTemplate, Overload, canonicalName, findKernels, instantiate, isTemplate, parameterTypes, paramsFromSignature, parseNameExpression,
  parameterList, splitParameterList, typeDeclaration, typedName,
} from "./signature";

/** Options of `compile()`. */
export interface CompileOptions {
  /** Where the module runs; the default device when left out. */
  device?: Device;
  /** The file name compiler messages use (`<name>.cu` for a source including CUDA's headers and no HIP one, else `<name>.hip`, or the name itself where it ends in a source file's extension: "ldg.cu"); the first kernel's name when left out. */
  name?: string;
  /**
   * A compile running longer is stopped with an error (default 60000 ms; 180000 ms for
   * a check-mode device, whose instrumented code takes the compiler about three times
   * as long: candle's indexing.cu). The CPU
   * emulator's compiler honours it, and an interrupt (SIGINT) or `device.cancel()`
   * stops it too; NVRTC and hiprtc run inside the process and cannot be stopped.
   */
  timeoutMs?: number;
  /**
   * A project's own headers, by the name an #include spells (`"common.h"`,
   * `"../utils/math.cuh"`), with their text: each #include of one is replaced
   * by its text, as by the preprocessor, and compiler messages name the header
   * and its line. No file is read.
   */
  headers?: Record<string, string>;
  /**
   * The macros a project's build defines (`-DUSE_ROCM`, `-DBLOCK_SIZE=256`,
   * `-D'IX(x, y)=((x) + (y) * N)'`), as `{ USE_ROCM: true, BLOCK_SIZE: 256,
   * "IX(x, y)": "((x) + (y) * N)" }`: defined before the source on every target,
   * as the compiler's -D defines them (a project's own, such as `N`, after
   * fuselab's headers; those configuring headers, `USE_ROCM`, `NDEBUG`, `CUB_...`,
   * `__...`, before them). The macros each target's compiler
   * defines itself (`__CUDA_ARCH__`, `__HIP_PLATFORM_AMD__` ...) are refused:
   * `arch` picks the device code.
   */
  defines?: Record<string, string | number | true>;
  /**
   * Template kernels compiled with the module, by name expression, as `module.fn`
   * takes them and as CuPy's `name_expressions` list them (`["gelu<float>",
   * "gelu<double>"]`): one compile for all, where each instance `fn()` names
   * otherwise is compiled on first use, as a module of its own.
   */
  instances?: string[];
  /**
   * The device code the CPU emulator compiles: a GPU's, as nvcc's device pass for
   * it reads the source ("sm_80": `__CUDA_ARCH__` is 800), or "host", as nvcc's
   * host pass reads it (no `__CUDA_ARCH__`). A HIP source on a 64-lane device is
   * AMD's: "gfx90a" compiles hipcc's device pass for that GPU (`__HIP_DEVICE_COMPILE__`,
   * `__AMDGCN__`, `__GFX9__`, `__gfx90a__`). Left out, the emulator compiles
   * sm_90's device code (gfx942's for AMD's), or the host pass's where that has
   * what the CPU cannot run (inline PTX, asynchronous copies) or does not compile on
   * the CPU, and the host pass's does. A GPU compiles its own architecture's: there
   * the option may only name that.
   */
  arch?: string;
  /**
   * The C++ standard the source is written in: "c++17" (nvcc's, NVRTC's and
   * hiprtc's default) when left out, or "c++20", as `-std=c++20` asks of them
   * (template lambdas, concepts, `std::span`, `<ranges>`). The same on every target.
   */
  std?: CxxStandard;
}

/** The C++ standards a source may be compiled as. */
export type CxxStandard = "c++17" | "c++20";
const STANDARDS: Record<CxxStandard, string> = { "c++17": "201703L", "c++20": "202002L" };

/** The GPU whose device code the CPU emulator compiles when `arch` is left out: the H100's, and for AMD's platform the MI300's. */
const DEFAULT_EMULATED_ARCH = "sm_90";
const DEFAULT_EMULATED_AMD_ARCH = "gfx942";

/** How long a compile may run when `timeoutMs` is left out (a check-mode device's three times as long). */
const DEFAULT_COMPILE_TIMEOUT_MS = 60000;
const CHECK_MODE_COMPILE_FACTOR = 3;

/** Lines of the compiler's log a compile error's message shows (`.log` holds it all). */
const LOG_LINES_SHOWN = 40;

const cache = new Map<Device, Map<string, Module>>();

// What a source is compiled for: a device's backend and architecture, or an
// architecture named with no device (compileCheck).
interface Build {
  backend: Target;
  /** "sm_90", "gfx90a", "cpu-x86_64" */
  arch: string;
  warpSize: number;
  /** "cuda:0 NVIDIA H100 ...", "hip gfx90a" */
  label: string;
  /** On the CPU: the device pass the emulator compiles, "sm_90" or "host"; undefined: chosen from the source. */
  emulates?: string;
  /** Why a source the emulator chose for is compiled as the host pass reads it. */
  hostBecause?: string;
  /** On the CPU: inline assembly compiles into a stop of the launch that reaches it, instead of refusing the source. */
  assemblyStops?: boolean;
  /** The C++ standard; C++17 when left out. */
  std?: CxxStandard;
  /** Whether the source is HIP: it includes a HIP header where hipcc would (hipSource). */
  hip?: boolean;
}

function buildOf(dev: Device): Build {
  return { backend: dev.backend as Target, arch: dev.props.arch, warpSize: dev.props.warpSize, label: dev.describe() };
}

// What a project's build gives a source besides its text: its own headers, its -D macros.
interface ProjectInputs {
  headers: ReadonlyMap<string, string>;
  defines: ReadonlyMap<string, string>;
}

// A source made ready for one build: the text its compiler reads, and what was read of it.
interface Translated {
  build: Build;
  text: string;
  /** The file name compiler messages give the source: "saxpy.hip". */
  file: string;
  declarations: KernelDeclaration[];
  templates: KernelTemplate[];
  constants: ConstantDeclaration[];
  /** Kernels of one name overloaded in the source, with their lines ("12", "40 of common.h"): launched by name with their parameter types. */
  overloaded: Map<string, string[]>;
  overloads: Map<string, Overload[]>;
  /** The files compiler messages name: the source's and its headers'. */
  files: string[];
  flags: string[];
  /** For a kernel name the source spells only in text the preprocessor leaves out here: the conditional that does. */
  leftOutBy: (name: string) => string | undefined;
  /** Kernels TS cannot launch, with why. */
  unlaunchable: ReadonlyMap<string, ArgumentError>;
  /** The functions that sync their grid (by unqualified name), whose kernels are launched cooperatively, every block at once. */
  gridSync: ReadonlySet<string>;
  /** A message's lines of the combined text ("line 12") as the files they came from ("line 3 of common.h"). */
  located: (message: string) => string;
  /** The line of the source's first extended lambda, which its host code may pass to a kernel template. */
  lambdaLine?: number;
}

interface Prepared extends Translated {
  dev: Device;
  key: string;
  timeoutMs: number;
  cached?: Module;
  /** Where the emulator chose sm_90's device code: the source as the host pass reads it, for when that code does not compile here. */
  asHostPass?: (because: string) => Prepared;
}

// Per device, the sources whose sm_90 device code did not compile on the CPU (by
// key), with the key of their host pass: a second compile goes straight to it.
const compiledAsHost = new Map<Device, Map<string, string>>();

const INCLUDED = /^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]/gm;

// PyTorch's CUDA headers (c10/cuda/CUDAException.h, ATen/cuda/Atomic.cuh ...) bring <cuda.h>, so
// an extension that includes only them has CUDA_VERSION (sglang's `#if CUDA_VERSION >= 12040`
// kernels); fuselab's stand-ins include it where PyTorch's do. Those that bring it, at any depth,
// found once by following their #includes.
let bringingCudaH: Set<string> | undefined;
function torchHeadersBringingCudaH(): Set<string> {
  if (bringingCudaH) return bringingCudaH;
  const root = path.join(packageRoot(), "kernels", "fuselab", "torch");
  const includes = new Map<string, string[]>();
  const read = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) read(file);
      else includes.set(path.relative(root, file).split(path.sep).join("/"), [...fs.readFileSync(file, "utf8").matchAll(INCLUDED)].map((m) => m[1]));
    }
  };
  read(root);
  const brings = (name: string, seen: Set<string>): boolean => {
    if (name === "cuda.h") return true;
    if (seen.has(name)) return false;
    seen.add(name);
    return (includes.get(name) ?? []).some((included) => brings(included, seen));
  };
  bringingCudaH = new Set([...includes.keys()].filter((name) => brings(name, new Set())));
  return bringingCudaH;
}

// What the compiler of each backend predefines, so that signatures are read as it will read them
// (kernels under #if __CUDA_ARCH__ >= 800 are the GPU's: "sm_90" compiles with __CUDA_ARCH__ 900).
function predefinedMacros(build: Build, source: string): Record<string, string> {
  // <cuda.h>'s CUDA_VERSION, for a source that includes it: the emulator's 13000, NVRTC's own version.
  const nvrtc = build.backend === "cuda" ? /run-time compilation: NVRTC (\d+)\.(\d+)/.exec(backendStatus("cuda")?.notes.join("\n") ?? "") : null;
  const cudaVersion = build.backend === "cpu" ? "13000" : nvrtc ? String(Number(nvrtc[1]) * 1000 + Number(nvrtc[2]) * 10) : undefined;
  const includesCuda = [...source.matchAll(INCLUDED)].some(([, name]) => name === "cuda.h" || torchHeadersBringingCudaH().has(name));
  // The execution spaces are macros to CUDA's and HIP's headers (`#ifdef __device__` in a
  // source's header marks helpers `__host__ __device__`): here each stands for itself.
  const spaces = Object.fromEntries(["__host__", "__device__", "__global__", "__shared__", "__constant__", "__forceinline__"].map((m) => [m, m]));
  // And <cuda_runtime.h>'s CUDART_VERSION, which nvcc includes in every source (HIP on AMD's platform has none).
  const cudart: Record<string, string> = cudaVersion && !(build.backend === "cpu" && isAmdPlatform(build)) ? { CUDART_VERSION: cudaVersion } : {};
  const common = { __cplusplus: STANDARDS[build.std ?? "c++17"], ...spaces, ...cudart, ...(includesCuda && cudaVersion ? { CUDA_VERSION: cudaVersion } : {}) };
  const sm = /^sm_(\d+)(\d)$/.exec(build.arch);
  const cudaArch: Record<string, string> = sm ? { __CUDA_ARCH__: String(Number(sm[1]) * 100 + Number(sm[2]) * 10) } : {};
  // nvcc's and NVRTC's version (`#if __CUDACC_VER_MAJOR__ >= 9` picks the _sync shuffles).
  const version: Record<string, string> = nvrtc ? { __CUDACC_VER_MAJOR__: nvrtc[1], __CUDACC_VER_MINOR__: nvrtc[2] } : {};
  // NVRTC's built-in header, the device side of <cuda_runtime.h>, defines its guards: the CUDA samples'
  // helper_cuda.h compiles its host helpers under #ifdef __CUDA_RUNTIME_H__ and __DRIVER_TYPES_H__,
  // which are left out as host code.
  if (build.backend === "cuda") {
    return { ...common, ...cudaArch, ...version, __CUDACC__: "1", __CUDACC_RTC__: "1", __CUDA_RUNTIME_H__: "1", __DRIVER_TYPES_H__: "1", ...addedMacros(build) };
  }
  if (build.backend === "hip") {
    return { ...common, ...amdDevicePassMacros(build.arch, build.warpSize), __HIP__: "1", __HIPCC__: "1", __HIPCC_RTC__: "1", __HIP_PLATFORM_AMD__: "1" };
  }
  return { ...common, FL_TARGET_CPU: "1", ...addedMacros(build) };
}

// The macros the compiler a target stands for predefines and the compiler fuselab
// runs does not, given to it with -D: on the CPU, the emulated compiler's
// (emulatedMacros); under NVRTC, nvcc's `__NVCC__` (NVRTC defines `__CUDACC__`
// alone), and for a HIP source hipcc's `__HIPCC__`, which hipcc on NVIDIA's platform defines.
function addedMacros(build: Build): Record<string, string> {
  if (build.backend === "cpu") return emulatedMacros(build);
  if (build.backend !== "cuda") return {};
  return { __NVCC__: "1", ...(build.hip ? { __HIPCC__: "1" } : {}) };
}

// What the compiler the CPU emulator stands in for predefines: nvcc's `__CUDACC__`
// and `__NVCC__`, in both its passes (hipcc on NVIDIA's platform adds `__HIPCC__`);
// on AMD's platform, hipcc's `__HIPCC__` and clang's `__HIP__`. So a source's `#ifdef __CUDACC__`
// (`#define HD __host__ __device__`) takes its GPU branch here too. With the
// device pass's macros (emulatedPassMacros).
function emulatedMacros(build: Build): Record<string, string> {
  // nvcc 13.0's, as the emulator's headers are CUDA 13.0's (CUDART_VERSION 13000).
  const nvcc = { __CUDACC__: "1", __NVCC__: "1", __CUDACC_VER_MAJOR__: "13", __CUDACC_VER_MINOR__: "0", __CUDACC_VER_BUILD__: "0" };
  const compiler: Record<string, string> = isAmdPlatform(build) ? { __HIPCC__: "1", __HIP__: "1" } : { ...nvcc, ...(build.hip ? { __HIPCC__: "1" } : {}) };
  return { ...compiler, ...emulatedPassMacros(build) };
}

// HIP's headers, which make a source that includes one where hipcc would a HIP one.
const HIP_HEADER = String.raw`[<"](?:hip\/hip_\w+\.h|hipcub\/)`;
const NAMES_HIP_HEADER = new RegExp(String.raw`^[ \t]*#[ \t]*include[ \t]*` + HIP_HEADER, "m");
const IS_HIP_HEADER = new RegExp(`^${HIP_HEADER}`);

// Whether hipcc, given the project's macros, would include a HIP header: a source
// that names one only in a branch for a build of its own (llama.cpp's
// `#if defined(GGML_USE_HIP)`, vLLM's `#ifdef USE_ROCM`) is a CUDA one unless
// the project's defines take that branch.
function hipSource(source: string, defines: ReadonlyMap<string, string>): boolean {
  if (!NAMES_HIP_HEADER.test(source)) return false;
  const hipcc = { __HIPCC__: "1", __HIP__: "1", __HIP_PLATFORM_AMD__: "1", __clang__: "1", __cplusplus: STANDARDS["c++17"], ...Object.fromEntries(defines) };
  const directives: Directive[] = [];
  new Preprocessor(hipcc).run(source, directives);
  return directives.some((d) => d.active && d.name === "include" && IS_HIP_HEADER.test(d.rest.trim()));
}

// CUDA's own headers, which make a source that includes no HIP one a CUDA one.
const INCLUDES_CUDA = /^[ \t]*#[ \t]*include[ \t]*[<"](?:cuda[\w/]*\.h|cuda\/|cooperative_groups|cub\/|curand\w*\.h|mma\.h|thrust\/|ATen\/|torch\/|c10\/)/m;

function isCudaSource(build: Build, source: string): boolean {
  return INCLUDES_CUDA.test(source) && !build.hip;
}

// A HIP source on a 64-lane device is on AMD's platform (hip_runtime.h defines
// __HIP_PLATFORM_AMD__ there); on a 32-lane one, on NVIDIA's.
function isAmdPlatform(build: Build): boolean {
  return build.backend === "cpu" && build.warpSize === 64 && build.hip === true;
}

// What the device pass the CPU emulator compiles predefines: nvcc's for an sm_XY
// (__CUDA_ARCH__; a HIP source there, on NVIDIA's platform, also gets
// __HIP_DEVICE_COMPILE__); on AMD's platform, hipcc's for a gfx GPU. The host
// pass has none of them.
function emulatedPassMacros(build: Build): Record<string, string> {
  const emulates = build.emulates ?? "";
  if (isAmdPlatform(build)) return AMD_ARCH.test(emulates) ? amdDevicePassMacros(emulates, build.warpSize) : {};
  const sm = /^sm_(\d+)(\d)a?$/.exec(emulates);
  if (!sm) return {};
  return { __CUDA_ARCH__: String(Number(sm[1]) * 100 + Number(sm[2]) * 10), ...(build.hip ? { __HIP_DEVICE_COMPILE__: "1" } : {}) };
}

// An AMD GPU's name: gfx, its major version, then two hex digits (gfx90a, gfx942, gfx1100).
const AMD_ARCH = /^gfx(\d{1,2})[0-9a-f]{2}$/;

// What hipcc's (clang's) device pass for an AMD GPU predefines: the GPU and its
// family (`__gfx90a__`, `__GFX9__`), the wavefront's width, and the features every
// GPU HIP supports.
function amdDevicePassMacros(arch: string, warpSize: number): Record<string, string> {
  const family = AMD_ARCH.exec(arch.split(":")[0]);
  const width = String(warpSize);
  return {
    __HIP_DEVICE_COMPILE__: "1", __AMD__: "1", __AMDGPU__: "1", __AMDGCN__: "1",
    ...(family ? { [`__${arch.split(":")[0]}__`]: "1", [`__GFX${family[1]}__`]: "1" } : {}),
    __AMDGCN_WAVEFRONT_SIZE: width, __AMDGCN_WAVEFRONT_SIZE__: width, __HAS_FMAF__: "1", __HAS_FP64__: "1", __HAS_LDEXPF__: "1",
  };
}

// Headers real kernels include that each target must find: on the CPU, the
// toolkit's (cuda_runtime.h, cuda_fp16.h, cooperative_groups.h, cub ...) as the
// emulator provides them; under NVRTC and hiprtc, which see no C or C++ library,
// device-side forms of the few C and C++ headers kernels include. The compiler
// is given these with -I; on NVIDIA GPUs the backend adds the toolkit's own.
// An NVIDIA GPU also gets HIP's headers, for HIP sources (hiprtc has its own on AMD).
function ownIncludeFolders(backend: Target): string[] {
  const kernels = path.join(packageRoot(), "kernels");
  // PyTorch's extension headers, for the device code of an extension's kernel file.
  const torch = path.join(kernels, "fuselab", "torch");
  if (backend === "cpu") return [kernels, path.join(kernels, "fuselab", "emulator", "include"), torch];
  const rtc = [kernels, path.join(kernels, "fuselab", "rtc")];
  return [...rtc, path.join(kernels, "fuselab", backend === "cuda" ? "rtc-nvidia" : "rtc-amd"), torch];
}

// HIP's headers say which platform they compile for (__HIP_PLATFORM_AMD__ or
// __HIP_PLATFORM_NVIDIA__), and HIP sources choose their warp width by it;
// PyTorch's give it as the constant C10_WARP_SIZE. On the CPU these headers take
// the device's: AMD with 64-lane warps, NVIDIA with 32. Given only to sources
// that include them, so that other sources keep one compiled module for both widths.
function warpWidthFlags(build: Build, source: string): string[] {
  const fixesWidth = build.hip || /^[ \t]*#[ \t]*include[ \t]*[<"][^>"\n]*\b(?:torch\/|ATen\/|c10\/)/m.test(source);
  return build.backend === "cpu" && fixesWidth ? [`-DFL_EMU_WARP_SIZE=${build.warpSize}`] : [];
}

// The folders a source's headers are looked up in, in the compiler's order: on
// an NVIDIA GPU also the toolkit's (the cuda backend's folders: $CUDA_HOME/include,
// else /usr/local/cuda/include, and its C++ library in include/cccl).
function includeFolders(backend: Target): string[] {
  if (backend !== "cuda") return ownIncludeFolders(backend);
  const home = process.env.CUDA_HOME ? path.join(process.env.CUDA_HOME, "include") : "";
  const toolkit = home && isFolder(home) ? home : isFolder("/usr/local/cuda/include") ? "/usr/local/cuda/include" : "";
  return [...ownIncludeFolders(backend), ...(toolkit ? [toolkit, path.join(toolkit, "cccl")].filter(isFolder) : [])];
}

function isFolder(folder: string): boolean {
  try {
    return fs.statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

function checkSource(where: string, source: unknown): string {
  if (typeof source !== "string") throw new ArgumentError(where, "source", "a string of HIP source", describe(source));
  const nul = source.indexOf("\0");
  if (nul >= 0) {
    const line = source.slice(0, nul).split("\n").length;
    throw new ArgumentError(where, "source", "a string without NUL characters", `a NUL character on line ${line}`);
  }
  return source;
}

function checkFileName(where: string, name: unknown): string | undefined {
  if (name !== undefined && !(typeof name === "string" && /^[A-Za-z0-9_.-]+$/.test(name))) {
    throw new ArgumentError(where, "options.name", "a file name of letters, digits, _ . -", describe(name));
  }
  return name;
}

// The text `build`'s compiler reads for `source` and the headers it was given,
// and the kernels, templates and constants found in them. Messages name the
// header and line where a line came from one.
function translate(where: string, written: string, fileName: string | undefined, build: Build, project: ProjectInputs): Translated {
  const combined = withHeaders(where, written, project.headers);
  build = { ...build, hip: hipSource(combined.text, project.defines) };
  const forBuild = (b: Build) => translateFor(where, combined, fileName, b, project.defines);
  try {
    if (build.backend !== "cpu") return forBuild(build);
    if (build.emulates !== undefined) return forBuild({ ...build, assemblyStops: true });
    // The emulator's own choice: sm_90's device code (gfx942's), else the host
    // pass's where only that one leaves out what the CPU cannot run, else the
    // device code with its inline assembly stopping the launches that reach it
    // (the others run).
    const arch = isAmdPlatform(build) ? DEFAULT_EMULATED_AMD_ARCH : DEFAULT_EMULATED_ARCH;
    try {
      return forBuild({ ...build, emulates: arch });
    } catch (device) {
      if (!(device instanceof ArgumentError)) throw device;
      try {
        return forBuild({ ...build, emulates: "host", hostBecause: `${arch}'s has ${device.received}, which the CPU cannot run` });
      } catch {
        try {
          return forBuild({ ...build, emulates: arch, assemblyStops: true });
        } catch {
          throw device;
        }
      }
    }
  } catch (e) {
    if (!(e instanceof ArgumentError) || combined.segments.length === 0) throw e;
    throw new ArgumentError(e.where, e.argument, locatedMessage(e.expected, combined.segments), locatedMessage(e.received, combined.segments));
  }
}

function translateFor(where: string, combined: Combined, fileName: string | undefined, build: Build, defines: ReadonlyMap<string, string>): Translated {
  // Lines end as the compiler ends them: at \r\n (a file saved on Windows) and a lone \r too.
  const target = build.backend;
  // On the CPU the PTX it knows (a lane's id read through `mov`, fences) is its C++.
  const lined = withLinkageSpaced(canonicalLines(combined.text));
  const source = target === "cpu" ? withPtxEmulated(lined) : lined;
  const predefined = { ...predefinedMacros(build, source), ...Object.fromEntries(defines) };
  const guarded = guardFileAccess(where, source, target, predefined, includeFolders(target));
  // A host function that launches with <<<...>>> (a sample's main()) is host code, left out on every target.
  checkKernelSource(where, withoutHostCode(source, { functionsMatching: HOST_LAUNCH, predefined }), target, predefined, build.assemblyStops);
  const found = findKernels(source, predefined);
  const { kernels: declarations, templates, constants, overloaded: overloadedLines, overloads } = found;
  const visible = withStaticVariablesVisible(guarded, constants, target);
  // On the CPU every asm statement, in whichever branch (one a header's macro picks too), stops the launch that reaches it.
  const checked = target === "cpu" ? withAssemblyStopped(visible) : visible;
  const overloaded = new Map([...overloadedLines].map(([name, lines]) => [name, lines.map((line) => lineName(combined.segments, line))]));
  const unlaunchable = new Map([...found.unlaunchable].map(([name, e]) =>
    [name, new ArgumentError(e.where, e.argument, locatedMessage(e.expected, combined.segments), locatedMessage(e.received, combined.segments))]));
  if (declarations.length === 0 && templates.length === 0 && overloaded.size === 0) {
    // Its lines as the combined text counts them: the caller names their files.
    throw found.unlaunchable.values().next().value ?? new ArgumentError(where, "source", "a source with at least one __global__ function", "none");
  }
  const first = declarations[0]?.name ?? templates[0]?.name ?? [...overloaded.keys()][0];
  const name = fileName ?? first.replace(/\W+/g, "_");
  // The header comes first; #line makes the compiler count the user's lines from 1.
  // A name given with a source file's extension ("ldg.cu") is kept as it is; else
  // the extension is the source's dialect: `.cu` for one that includes CUDA's headers only.
  const file = /\.(?:cu|cuh|hip|cpp|cc|cxx|h|hpp)$/.test(name) ? name : `${name}.${isCudaSource(build, source) ? "cu" : "hip"}`;
  // Host code is left out of what the compiler reads, on every target: device
  // code cannot call it, the CPU has none of the host libraries it calls, and
  // NVRTC and hiprtc have none of the host's headers (clang's device pass still
  // looks up every name a host function's body uses: `atoi`, `FILE`).
  const forTarget = target === "cpu" ? withVolatileSteps(withExtVectorsOfGcc(where, withShadowedBuiltinsRenamed(withOwnFixedWidthTypesRenamed(withoutHostCode(checked, { predefined }), predefined))))
    : withMisplacedRestrictDropped(withCompoundLiteralsListInitialized(withArithmeticConstantsConstexpr(withoutHostCode(checked, { predefined }))));
  const marked = withLineMarkers(forTarget, combined.segments, file);
  // A project's -D macros, as #define lines (a value may have spaces): those that configure
  // the toolkit's or fuselab's headers before everything the compiler reads, the project's
  // own (`-DN=104`) after fuselab's prelude, which, larger than nvcc's implicit
  // cuda_runtime.h, names template parameters M, N ... that such a macro would break.
  const defineLines = (configuring: boolean) => [...defines].filter(([name]) => configuresHeaders(name) === configuring)
    .map(([name, value]) => `#define ${name} ${value}\n`).join("");
  const text = `${defineLines(true)}#include <fuselab/fuselab.h>\n${defineLines(false)}#line 1 "${file}"\n${withPortableDynamicShared(withRemovedCubNames(marked, target, file), target, file)}${target === "cpu" ? exportedVariables(constants) : layoutAsserts(declarations)}`;
  const flags = [...ownIncludeFolders(target).map((folder) => `-I${folder}`), ...(build.std ? [`-std=${build.std}`] : []), ...warpWidthFlags(build, checked),
    ...Object.entries(addedMacros(build)).map(([name, value]) => `-D${name}=${value}`)];
  const files = [file, ...new Set(combined.segments.map((s) => s.file).filter((f) => f !== ""))];
  return {
    build, file, files, text, declarations, templates, constants, overloaded, overloads, unlaunchable, flags,
    gridSync: gridSyncFunctions(source, predefined),
    located: (message) => locatedMessage(message, combined.segments),
    lambdaLine: extendedLambdaLine(source),
    leftOutBy: (name) => {
      const why = leftOutBy(source, predefined, name, target === "cpu" ? emulatedPassNote(build) : "");
      return why === undefined ? undefined : locatedMessage(why, combined.segments);
    },
  };
}

// What the emulator compiled a source as, for a message about a branch it left out.
function emulatedPassNote(build: Build): string {
  const macros = Object.entries(emulatedPassMacros(build)).map(([name, value]) => `${name} ${value}`);
  if (build.emulates !== "host") {
    return `the CPU emulator compiles ${build.emulates}'s device code (${macros.length > 0 ? macros.join(", ") : "a HIP source on a 64-lane device: AMD's, with no __CUDA_ARCH__"}), or options.arch's`;
  }
  const host = isAmdPlatform(build) ? "hipcc's host pass reads it, with no __HIP_DEVICE_COMPILE__" : "nvcc's host pass reads it, with no __CUDA_ARCH__";
  return `the CPU emulator compiled this source as ${host}, ${build.hostBecause ?
    `because ${build.hostBecause}` : "as options.arch \"host\" asks"}`;
}

// options.std: the C++ standard, or undefined for the compilers' default, C++17.
function checkStandard(where: string, std: unknown): CxxStandard | undefined {
  if (std === undefined || std === "c++17") return undefined;
  if (std === "c++20") return std;
  throw new ArgumentError(where, "options.std", `"c++17" (the default) or "c++20"`, describe(std));
}

// options.arch: on the CPU the device pass to emulate; on a GPU only its own architecture.
function checkArch(where: string, arch: unknown, dev: Device): string | undefined {
  if (arch === undefined) return undefined;
  if (dev.backend === "cpu") {
    if (arch === "host" || (typeof arch === "string" && /^sm_\d{2,3}a?$/.test(arch))) return arch;
    // AMD's GPUs with 64-lane wavefronts, for a device of that width.
    const wave64 = dev.props.warpSize === 64;
    if (wave64 && typeof arch === "string" && AMD_ARCH.test(arch) && arch.startsWith("gfx9")) return arch;
    throw new ArgumentError(where, "options.arch", `a GPU architecture whose device code the CPU emulator compiles ("sm_80", "sm_90"${
      wave64 ? `, or for a HIP source AMD's "gfx90a", "gfx942"` : ""}), or "host"`, describe(arch));
  }
  const own = dev.props.arch.split(":")[0];
  if (arch === own) return undefined;
  throw new ArgumentError(where, "options.arch", `${JSON.stringify(own)}, the architecture of ${dev.describe()}, or left out`, describe(arch));
}

function prepare(where: string, source: unknown, options: unknown): Prepared {
  const text = checkSource(where, source);
  const o = checkOptionsObject(where, options, ["device", "name", "timeoutMs", "headers", "defines", "arch", "std", "instances"]);
  if (o.timeoutMs !== undefined && !(typeof o.timeoutMs === "number" && Number.isInteger(o.timeoutMs) && o.timeoutMs >= 1 && o.timeoutMs <= 2 ** 31 - 1)) {
    throw new ArgumentError(where, "options.timeoutMs", "a whole number of milliseconds from 1 to 2147483647", describe(o.timeoutMs));
  }
  const dev = checkDevice(where, o.device);
  const emulates = checkArch(where, o.arch, dev);
  const fileName = checkFileName(where, o.name);
  const project = { headers: checkHeaders(where, o.headers), defines: checkDefines(where, o.defines) };
  const timeoutMs = (o.timeoutMs as number | undefined) ?? DEFAULT_COMPILE_TIMEOUT_MS * (dev.options.check ? CHECK_MODE_COMPILE_FACTOR : 1);
  const made = (build: Build): Prepared => {
    const translated = translate(where, text, fileName, build, project);
    const t = { ...translated, declarations: withInstances(where, translated, o.instances) };
    const key = createHash("sha256").update(t.text).update("\0").update(t.flags.join(" ")).update("\0")
      .update(t.declarations.map((d) => d.name).join("\n")).digest("hex");
    // A source whose sm_90 device code the emulator chose and could not compile: its host pass, compiled before.
    const asHost = emulates === undefined ? compiledAsHost.get(dev)?.get(key) : undefined;
    return { ...t, dev, key, timeoutMs, cached: cache.get(dev)?.get(key) ?? (asHost === undefined ? undefined : cache.get(dev)?.get(asHost)) };
  };
  const std = checkStandard(where, o.std);
  const p = made({ ...buildOf(dev), emulates, std });
  // The emulator's own choice of sm_90, in a source whose passes differ.
  const chosen = dev.backend === "cpu" && emulates === undefined && p.build.emulates !== "host" && DEVICE_PASS_MACRO.test(p.text);
  return chosen ? { ...p, asHostPass: (because) => made({ ...buildOf(dev), emulates: "host", hostBecause: because, std }) } : p;
}

// The host pass of `p` after its sm_90 device code failed to compile with `e`, or undefined.
function hostPassAfter(p: Prepared, e: unknown): Prepared | undefined {
  if (!p.asHostPass || !(e instanceof DeviceError) || e.log === undefined) return undefined;
  const first = userLogLines(e.log, p.files).find((line) => /\berror\b/.test(line)) ?? "";
  let host: Prepared;
  try {
    host = p.asHostPass(`${p.build.emulates}'s does not compile here (${first.trim()})`);
  } catch {
    return undefined;
  }
  let perDevice = compiledAsHost.get(p.dev);
  if (!perDevice) compiledAsHost.set(p.dev, (perDevice = new Map()));
  perDevice.set(p.key, host.key);
  return host;
}

// Said once a source, when its device code did not compile and its host pass did:
// the kernels run then, but their `#if __CUDA_ARCH__` branches are not a GPU's.
function warnHostPass(where: string, p: Prepared, host: Prepared): void {
  process.emitWarning(`${where}: ${emulatedPassNote(host.build)}; so its kernels take their host-pass branches, ` +
    `not a GPU's (options.arch "${p.build.emulates}" shows the device pass's errors)`, { type: "FuselabWarning", code: "FUSELAB_HOST_PASS" });
}

// The kernel names a backend compiles, marked as backend.h's module_compile reads them: those that
// sync their grid for a cooperative launch, those declared extern "C" as found by their own names.
function markedNames(p: Translated, names: readonly string[]): string[] {
  const cLinkage = new Set(p.declarations.filter((d) => d.cLinkage).map(exportedName));
  return names.map((name) => {
    const syncsGrid = p.gridSync.has(parseNameExpression(splitParameterList(name)?.name ?? name)?.name.split("::").pop() ?? "");
    return name + (syncsGrid ? "\tcooperative" : "") + (cLinkage.has(name) ? "\tc-linkage" : "");
  });
}

// The name a kernel is compiled and found by: with its parameter types where a function that is not a kernel shares its name.
function exportedName(declaration: KernelDeclaration): string {
  return declaration.exportedAs ?? declaration.name;
}

// Compiles the prepared source exporting `names`; a compile error shows the compiler's log.
function compileNames(where: string, p: Prepared, names: string[]): ModuleHandle {
  try {
    return nativeCall(() => native().compile(p.dev.handle, p.text, markedNames(p, names), p.flags, p.timeoutMs));
  } catch (e) {
    throw compileError(where, p, e);
  }
}

// How each overload of `name` ("k", "k<32, 1>") is named with its parameter
// types, for an error saying which to give: template arguments written in `name`.
function overloadNames(p: Translated, name: string): string[] {
  const parsed = parseNameExpression(name);
  if (!parsed) return [];
  return (p.overloads.get(parsed.name) ?? []).flatMap((o) => {
    if (isTemplate(o) && !name.includes("<")) return [`${name}<...>(${parameterTypes(o.paramTokens).replace(/,/g, ", ")})`];
    if (isTemplate(o) !== name.includes("<")) return [];
    try {
      return [typedName(isTemplate(o) ? name : o.name, isTemplate(o) ? instantiate(o, parsed.args) : o)];
    } catch {
      return [];
    }
  });
}

// The source's overloaded kernels that are not templates, each named with its parameter types ("k(float*, int)").
function typedKernels(p: Translated): string[] {
  return [...p.overloads].flatMap(([name, overloads]) => (overloads.some(isTemplate) ? [] : overloadNames(p, name)));
}

// The source's template kernels and overloaded kernels: an instance named by
// fn() ("k<float, 256>"), or an overload named with its parameter types
// ("k<32>(float*, int)"), is compiled then, as a module of its own.
function templatesOf(p: Prepared): KernelTemplates {
  // An overloaded template's instance is named with its parameter types too (fn() says which).
  const overloadedTemplates = [...p.overloads].filter(([, overloads]) => overloads.some(isTemplate)).map(([name]) => name);
  return {
    names: [...p.templates.map((t) => t.name), ...overloadedTemplates],
    instantiate: (name) => located(p, () => instantiateNamed(p, name)),
    instantiateVariable: (expression) => instantiateVariable(p, expression),
  };
}

// What `make` returns; an ArgumentError it throws with its lines named by file.
function located<T>(p: Pick<Translated, "located">, make: () => T): T {
  try {
    return make();
  } catch (e) {
    if (!(e instanceof ArgumentError)) throw e;
    throw new ArgumentError(e.where, e.argument, p.located(e.expected), p.located(e.received));
  }
}

// The kernel `name` compiled as a module of its own: a template's instance ("k<float, 256>"),
// or an overload named with its parameter types ("k<32>(float*, int)"); undefined when the source has none.
function instantiateNamed(p: Prepared, name: string): { handle: ModuleHandle; entry: KernelDeclaration } | undefined {
  const typed = splitParameterList(name);
  if (typed) {
    const entry = overloadNamed(p, name, typed);
    return entry && { handle: compileNames("module.fn", p, [entry.name]), entry };
  }
  const parsed = parseNameExpression(name);
  const template = parsed && name.includes("<") ? p.templates.find((t) => t.name === parsed.name) : undefined;
  if (!parsed || !template) return undefined;
  const instance = instantiate(template, parsed.args);
  return { handle: compileNames("module.fn", p, [instance.name]), entry: instance };
}

// The source compiled with the variable template instance `expression` ("mask<float>") in it.
function instantiateVariable(p: Prepared, expression: string): ModuleHandle {
  // A kernel that reads the instance makes the compiler emit it, as a kernel using it would.
  const keeper = `\nextern "C" __global__ void fl_keep_variable_instance() { (void)*(volatile const char*)&(${expression}); }\n`;
  try {
    return compileNames("module.constant", { ...p, text: p.text + keeper }, []);
  } catch (e) {
    if (!(e instanceof DeviceError)) throw e;
    const first = (e.log ?? e.message).split("\n").find((line) => /\berror\b/.test(line)) ?? "";
    throw new ArgumentError("module.constant", "name", "an instance of a variable template that the source's types make",
      `${JSON.stringify(expression)}, which does not compile (${first.replace(/^.*?\berror\b:?\s*/, "").trim()})`);
  }
}

// The kernel `name` ("k<32>(float*, int)", canonical) picks among the source's
// kernels of its base name, overloaded or not, by its parameter types; undefined
// when the source has no kernel of that name; an error listing them when none has those types.
function overloadNamed(p: Translated, name: string, typed: { name: string; types: string[] }): KernelDeclaration | undefined {
  const parsed = parseNameExpression(typed.name);
  if (!parsed) return undefined;
  const withArgs = typed.name.includes("<");
  const candidates: Overload[] = p.overloads.get(parsed.name) ??
    [...p.declarations.filter((d) => d.name === parsed.name), ...p.templates.filter((t) => t.name === parsed.name)];
  if (candidates.length === 0) return undefined;
  const wanted = typed.types.map(typeDeclaration);
  // An overload TS cannot launch (a texture object's, beside rocDecode's ResizeHip on pointers) is passed over.
  const refused: ArgumentError[] = [];
  const made = candidates.flatMap((c) => {
    if (isTemplate(c) !== withArgs) return [];
    try {
      return [isTemplate(c) ? instantiate(c, parsed.args) : c];
    } catch (e) {
      if (!(e instanceof ArgumentError)) throw e;
      refused.push(e);
      return [];
    }
  });
  const found = made.find((d) => d.params.length === wanted.length && d.params.every((q, i) => q.declaration === wanted[i]));
  if (found) return { ...found, name };
  if (made.length === 0 && refused.length > 0) throw refused[0];
  const offered = made.map((d) => typedName(typed.name, d));
  throw new ArgumentError("module.fn", "name", offered.length > 0 ? `one of ${offered.map((o) => JSON.stringify(o)).join(", ")}` :
    `${parsed.name} named as the source declares it (${withArgs ? "it has no template of that name" : "with its template arguments"})`, JSON.stringify(name));
}

// The source's kernels and the template instances (or typed overloads) `instances`
// names (options.instances), each once: an instance the source instantiates itself
// is among its kernels already.
function withInstances(where: string, t: Translated, instances: unknown): KernelDeclaration[] {
  if (instances === undefined) return t.declarations;
  if (!Array.isArray(instances) || instances.some((i) => typeof i !== "string")) {
    throw new ArgumentError(where, "options.instances", "an array of template kernels' name expressions", describe(instances));
  }
  const made = (instances as string[]).map((expression, i) => {
    const typed = splitParameterList(expression);
    const overload = typed ? overloadNamed(t, canonicalName(expression) ?? expression, typed) : undefined;
    if (overload) return overload;
    const parsed = parseNameExpression(expression);
    const template = parsed && expression.includes("<") ? t.templates.find((k) => k.name === parsed.name) : undefined;
    if (!parsed || !template) {
      const known = t.templates.map((k) => `${k.name}<...>`).join(", ") || "none";
      throw new ArgumentError(where, `options.instances[${i}]`, `an instance of one of the source's template kernels (${known})`, JSON.stringify(expression));
    }
    return located(t, () => instantiate(template, parsed.args));
  });
  const declared = new Set(t.declarations.map((d) => d.name));
  return [...t.declarations, ...made.filter((d, i) => !declared.has(d.name) && made.findIndex((e) => e.name === d.name) === i)];
}

// `extern "C"__global__` with no space (grcuda's saxpy.cu), which nvcc's front end takes
// and NVRTC's reads as a string literal with a user-defined suffix: spaced, as meant.
const LINKAGE_BEFORE_NAME = /(\bextern\s*"C(?:\+\+)?")(?=[A-Za-z_])/g;

function withLinkageSpaced(source: string): string {
  return source.replace(LINKAGE_BEFORE_NAME, "$1 ");
}

// A -D macro that configures headers rather than the project's code: a reserved name
// (`__CUDA_NO_HALF_OPERATORS__`, `_GLIBCXX_ASSERTIONS`), NDEBUG, or one under a prefix of
// CUDA's, cub's, Thrust's, PyTorch's, HIP's or fuselab's configuration macros.
function configuresHeaders(definition: string): boolean {
  return /^(?:_|NDEBUG\b|USE_|CUDA_|CUDART_|CUB_|THRUST_|LIBCUDACXX_|CCCL_|C10_|AT_|TORCH_|HIP_|HIPCUB_|ROCM_|FL_|FUSELAB_)/.test(definition);
}

// `extern __shared__ float tile[];`, as HIP and CUDA spell dynamic shared memory
// (also `extern float __shared__ tile[]`, `__shared__ extern float tile[]`, `extern volatile __shared__ ...`,
// `extern __shared__ __align__(sizeof(T)) unsigned char raw[]`), cannot be
// expressed on the CPU emulator (its __shared__ is thread_local storage), and two
// such arrays of different types clash on the GPU. In a function each becomes
// FL_DYNAMIC_SHARED(float, tile), which every target defines; within the line,
// so compiler messages keep the user's line numbers. At file scope (in no
// function), where the GPU takes the declaration as it is, the CPU gets a macro
// that reads the running block's dynamic shared memory wherever the name is used.
const EXTERN_DECLARATION = /(\b__shared__\s+)?\bextern\b([^;{}"]*?)\b([A-Za-z_]\w*)\s*\[\s*\]((?:\s*\[[^\[\];{}]+\])*)\s*;/g;
const BALANCED = String.raw`\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)`;
const ALIGNMENT = new RegExp(String.raw`\b(?:__align__|alignas)\s*${BALANCED}|\b__attribute__\s*\(${BALANCED}\)`, "g");

function withPortableDynamicShared(source: string, target: Target, file: string): string {
  return source.replace(EXTERN_DECLARATION, (all: string, before: string | undefined, after: string, name: string, rows: string, offset: number) => {
    const specifiers = `${before ?? ""}${after}`;
    if (!/\b__shared__\b/.test(specifiers)) return all;
    const element = specifiers.replace(ALIGNMENT, " ").replace(/\b__shared__\b/g, " ").replace(/\s+/g, " ").trim();
    if (element === "") return all;
    // An array of rows (`extern __shared__ half smem[][N];`, cuda_hgemm's): its element is a row, named by an alias.
    const row = rows.trim() === "" ? "" : `using fl_dynamic_shared_row_${name} = ${element} ${rows.trim().replace(/\s+/g, " ")}; `;
    const type = row === "" ? element : `fl_dynamic_shared_row_${name}`;
    if (!atNamespaceScope(source, offset)) return `${row}FL_DYNAMIC_SHARED(${type}, ${name});`;
    if (target !== "cpu") return all;
    // A function where the array was declared (so that ns::name finds it) and a macro
    // calling it, each on a line of its own; #line gives the rest of the line its place again.
    const at = placeOf(source, offset, file);
    const reader = `fl_dynamic_shared_${name}`;
    return `\n${row}inline ${type} (&${reader}())[] { return *reinterpret_cast<${type} (*)[]>(::fl::emu::dynamic_shared()); }\n` +
      `#define ${name} ${reader}()\n#line ${at.line} "${at.file}"\n`;
  });
}

// cub 3 (CUDA 13) removed names that sources written for cub 1 and 2 use
// (cub::Max, cub::Sum, CUB_MAX ...): under NVRTC each #include of one of cub's
// headers is followed by fuselab's that gives them back (kernels/fuselab/cub_removed.h),
// as the umbrella <cub/cub.cuh> includes it; #line keeps the source's lines.
// (Also as the toolkit's path the include was resolved to, "/usr/local/cuda/include/cccl/cub/...".)
const CUB_INCLUDE = /^[ \t]*#[ \t]*include[ \t]*[<"](?:[^<>"\n]*\/)?cub\/[^>"\n]*[>"][^\n]*$/gm;

function withRemovedCubNames(source: string, target: Target, file: string): string {
  if (target !== "cuda") return source;
  return source.replace(CUB_INCLUDE, (line: string, offset: number) => {
    const at = placeOf(source, offset, file);
    return `${line}\n#include <fuselab/cub_removed.h>\n#line ${at.line + 1} "${at.file}"`;
  });
}

// A namespace-scope `const` scalar that device code reads is a constant to
// nvcc, whose host pass initializes it, also from another such constant
// (`const real cutoff_square = cutoff * cutoff;` of a double); NVRTC and
// hiprtc compile device code alone and refuse such an initializer as a
// __device__ variable's dynamic one. An initializer of literals, names and
// operators alone is a constant expression when its names are: `constexpr` says so.
const ARITHMETIC_CONSTANT = /^([ \t]*(?:static[ \t]+)?)const([ \t]+(?:unsigned[ \t]+|signed[ \t]+|long[ \t]+)*[A-Za-z_]\w*[ \t]+[A-Za-z_]\w*[ \t]*=[^;(){}"'\[\]\n]*;)/gm;

function withArithmeticConstantsConstexpr(source: string): string {
  return source.replace(ARITHMETIC_CONSTANT, (all: string, before: string, rest: string, offset: number) =>
    (atNamespaceScope(source, offset) ? `${before}constexpr${rest}` : all));
}

// A compound literal (C99's `return (uint32_vec4){ a, b, c, d };`), which nvcc's and
// the host compilers' C++ take as an extension and NVRTC refuses: a type's list
// initialization, `uint32_vec4{ a, b, c, d }`, which is the same for an aggregate.
// Only after `return`, an assignment's `=`, a comma or a call's parenthesis, where a
// parenthesized name before a brace is no condition (`if (ready) {`, `while ((busy)) {`).
const COMPOUND_LITERAL = /(\breturn|[^=!<>]=|,|\b[A-Za-z_]\w*\s*\()(\s*)\(\s*([A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)\s*\)(?=\s*\{)/g;
const CONDITION = /^(?:if|while|for|switch|return)\s*\($/;

function withCompoundLiteralsListInitialized(source: string): string {
  return source.replace(COMPOUND_LITERAL, (all: string, before: string, space: string, type: string) =>
    (CONDITION.test(before) ? all : `${before}${space} ${type} `));
}

// `__restrict__` on the class a pointer points to (`const bf16_t __restrict__ *x`,
// lightllm's kernels), which nvcc's and g++'s front ends ignore and NVRTC and
// hiprtc refuse ("restrict is not allowed"): dropped, as those ignore it (g++, the
// CPU's compiler, refuses it on a scalar type, as it does under nvcc). One after
// a `*` qualifies the pointer, as meant, and stays.
const MISPLACED_RESTRICT = /(?<=[\w>\]])([ \t]+)(?:__restrict__|__restrict)\b(?=\s*[*&])/g;

function withMisplacedRestrictDropped(source: string): string {
  return source.replace(MISPLACED_RESTRICT, "$1");
}

// The file and line the compiler gives `offset` in `text`: counted from the
// last #line before it (a header's, from withLineMarkers), else from `file`'s first.
function placeOf(text: string, offset: number, file: string): { file: string; line: number } {
  const before = text.slice(0, offset);
  const marker = /^#line (\d+) "([^"\n]*)"$/gm;
  let last: RegExpExecArray | null = null;
  for (let m = marker.exec(before); m !== null; m = marker.exec(before)) last = m;
  if (!last) return { file, line: before.split("\n").length };
  const after = before.slice(last.index + last[0].length + 1);
  return { file: last[2], line: Number(last[1]) + after.split("\n").length - 1 };
}

// A call into the CUDA or HIP runtime (cudaMalloc(, hipMemcpyToSymbol( ...), a launch
// (k<<<grid, block>>>(...), hipLaunchKernelGGL(k, ...) is a runtime call), and thrust's
// containers and algorithms, which the CPU has no library for.
const HOST_LAUNCH = /<<</;
// threadIdx, blockIdx, blockDim, gridDim and warpSize are names a kernel may declare
// again (\`int blockIdx = ...;\` in a helper, \`const int warpSize = 32;\` at file scope),
// as CUDA declares them as variables; the CPU emulator defines them as macros, so
// there such a declaration is renamed to the end of its block (for one at namespace
// scope, of the source), within the line.
const SHADOWED_BUILTIN = /\b(?:int|unsigned|long|size_t|int32_t|uint32_t|auto|uint3|dim3)\s+(threadIdx|blockIdx|blockDim|gridDim|warpSize)\s*(?=[=;({,)])/g;

// A source that declares the built-in variables or barriers again, as the toolkit's
// headers declare them (ccminer's cuda_helper.h: `extern const dim3 blockDim;` for its
// host pass, `extern __device__ void __syncthreads(void);`), names what the emulator
// defines as macros: the declaration is left out there, its lines kept.
const BUILTIN_REDECLARATION = new RegExp("(?<=^|[;{}])[ \\t]*extern\\b[^;{}()\\n]*?\\b(?:(?:const\\s+)?(?:dim3|uint3|int)\\s+(?:threadIdx|blockIdx|blockDim|gridDim|warpSize)\\s*" +
  "|[^;{}()\\n]*\\b(?:__syncthreads|__threadfence(?:_block|_system)?)\\s*\\(\\s*(?:void)?\\s*\\)\\s*);", "gm");

// clang's vector types (`using float4 = float __attribute__((ext_vector_type(4)));`, the
// typedef forms too), which g++ would ignore, making the type a scalar: on the CPU each
// is GCC's vector of the same size (kernels/fuselab/vendors/cpu.h); one written otherwise is refused.
const EXT_VECTOR = String.raw`__attribute__\s*\(\(\s*(?:__)?ext_vector_type(?:__)?\s*\(\s*([^()\n]+?)\s*\)\s*\)\)`;
const EXT_VECTOR_FORMS: [RegExp, (...m: string[]) => string][] = [
  [new RegExp(String.raw`\busing\s+(\w+)\s*=\s*([^;=\n]+?)\s*${EXT_VECTOR}\s*;`, "g"), (_all, name, type, n) => `using ${name} = typename ::fl::emu::ext_vector_of<${type}, ${n}>::type;`],
  // The attribute before the type, as AMD's aiter writes it.
  [new RegExp(String.raw`\busing\s+(\w+)\s*=\s*${EXT_VECTOR}\s*([^;=\n]+?)\s*;`, "g"), (_all, name, n, type) => `using ${name} = typename ::fl::emu::ext_vector_of<${type}, ${n}>::type;`],
  [new RegExp(String.raw`\btypedef\s+${EXT_VECTOR}\s*([^;\n]+?)\s+(\w+)\s*;`, "g"), (_all, n, type, name) => `typedef typename ::fl::emu::ext_vector_of<${type}, ${n}>::type ${name};`],
  [new RegExp(String.raw`\btypedef\s+([^;\n]+?)\s+(\w+)\s*${EXT_VECTOR}\s*;`, "g"), (_all, type, name, n) => `typedef typename ::fl::emu::ext_vector_of<${type}, ${n}>::type ${name};`],
  [new RegExp(String.raw`\btypedef\s+([^;\n]+?)\s*${EXT_VECTOR}\s*(\w+)\s*;`, "g"), (_all, type, n, name) => `typedef typename ::fl::emu::ext_vector_of<${type}, ${n}>::type ${name};`],
];

function withExtVectorsOfGcc(where: string, source: string): string {
  let text = source;
  for (const [form, replace] of EXT_VECTOR_FORMS) text = text.replace(form, replace);
  const left = /\b(?:__)?ext_vector_type(?:__)?\b/.exec(text);
  if (left) {
    throw new ArgumentError(where, "source", "clang's ext_vector_type in a type alias (`using v4 = float __attribute__((ext_vector_type(4)));` or a typedef), " +
      "which the CPU emulator makes GCC's vector of that size", `one written otherwise on line ${text.slice(0, left.index).split("\n").length}`);
  }
  return text;
}

// A source that declares a fixed-width integer type itself (darknet's
// `typedef unsigned long long int uint64_t;`) compiles with nvcc, whose
// implicit headers declare none of them; the CPU's C library does, as another
// type (`unsigned long`). The source's own type is renamed, everywhere in it.
const OWN_FIXED_WIDTH = /^[ \t]*(?:typedef\b[^;{}()]*?\b(u?int(?:8|16|32|64)_t)|using[ \t]+(u?int(?:8|16|32|64)_t)[ \t]*=[^;{}]*?)[ \t]*;/gm;

function withOwnFixedWidthTypesRenamed(source: string, predefined: Record<string, string>): string {
  if (source.search(OWN_FIXED_WIDTH) < 0) return source;
  // Those the preprocessor keeps: MIOpen's miopen_cstdint.hpp has its own under an #ifdef its builds leave undefined.
  const names = new Set([...new Preprocessor(predefined).run(source).matchAll(OWN_FIXED_WIDTH)].map((m) => m[1] ?? m[2]));
  let text = source;
  for (const name of names) text = text.replace(new RegExp(`(?<![\\w:])${name}\\b`, "g"), `fl_own_${name}`);
  return text;
}

function withShadowedBuiltinsRenamed(source: string): string {
  let text = source.replace(BUILTIN_REDECLARATION, (all: string) => all.replace(/[^\n]/g, " "));
  for (let match = SHADOWED_BUILTIN.exec(text); match !== null; match = SHADOWED_BUILTIN.exec(text)) {
    const name = match[1];
    const start = match.index + match[0].lastIndexOf(name);
    // A parameter (inside an open parenthesis) lives to the end of the function's body, a local to the end of its block.
    const statement = text.slice(0, start).replace(/^[^]*[;{}]/, "");
    const parameter = (statement.match(/\(/g) ?? []).length > (statement.match(/\)/g) ?? []).length;
    let depth = 0, end = start;
    for (; end < text.length && depth >= 0; end++) {
      depth += text[end] === "{" ? 1 : text[end] === "}" ? -1 : 0;
      if (parameter && depth === 0 && text[end] === "}") break;
    }
    const renamed = text.slice(start, end).replace(new RegExp(`\\b${name}\\b`, "g"), `fl_local_${name}`);
    text = text.slice(0, start) + renamed + text.slice(end);
    SHADOWED_BUILTIN.lastIndex = start;
  }
  return text;
}

function compileError(where: string, p: Translated, e: unknown): Error {
  if (!(e instanceof DeviceError)) return e as Error;
  if (e.log === undefined) {
    // A module that compiled and does not load (the CPU's loader finds a function undefined).
    const undefinedFunction = undefinedFunctionHint(e.message);
    return undefinedFunction ? new DeviceError(`${e.message}\n${undefinedFunction}`) : e;
  }
  const lines = userLogLines(e.log, p.files);
  const shown = lines.slice(0, LOG_LINES_SHOWN).join("\n");
  const total = e.log.replace(/\n$/, "").split("\n").length;
  const more = total > Math.min(lines.length, LOG_LINES_SHOWN) ? `\n... ${total - Math.min(lines.length, LOG_LINES_SHOWN)} more lines in the error's .log` : "";
  const hint = hostRuntimeCallHint(e.log) || gpuBuiltinHint(e.log) || missingHeaderHint(e.log) || textureReferenceHint(e.log) || vectorMemberHint(e.log) || productHint(e.log) || undefinedFunctionHint(e.log) ||
    (p.build.std === "c++20" ? "" : standardHint(e.log));
  return new DeviceError(`${where}: compilation failed on ${p.build.label}:\n${shown}${more}${hint ? `\n${hint}` : ""}`, e.log);
}

// On the CPU a module's symbols are hidden but for its kernels and __constant__
// variables (kernels/fuselab/vendors/cpu.h): a __device__ variable the host writes
// (module.constant(name)) is declared again, visible, after the source, in its namespace.
function exportedVariables(constants: ConstantDeclaration[]): string {
  return constants.filter((c) => c.space === "__device__" && !c.templateParams).map((c) => {
    const parts = c.name.split("::"), name = parts.pop();
    const declaration = `extern __typeof__(${name}) ${name} __attribute__((visibility("default")));`;
    return `\n${parts.map((p) => `namespace ${p} { `).join("")}${declaration}${parts.map(() => " }").join("")}`;
  }).join("");
}

// A `static` __constant__ or __device__ variable loses the keyword, which only
// hides its symbol: cudaMemcpyToSymbol reaches it from its own file, and
// module.constant(name) from TS (a module is one file). On the CPU a __device__
// variable template's instances are made visible where it is declared (a
// declaration after the source cannot name them all). Lines keep their numbers.
function withStaticVariablesVisible(source: string, constants: ConstantDeclaration[], target: Target): string {
  const statics = new Set(constants.filter((c) => c.isStatic).map((c) => c.line));
  const templates = new Set(constants.filter((c) => target === "cpu" && c.templateParams && c.space === "__device__").map((c) => c.line));
  if (statics.size === 0 && templates.size === 0) return source;
  return source.split("\n").map((text, i) => {
    let line = statics.has(i + 1) && /\b(?:__constant__|__device__)\b/.test(text) ? text.replace(/\bstatic\b/, "      ") : text;
    if (templates.has(i + 1)) line = line.replace(/\b__device__\b/, `__device__ __attribute__((visibility("default")))`);
    return line;
  }).join("\n");
}

// The parameters the compiler saw (where the backend knows them: the CPU
// emulator) must be those the source reads as: a macro such as
// `#define float double` would otherwise make launches pass the wrong types,
// and a struct laid out otherwise (#pragma pack) the wrong bytes.
function checkCompiledParams(where: string, p: Prepared, handle: ModuleHandle): void {
  const compiled = nativeCall(() => native().kernels(handle));
  const refuse = (expected: string, received: string): never => {
    nativeCall(() => native().unload(handle));
    throw new ArgumentError(where, "source", expected, received);
  };
  for (const declaration of p.declarations) {
    const signature = compiled.find((k) => k.name === exportedName(declaration))?.signature;
    if (signature === null || signature === undefined) continue;
    const params = paramsFromSignature(signature);
    const differs = params.length !== declaration.params.length || params.some((q, i) => {
      const d = declaration.params[i];
      // A pointer to a function the backend names as a pointer to void.
      if (d.functionPointer) return !q.pointer;
      // "void" there: a pointee the backend does not name: nothing to compare.
      const type = d.layout ? structType(d.layout) : d.type;
      return q.pointer !== d.pointer || (q.type !== "void" && type !== "void" && q.type !== type);
    });
    if (!differs) continue;
    const struct = declaration.params.findIndex((d, i) => d.layout && params[i]?.type.startsWith("struct:"));
    if (struct >= 0) {
      const layout = declaration.params[struct].layout!;
      const [, size, align] = params[struct].type.split(":");
      refuse(`structs laid out as the C ABI lays them out (parameter ${struct} of ${declaration.name}, ${layout.name}, ` +
        `reads as ${layout.size} bytes aligned to ${layout.align}: ${layout.members.map((m) => `${m.name} at ${m.offset}`).join(", ")})`,
        `${size} bytes aligned to ${align} from the compiler (a #pragma pack or an attribute fuselab does not read?)`);
    }
    refuse(`kernels whose parameter types the preprocessor leaves alone (${declaration.name} reads as (${parameterList(declaration.params)}))`,
      `parameters (${parameterList(params)}) after preprocessing`);
  }
}

// NVRTC and hiprtc give no signature to compare a struct's layout with after
// the compile (checkCompiledParams): the compiler checks the layout fuselab
// passes instead. An attribute it ignores, or a #pragma pack fuselab does not
// read, stops the compile with the layout named, where it would otherwise pass
// the wrong bytes.
function layoutAsserts(declarations: readonly KernelDeclaration[]): string {
  const asserts = declarations.flatMap((d) => d.params.flatMap((q, i) => {
    if (!q.layout) return [];
    const { name, size, align } = q.layout;
    // A kernel sharing its name with another function is typed by its parameters, which pick it.
    const type = d.exportedAs ? `void(${parameterList(d.params)})` : `decltype(${d.name})`;
    const param = `fl_layout_check::param<${type}, ${i}>::type`;
    return [`static_assert(sizeof(${param}) == ${size} && alignof(${param}) == ${align}, ` +
      `"fuselab passes parameter ${i} of ${d.name} (${name}) as ${size} bytes aligned to ${align}; this compiler lays it out otherwise ` +
      `(an attribute it ignores, or a #pragma pack?): write the struct's alignment as alignas(N) before its name");`];
  }));
  if (asserts.length === 0) return "";
  // The parameter's type itself, not a table of sizes: clang (hiprtc) cannot read a
  // constexpr array's element in a static_assert of a class template.
  return ["", "namespace fl_layout_check {",
    "template <unsigned I, typename T, typename... R> struct nth { using type = typename nth<I - 1, R...>::type; };",
    "template <typename T, typename... R> struct nth<0, T, R...> { using type = T; };",
    "template <typename F, unsigned I> struct param;",
    "template <typename... A, unsigned I> struct param<void(A...), I> { using type = typename nth<I, A...>::type; };",
    "}  // namespace fl_layout_check",
    ...asserts, ""].join("\n");
}

// A struct as a backend's signature spells it.
function structType(layout: StructLayout): string {
  return `struct:${layout.size}:${layout.align}`;
}

function remember(where: string, p: Prepared, handle: ModuleHandle): Module {
  checkCompiledParams(where, p, handle);
  let perDevice = cache.get(p.dev);
  if (!perDevice) cache.set(p.dev, (perDevice = new Map()));
  const existing = perDevice.get(p.key);
  if (existing) {
    // Two compileAsync calls of one source raced: keep the first, drop the second.
    nativeCall(() => native().unload(handle));
    return existing;
  }
  const names = [...p.declarations.map((d) => d.name), ...p.templates.map((t) => `${t.name}<...>`)];
  const module = new Module(p.dev, handle, p.declarations, `a module of ${names.join(", ")}`,
    () => perDevice!.delete(p.key), { templates: templatesOf(p), constants: p.constants, leftOutBy: p.leftOutBy, lambdaLine: p.lambdaLine, overloaded: p.overloaded, unlaunchable: p.unlaunchable,
      overloadNames: (name) => overloadNames(p, name), typedKernels: typedKernels(p) });
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
  const build = (q: Prepared) => remember("fl.compile", q, compileNames("fl.compile", q, q.declarations.map(exportedName)));
  try {
    return build(p);
  } catch (e) {
    const host = hostPassAfter(p, e);
    if (!host) throw e;
    if (host.cached) return host.cached;
    let module: Module;
    try {
      module = build(host);
    } catch {
      throw e;
    }
    warnHostPass("fl.compile", p, host);
    return module;
  }
}

/** As `compile()`, with the compiler running off the main thread. */
export async function compileAsync(source: string, options?: CompileOptions): Promise<Module> {
  const p = prepare("fl.compileAsync", source, options);
  if (p.cached) return p.cached;
  const build = async (q: Prepared) => {
    try {
      const handle = await nativeAsync(() => native().compileAsync(q.dev.handle, q.text, markedNames(q, q.declarations.map(exportedName)), q.flags, q.timeoutMs));
      return remember("fl.compileAsync", q, handle);
    } catch (e) {
      throw compileError("fl.compileAsync", q, e);
    }
  };
  try {
    return await build(p);
  } catch (e) {
    const host = hostPassAfter(p, e);
    if (!host) throw e;
    if (host.cached) return host.cached;
    let module: Module;
    try {
      module = await build(host);
    } catch {
      throw e;
    }
    warnHostPass("fl.compileAsync", p, host);
    return module;
  }
}

/** Options of `compileCheck()`. */
export interface CompileCheckOptions {
  /** The GPU compiled for, as "<backend>:<architecture>": "hip:gfx90a", "hip:gfx1030", "cuda:sm_90". */
  target: string;
  /** The file name compiler messages use (`<name>.cu` for a source including CUDA's headers and no HIP one, else `<name>.hip`, or the name itself where it ends in a source file's extension: "ldg.cu"); the first kernel's name when left out. */
  name?: string;
  /** Template kernels compiled too, by name expression, as `module.fn` takes them: `["norm<float, 256>"]`. */
  instances?: string[];
  /** A project's own headers, as `compile()` takes them. */
  headers?: Record<string, string>;
  /** A project's -D macros, as `compile()` takes them. */
  defines?: Record<string, string | number | true>;
  /** The C++ standard, as `compile()` takes it. */
  std?: CxxStandard;
}

/** What `compileCheck()` compiled: each kernel (and instance) with its symbol in the code, and the compiler's warnings. */
export interface CompileCheckResult {
  target: string;
  kernels: { name: string; symbol: string }[];
  log: string;
}

const CHECK_TARGET = /^(?:hip:(gfx[0-9a-f]{3,4})(?::[a-z]+[+-])*|cuda:(sm_\d{2,3}a?))$/;

/**
 * Compiles `source` for a GPU named by its architecture, as `compile()` would on
 * that GPU (NVRTC or hiprtc, the same headers and predefined macros), without
 * one: a source checked for AMD or NVIDIA GPUs this machine does not have. Needs
 * the backend's run-time compiler (hiprtc, NVRTC), not its driver. Nothing is
 * loaded or run. A compile error is a DeviceError showing the compiler's log.
 */
export function compileCheck(source: string, options: CompileCheckOptions): CompileCheckResult {
  const where = "fl.compileCheck";
  const text = checkSource(where, source);
  const o = checkOptionsObject(where, options, ["target", "name", "instances", "headers", "defines", "std"]);
  const match = typeof o.target === "string" ? CHECK_TARGET.exec(o.target) : null;
  if (!match) throw new ArgumentError(where, "options.target", `"hip:<gfx architecture>" or "cuda:sm_<NN>" ("hip:gfx90a", "cuda:sm_90")`, describe(o.target));
  const target = o.target as string;
  const backend: Target = match[1] ? "hip" : "cuda";
  const arch = target.slice(target.indexOf(":") + 1);
  // gfx9 (CDNA, GCN) runs 64-lane wavefronts; gfx10 and later default to 32.
  const warpSize = backend === "hip" && /^gfx9/.test(arch) ? 64 : 32;
  const t = translate(where, text, checkFileName(where, o.name), { backend, arch: match[1] ?? match[2], warpSize, label: `${backend} ${arch}`, std: checkStandard(where, o.std) },
    { headers: checkHeaders(where, o.headers), defines: checkDefines(where, o.defines) });
  const names = withInstances(where, t, o.instances).map((d) => d.name);
  try {
    // The run-time compiler takes the arch with its features (gfx90a:xnack-), as a device names it.
    const compiled = nativeCall(() => native().compileCheck(backend, arch, t.text, markedNames(t, names), t.flags));
    return { target, kernels: names.map((name, i) => ({ name, symbol: compiled.symbols[i] })), log: compiled.log };
  } catch (e) {
    throw compileError(where, t, e);
  }
}
