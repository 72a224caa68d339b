// What a kernel source may make its compiler read. A compiler reads files by
// itself: #include, __has_include, #embed, `#pragma GCC dependency`, #line
// (GCC shows lines of the file it names in its messages) and an assembler's
// .incbin and .include. A source outside the grader's sandbox (a notebook, or
// a grader compiling before it sandboxes) must not read, embed or probe a file
// it was not given. This reads every line of the source, in branches taken or
// not, and refuses what could reach another file, naming the line; a relative
// name climbing out with .. in a branch not taken is replaced by an #error.
//
// On a GPU, NVRTC and hiprtc read the file system themselves, the process's
// working folder among the places they search: each #include is resolved here, among the
// folders the target may include from, and the compiler is given that file by
// its full path; a branch this preprocessor thinks is not taken gets an #error
// in place of a header it cannot find; __has_include is answered here, from
// those folders. On the CPU the host compiler searches only fuselab's and its
// own folders (the backend checks every header it opened, and the assembly it
// wrote, which no .incbin may reach).
import * as fs from "fs";
import * as path from "path";
import { ArgumentError } from "./errors";
import type { Target } from "./language";
import { Directive, Preprocessor, PpToken, lex, withoutComments } from "./preprocess";
import { withoutHostCode } from "./host-code";

// Assembler directives that read a file, or build directives (macros, loops, MRI mode) that could.
const ASSEMBLER_FILE_DIRECTIVE = /\.(?:incbin|include|macro|irpc?|rept|mri|altmacro)\b/i;
const ASSEMBLER_FILE_WORD = /^(?:incbin|include|macro|irpc?|rept|mri|altmacro)$/i;
// Names of file probes (__has_include, __has_include_next, __has_embed) and of headers' macros wrapping them.
const PROBE_NAME = /has_include|has_embed/i;

interface Refusal {
  expected: string;
  got: string;
}

class Refused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.got);
  }
}

// What a source must be, for each kind of refusal.
const HEADERS = "kernel code that includes only the toolkit's and fuselab's headers, by a relative name";
const PROBES = "kernel code that probes for headers only with __has_include(<name>) or __has_include(\"name\") written out, by a relative name";
const NO_LINE = "free of #line (the compiler would name another file in its messages, and show that file's lines)";
const NO_DEPENDENCY = "free of #pragma GCC dependency (it looks a file up)";
const NO_FILE_DIRECTIVES = "free of assembler directives that read a file (.incbin, .include) or build one (.macro, .irp, .rept)";

// NVIDIA's headers for what the CPU emulator does not have: asynchronous copies
// and their barriers, and cuRAND's generators other than
// XORWOW and Philox4_32_10. Each with what code that uses it names: a source that
// includes one and uses none of it (a project's common header) compiles without
// it on the CPU, or with the emulator's own where it has one (curand_kernel.h).
const NVIDIA_ONLY: { header: RegExp; use: RegExp; expected: string }[] = [
  {
    header: /^(?:cuda_pipeline(?:_primitives)?\.h|cuda_awbarrier(?:_primitives)?\.h|cooperative_groups\/memcpy_async\.h|cuda\/(?:pipeline|barrier|annotated_ptr))$/,
    use: /\b(?:__pipeline_\w+|__awbarrier\w*|memcpy_async|wait_prior|annotated_ptr|access_property|(?:cuda|std)::(?:pipeline|barrier|make_pipeline|pipeline_shared_state))\b/,
    expected: "code the CPU emulator can run (it models no asynchronous copies: run this source on an NVIDIA GPU)",
  },
  {
    header: /^(?:curand(?:_kernel|_philox4x32_x|_mtgp32_kernel|_mtgp32_host|_mrg32k3a|_poisson|_discrete2?|_lognormal|_normal|_uniform)?\.h|(?:hiprand\/)?hiprand_kernel\.h)$/,
    use: /\b(?:(?:cu|hip)randState(?:Sobol|ScrambledSobol|Mtgp32)\w*|(?:cu|hip)rand_(?:poisson|discrete|mtgp32\w*)|curandMakeMTGP32\w*|curandDiscreteDistribution\w*)\b/,
    expected: "code the CPU emulator can run (its cuRAND has the XORWOW, Philox4_32_10 and MRG32k3a generators, not Sobol or MTGP32, " +
      "nor the Poisson and discrete distributions: run this source on an NVIDIA GPU, or pass random numbers in from TS)",
  },
];

// The operating system's own headers (<linux/videodev2.h>, <sys/epoll.h>, <termios.h>),
// which a source's host code includes (a camera's capture, a socket): under NVRTC and
// hiprtc, which have none, what the C++ library's host-only headers stand for there
// (fuselab_rtc_host_only.h): nothing device code can use.
const OPERATING_SYSTEM_HEADER = /^(?:(?:linux|sys|asm|asm-generic|netinet|arpa|net|bits|X11)\/[\w/.+-]+|(?:termios|poll|sched|semaphore|dlfcn|syslog|pwd|grp|netdb|glob|libgen|spawn|utime|ifaddrs|iconv|langinfo|aio|mqueue|fnmatch|ftw)\.h)$/;

const refuse = (expected: string, got: string): never => {
  throw new Refused({ expected, got });
};

/**
 * The source as compilers read it: a leading byte-order mark dropped (an editor on
 * Windows writes one), \r\n and \r as \n, and a backslash that only spaces part
 * from its newline joined to it.
 */
export function canonicalLines(source: string): string {
  return source.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").replace(/\\[ \t\f\v]+\n/g, "\\\n");
}

/** A header name's text ("cuda_fp16.h") from `<...>` or `"..."`, or undefined when it is not written out. */
function headerName(operand: string): string | undefined {
  const m = /^\s*(?:<([^<>"\n]*)>|"([^"\n]*)")\s*$/.exec(operand);
  return m ? m[1] ?? m[2] : undefined;
}

/** Why `name` may not be included or probed, or undefined: relative, inside the folders searched, no way up. */
function unsafeName(name: string): string | undefined {
  if (name.trim() === "") return "an empty header name";
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return `${JSON.stringify(name)} (a full path)`;
  if (name.includes("\\")) return `${JSON.stringify(name)} (with a backslash)`;
  if (name.split("/").some((part) => part === "..")) return `${JSON.stringify(name)} (which climbs out with ..)`;
  return undefined;
}

/**
 * The file `name` names in the first folder holding it, spelled as the
 * compiler's own search spells it (folder/name: a header included both ways is
 * one file to #pragma once), when its real path lies inside the folder's.
 */
function findHeader(name: string, folders: readonly string[]): string | undefined {
  for (const folder of folders) {
    const spelled = path.join(folder, name);
    let file: string;
    let root: string;
    try {
      file = fs.realpathSync(spelled);
      root = fs.realpathSync(folder);
    } catch {
      continue;
    }
    if (file.startsWith(root + path.sep) && fs.statSync(file).isFile()) return spelled;
  }
  return undefined;
}

/** The value of a string literal's token ("\x2eincbin" is ".incbin"): escapes decoded, prefixes dropped. */
function stringValue(token: string): string {
  const body = token.replace(/^[^"']*["']/, "").replace(/["']$/, "");
  return body.replace(/\\(x[0-9A-Fa-f]+|[0-7]{1,3}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|[\s\S])/g, (_all, e: string) => {
    if (/^x/.test(e)) return String.fromCodePoint(parseInt(e.slice(1), 16) & 0x10ffff);
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    if (/^[uU]/.test(e)) return String.fromCodePoint(parseInt(e.slice(1), 16) & 0x10ffff);
    return ({ n: "\n", t: "\t", r: "\r", v: "\v", f: "\f", a: "\x07", b: "\b", e: "\x1b" } as Record<string, string>)[e] ?? e;
  });
}

interface Located extends PpToken {
  line: number;
  /** Where it starts and ends in the text it was read from. */
  at: number;
  end: number;
}

/**
 * The tokens of `text` as the compiler reads them, line splices (backslash,
 * newline) removed, each with the line it starts on (counted from
 * `firstLine`) and its place in `text`.
 */
function located(text: string, firstLine = 1): Located[] {
  let joined = "";
  const splices: number[] = [];  // where in `joined` each removed splice was
  let from = 0;
  for (let at = text.indexOf("\\\n"); at >= 0; at = text.indexOf("\\\n", from)) {
    joined += text.slice(from, at);
    splices.push(joined.length);
    from = at + 2;
  }
  joined += text.slice(from);
  const original = (j: number) => {
    let k = 0;
    while (k < splices.length && splices[k] <= j) k++;
    return j + 2 * k;
  };
  const starts = lineStarts(text);
  const lineOf = (at: number) => {
    let lo = 0, hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    return firstLine + lo;
  };
  let j = 0;
  return lex(joined).map((t) => {
    const at = original(j);
    const end = original(j + t.text.length - 1) + 1;
    j += t.text.length;
    return { ...t, line: lineOf(at), at, end };
  });
}

/** The index of the first token from `i` that is not white space (tokens.length when none). */
function skipSpace(tokens: readonly Located[], i: number): number {
  while (i < tokens.length && tokens[i].kind === "ws") i++;
  return i;
}

/** An __has_include probe's written-out header name, and the span of tokens it takes, or undefined. */
function probeOperand(tokens: readonly Located[], i: number): { name: string; end: number } | undefined {
  let j = skipSpace(tokens, i + 1);
  if (tokens[j]?.text !== "(") return undefined;
  j = skipSpace(tokens, j + 1);
  let operand = "";
  if (tokens[j]?.kind === "str" && tokens[j].text.startsWith("\"")) {
    operand = tokens[j++].text;
  } else if (tokens[j]?.text === "<") {
    while (j < tokens.length && tokens[j].text !== ">" && !tokens[j].text.includes("\n")) operand += tokens[j++].text;
    if (tokens[j]?.text !== ">") return undefined;
    operand += tokens[j++].text;
  } else {
    return undefined;
  }
  j = skipSpace(tokens, j);
  if (tokens[j]?.text !== ")") return undefined;
  const name = headerName(operand);
  return name === undefined ? undefined : { name, end: j + 1 };
}

/** Whether the name at `i` is the operand of `defined` (`defined X`, `defined(X)`). */
function isDefinedOperand(tokens: readonly Located[], i: number): boolean {
  let j = i - 1;
  while (j >= 0 && tokens[j].kind === "ws") j--;
  if (tokens[j]?.text === "(") {
    j--;
    while (j >= 0 && tokens[j].kind === "ws") j--;
  }
  return tokens[j]?.text === "defined";
}

/** A probe answered on the device's behalf: the span of text that becomes 1 or 0. */
interface Answer {
  at: number;
  end: number;
  value: boolean;
}

/**
 * Checks the tokens of `text` (lines counted from `firstLine`): file probes,
 * _Pragma, `GCC dependency`, and assembler directives that read files in
 * strings or spelled out. `directiveOn(line)`: the directive a line belongs
 * to. `answer(name)`: a probe's answer on the device's behalf (undefined: the
 * compiler answers), added to `answers` when given.
 */
function checkTokens(text: string, firstLine: number, directiveOn: (line: number) => string | undefined,
  answer: (name: string) => boolean | undefined, answers?: Answer[]): void {
  const tokens = located(text, firstLine);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const directive = directiveOn(t.line);
    if (t.kind === "id" && PROBE_NAME.test(t.text)) {
      const operand = t.text === "__has_include" ? probeOperand(tokens, i) : undefined;
      const next = tokens[skipSpace(tokens, i + 1)];
      if (operand) {
        const unsafe = unsafeName(operand.name);
        if (unsafe) refuse(PROBES, `__has_include of ${unsafe} on line ${t.line}`);
        const value = answer(operand.name);
        if (value !== undefined) answers?.push({ at: t.at, end: tokens[operand.end - 1].end, value });
        i = operand.end - 1;
        continue;
      }
      // Named, not called: `#ifdef __has_include`, `defined(__has_include)`.
      if (next?.text !== "(" && (directive === "ifdef" || directive === "ifndef" || isDefinedOperand(tokens, i))) continue;
      refuse(PROBES, `${t.text} on line ${t.line}${t.text === "__has_include" ? ", with a header name that is not written out" : ""}`);
    }
    if (t.kind === "id" && t.text === "_Pragma") {
      let j = skipSpace(tokens, i + 1);
      const open = tokens[j]?.text === "(";
      j = skipSpace(tokens, j + 1);
      if (!open || tokens[j]?.kind !== "str") refuse("kernel code whose _Pragma operators have their string written out", `_Pragma with a computed operand on line ${t.line}`);
      if (/dependency/i.test(stringValue(tokens[j].text))) refuse(NO_DEPENDENCY, `_Pragma("GCC dependency ...") on line ${t.line}`);
    }
    if (t.kind === "id" && t.text === "dependency") {
      let j = i - 1;
      while (j >= 0 && tokens[j].kind === "ws") j--;
      if (tokens[j]?.text === "GCC") refuse(NO_DEPENDENCY, `GCC dependency on line ${t.line}`);
    }
    if (t.kind === "id" && ASSEMBLER_FILE_WORD.test(t.text) && tokens[i - 1]?.text === ".") {
      refuse(NO_FILE_DIRECTIVES, `.${t.text} on line ${t.line}`);
    }
    if (t.kind === "str") {
      // Adjacent literals are one string: ".inc" "bin".
      let value = stringValue(t.text);
      let j = skipSpace(tokens, i + 1);
      while (tokens[j]?.kind === "str") {
        value += stringValue(tokens[j].text);
        j = skipSpace(tokens, j + 1);
      }
      const directiveFound = ASSEMBLER_FILE_DIRECTIVE.exec(value);
      if (directiveFound) {
        refuse(NO_FILE_DIRECTIVES, `${directiveFound[0]} in a string on line ${t.line}`);
      }
      if (/GCC\s+dependency/i.test(value)) refuse(NO_DEPENDENCY, `GCC dependency in a string on line ${t.line}`);
    }
  }
}

/** The physical lines of `text` and where each starts. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

/**
 * Checks what `source` could make the compiler of `target` read (see the top
 * of this file) and returns the text to compile: comments blanked, line ends
 * as the compiler reads them, and on a GPU each #include by the full path of
 * the header found in `folders` (searched in order) and each __has_include
 * answered from them. Lines keep their numbers. Throws an ArgumentError naming
 * the line of what it refuses.
 */
export function guardFileAccess(where: string, source: string, target: Target, predefined: Record<string, string>, folders: readonly string[]): string {
  const text = withoutComments(canonicalLines(source));
  try {
    return guarded(text, target, predefined, folders);
  } catch (e) {
    if (e instanceof Refused) throw new ArgumentError(where, "source", e.refusal.expected, e.refusal.got);
    throw e;
  }
}

// CUDA's toolkit headers are NVIDIA's: an AMD GPU's compiler has HIP's instead.
const HIP_FORMS: Record<string, string> = {
  "cuda_fp16.h": "hip/hip_fp16.h",
  "cuda_bf16.h": "hip/hip_bf16.h",
  "cooperative_groups.h": "hip/hip_cooperative_groups.h",
};

function cudaHeaderOnAmd(header: string): string | undefined {
  const hip = HIP_FORMS[header];
  if (hip) return `it is CUDA's, for NVIDIA GPUs; on an AMD GPU include <${hip}>`;
  if (/^(?:cub|cuda|thrust)\//.test(header)) return "it is part of CUDA's C++ library, for NVIDIA GPUs, which hiprtc does not have";
  return undefined;
}

function guarded(text: string, target: Target, predefined: Record<string, string>, folders: readonly string[]): string {
  const onDevice = target !== "cpu";
  // hiprtc's own headers (hip/hip_fp16.h) are in no folder: it answers for those fuselab does not give.
  const compilersOwn = (name: string) => target === "hip" && name.startsWith("hip/") && findHeader(name, folders) === undefined;
  const answer = (name: string): boolean | undefined => (!onDevice || compilersOwn(name) ? undefined : findHeader(name, folders) !== undefined);

  const directives: Directive[] = [];
  const expanded = new Preprocessor(predefined).run(text, directives);
  const directiveOfLine = new Map<number, string>();
  for (const d of directives) for (let i = 0; i < d.lines; i++) directiveOfLine.set(d.line + i, d.name);
  const directiveOn = (line: number) => directiveOfLine.get(line);
  // Whole lines replaced (a directive), and spans answered (a probe), in the text sent to the compiler.
  const replacedLines = new Map<number, string>();
  const answers: Answer[] = [];
  let deviceCode: string | undefined;

  for (const d of directives) {
    const at = `on line ${d.line}`;
    if (d.expanded !== undefined) checkTokens(d.expanded, d.line, () => d.name, answer);
    if (d.name === "line" || /^\d/.test(d.name)) {
      refuse(NO_LINE, `#line ${at}`);
    }
    if (d.name === "embed" || d.name === "include_next" || d.name === "import") {
      refuse(HEADERS, `#${d.name} ${at}`);
    }
    if (d.name === "pragma" && /\bdependency\b/i.test(d.rest)) {
      refuse(NO_DEPENDENCY, `#pragma ${d.rest.trim()} ${at}`);
    }
    if (d.name !== "include") continue;
    const header = headerName(d.rest) ?? (d.expanded !== undefined ? headerName(d.expanded) : undefined);
    if (header === undefined) {
      // On the CPU the backend checks whatever file the compiler opened; on a GPU nothing would.
      if (onDevice) refuse(`${HEADERS}, written out or given by a macro of the source itself`, `#include ${d.rest.trim()} ${at}`);
      continue;
    }
    const unsafe = unsafeName(header);
    // A project's own fallback in a branch not taken (cuSZ's `#else` for CUDA 10, a vendored
    // "../../external/cub/cub/cub.cuh") stops the compiler, should it take the branch after all.
    if (unsafe && !d.active && unsafe.endsWith("(which climbs out with ..)")) {
      replacedLines.set(d.line, `#error "fuselab: a header outside the folders given (${header.replace(/["\\]/g, "")})"`);
      for (let i = 1; i < d.lines; i++) replacedLines.set(d.line + i, "");
      continue;
    }
    if (unsafe) refuse(HEADERS, `#include of ${unsafe} ${at}`);
    const nvidiaOnly = target === "cpu" && d.active ? NVIDIA_ONLY.find((h) => h.header.test(header)) : undefined;
    if (nvidiaOnly) {
      // Used by device code: host code (a generator made in main) is left out before the compile.
      deviceCode ??= new Preprocessor(predefined).run(withoutHostCode(text, { predefined }));
      const use = nvidiaOnly.use.exec(deviceCode);
      if (use) refuse(nvidiaOnly.expected, `#include <${header}> ${at}, and ${use[0]} on line ${deviceCode.slice(0, use.index).split("\n").length}`);
      if (findHeader(header, folders) === undefined) replacedLines.set(d.line, "");
      continue;
    }
    // HIP's headers on the CPU are the emulator's: an installed HIP's, written for hipcc's
    // own definitions, would be mixed in where the emulator has no header of that name.
    if (target === "cpu" && d.active && /^(?:hip|hipcub|hiprand|rocprim|rocrand)\//.test(header) && findHeader(header, folders) === undefined) {
      refuse(`${HEADERS}: on the CPU, HIP's are the emulator's`, `#include of ${JSON.stringify(header)}, which is not among them, ${at}`);
    }
    if (!onDevice || compilersOwn(header)) continue;
    const file = findHeader(header, folders) ?? (OPERATING_SYSTEM_HEADER.test(header) ? findHeader("fuselab_rtc_host_only.h", folders) : undefined);
    if (file && !/["\\\n]/.test(file)) {
      replacedLines.set(d.line, `#include "${file}"`);
    } else if (d.active) {
      const hip = target === "hip" ? cudaHeaderOnAmd(header) : undefined;
      const own = d.rest.trim().startsWith("\"") ? ": a project's own header is given with its text in compile's option headers" : "";
      refuse(`${HEADERS} (one this device's compiler finds among them)`, `#include of ${JSON.stringify(header)}, which is none of them, ${at}${hip ? `: ${hip}` : own}`);
    } else {
      // A branch this preprocessor thinks is not taken: should the compiler take it, it stops here.
      replacedLines.set(d.line, `#error "fuselab: this header is not one of the toolkit's or fuselab's"`);
    }
    for (let i = 1; i < d.lines; i++) replacedLines.set(d.line + i, "");
  }
  // Every line as written, in branches taken or not, then the taken ones as this preprocessor expands them.
  checkTokens(text, 1, directiveOn, answer, answers);
  checkTokens(expanded, 1, () => undefined, answer);
  return rebuild(text, lineStarts(text), replacedLines, answers);
}

/** `text` with whole lines replaced and answered probes as 1 or 0; newlines inside a probe are kept. */
function rebuild(text: string, starts: number[], replacedLines: Map<number, string>, answers: Answer[]): string {
  const edits: { at: number; end: number; text: string }[] = [];
  for (const [line, replacement] of replacedLines) {
    const at = starts[line - 1];
    const end = (starts[line] ?? text.length + 1) - 1;
    edits.push({ at, end, text: replacement });
  }
  const inReplacedLine = (at: number) => edits.some((e) => at >= e.at && at <= e.end);
  const seen = new Set<number>();
  for (const a of answers) {
    if (seen.has(a.at) || inReplacedLine(a.at)) continue;
    seen.add(a.at);
    const newlines = text.slice(a.at, a.end).match(/\\\n/g)?.length ?? 0;
    edits.push({ at: a.at, end: a.end, text: (a.value ? "1" : "0") + " \\\n".repeat(newlines) });
  }
  edits.sort((x, y) => x.at - y.at);
  let out = "";
  let from = 0;
  for (const e of edits) {
    if (e.at < from) continue;
    out += text.slice(from, e.at) + e.text;
    from = e.end;
  }
  return out + text.slice(from);
}
