// A project's own headers, given as text (compile's option `headers`): a source
// that includes "common.h" compiles as written, as it does with `nvcc -I.`,
// and no file is read. Each #include naming a given header is replaced by the
// header's text, as the preprocessor replaces it; an #include it does not name
// (the toolkit's, fuselab's) stays for the compiler. The compiler is told where
// each line came from (#line), so its messages name the header and its line.
import * as path from "path";
import { ArgumentError, checkOptionsObject, describe } from "./errors";
import { canonicalLines } from "./file-access";
import { withoutComments } from "./preprocess";

/** GCC's limit on nested #include, which it reports as an error. */
const MAX_NESTING = 200;
/** The combined text's limit: a header included again and again cannot fill memory. */
const MAX_COMBINED_CHARS = 64 * 1024 * 1024;

/** Where a run of the combined text's lines came from. */
export interface Segment {
  /** The first line of the run in the combined text, from 1. */
  line: number;
  /** The header's name as given, or "" for the source itself. */
  file: string;
  /** That line's number in its own file. */
  fileLine: number;
}

/** A source with the given headers in place of their #include lines. */
export interface Combined {
  text: string;
  /** In order of `line`; empty when no header was given. */
  segments: Segment[];
}

/** A header's name as includes spell it, relative to the source's folder: "common.h", "../cuda_compat.h". */
function normalName(name: string): string {
  return path.posix.normalize(name).replace(/^\.\//, "");
}

/** Checks compile's option `headers`: names and texts, by their normal names. */
export function checkHeaders(where: string, headers: unknown): Map<string, string> {
  const given = new Map<string, string>();
  if (headers === undefined) return given;
  const o = checkOptionsObject(where, headers, null, "options.headers");
  for (const [name, text] of Object.entries(o)) {
    const argument = `options.headers[${JSON.stringify(name)}]`;
    if (name === "" || name.startsWith("/") || /^[A-Za-z]:/.test(name) || /["\\\n<>]/.test(name) || normalName(name) === ".") {
      throw new ArgumentError(where, "options.headers", "an object whose keys are header names as an #include spells them, relative to the source's folder (\"common.h\", \"../utils/math.cuh\")", `the key ${JSON.stringify(name)}`);
    }
    if (typeof text !== "string") throw new ArgumentError(where, argument, "the header's text, a string", describe(text));
    const nul = text.indexOf("\0");
    if (nul >= 0) throw new ArgumentError(where, argument, "a string without NUL characters", `a NUL character on line ${text.slice(0, nul).split("\n").length}`);
    const normal = normalName(name);
    if (given.has(normal)) throw new ArgumentError(where, "options.headers", "an object naming each header once", `two keys for ${JSON.stringify(normal)}`);
    given.set(normal, text);
  }
  return given;
}

// What nvcc, NVRTC, hipcc and hiprtc define, which say which compiler and pass read a source.
// (HIP 5's older names of the platforms, `__HIP_PLATFORM_HCC__` and `__HIP_PLATFORM_NVCC__`, which builds
// such as MIOpen's and PyTorch's ROCm extensions pass with -D, are a build's to give, and so are the
// switches of HIP's headers, `__HIP_NO_HALF_OPERATORS__` and `__HIP_NO_HALF_CONVERSIONS__`, which
// PyTorch's ROCm builds pass.)
const COMPILER_MACROS = /^(?:__CUDA_ARCH__|__CUDACC\w*|__NVCC__|__HIP(?!_PLATFORM_(?:HCC|NVCC)__$|_NO_)\w*|__HIPCC\w*|__gfx\w+__|__GFX\d+__|__AMDGCN\w*|__AMDGPU__|__AMD__|__cplusplus|CUDA_VERSION|CUDART_VERSION)$/;

// A macro's name, with a function-like macro's parameters (`IX(x, y, z)`, `LOG(fmt, ...)`).
const MACRO_KEY = /^([A-Za-z_]\w*)(\(\s*(?:(?:[A-Za-z_]\w*\s*,\s*)*(?:[A-Za-z_]\w*|\.\.\.)\s*)?\))?$/;

/**
 * options.defines: the macros a project's build defines (`-DUSE_FAST_MATH`,
 * `-DBLOCK=256`, `-D'IX(x, y, z)=((x) + (y) * N)'`), as `{ USE_FAST_MATH: true,
 * BLOCK: 256, "IX(x, y, z)": "((x) + (y) * N)" }`; each value a string, a number,
 * or true for 1. Those the compilers define themselves (`__CUDA_ARCH__`,
 * `__HIP_PLATFORM_AMD__` ...) are refused. Each becomes a `#define` line before
 * the source, as the compiler's -D makes it.
 */
export function checkDefines(where: string, defines: unknown): Map<string, string> {
  const given = new Map<string, string>();
  if (defines === undefined) return given;
  const o = checkOptionsObject(where, defines, null, "options.defines");
  for (const [key, value] of Object.entries(o)) {
    const macro = MACRO_KEY.exec(key);
    const name = macro?.[1] ?? key;
    if (!macro || name.startsWith("FL_")) {
      throw new ArgumentError(where, "options.defines", "an object whose keys are macro names (letters, digits, _; not starting with FL_, which are fuselab's), " +
        "a function-like macro's with its parameters (\"IX(x, y, z)\")", `the key ${JSON.stringify(key)}`);
    }
    if (COMPILER_MACROS.test(name)) {
      throw new ArgumentError(where, "options.defines", `macros other than those a GPU's compiler defines itself (${name === "__CUDA_ARCH__" ? "options.arch picks the device code" : "fuselab defines them as each target's compiler does"})`, `the key ${JSON.stringify(name)}`);
    }
    const argument = `options.defines.${key}`;
    // A function-like macro's name and parameters as #define spells them: no space before the parenthesis.
    const defined = macro[2] ? `${name}(${macro[2].slice(1, -1).split(",").map((p) => p.trim()).join(", ")})` : name;
    if (value === true) given.set(defined, "1");
    else if (typeof value === "number" && Number.isFinite(value)) given.set(defined, String(value));
    else if (typeof value === "string" && !/[\n\r\0]/.test(value)) given.set(defined, value);
    else throw new ArgumentError(where, argument, "the macro's value: a string of one line, a finite number, or true (1)", describe(value));
  }
  return given;
}

const INCLUDE = /^\s*#\s*include\s*(?:"([^"\n]+)"|<([^<>\n]+)>)\s*$/;
const PRAGMA_ONCE = /^\s*#\s*pragma\s+once\s*$/;

/**
 * `source` with each #include of a header in `headers` replaced by its text,
 * at any depth. A quoted name is looked up beside the including header first,
 * then from the source's folder; a name in <> from the source's folder only.
 * A header with #pragma once is kept to one inclusion by a guard of its own,
 * shared by every name given the same text.
 */
export function withHeaders(where: string, source: string, headers: ReadonlyMap<string, string>): Combined {
  if (headers.size === 0) return { text: source, segments: [] };
  const out: string[] = [];
  const segments: Segment[] = [];
  // By text: a header given under two names (reached as "common.cuh" and as
  // "ggml-cuda/common.cuh") is one file to #pragma once, as GCC compares contents.
  const onceGuards = new Map<string, string>();
  let chars = 0;
  const emit = (line: string) => {
    chars += line.length + 1;
    if (chars > MAX_COMBINED_CHARS) {
      throw new ArgumentError(where, "options.headers", `headers that come to at most ${MAX_COMBINED_CHARS / 1024 / 1024} MiB of text once included`, "more (a header included over and over?)");
    }
    out.push(line);
  };
  const include = (file: string, text: string, chain: string[]) => {
    const lines = withoutComments(canonicalLines(text)).split("\n");
    const once = lines.some((l) => PRAGMA_ONCE.test(l));
    let guard: string | undefined;
    if (once) {
      guard = onceGuards.get(text) ?? `FL_HEADER_ONCE_${onceGuards.size}`;
      onceGuards.set(text, guard);
      emit(`#ifndef ${guard}`);
      emit(`#define ${guard}`);
    }
    let resume = 1;  // the file's line the next segment starts at
    segments.push({ line: out.length + 1, file, fileLine: 1 });
    lines.forEach((line, i) => {
      const m = INCLUDE.exec(line);
      const found = m ? lookUp(m[1] ?? m[2], m[1] !== undefined, file, headers) : undefined;
      if (found === undefined) {
        emit(once && PRAGMA_ONCE.test(line) ? "" : line);
        return;
      }
      if (chain.length >= MAX_NESTING) {
        throw new ArgumentError(where, "options.headers", `headers nested at most ${MAX_NESTING} deep`, `${[...chain, found].slice(-4).join(" includes ")} ... (a header that includes itself?)`);
      }
      include(found, headers.get(found)!, [...chain, found]);
      resume = i + 2;
      segments.push({ line: out.length + 1, file, fileLine: resume });
    });
    if (guard) emit("#endif");
  };
  include("", source, []);
  return { text: out.join("\n"), segments };
}

/** The given header an #include in `from` names, or undefined. */
function lookUp(name: string, quoted: boolean, from: string, headers: ReadonlyMap<string, string>): string | undefined {
  const beside = quoted ? normalName(path.posix.join(path.posix.dirname(from || "."), name)) : undefined;
  if (beside !== undefined && headers.has(beside)) return beside;
  const normal = normalName(name);
  return headers.has(normal) ? normal : undefined;
}

/** The file and line a line of the combined text came from. */
function locate(segments: readonly Segment[], line: number): { file: string; line: number } {
  let found: Segment | undefined;
  for (const s of segments) {
    if (s.line > line) break;
    found = s;
  }
  return found ? { file: found.file, line: found.fileLine + line - found.line } : { file: "", line };
}

/** A line of the combined text as messages name it: "12", or "3 of common.h" for a header's. */
export function lineName(segments: readonly Segment[], line: number): string {
  const at = locate(segments, line);
  return at.file ? `${at.line} of ${at.file}` : String(at.line);
}

/**
 * `text` (the combined text after translation, line for line) with a #line
 * before each segment, naming the header (or `file`, for the source's own
 * lines) as the compiler's messages will name it.
 */
export function withLineMarkers(text: string, segments: readonly Segment[], file: string): string {
  if (segments.length === 0) return text;
  const lines = text.split("\n");
  const starts = new Map(segments.map((s) => [s.line, s]));
  return lines.map((line, i) => {
    const s = starts.get(i + 1);
    return s ? `#line ${s.fileLine} "${s.file || file}"\n${line}` : line;
  }).join("\n");
}

/** A message's "line N" (and "lines N and M") as the file and line they came from. */
export function locatedMessage(message: string, segments: readonly Segment[]): string {
  if (segments.length === 0) return message;
  return message.replace(/\b(lines?) (\d+(?:(?:, | and )\d+)*)/g, (_all, word: string, list: string) =>
    `${word} ${list.replace(/\d+/g, (n) => lineName(segments, Number(n)))}`);
}
