// What fl.compile refuses before a compiler sees it, with a reason a user can
// act on, and the part of a compiler's log that is about the user's source.
import { execFileSync } from "child_process";
import { ArgumentError } from "./errors";
import { Directive, Preprocessor } from "./preprocess";

/** The target a source is compiled for, as a backend's name says it. */
export type Target = "cpu" | "cuda" | "hip";

// Inline assembly is written for one instruction set: PTX (NVIDIA) or GCN/CDNA/RDNA (AMD).
const GCN_MNEMONIC = /^\s*"?\s*(?:v_|s_|ds_|buffer_|global_|flat_|scratch_)/;

function lineOf(text: string, at: number): number {
  let line = 1;
  for (let i = 0; i < at; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * Throws for what `target` cannot compile and its compiler would report
 * obscurely: inline assembly for another machine, and launches
 * (`k<<<grid, block>>>(...)`) left in device code (a GPU launching kernels of
 * its own). `source` is given without the host functions that launch, which
 * are left out as host code.
 */
export function checkKernelSource(where: string, source: string, target: Target, predefined: Record<string, string>, assemblyStops = false): void {
  const code = new Preprocessor(predefined).run(source);
  const launch = /<<<[^;]*>>>/.exec(code);
  if (launch) {
    throw new ArgumentError(where, "source", "free of launches in device code (dynamic parallelism, which fuselab does not make: launch from TypeScript, module.fn(name).launch(config, ...args))",
      `a launch with <<<...>>> in device code on line ${lineOf(code, launch.index)}`);
  }
  const asm = /\b(?:asm|__asm__|__asm)\b\s*(?:volatile\b|__volatile__\b)?\s*\(\s*("(?:\\.|[^"\\])*")?/.exec(code);
  if (!asm) return;
  const line = lineOf(code, asm.index);
  const isa = GCN_MNEMONIC.test(asm[1] ?? "") ? "GCN" : "PTX";
  const machine = isa === "PTX" ? "an NVIDIA GPU" : "an AMD GPU";
  const runs = isa === "PTX" ? target === "cuda" : target === "hip";
  if (runs || (target === "cpu" && assemblyStops)) return;
  const instead = target === "cpu"
    ? "the CPU emulator runs C++ only: a C++ path beside the assembly, under #ifdef __CUDA_ARCH__, is taken when options.arch is left out or \"host\""
    : `this device runs ${target === "cuda" ? "PTX" : "GCN"} only`;
  throw new ArgumentError(where, "source", `code this device can run (${instead})`,
    `inline ${isa} assembly on line ${line}, which needs ${machine}`);
}

const ASM_STATEMENT = /\b(?:asm|__asm__|__asm)\b\s*(?:(?:volatile|__volatile__|goto)\b\s*)*\(/g;

// `source` with each asm statement for whose body `replacement` gives C++ replaced
// by it, the statement's line breaks kept (also the escaped ones of a macro's
// body), so lines keep their numbers.
function withAssemblyReplaced(source: string, replacement: (body: string) => string | undefined): string {
  let out = "", from = 0;
  for (const found of source.matchAll(ASM_STATEMENT)) {
    const start = found.index!;
    if (start < from) continue;
    const end = closingParen(source, start + found[0].length);
    if (end < 0) break;
    const body = source.slice(start + found[0].length, end);
    const text = replacement(body);
    if (text === undefined) continue;
    out += `${source.slice(from, start)}${text}${body.match(/\\?\r?\n/g)?.join("") ?? ""}`;
    from = end + 1;
  }
  return out + source.slice(from);
}

/**
 * `source` for the CPU emulator with each inline assembly statement replaced by
 * a stop of the launch that reaches it, naming its line and the GPU it needs:
 * the module's other kernels run.
 */
export function withAssemblyStopped(source: string): string {
  return withAssemblyReplaced(source, (body) => {
    const isa = GCN_MNEMONIC.test(/^\s*("(?:\\.|[^"\\])*")?/.exec(body)?.[1] ?? "") ? "GCN" : "PTX";
    return `::fl::emu::device_stop("inline ${isa} assembly, which needs ${isa === "PTX" ? "an NVIDIA" : "an AMD"} GPU (the CPU emulator runs C++ only), was reached", __FILE__, __LINE__)`;
  });
}

// PTX special registers that a one-instruction `mov` reads (`asm("mov.u32 %0, %%laneid;" : "=r"(lane))`,
// as sources read them for lack of an intrinsic), as the C++ expressions that give them on the CPU.
const THREAD_RANK = "(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))";
const LANE = `(${THREAD_RANK} % warpSize)`;
const PTX_REGISTERS: Record<string, string> = {
  laneid: LANE,
  warpid: `(${THREAD_RANK} / warpSize)`,
  smid: "0u",
  clock: "clock()",
  clock64: "clock64()",
  lanemask_eq: `(1u << ${LANE})`,
  lanemask_lt: `((1u << ${LANE}) - 1u)`,
  lanemask_le: `((2u << ${LANE}) - 1u)`,
  lanemask_gt: `(~((2u << ${LANE}) - 1u))`,
  lanemask_ge: `(~((1u << ${LANE}) - 1u))`,
  ...Object.fromEntries(["x", "y", "z"].flatMap((d) => [[`tid.${d}`, `threadIdx.${d}`], [`ntid.${d}`, `blockDim.${d}`],
    [`ctaid.${d}`, `blockIdx.${d}`], [`nctaid.${d}`, `gridDim.${d}`]])),
};
// PTX instructions of no operands, as the CUDA functions that do the same.
const PTX_STATEMENTS: Record<string, string> = {
  "membar.cta": "__threadfence_block()", "membar.gl": "__threadfence()", "membar.sys": "__threadfence_system()",
  "fence.acq_rel.cta": "__threadfence_block()", "fence.acq_rel.gpu": "__threadfence()", "fence.acq_rel.sys": "__threadfence_system()",
  "fence.sc.cta": "__threadfence_block()", "fence.sc.gpu": "__threadfence()", "fence.sc.sys": "__threadfence_system()",
  "bar.sync 0": "__syncthreads()", "barrier.sync 0": "__syncthreads()", "bar.warp.sync -1": "__syncwarp()", "trap": "__trap()",
};

/**
 * The C++ that does what the body of an `asm(...)` statement does, where it is one
 * PTX instruction the CPU emulator knows: a read of a special register into the
 * one output (`"mov.u32 %0, %%laneid;" : "=r"(lane)`), or a fence, barrier or trap
 * of no operands; else undefined.
 */
export function emulatedPtx(body: string): string | undefined {
  const literals = /^\s*((?:"(?:\\.|[^"\\])*"\s*)+)/.exec(body);
  if (!literals) return undefined;
  const text = [...literals[1].matchAll(/"((?:\\.|[^"\\])*)"/g)].map((m) => m[1]).join("")
    .replace(/\\[nt]/g, " ").trim().replace(/;$/, "").trim().replace(/\s+/g, " ");
  const operands = body.slice(literals[0].length).trim();
  const read = /^mov\.(?:u32|s32|b32|u64|s64|b64) %0 ?, ?%%(\w+(?:\.[xyz])?)$/.exec(text);
  if (read && PTX_REGISTERS[read[1]] !== undefined) {
    const output = /^:\s*"=[rl]"\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*(?::\s*(?::\s*(?:"memory")?\s*)?)?$/.exec(operands);
    return output ? `((${output[1]}) = ${PTX_REGISTERS[read[1]]})` : undefined;
  }
  const statement = PTX_STATEMENTS[text];
  return statement !== undefined && /^(?::\s*){0,3}(?:"memory"\s*)?$/.test(operands) ? statement : undefined;
}

/**
 * `source` with each asm statement that `emulatedPtx` knows replaced by its C++,
 * for the CPU emulator: a source that reads its lane through PTX runs there as written.
 */
export function withPtxEmulated(source: string): string {
  return withAssemblyReplaced(source, emulatedPtx);
}

// The index of the ) closing a ( just before `at`, past string and character literals; -1 if none.
function closingParen(text: string, at: number): number {
  let depth = 1;
  for (let i = at; i < text.length; i++) {
    const c = text[i];
    if (c === "\"" || c === "'") {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === "\\") i++;
    } else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return -1;
}

/**
 * The lines of a compiler's log that matter to the user: those pointing into
 * the user's files (`files`: "cell.hip", the headers given with it) and every error, each with the source
 * and caret lines under it. The notes inside fuselab's and the toolkit's
 * headers (the candidates of an overload, the insides of a template) are left
 * out. The whole log when nothing is kept.
 */
export function userLogLines(log: string, files: readonly string[]): string[] {
  const lines = log.split("\n");
  const kept: string[] = [];
  const isUserLine = (line: string) => files.some((file) => line.startsWith(`${file}:`) || line.startsWith(`${file}(`));
  const isExcerpt = (line: string) => /^\s*(\d+\s*)?\|/.test(line) || /^\s+\^/.test(line) || /^\s{2,}\S/.test(line);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const isError = /\berror\b/.test(line) && !/^\s/.test(line);
    const isUserContext = isUserLine(line) && (!/\bnote\b/.test(line) || /required from|instantiated from/.test(line));
    if (!isError && !isUserContext) continue;
    kept.push(line);
    while (i + 1 < lines.length && isExcerpt(lines[i + 1]) && !isUserLine(lines[i + 1])) kept.push(lines[++i]);
  }
  return kept.length > 0 ? kept : lines;
}

// How each compiler says a name is not declared: GCC ('x' was not declared), NVRTC
// (identifier "x" is undefined), clang/hiprtc (use of undeclared identifier 'x').
// A runtime API name: cudaMalloc, hipMemcpy ..., not HIP's coordinates (hipThreadIdx_x), which are device code.
const RUNTIME_NAME = String.raw`(?:cuda|hip)(?!(?:Thread|Block)(?:Idx|Dim)_|GridDim_)[A-Z]\w*`;
const UNDECLARED_RUNTIME_CALL = new RegExp(String.raw`(?:[‘'\`"](${RUNTIME_NAME})[’'"] was not declared|identifier "(${RUNTIME_NAME})" is undefined|undeclared identifier [‘'"](${RUNTIME_NAME})[’'"])`);

/**
 * Why a compile failed on a runtime API call (cudaMalloc, hipMemcpyToSymbol ...),
 * which host code makes and a kernel source here has no use for; "" for other failures.
 */
export function hostRuntimeCallHint(log: string): string {
  const found = UNDECLARED_RUNTIME_CALL.exec(log);
  if (!found) return "";
  const call = found[1] ?? found[2] ?? found[3];
  return `${call} is a call into the host runtime, which a source here does not make: launches, memory and ` +
    "__constant__ data come from TypeScript (module.fn(name).launch, fl.tensor, module.constant(name).set). " +
    `Remove the host function that calls ${call}.`;
}

// A builtin of AMD's or NVIDIA's GPU compiler: an instruction of that GPU (MFMA, DPP, a PTX intrinsic).
const GPU_BUILTIN = /[‘'"`](?:::)?(__builtin_amdgcn_\w+|__hip_ds_\w+|__hip_move_dpp|__nvvm_\w+)[’'"`] (?:was|has) not (?:been )?declared|identifier "(__builtin_amdgcn_\w+|__hip_ds_\w+|__hip_move_dpp|__nvvm_\w+)" is undefined|undeclared identifier [‘'"](__builtin_amdgcn_\w+|__hip_ds_\w+|__hip_move_dpp|__nvvm_\w+)[’'"]/;

/** Why a compile failed on a GPU compiler's builtin (`__builtin_amdgcn_mfma_f32_16x16x4f32`), which only that GPU runs; "" for other failures. */
export function gpuBuiltinHint(log: string): string {
  const found = GPU_BUILTIN.exec(log);
  if (!found) return "";
  const builtin = found[1] ?? found[2] ?? found[3];
  const amd = !builtin.startsWith("__nvvm_");
  // The matrix cores' instructions are those of some AMD GPUs; the others, of every AMD GPU.
  const guard = !amd ? "defined(__CUDA_ARCH__)" : /_(?:mfma|smfmac|wmma)_/.test(builtin) ? "defined(__gfx90a__) || defined(__gfx942__) (the architectures that have it)" : "defined(__AMDGCN__)";
  return `${builtin} is an instruction of ${amd ? "AMD's GPUs (hipcc's builtin)" : "NVIDIA's GPUs (NVVM's builtin)"}: code that calls it runs only on ` +
    `${amd ? "an AMD GPU whose architecture has it (on the CPU, a HIP source on a 64-lane device has AMD's cross-lane, dot-product, bit-field and math builtins, not the matrix cores')" : "an NVIDIA GPU"}. Call it under #if ` +
    `${guard}, with a C++ path in the #else branch for the other devices.`;
}

// The names CUDA's and HIP's toolkits give their headers.
const TOOLKIT_HEADER = /^(?:cuda[\w/]*\.h|cu(?:blas|fft|rand|sparse|solver|dnn|tensor)\w*\.h|nv\w+\.h|sm_\d+_\w+\.h|(?:crt|cuda|cub|thrust|cooperative_groups|nvtx3|hip|hipcub|rocprim|hiprand)\/)/;

/**
 * Why a compile failed on a header the compiler did not find (GCC: "fatal error:
 * common.h: No such file or directory"): a project's own header is given with
 * its text; "" for other failures.
 */
export function missingHeaderHint(log: string): string {
  const found = /fatal error: ([^\s:]+): No such file or directory/.exec(log);
  if (!found) return "";
  // PyTorch's headers are stand-ins fuselab writes for what extensions' kernels use.
  const library = /^(?:ATen|c10|THC|torch|caffe2)\//.test(found[1]) ? "PyTorch's headers here are fuselab's stand-ins for what kernels use of them, and this one is not among them: " : "";
  const own = `a project's own header is given with its text, compile(source, { headers: { ${JSON.stringify(found[1])}: text } }).`;
  // Named as the toolkits name theirs: it may be one this target lacks, or the project's own of that name.
  if (!library && TOOLKIT_HEADER.test(found[1])) {
    return `${found[1]} is not among this target's headers: if it is one of CUDA's or HIP's toolkit headers, this target does not ` +
      `provide it (docs/ARCHITECTURE.md lists those it has); if it is the project's own, ${own}`;
  }
  return `${found[1]} is none of the toolkit's or fuselab's headers: ${library}${own}`;
}

/**
 * For a module that compiled and does not load because a function it calls is
 * nowhere defined ("undefined symbol: _Z13device_squarei", a __device__ function
 * a header declares and another file of the project defines): the function by
 * its C++ name and what to do; "" for other failures.
 */
export function undefinedFunctionHint(message: string): string {
  // The CPU's loader ("undefined symbol: _Z...") and ptxas ("Unresolved extern function '_Z...'").
  const found = /(?:undefined symbol: |Unresolved extern function ')([\w$.]+)/.exec(message);
  if (!found) return "";
  let name = found[1];
  try {
    name = execFileSync("c++filt", [found[1]], { encoding: "utf8", timeout: 5000 }).trim() || name;
  } catch {
    // No demangler here: the symbol as the loader names it.
  }
  return `${name} is declared and called, and the source does not define it: a source is compiled as one file, as nvcc ` +
    `and hipcc compile one without -rdc; #include the file that defines it, given in compile's option headers.`;
}

// A compiler's word that a construct needs C++20 (g++: "only available with
// '-std=c++20'"; clang and NVRTC: "a C++20 extension"), or a C++20 library name.
const NEEDS_CXX20 = /-std=(?:c|gnu)\+\+(?:20|2a)|\bC\+\+20\b|[‘'"`]std::ranges[’'"`]/;

/** For a compile as C++17 that failed on C++20: the option that compiles it; "" otherwise. */
export function standardHint(log: string): string {
  return NEEDS_CXX20.test(log) ? `The source is written in C++20: compile(source, { std: "c++20" }) compiles it as -std=c++20 does.` : "";
}

// NVRTC's words for a texture reference (`texture<float, 2> tex;`), which CUDA 12 removed.
const TEXTURE_REFERENCE = /\btexture\b[^\n]*(?:is not a template|is undefined|was not declared)|(?:not a template|undefined)[^\n]*\btexture\b/;

/** A note for a compile that failed on a texture reference: what to do instead. */
export function textureReferenceHint(log: string): string {
  return TEXTURE_REFERENCE.test(log) ? "Texture references (texture<T, dim, mode> at namespace scope) were removed in CUDA 12, so NVRTC has none: " +
    "read the array through a pointer to a tensor (the CPU emulator compiles the file's other kernels, and stops a fetch through one)." : "";
}

// g++'s words for a member of one of its vectors, which clang's ext_vector_type types are on the CPU.
const VECTOR_MEMBER = /request for member ‘(\w+)’ in [^\n]*which is of non-class type [^\n]*__vector\(\d+\)/;

/** A note for a compile that failed on `.x` of a clang vector type: how the CPU reads its elements. */
export function vectorMemberHint(log: string): string {
  const found = VECTOR_MEMBER.exec(log);
  return found ? `clang's ext_vector_type types are GCC's vectors on the CPU emulator: read and write their elements by index (v[0], not v.${found[1]}); ` +
    "a swizzle (v.xy) is clang's alone." : "";
}

// g++'s words for a template given the emulator's 16-bit product beside a plain value.
const PRODUCT_DEDUCTION = /deduced conflicting types for parameter ‘(\w+)’ \(‘(?:fl_product|fl_pair_product)</;

/** A note for a compile that failed on a 16-bit product passed to a template (`max(a * b, c)`): how to pass it. */
export function productHint(log: string): string {
  const found = PRODUCT_DEDUCTION.exec(log);
  return found ? "On the CPU emulator a product of 16-bit floats (a * b, __hmul) keeps its factors until it is stored, so that an add it goes " +
    "into rounds once, as the GPU's compiler fuses the two; a template taking it beside a plain __half deduces two types for " +
    `${found[1]}: round the product first, __half(a * b), or name the type, f<__half>(...).` : "";
}

/** The macros a source reads to tell a device pass (NVIDIA's, AMD's) from the host pass. */
export const DEVICE_PASS_MACRO = /__CUDA_ARCH__|__HIP_DEVICE_COMPILE__|__AMDGCN\w*|__AMDGPU__|__GFX\d+__|__gfx\w+__/;

/**
 * Why `name` (a kernel a source spells) is not among those compiled for `target`:
 * the conditional that leaves out all the text naming it ("#if __CUDA_ARCH__ >= 530
 * (line 56), a branch ..."); undefined when kept text names it, or no text does.
 */
export function leftOutBy(source: string, predefined: Record<string, string>, name: string, archNote: string): string | undefined {
  const base = /^(?:\w+::)*(\w+)$/.exec(name)?.[1];
  if (base === undefined) return undefined;
  const directives: Directive[] = [];
  new Preprocessor(predefined).run(source, directives);
  const word = new RegExp(`\\b${base}\\b`);
  const lines = source.split("\n");
  const open: Directive[] = [];  // the conditionals around the current line, each by the branch it opened
  let next = 0, leftOut: Directive | undefined;
  for (let line = 1; line <= lines.length; line++) {
    const directive = directives[next]?.line === line ? directives[next++] : undefined;
    if (directive) {
      if (["if", "ifdef", "ifndef"].includes(directive.name)) open.push(directive);
      else if ((directive.name === "elif" || directive.name === "else") && open.length > 0) open[open.length - 1] = directive;
      else if (directive.name === "endif") open.pop();
      line += directive.lines - 1;
      continue;
    }
    if (!word.test(lines[line - 1])) continue;
    const outermost = open.find((d) => d.opensKept === false);
    if (!outermost) return undefined;
    leftOut ??= outermost;
  }
  if (!leftOut) return undefined;
  const why = archNote !== "" && DEVICE_PASS_MACRO.test(leftOut.rest) ? ` (${archNote})` : "";
  return `#${leftOut.name}${leftOut.rest.trimEnd()} (line ${leftOut.line}), a branch this device does not compile${why}`;
}

// An extended lambda (`[] __host__ __device__ (int i) { ... }`, `[=] __device__ (...)`), which
// host code passes to a kernel template as its argument (CSC's and Kokkos-style
// portability lessons): the line of the first, or undefined.
const EXTENDED_LAMBDA = /\[[^\]\n]*\]\s*(?:__host__\s+)?__device__\b/;

export function extendedLambdaLine(source: string): number | undefined {
  const found = EXTENDED_LAMBDA.exec(source);
  return found ? source.slice(0, found.index).split("\n").length : undefined;
}
