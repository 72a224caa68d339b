// Finds the __global__ functions of a HIP source and parses their parameter
// lists, so that launches can be checked before they reach the device.
import { ArgumentError } from "./errors";

/** One parameter of a kernel. */
export interface KernelParam {
  /** The parameter's name in the source or the built-in's export ("" when unnamed or unknown). */
  name: string;
  /** Element type for pointers, value type for scalars: "f32", "i32", "u64", ... ("void" for other pointees). */
  type: string;
  pointer: boolean;
  /** For pointers: the pointee is const (the kernel only reads it). */
  isConst: boolean;
  /** The declaration as written, tidied: "const float*", "int", or the built-in's "const f32*". */
  declaration: string;
}

/** A __global__ function found in a source. */
export interface KernelDeclaration {
  name: string;
  params: KernelParam[];
  /** Line of the declaration in the source (1-based). */
  line: number;
}

// C spellings (qualifiers and the pointer star removed, words in order) -> element types.
const C_TYPES: Record<string, string> = {
  "float": "f32", "double": "f64",
  "__half": "f16", "half": "f16", "fl_half": "f16",
  "fl_bf16": "bf16", "__nv_bfloat16": "bf16", "__hip_bfloat16": "bf16", "hip_bfloat16": "bf16",
  "char": "i8", "signed char": "i8", "int8_t": "i8",
  "unsigned char": "u8", "uint8_t": "u8",
  "short": "i16", "short int": "i16", "signed short": "i16", "int16_t": "i16",
  "unsigned short": "u16", "unsigned short int": "u16", "uint16_t": "u16",
  "int": "i32", "signed": "i32", "signed int": "i32", "int32_t": "i32",
  "unsigned": "u32", "unsigned int": "u32", "uint32_t": "u32",
  "long": "i64", "long int": "i64", "long long": "i64", "long long int": "i64", "signed long": "i64",
  "int64_t": "i64", "ptrdiff_t": "i64", "ssize_t": "i64", "intptr_t": "i64",
  "unsigned long": "u64", "unsigned long int": "u64", "unsigned long long": "u64", "unsigned long long int": "u64",
  "uint64_t": "u64", "size_t": "u64", "uintptr_t": "u64",
  // Vector types point at their element type: a float4* reads an f32 tensor.
  "float2": "f32", "float4": "f32", "int2": "i32", "int4": "i32", "uint2": "u32", "uint4": "u32",
  "void": "void",
};

const QUALIFIERS = new Set(["const", "volatile", "__restrict__", "__restrict", "restrict", "struct", "class", "typename", "register"]);

/** Scalar types a launch can pass. */
export const SCALAR_TYPES = ["i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64"] as const;

/**
 * The source with comments, string and character literals and preprocessor
 * lines blanked out (newlines kept, so positions still give line numbers).
 */
function stripNonCode(source: string): string {
  const out = source.split("");
  const blank = (from: number, to: number): void => {
    for (let i = from; i < to && i < out.length; i++) if (out[i] !== "\n") out[i] = " ";
  };
  let i = 0;
  let lineStart = true;
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (lineStart && c === "#") {
      let end = i;
      while (end < source.length && !(source[end] === "\n" && source[end - 1] !== "\\")) end++;
      blank(i, end);
      i = end;
      continue;
    }
    if (c === "\n") lineStart = true;
    else if (c !== " " && c !== "\t" && c !== "\r") lineStart = false;
    if (c === "/" && next === "/") {
      let end = source.indexOf("\n", i);
      if (end < 0) end = source.length;
      blank(i, end);
      i = end;
    } else if (c === "/" && next === "*") {
      let end = source.indexOf("*/", i + 2);
      end = end < 0 ? source.length : end + 2;
      blank(i, end);
      i = end;
    } else if (c === "\"" || c === "'") {
      // A raw string R"delim( ... )delim" ends at its own delimiter.
      if (c === "\"" && source[i - 1] === "R") {
        const open = source.indexOf("(", i);
        const delimiter = ")" + source.slice(i + 1, open) + "\"";
        const close = source.indexOf(delimiter, open);
        const end = close < 0 ? source.length : close + delimiter.length;
        blank(i, end);
        i = end;
        continue;
      }
      let end = i + 1;
      while (end < source.length && source[end] !== c && source[end] !== "\n") end += source[end] === "\\" ? 2 : 1;
      blank(i, end + 1);
      i = end + 1;
    } else {
      i++;
    }
  }
  return out.join("");
}

type Token = { text: string; at: number };

function tokenize(code: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /[A-Za-z_][A-Za-z0-9_]*|::|\d[\w.]*|\S/g;
  for (let m = pattern.exec(code); m; m = pattern.exec(code)) tokens.push({ text: m[0], at: m.index });
  return tokens;
}

function lineAt(code: string, at: number): number {
  let line = 1;
  for (let i = 0; i < at; i++) if (code[i] === "\n") line++;
  return line;
}

// The index of the token closing the bracket opened at tokens[open].
function closing(tokens: Token[], open: number): number {
  const pairs: Record<string, string> = { "(": ")", "<": ">", "[": "]", "{": "}" };
  const opener = tokens[open].text;
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (tokens[i].text === opener) depth++;
    else if (tokens[i].text === pairs[opener]) {
      depth--;
      if (depth === 0) return i;
    }
  }
  return tokens.length;
}

function unsupported(kernel: string, line: number, index: number, declaration: string, why: string): never {
  throw new ArgumentError("fl.compile", "source",
    `kernels whose parameters are pointers or scalars of a type fuselab can pass (${why})`,
    `parameter ${index} of ${kernel} (line ${line}) declared as "${declaration}"`);
}

function parseParam(kernel: string, line: number, index: number, tokens: Token[]): KernelParam {
  const equals = tokens.findIndex((t) => t.text === "="); // a default argument
  const words = (equals >= 0 ? tokens.slice(0, equals) : tokens).map((t) => t.text);
  const written = words.join(" ").replace(/ ?:: ?/g, "::").replace(/ \*/g, "*");
  if (words.includes("&") || words.includes("&&")) unsupported(kernel, line, index, written, "a reference cannot be passed to a kernel");
  if (words.filter((w) => w === "*").length > 1) unsupported(kernel, line, index, written, "a pointer to a pointer cannot point into a tensor");
  const star = words.indexOf("*");
  const pointer = star >= 0 || words.includes("[");
  // const before the star qualifies the pointee; after it, only the pointer itself.
  const isConst = pointer && words.slice(0, star >= 0 ? star : words.length).includes("const");
  const identifiers = words.filter((w) => /^[A-Za-z_]/.test(w) && !QUALIFIERS.has(w) && w !== "std");
  // The last identifier names the parameter unless the words are all one type ("unsigned int", "float").
  const named = identifiers.length >= 2 && !(identifiers.join(" ") in C_TYPES);
  const name = named ? identifiers[identifiers.length - 1] : "";
  const spelled = (named ? identifiers.slice(0, -1) : identifiers).join(" ");
  let type = C_TYPES[spelled];
  if (type === undefined) {
    if (!pointer) unsupported(kernel, line, index, written, `scalars are integers, float or double; "${spelled}" is none of these`);
    type = "void"; // a pointer to a struct or other type: any tensor will do
  }
  if (!pointer && type === "void") unsupported(kernel, line, index, written, "void is not a value");
  const declaration = `${isConst ? "const " : ""}${spelled}${pointer ? "*" : ""}`;
  return { name, type, pointer, isConst, declaration };
}

function sameParams(a: readonly KernelParam[], b: readonly KernelParam[]): boolean {
  return a.length === b.length && a.every((p, n) => p.declaration === b[n].declaration);
}

/** Every __global__ function of `source`, with its parameters; templates are refused with advice. */
export function parseKernels(source: string): KernelDeclaration[] {
  const code = stripNonCode(source);
  const tokens = tokenize(code);
  const kernels: KernelDeclaration[] = [];
  for (let g = 0; g < tokens.length; g++) {
    if (tokens[g].text !== "__global__") continue;
    // The declaration starts after the previous ; } or { (or a template's closing >).
    let start = g;
    while (start > 0 && !([";", "}", "{"].includes(tokens[start - 1].text))) start--;
    const isTemplate = tokens.slice(start, g).some((t) => t.text === "template");
    let i = g + 1;
    let name = "";
    while (i < tokens.length && tokens[i].text !== "(") {
      const t = tokens[i].text;
      if (["__launch_bounds__", "__attribute__", "__declspec", "alignas"].includes(t) && tokens[i + 1]?.text === "(") {
        i = closing(tokens, i + 1) + 1;
        continue;
      }
      if (/^[A-Za-z_]/.test(t)) name = t;
      i++;
    }
    if (i >= tokens.length || name === "") continue;
    const line = lineAt(code, tokens[g].at);
    if (isTemplate) {
      throw new ArgumentError("fl.compile", "source",
        "__global__ functions that are not templates (make the template a __device__ function and call it from one non-template __global__ wrapper per type)",
        `the template __global__ function ${name} (line ${line})`);
    }
    const close = closing(tokens, i);
    const params: KernelParam[] = [];
    let current: Token[] = [];
    let depth = 0;
    for (let j = i + 1; j < close; j++) {
      const t = tokens[j].text;
      if (t === "(" || t === "<" || t === "[") depth++;
      if (t === ")" || t === ">" || t === "]") depth--;
      if (t === "," && depth === 0) {
        params.push(parseParam(name, line, params.length, current));
        current = [];
      } else {
        current.push(tokens[j]);
      }
    }
    if (current.length > 0 && !(current.length === 1 && current[0].text === "void")) params.push(parseParam(name, line, params.length, current));
    const earlier = kernels.find((k) => k.name === name);
    if (earlier && sameParams(earlier.params, params)) {
      g = close; // a prototype and its definition
      continue;
    }
    if (earlier) {
      throw new ArgumentError("fl.compile", "source", "one __global__ function of each name (kernels cannot be overloaded)",
        `two named ${name} (lines ${earlier.line} and ${line})`);
    }
    kernels.push({ name, params, line });
    g = close;
  }
  return kernels;
}

/**
 * Parameters from the addon's signature string: "f32* out,const f32* x,i32 n"
 * for built-ins, whose exports name their parameters; "f32*,const f32*,i32"
 * where the names are unknown.
 */
export function paramsFromSignature(signature: string): KernelParam[] {
  if (signature.trim() === "") return [];
  return signature.split(",").map((item) => {
    // A name follows the type after a space; a type alone is one word ("i32") or ends with '*'.
    const named = /^(.*\S)\s+([A-Za-z_]\w*)$/.exec(item.trim());
    const declaration = named ? named[1] : item.trim();
    const name = named ? named[2] : "";
    const pointer = declaration.endsWith("*");
    const isConst = pointer && declaration.startsWith("const ");
    const type = declaration.replace(/^const\s+/, "").replace(/\*$/, "").trim();
    return { name, type, pointer, isConst, declaration };
  });
}
