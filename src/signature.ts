// Finds the __global__ functions of a HIP source and parses their parameter
// lists, so that launches can be checked before they reach the device.
import type { Fp8Conversion } from "./dtype";
import { ArgumentError } from "./errors";
import { DeclaredMember, MemberScalar, MemberType, StructLayout, VECTOR_TYPES, layoutStruct } from "./layout";
import { Preprocessor } from "./preprocess";

export { SCALAR_TYPES } from "./layout";

/** One parameter of a kernel. */
export interface KernelParam {
  /** The parameter's name in the source or the built-in's export ("" when unnamed or unknown). */
  name: string;
  /**
   * Element type for pointers, value type for scalars: "f32", "i32", "u64", ...
   * ("void" for other pointees); "struct" for a struct passed by value (its
   * layout in `layout`); a backend's signature spells a struct "struct:<size>:<alignment>".
   */
  type: string;
  pointer: boolean;
  /** For pointers: the pointee is const (the kernel only reads it). */
  isConst: boolean;
  /** The declaration as written, tidied: "const float*", "int", "Params", or the built-in's "const f32*". */
  declaration: string;
  /** A struct passed by value (a vector type among them): its members, as the C ABI lays them out. */
  layout?: StructLayout;
  /** A PyTorch tensor accessor passed by value (its layout in `layout`): it takes a tensor of `dims` dimensions. */
  accessor?: TensorAccessor;
  /** A `cuda::std::span<T>` by value (its pointer and size in `layout`): it takes a tensor of T's dtype or a view of one. */
  span?: { element: string };
  /** A `cuda::std::mdspan` by value (its pointer, dynamic extents and strides in `layout`): it takes a tensor of its rank or `{ data, extents, strides }`. */
  mdspan?: MdspanParam;
  /** An 8-bit float by value (its byte in `layout`): it takes a number, rounded as the type's constructor rounds it. */
  fp8?: Fp8Conversion;
  /** A pointer to a `__device__` function (`float (*f)(float, float)`), its type without the name ("float(*)(float, float)"): it takes a module's variable holding one. */
  functionPointer?: string;
  /**
   * Its default argument (`bool negate = false`), which a launch leaving it out passes:
   * a number, bigint, boolean or null (a pointer's nullptr); or the text of one fuselab
   * cannot evaluate (`scale = kScale * 2`), which a launch must pass.
   */
  fallback?: number | bigint | boolean | null | { text: string };
}

// The 8-bit float types by value: CUDA's saturate as their constructors do, c10's do not.
const FP8_TYPES: Record<string, Fp8Conversion> = {
  "__nv_fp8_e4m3": { format: "e4m3", saturate: true, viaFloat: false },
  "__nv_fp8_e5m2": { format: "e5m2", saturate: true, viaFloat: false },
  "Float8_e4m3fn": { format: "e4m3", saturate: false, viaFloat: true },
  "Float8_e5m2": { format: "e5m2", saturate: false, viaFloat: true },
};

/**
 * What a PackedTensorAccessor32/64<T, N> parameter holds: T's dtype, N, and the
 * integer type of its sizes and strides; for a TensorInfo<T, IndexType>, N is the
 * most dimensions it holds, and it takes a tensor of up to that many.
 */
export interface TensorAccessor {
  element: string;
  dims: number;
  index: AccessorIndex;
  tensorInfo?: boolean;
}

/** The integer types an accessor's sizes and strides may have (`PackedTensorAccessor<T, N, Traits, size_t>` among them). */
export type AccessorIndex = "i32" | "u32" | "i64" | "u64";
const ACCESSOR_INDEX: readonly string[] = ["i32", "u32", "i64", "u64"];

/** The structs a source defines, by name: each one's layout, or why it cannot be passed by value; a template struct's definition. */
export type SourceStructs = ReadonlyMap<string, StructLayout | string | StructTemplate>;

/** A template struct of a source (`template <typename T> struct Matrix { T value[4][4]; };`): laid out for each instance a parameter names. */
interface StructTemplate {
  kind: "template";
  params: TemplateParam[];
  body: Token[];
  align: number;
  aliases: Map<string, string>;
}

function isStructTemplate(value: StructLayout | string | StructTemplate | undefined): value is StructTemplate {
  return typeof value === "object" && "kind" in value && value.kind === "template";
}

/** A __global__ function found in a source. */
export interface KernelDeclaration {
  name: string;
  params: KernelParam[];
  /** Line of the declaration in the source (1-based). */
  line: number;
  /** The most threads a block may have, from `__launch_bounds__(N)`: a launch of more fails on a GPU. */
  maxThreads?: number;
  /**
   * How the compilers are to name it when a function that is not a kernel shares its
   * name: with its parameter types ("k(int, const float*)"), which pick the overload.
   */
  exportedAs?: string;
  /**
   * Declared `extern "C"`: its symbol is its unqualified name. A GPU's run-time
   * compiler is not asked to look it up by its address, which NVRTC evaluates in
   * its host pass, where a kernel under `#if __CUDA_ARCH__ >= 800` does not exist.
   */
  cLinkage?: true;
}

// C spellings (qualifiers and the pointer star removed, words in order) -> element types.
const C_TYPES: Record<string, string> = {
  "float": "f32", "double": "f64",
  "__half": "f16", "half": "f16", "fl_half": "f16", "_Float16": "f16",
  "fl_bf16": "bf16", "__nv_bfloat16": "bf16", "__hip_bfloat16": "bf16", "hip_bfloat16": "bf16",
  // PyTorch's (kernels/fuselab/torch).
  "c10::Half": "f16", "at::Half": "f16", "torch::Half": "f16",
  "c10::BFloat16": "bf16", "at::BFloat16": "bf16", "torch::BFloat16": "bf16",
  "char": "i8", "signed char": "i8", "int8_t": "i8",
  "unsigned char": "u8", "uint8_t": "u8", "u_char": "u8", "u_int8_t": "u8",
  "short": "i16", "short int": "i16", "signed short": "i16", "int16_t": "i16",
  "unsigned short": "u16", "unsigned short int": "u16", "uint16_t": "u16", "ushort": "u16", "u_short": "u16", "u_int16_t": "u16",
  "int": "i32", "signed": "i32", "signed int": "i32", "int32_t": "i32", "hipLaunchParm": "i32",
  "unsigned": "u32", "unsigned int": "u32", "uint32_t": "u32", "uint": "u32", "u_int": "u32", "u_int32_t": "u32",
  "long": "i64", "long int": "i64", "long long": "i64", "long long int": "i64", "signed long": "i64",
  "int64_t": "i64", "ptrdiff_t": "i64", "ssize_t": "i64", "intptr_t": "i64",
  "unsigned long": "u64", "unsigned long int": "u64", "unsigned long long": "u64", "unsigned long long int": "u64",
  "uint64_t": "u64", "size_t": "u64", "uintptr_t": "u64", "ulong": "u64", "u_long": "u64", "u_int64_t": "u64",
  // Vector types as a span's or an accessor's elements: their element type.
  "float2": "f32", "float4": "f32", "int2": "i32", "int4": "i32", "uint2": "u32", "uint4": "u32",
  "void": "void",
};

const QUALIFIERS = new Set(["const", "volatile", "__restrict__", "__restrict", "restrict", "struct", "class", "typename", "register"]);

/**
 * The source with comments, string and character literals and preprocessor
 * lines blanked out (newlines kept, so positions still give line numbers).
 */
export function stripNonCode(source: string): string {
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

/** A token of the source and its offset. */
export type Token = { text: string; at: number };

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
    `kernels whose parameters are pointers, scalars or structs fuselab can pass (${why})`,
    `parameter ${index} of ${kernel} (line ${line}) declared as "${declaration}"`);
}

// A type's name from its words: qualifiers and std:: left out, scopes kept ("const cfg :: Window" -> "cfg::Window").
function typeName(words: readonly string[]): string {
  const kept: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (words[i] === "std" && words[i + 1] === "::") i++;
    else if (words[i] === "::" ? kept.length > 0 : /^[A-Za-z_]/.test(words[i]) && !QUALIFIERS.has(words[i])) kept.push(words[i]);
  }
  return integerSpelling(kept) ?? kept.join(" ").replace(/ ?:: ?/g, "::");
}

const INTEGER_WORDS = new Set(["unsigned", "signed", "short", "long", "int", "char"]);

// C's integer types in the one spelling C_TYPES knows, for words in any order C allows ("long unsigned int", as GCC prints it).
function integerSpelling(words: readonly string[]): string | undefined {
  if (words.length < 2 || !words.every((w) => INTEGER_WORDS.has(w))) return undefined;
  const unsigned = words.includes("unsigned"), longs = words.filter((w) => w === "long").length;
  if (words.includes("char")) return unsigned ? "unsigned char" : words.includes("signed") ? "signed char" : "char";
  const size = words.includes("short") ? "short" : longs === 2 ? "long long" : longs === 1 ? "long" : "int";
  return unsigned ? `unsigned ${size}` : size;
}

// The struct a type names, found by its name without its namespace.
function structNamed(structs: SourceStructs, name: string): StructLayout | string | undefined {
  const found = structs.get(name.split(/ |::/).pop() ?? "");
  return isStructTemplate(found) ? `struct ${name} is a template: name its instance (${name}<float>)` : found;
}

// The layout of an instance of one of the source's template structs that a type's tokens
// name (`const Matrix<float> C`: its arguments in place of its parameters); undefined for none.
function templateStructInstance(tokens: readonly Token[], structs: SourceStructs): StructLayout | string | undefined {
  const at = tokens.findIndex((t, i) => tokens[i + 1]?.text === "<" && structs.has(t.text));
  const template = at < 0 ? undefined : structs.get(tokens[at].text);
  if (!isStructTemplate(template)) return typeof template === "string" ? template : undefined;
  const close = closing(tokens as Token[], at + 1);
  const args = close === at + 2 ? [] : splitTopLevel(tokens as Token[], at + 2, close);
  const name = `${tokens[at].text}<${args.map(spell).join(", ")}>`;
  const bound = new Map(template.params.map((p, n) => [p.name, args[n] ?? p.fallback]));
  if (args.length > template.params.length || [...bound.values()].some((arg) => arg.length === 0)) {
    return `struct ${name} names other arguments than its template's ${template.params.length} parameters`;
  }
  const members = structMembers(template.body.flatMap((t) => bound.get(t.text) ?? [t]), structs, template.aliases);
  return typeof members === "string" ? `struct ${name} cannot be passed by value: ${members}` : layoutStruct(name, members, template.align);
}

function parseParam(kernel: string, line: number, index: number, tokens: Token[], structs: SourceStructs): KernelParam {
  const equals = tokens.findIndex((t) => t.text === "="); // a default argument
  const words = (equals >= 0 ? tokens.slice(0, equals) : tokens).map((t) => t.text);
  const written = words.join(" ").replace(/ ?:: ?/g, "::").replace(/ \*/g, "*");
  if (words.includes("&") || words.includes("&&")) unsupported(kernel, line, index, written, "a reference cannot be passed to a kernel");
  const fn = functionPointer(equals >= 0 ? tokens.slice(0, equals) : tokens);
  if (fn) return { name: fn.name, type: "u64", pointer: false, isConst: false, declaration: fn.type, functionPointer: fn.type };
  const { pointer, isConst } = pointerShape(words);
  const identifiers = words.filter((w) => /^[A-Za-z_]/.test(w) && !QUALIFIERS.has(w) && w !== "std");
  // The last identifier names the parameter unless the words are all one type ("unsigned int", "float").
  const named = identifiers.length >= 2 && !(identifiers.join(" ") in C_TYPES);
  const name = named ? identifiers[identifiers.length - 1] : "";
  const spelled = typeName(named ? words.slice(0, words.lastIndexOf(name)) : words);
  // A pointer to pointers (`hitable** d_list`, a ray tracer's world of objects made
  // with device-side `new`): any tensor, whose elements the kernel takes for pointers.
  const stars = words.filter((w) => w === "*").length;
  if (stars > 1) return { name, type: "void", pointer, isConst, declaration: `${isConst ? "const " : ""}${spelled}${"*".repeat(stars)}` };
  if (!pointer) {
    const accessor = tensorAccessor(kernel, line, index, written, tokens) ?? tensorInfo(kernel, line, index, written, tokens) ??
      spanParam(kernel, line, index, written, tokens) ?? mdspanParam(kernel, line, index, written, tokens);
    if (accessor) return accessor;
    const instance = templateStructInstance(equals >= 0 ? tokens.slice(0, equals) : tokens, structs);
    if (typeof instance === "string") unsupported(kernel, line, index, written, instance);
    if (instance) return { name, type: "struct", pointer, isConst, declaration: instance.name, layout: instance };
    // A struct by value: a vector type, or one the source defines (named with or without its namespace).
    const layout = VECTOR_TYPES.get(spelled) ?? structNamed(structs, spelled) ?? TOOLKIT_FUNCTOR.get(spelled.split(" ")[0]);
    if (typeof layout === "string") unsupported(kernel, line, index, written, layout);
    if (layout) return { name, type: "struct", pointer, isConst, declaration: spelled, layout };
  }
  // bool by value: true or false from TS, one byte in the parameter buffer on every target.
  if (!pointer && spelled === "bool") return { name, type: "bool", pointer, isConst, declaration: "bool" };
  const fp8 = pointer ? undefined : FP8_TYPES[spelled.replace(/^(?:c10|at|torch)::/, "")];
  if (fp8) {
    const layout = layoutStruct(spelled, [{ name: "__x", declaration: "uint8_t", type: { kind: "scalar", scalar: "u8" } }]);
    return { name, type: "struct", pointer, isConst, declaration: spelled, layout, fp8 };
  }
  // A pointer to a vector type carries bytes as often as vectors (`uint4*` of half weights, 16 bytes
  // a load; ChatRWKV's `float2*` of halves): any tensor, as for a pointer to any other vector type.
  let type = pointer && VECTOR_TYPES.has(spelled) ? "void" : C_TYPES[spelled];
  if (type === undefined) {
    if (!pointer && /^(?:cuda|hip)(?:Texture|Surface)Object_t$/.test(spelled)) {
      unsupported(kernel, line, index, written, "texture and surface objects are made by the GPU's runtime, which TS does not call: pass the array as a tensor, read with loads");
    }
    // Named as written, template arguments and all (`cub::ScanTileState<MessageT>`).
    const asWritten = spell((equals >= 0 ? tokens.slice(0, equals) : tokens).filter((t) => t.text !== name && !QUALIFIERS.has(t.text)));
    if (!pointer) unsupported(kernel, line, index, written, `a value is an integer, a float, a vector type or a struct the source defines; "${asWritten}" is none of these`);
    type = "void"; // a pointer to a struct or other type: any tensor will do
  }
  if (!pointer && type === "void") unsupported(kernel, line, index, written, "void is not a value");
  return { name, type, pointer, isConst, declaration: declarationText(spelled, pointer, isConst) };
}

/**
 * A pointer to a function, `R (*name)(A a, B)` (in a type, with no name: `R (*)(A, B)`, a
 * name after it where an alias was put in its place): its type spelled without names
 * ("R(*)(A, B)") and the name ("" when none).
 */
function functionPointer(tokens: readonly Token[]): { type: string; name: string } | undefined {
  const open = tokens.findIndex((t, i) => t.text === "(" && tokens[i + 1]?.text === "*");
  if (open <= 0) return undefined;
  const close = closing(tokens as Token[], open);
  if (tokens[close + 1]?.text !== "(") return undefined;
  const end = closing(tokens as Token[], close + 1);
  const identifiers = (part: readonly Token[]) => part.filter((t) => /^[A-Za-z_]/.test(t.text) && !QUALIFIERS.has(t.text));
  const name = identifiers(tokens.slice(open + 2, close)).pop() ?? identifiers(tokens.slice(end + 1)).pop();
  // Each parameter without its name: the last of two or more words that are not one C type.
  const params = end === close + 2 ? [] : splitTopLevel(tokens as Token[], close + 2, end).map((part) => {
    const words = identifiers(part).map((t) => t.text);
    const named = words.length >= 2 && !(words.join(" ") in C_TYPES) && part[part.length - 1].text === words[words.length - 1];
    return spell(named ? part.slice(0, -1) : part);
  });
  const result = spell(tokens.slice(0, open).filter((t) => !["__device__", "static", "typedef"].includes(t.text)));
  return { type: `${result}(*)(${params.join(", ")})`, name: name?.text ?? "" };
}

/** Whether a parameter's words declare a pointer (`*` or `[]`), and one to const: const before the star qualifies the pointee. */
function pointerShape(words: readonly string[]): { pointer: boolean; isConst: boolean } {
  const star = words.indexOf("*");
  const pointer = star >= 0 || words.includes("[");
  return { pointer, isConst: pointer && words.slice(0, star >= 0 ? star : words.length).includes("const") };
}

/** A parameter's type as KernelParam's `declaration` spells it: "const float*", "int". */
function declarationText(spelled: string, pointer: boolean, isConst: boolean): string {
  return `${isConst ? "const " : ""}${spelled}${pointer ? "*" : ""}`;
}

// The toolkit's function objects, which templated kernels take by value (`reduce<cub::Sum>(..., cub::Sum op)`):
// empty structs, passed as `{}`. Named as typeName spells them: std:: left out (`cuda::std::plus<float>` is "cuda::plus").
const TOOLKIT_FUNCTOR = new Map(["cub::Sum", "cub::Max", "cub::Min", "cuda::maximum", "cuda::minimum",
  ...["plus", "minus", "multiplies", "divides", "less", "greater", "equal_to", "logical_and", "logical_or",
    "bit_and", "bit_or", "bit_xor", "negate"].flatMap((op) => [`cuda::${op}`, `thrust::${op}`, op])]
  .map((name) => [name, layoutStruct(name, [])]));

// A parameter of a class template's type (`cuda::std::span<const float> x`): the
// template's name, each argument's words, the parameter's name, and the index of the
// `>` closing the arguments; undefined for a type without template arguments.
function templateParam(tokens: Token[]): { template: string; args: string[][]; name: string; close: number } | undefined {
  const open = tokens.findIndex((t) => t.text === "<");
  if (open < 1) return undefined;
  const close = closing(tokens, open);
  return {
    template: typeName(tokens.slice(0, open).map((t) => t.text)),
    args: splitTopLevel(tokens, open + 1, close).map((part) => part.map((t) => t.text)),
    name: tokens.slice(close + 1).map((t) => t.text).filter((w) => /^[A-Za-z_]/.test(w)).pop() ?? "",
    close,
  };
}

// libcu++'s span, `cuda::std::span<const float>` (or std::span under NVRTC), of a
// dynamic extent: its pointer, then its size, as libcu++ and the emulator lay it out.
function spanParam(kernel: string, line: number, index: number, written: string, tokens: Token[]): KernelParam | undefined {
  const parsed = templateParam(tokens);
  if (!parsed || !/^(?:cuda::)?span$/.test(parsed.template)) return undefined;
  const { args, name } = parsed;
  const elementWords = args[0] ?? [];
  const element = C_TYPES[typeName(elementWords)];
  if (element === undefined || element === "void") unsupported(kernel, line, index, written, `a span's elements are of a type tensors have; "${elementWords.join(" ")}" is not`);
  if (args.length > 1 && !/dynamic_extent/.test(args[1].join(""))) unsupported(kernel, line, index, written, "a span of a fixed extent has no size to pass: take cuda::std::span<T>");
  const isConst = elementWords.includes("const");
  const declaration = `cuda::std::span<${isConst ? "const " : ""}${typeName(elementWords)}>`;
  const layout = layoutStruct(declaration, [
    { name: "data", declaration: `${isConst ? "const " : ""}${typeName(elementWords)}*`, type: { kind: "pointer", element, isConst } },
    { name: "size", declaration: "size_t", type: { kind: "scalar", scalar: "u64" } },
  ]);
  return { name, type: "struct", pointer: false, isConst, declaration, layout, span: { element } };
}

/** What an mdspan parameter holds: its element type, each extent (null where dynamic), their index type, its layout. */
export interface MdspanParam {
  element: string;
  extents: (number | null)[];
  index: string;
  layout: "right" | "left" | "stride";
}

const STD = "(?:cuda::)?(?:std::)?";  // typeName spells cuda::std:: as cuda::
const MDSPAN = new RegExp(`^${STD}mdspan$`);
const DEXTENTS = new RegExp(`^${STD}dextents<(.+),(\\d+)>$`);
const DIMS = new RegExp(`^${STD}dims<(\\d+)(?:,(.+))?>$`);
const EXTENTS = new RegExp(`^${STD}extents<([^,]+)((?:,[^,]+)*)>$`);
const LAYOUT = new RegExp(`^${STD}layout_(right|left|stride)$`);
const DEFAULT_ACCESSOR = new RegExp(`^${STD}default_accessor<.*>$`);

// libcu++'s mdspan, `cuda::std::mdspan<float, cuda::std::dextents<int, 2>>`, as libcu++
// and the emulator lay it out: its pointer, its dynamic extents, then layout_stride's strides.
function mdspanParam(kernel: string, line: number, index: number, written: string, tokens: Token[]): KernelParam | undefined {
  const parsed = templateParam(tokens);
  if (!parsed || !MDSPAN.test(parsed.template)) return undefined;
  const { args, name } = parsed;
  const fail = (why: string): never => unsupported(kernel, line, index, written, why);
  const elementWords = args[0] ?? [];
  const element = C_TYPES[typeName(elementWords)];
  if (element === undefined || element === "void") fail(`an mdspan's elements are of a type tensors have; "${elementWords.join(" ")}" is not`);
  const tidy = (words: string[]) => words.join(" ").replace(/\s*(::|<|>|,)\s*/g, "$1");
  const text = tidy(args[1] ?? []);
  const indexOf = (words: string) => words.replace(new RegExp(`^${STD}`), "").replace(/^unsigned$/, "unsigned int");
  let indexType = "", extents: (number | null)[] = [];
  const dextents = DEXTENTS.exec(text), dims = DIMS.exec(text), listed = EXTENTS.exec(text);
  if (dextents) [indexType, extents] = [indexOf(dextents[1]), new Array(Number(dextents[2])).fill(null)];
  else if (dims) [indexType, extents] = [indexOf(dims[2] ?? "size_t"), new Array(Number(dims[1])).fill(null)];
  else if (listed) {
    indexType = indexOf(listed[1]);
    extents = listed[2].split(",").slice(1).map((e) => (new RegExp(`^${STD}dynamic_extent$`).test(e) ? null : /^\d+$/.test(e) ? Number(e) : NaN));
    if (extents.some((e) => Number.isNaN(e))) fail(`an mdspan's extents are numbers or dynamic_extent, as written after the template's arguments are put in; "${text}" has others`);
  } else fail(`an mdspan's extents are cuda::std::extents, dextents or dims; "${text}" is none of these`);
  const indexDtype = C_TYPES[indexType];
  if (!["i32", "u32", "i64", "u64", "i16", "u16"].includes(indexDtype)) fail(`an mdspan's index type is an integer type; "${indexType}" is not`);
  const layoutWords = tidy(args[2] ?? ["layout_right"]);
  const layout = LAYOUT.exec(layoutWords)?.[1] as MdspanParam["layout"] | undefined;
  if (!layout) fail(`an mdspan's layout is layout_right, layout_left or layout_stride; "${layoutWords}" is none of these`);
  if (args[3] && !DEFAULT_ACCESSOR.test(tidy(args[3]))) fail("an mdspan with its own accessor has a layout fuselab does not know: take the default accessor");
  const isConst = elementWords.includes("const");
  const elementType = typeName(elementWords.filter((w) => w !== "const"));
  const declaration = `cuda::std::mdspan<${isConst ? "const " : ""}${elementType}, ${text.replace(/,/g, ", ")}${args[2] ? `, ${layoutWords}` : ""}>`;
  const scalar = { kind: "scalar", scalar: indexDtype as MemberScalar } as const;
  const dynamic = extents.filter((e) => e === null).length;
  const members: DeclaredMember[] = [{ name: "data", declaration: `${isConst ? "const " : ""}${elementType}*`, type: { kind: "pointer", element, isConst } }];
  if (dynamic) members.push({ name: "extents", declaration: indexType, type: { kind: "array", element: scalar, length: dynamic } });
  if (layout === "stride") members.push({ name: "strides", declaration: indexType, type: { kind: "array", element: scalar, length: extents.length } });
  return { name, type: "struct", pointer: false, isConst, declaration, layout: layoutStruct(declaration, members),
    mdspan: { element, extents, index: indexDtype, layout: layout! } };
}

// PyTorch's accessors (kernels/fuselab/torch/fuselab_torch.h): the data pointer,
// then N sizes and N strides of the index type.
const ACCESSOR = /^(?:(?:torch|at)::)?(?:PackedTensorAccessor(32|64)?|GenericPackedTensorAccessor)$/;
// PyTorch's TensorInfo<T, IndexType> (ATen/cuda/detail/TensorInfo.cuh): the data
// pointer, 25 sizes and 25 strides of the index type, and the dimensions' count.
const TENSOR_INFO = /^(?:(?:at::)?cuda::detail::)?TensorInfo$/;
const TENSOR_INFO_DIMS = 25;

/** A parameter `at::cuda::detail::TensorInfo<T, IndexType> name`, or undefined when it is none. */
function tensorInfo(kernel: string, line: number, index: number, written: string, tokens: Token[]): KernelParam | undefined {
  const parsed = templateParam(tokens);
  if (!parsed || !TENSOR_INFO.test(parsed.template)) return undefined;
  const { args, name } = parsed;
  const element = C_TYPES[typeName(args[0] ?? [])];
  const indexType = typeName(args[1] ?? []);
  const indexDtype = C_TYPES[indexType];
  if (element === undefined || element === "void") {
    unsupported(kernel, line, index, written, `a TensorInfo's elements are of a type tensors have; "${(args[0] ?? []).join(" ")}" is not`);
  }
  if (!ACCESSOR_INDEX.includes(indexDtype)) unsupported(kernel, line, index, written, "a TensorInfo's index type is a 32- or 64-bit integer");
  const indexScalar = indexDtype as AccessorIndex;
  const declaration = `at::cuda::detail::TensorInfo<${typeName(args[0])}, ${indexType}>`;
  const counts = { kind: "array", element: { kind: "scalar", scalar: indexScalar }, length: TENSOR_INFO_DIMS } as const;
  const layout = layoutStruct(declaration, [
    { name: "data", declaration: `${typeName(args[0])}*`, type: { kind: "pointer", element, isConst: false } },
    { name: "sizes", declaration: indexType, type: counts },
    { name: "strides", declaration: indexType, type: counts },
    { name: "dims", declaration: "int", type: { kind: "scalar", scalar: "i32" } },
  ]);
  return { name, type: "struct", pointer: false, isConst: false, declaration, layout,
    accessor: { element, dims: TENSOR_INFO_DIMS, index: indexScalar, tensorInfo: true } };
}

/** A parameter `[const] torch::PackedTensorAccessor32<T, N, Traits> name`, or undefined when it is no accessor. */
function tensorAccessor(kernel: string, line: number, index: number, written: string, tokens: Token[]): KernelParam | undefined {
  const parsed = templateParam(tokens);
  const template = parsed ? ACCESSOR.exec(parsed.template) : null;
  if (!parsed || !template) return undefined;
  const bits = template[1];
  const { args, name, close } = parsed;
  // torch.bool's elements are bytes of 0 and 1: a u8 tensor's.
  const elementType = typeName(args[0] ?? []);
  const element = elementType === "bool" ? "u8" : C_TYPES[elementType];
  const dims = Number(args[1]?.join(""));
  const indexType = bits === "32" ? "int32_t" : bits === "64" ? "int64_t" : typeName(args[3] ?? ["int64_t"]);
  const indexDtype = C_TYPES[indexType];
  if (element === undefined || element === "void") {
    unsupported(kernel, line, index, written, `an accessor's elements are of a type tensors have; "${(args[0] ?? []).join(" ")}" is not`);
  }
  if (!Number.isInteger(dims) || dims < 1 || dims > 8) unsupported(kernel, line, index, written, "an accessor has 1 to 8 dimensions, written as a number");
  if (!ACCESSOR_INDEX.includes(indexDtype)) unsupported(kernel, line, index, written, "an accessor's index type is a 32- or 64-bit integer");
  const indexScalar = indexDtype as AccessorIndex;
  const declaration = tokens.slice(0, close + 1).map((t) => t.text).filter((w) => w !== "const").join(" ")
    .replace(/ ?:: ?/g, "::").replace(/ ?([<>,]) ?/g, "$1").replace(/,/g, ", ");
  const counts = { kind: "array", element: { kind: "scalar", scalar: indexScalar }, length: dims } as const;
  const layout = layoutStruct(declaration, [
    { name: "data", declaration: "T*", type: { kind: "scalar", scalar: "u64" } },
    { name: "sizes", declaration: indexType, type: counts },
    { name: "strides", declaration: indexType, type: counts },
  ]);
  return { name, type: "struct", pointer: false, isConst: false, declaration, layout, accessor: { element, dims, index: indexScalar } };
}

function sameParams(a: readonly KernelParam[], b: readonly KernelParam[]): boolean {
  return a.length === b.length && a.every((p, n) => typeIdentity(p.declaration) === typeIdentity(b[n].declaration));
}

// The integer typedefs of glibc's headers on a 64-bit Linux (LP64), as the types they name.
const LP64_TYPEDEFS: Record<string, string> = {
  "size_t": "unsigned long", "uint64_t": "unsigned long", "uintptr_t": "unsigned long", "ulong": "unsigned long", "u_long": "unsigned long", "u_int64_t": "unsigned long",
  "ptrdiff_t": "long", "ssize_t": "long", "int64_t": "long", "intptr_t": "long",
  "uint32_t": "unsigned int", "uint": "unsigned int", "u_int": "unsigned int", "u_int32_t": "unsigned int", "int32_t": "int",
  "uint16_t": "unsigned short", "ushort": "unsigned short", "u_short": "unsigned short", "u_int16_t": "unsigned short", "int16_t": "short",
  "uint8_t": "unsigned char", "u_char": "unsigned char", "u_int8_t": "unsigned char", "int8_t": "signed char",
};

// A parameter's type as C++ tells two declarations apart: typedefs as the types they
// name, integer words in one order, and the top-level const left out
// (`size_t n` in a header and `unsigned long n` in its definition declare one function).
function typeIdentity(declaration: string): string {
  const words = (declaration.match(/[A-Za-z_]\w*|::|\S/g) ?? []).flatMap((w) => (LP64_TYPEDEFS[w] ?? w).split(" "));
  const lastIndirection = Math.max(words.lastIndexOf("*"), words.lastIndexOf("&"));
  const kept = words.filter((w, i) => i < lastIndirection || (w !== "const" && w !== "volatile"));
  const parts: string[] = [];
  let run: string[] = [];
  const flush = () => {
    const qualifiers = run.filter((w) => w === "const" || w === "volatile").sort();
    const rest = run.filter((w) => w !== "const" && w !== "volatile");
    parts.push([...qualifiers, integerSpelling(rest) ?? (rest.length === 1 && rest[0] === "unsigned" ? "unsigned int" : rest.join(" "))].join(" "));
    run = [];
  };
  for (const w of kept) {
    if (/^[A-Za-z_]/.test(w)) run.push(w);
    else {
      if (run.length > 0) flush();
      parts.push(w);
    }
  }
  if (run.length > 0) flush();
  return parts.join(" ");
}

// Words before a call that are not a declared function's return type (`return twice(x)`).
const NOT_RETURN_TYPES = new Set(["return", "else", "case", "do", "throw", "new", "delete", "sizeof", "co_return", "co_await", "co_yield", "goto", "typeid", "decltype", "alignof"]);

// The kernel names that a function other than a kernel shares (3D Gaussian Splatting's simple-knn
// defines `__host__ __device__ uint32_t coord2Morton(float3, float3, float3)` beside its
// `__global__ void coord2Morton(int, const float3*, ...)`): C++ overloads, whose kernel
// the compilers pick by its parameter types.
function namesSharedByOtherFunctions(tokens: readonly Token[], names: ReadonlySet<string>): Set<string> {
  const shared = new Set<string>();
  for (let g = 1; g + 1 < tokens.length; g++) {
    const name = tokens[g].text;
    if (!names.has(name) || tokens[g + 1].text !== "(" || tokens[g - 1].text === "::") continue;
    const before = tokens[g - 1].text;
    if (!/^[A-Za-z_]\w*$/.test(before) || NOT_RETURN_TYPES.has(before)) continue;
    let start = g;
    while (start > 0 && ![";", "{", "}"].includes(tokens[start - 1].text)) start--;
    if (!tokens.slice(start, g).some((t) => t.text === "__global__")) shared.add(name);
  }
  return shared;
}

/** A template parameter of a template __global__ function. */
interface TemplateParam {
  name: string;
  /** Its default, as tokens; empty when it has none. */
  fallback: Token[];
  /** A parameter pack (`typename... IN`): it takes the rest of the arguments. */
  pack: boolean;
}

// Whether tokens[i] begins an ellipsis: three dots, written together.
function isEllipsis(tokens: Token[], i: number): boolean {
  return tokens[i]?.text === "." && tokens[i + 1]?.text === "." && tokens[i + 2]?.text === "." &&
    tokens[i + 1].at === tokens[i].at + 1 && tokens[i + 2].at === tokens[i].at + 2;
}

function withoutEllipses(tokens: Token[]): Token[] {
  return tokens.filter((_, i) => !(isEllipsis(tokens, i) || isEllipsis(tokens, i - 1) || isEllipsis(tokens, i - 2)));
}

/** A template __global__ function: its instances are made by name (`module.fn("k<float, 256>")`). */
export interface KernelTemplate {
  /** The qualified name without template arguments: "k", "ns::k". */
  name: string;
  line: number;
  templateParams: TemplateParam[];
  /** The function parameters as written, one token list each, to substitute template arguments into. */
  paramTokens: Token[][];
  /** The structs defined before it, for parameters passed by value. */
  structs: SourceStructs;
  /** Its `__launch_bounds__` thread count as written (a template parameter may name it), evaluated per instance. */
  boundsTokens?: Token[];
}

/** A `__constant__` or `__device__` variable of a source, which the host sets before launches. */
export interface ConstantDeclaration {
  name: string;
  /** Its element type ("f32", "i32", ...), "void" for other types. */
  type: string;
  line: number;
  space: "__constant__" | "__device__";
  /** Declared `static`: its symbol is made visible to the host, as cudaMemcpyToSymbol reaches it from the same file. */
  isStatic: boolean;
  /** A variable template's parameters (`template <typename T> __constant__ T mask[16];`): set as `mask<float>`. */
  templateParams?: string[];
  /** For a variable template: its type's spelling, which may name a template parameter. */
  typeWords?: string[];
  /** A pointer variable (`__device__ float* data;`), its pointee as spelled ("float"): set to a tensor of `type` ("void": any), a view of one, or null. */
  pointer?: string;
  /** A struct variable (`__constant__ Params params;`): also set from an object of its fields, pointers among them. */
  layout?: StructLayout;
  /** A pointer to a `__device__` function (`__device__ reduce_t p_min = fminf;`), its type ("float(*)(float, float)"): a kernel's argument of that type. */
  functionPointer?: string;
}

/**
 * The symbol of a variable at namespace scope: its name, or its Itanium-mangled
 * name in a named namespace (`ns::table`: `_ZN2ns5tableE`). A variable
 * template's instance is mangled with its arguments (`mask<float>`: `_Z4maskIfE`).
 */
export function variableSymbol(name: string, templateArgs = ""): string {
  const parts = name.split("::");
  if (parts.length === 1 && templateArgs === "") return name;
  const nested = parts.map((p) => `${p.length}${p}`).join("");
  return parts.length === 1 ? `_Z${nested}${templateArgs}` : `_ZN${nested}${templateArgs}E`;
}

/** The variable a source declares that `expression` names: one at namespace scope, or a variable template's instance (`mask<float>`). */
export function declaredVariable(declared: readonly ConstantDeclaration[], expression: string):
    { declaration: ConstantDeclaration; symbol: string; type: string } | undefined {
  const plain = declared.find((c) => !c.templateParams && c.name === expression);
  if (plain) return { declaration: plain, symbol: variableSymbol(plain.name), type: plain.type };
  const parsed = parseNameExpression(expression);
  const declaration = parsed && declared.find((c) => c.templateParams && c.name === parsed.name && c.templateParams.length === parsed.args.length);
  if (!parsed || !declaration) return undefined;
  const args = parsed.args.map(spell);
  const mangled = args.map(mangledArgument);
  if (mangled.some((m) => m === undefined)) return undefined;
  const symbol = variableSymbol(declaration.name, `I${mangled.join("")}E`);
  const words = (declaration.typeWords ?? []).map((w) => args[declaration.templateParams!.indexOf(w)] ?? w).join(" ");
  return { declaration, symbol, type: C_TYPES[words] ?? "void" };
}

// Itanium's codes of the builtin types a template argument names.
const MANGLED_BUILTINS: Record<string, string> = {
  "void": "v", "bool": "b", "char": "c", "signed char": "a", "unsigned char": "h", "short": "s", "unsigned short": "t",
  "int": "i", "unsigned int": "j", "unsigned": "j", "long": "l", "unsigned long": "m", "long long": "x", "unsigned long long": "y",
  "float": "f", "double": "d", "int8_t": "a", "uint8_t": "h", "int16_t": "s", "uint16_t": "t", "int32_t": "i", "uint32_t": "j",
  "int64_t": "l", "uint64_t": "m", "size_t": "m", "half": "6__half", "__half": "6__half", "__nv_bfloat16": "13__nv_bfloat16",
};

// One template argument, mangled: a builtin type, a class named by its
// (qualified) name, or an integer; undefined for another.
function mangledArgument(arg: string): string | undefined {
  const text = arg.trim().replace(/\s+/g, " ");
  if (MANGLED_BUILTINS[text] !== undefined) return MANGLED_BUILTINS[text];
  const integer = /^(-?)(\d+)([uU]?)([lL]*)$/.exec(text);
  if (integer) {
    const code = integer[4].length === 2 ? (integer[3] ? "y" : "x") : integer[4].length === 1 ? (integer[3] ? "m" : "l") : integer[3] ? "j" : "i";
    return `L${code}${integer[1] ? "n" : ""}${integer[2]}E`;
  }
  if (text === "true" || text === "false") return `Lb${text === "true" ? 1 : 0}E`;
  const parts = text.split("::");
  if (!parts.every((p) => /^[A-Za-z_]\w*$/.test(p))) return undefined;
  return parts.length === 1 ? `${text.length}${text}` : `N${parts.map((p) => `${p.length}${p}`).join("")}E`;
}

// The names a declaration declares after its first (`float a[4], b, *c = 0;` from a's end: b and c):
// each the last identifier before its array lengths or initializer, up to the declaration's `;`.
function laterDeclarators(tokens: Token[], from: number): string[] {
  const names: string[] = [];
  let current: string | undefined;
  let inName = false;
  for (let i = from; i < tokens.length && tokens[i].text !== ";"; i++) {
    const t = tokens[i].text;
    if (t === "(" || t === "[" || t === "{") {
      i = closing(tokens, i);
      inName = false;
    } else if (t === ",") {
      if (current) names.push(current);
      current = undefined;
      inName = true;
    } else if (t === "=") {
      inName = false;
    } else if (inName && /^[A-Za-z_]\w*$/.test(t)) {
      current = t;
    }
  }
  if (current) names.push(current);
  return names;
}

/** What a source declares: kernels to launch (explicit instantiations among them), kernel templates, constants. */
export interface SourceKernels {
  kernels: KernelDeclaration[];
  templates: KernelTemplate[];
  constants: ConstantDeclaration[];
  /** Kernels the source overloads (two or more of one name, as CUDA by Example's book.h has): launched by name with their parameter types. */
  overloaded: Map<string, number[]>;
  /** The overloads of each such name: kernels and kernel templates. */
  overloads: Map<string, Overload[]>;
  /** Kernels TS cannot launch, each with why (a parameter of a type fuselab cannot pass); the others launch. */
  unlaunchable: Map<string, ArgumentError>;
}

/** One of a name's overloads: a kernel, or a kernel template. */
export type Overload = KernelDeclaration | KernelTemplate;

export function isTemplate(overload: Overload): overload is KernelTemplate {
  return "templateParams" in overload;
}

// Splits tokens[from, to) at commas outside brackets.
function splitTopLevel(tokens: Token[], from: number, to: number): Token[][] {
  const parts: Token[][] = [];
  let current: Token[] = [];
  let depth = 0;
  for (let j = from; j < to; j++) {
    const t = tokens[j].text;
    if (t === "(" || t === "<" || t === "[" || t === "{") depth++;
    if (t === ")" || t === ">" || t === "]" || t === "}") depth--;
    if (t === "," && depth === 0) {
      parts.push(current);
      current = [];
    } else {
      current.push(tokens[j]);
    }
  }
  if (current.length > 0) parts.push(current);
  return parts;
}

/** Tokens as one canonical string: "k<float, 256>", "ns::k", "unsigned int". */
/** A function's parameters as types alone: names and default arguments dropped, to tell a prototype from an overload. */
export function parameterTypes(params: readonly Token[][]): string {
  return params.map((param) => {
    const declarator = param.slice(0, param.findIndex((t) => t.text === "=") >>> 0);
    const last = declarator[declarator.length - 1];
    const named = declarator.length > 1 && /^[A-Za-z_]\w*$/.test(last.text) && declarator[declarator.length - 2].text !== "::";
    return spell(named ? declarator.slice(0, -1) : declarator);
  }).join(",");
}

function spell(tokens: readonly Token[]): string {
  let out = "";
  for (const t of tokens) {
    const word = /^\w/.test(t.text);
    if (word && /\w$/.test(out)) out += " ";
    out += t.text;
    if (t.text === ",") out += " ";
  }
  return out;
}

function parseTemplateParams(tokens: Token[]): TemplateParam[] {
  return tokens.length === 0 ? [] : splitTopLevel(tokens, 0, tokens.length).map((part) => {
    const equals = part.findIndex((t) => t.text === "=");
    const head = equals >= 0 ? part.slice(0, equals) : part;
    // A function pointer or reference, R (*name)(A, B), is named inside its first parentheses.
    const pointer = head.findIndex((t, i) => t.text === "(" && (head[i + 1]?.text === "*" || head[i + 1]?.text === "&"));
    const declarator = pointer >= 0 ? head.slice(pointer, closing(head, pointer)) : head;
    const names = declarator.filter((t) => /^[A-Za-z_]/.test(t.text));
    return { name: names[names.length - 1]?.text ?? "", fallback: equals >= 0 ? part.slice(equals + 1) : [], pack: head.some((_, i) => isEllipsis(head, i)) };
  });
}

// An enum is passed as its underlying type: the one it names (`enum class Mode :
// uint8_t`), else int for a scoped enum, and for an unscoped one, as GCC and
// clang choose it, unsigned int unless an enumerator is negative. Its name, and
// a typedef's (`typedef enum { A, B } mode_t;`), become aliases of that type.
function enumAliases(opener: string[], body: Token[], after: Token[], aliases: Map<string, string>): void {
  const colon = opener.indexOf(":");
  const scoped = opener.includes("class") || opener.includes("struct");
  const negative = body.some((t, k) => t.text === "-" && body[k - 1]?.text === "=");
  const underlying = colon >= 0 ? typeName(opener.slice(colon + 1)) : scoped || negative ? "int" : "unsigned int";
  const scalar = C_TYPES[underlying] !== undefined ? underlying : aliases.get(underlying);
  if (scalar === undefined) return;
  const name = opener.slice(opener.indexOf("enum") + 1, colon >= 0 ? colon : undefined).filter((w) => /^[A-Za-z_]\w*$/.test(w) && w !== "class" && w !== "struct").pop();
  if (name) aliases.set(name, scalar);
  const typedefName = opener[0] === "typedef" ? after.find((t) => /^[A-Za-z_]\w*$/.test(t.text))?.text : undefined;
  if (typedefName) aliases.set(typedefName, scalar);
}

// Scalar spellings a source gives other names (typedef unsigned int uint; using index_t = int64_t;),
// at namespace scope: one inside a function or class body names nothing a kernel parameter sees.
function typeAliases(tokens: Token[]): Map<string, string> {
  const aliases = new Map<string, string>();
  let statementStart = 0;
  for (let i = 0; i < tokens.length; i++) {
    let words: string[] | undefined;
    let alias = "";
    if (tokens[i].text === ";" || tokens[i].text === "}") statementStart = i + 1;
    if (tokens[i].text === "{") {
      const opener = tokens.slice(statementStart, i).map((t) => t.text);
      if (opener.includes("namespace") || opener.includes("extern")) {
        statementStart = i + 1;
        continue;
      }
      const close = closing(tokens, i);
      // An enum's definition (`enum class Mode : uint8_t {`, `typedef enum {`), not a function whose
      // template parameter is one (`template <enum norm_type norm> __global__ void k(...) {`).
      if (opener.includes("enum") && !opener.includes("(")) enumAliases(opener, tokens.slice(i + 1, close), tokens.slice(close + 1), aliases);
      if (opener[0] === "typedef" && (opener.includes("struct") || opener.includes("union"))) pointerTypedefs(tokens, close, opener, aliases);
      i = close;
      statementStart = i + 1;
      continue;
    }
    if (tokens[i].text === "typedef" || (tokens[i].text === "using" && tokens[i + 2]?.text === "=")) {
      // A pointer to a function (`typedef float (*reduce_t)(float, float);`, `using op_t = float (*)(float);`):
      // its type's tokens with no name, which a parameter or variable of that alias then reads.
      const end = tokens.findIndex((t, j) => j > i && t.text === ";");
      const fn = functionPointer(tokens.slice(tokens[i].text === "using" ? i + 3 : i + 1, end < 0 ? tokens.length : end));
      const name = tokens[i].text === "using" ? tokens[i + 1].text : fn?.name;
      if (fn && name) {
        aliases.set(name, tokenize(fn.type).map((t) => t.text).join(" "));
        continue;
      }
    }
    // A template instance's alias (fast-transformers' `typedef torch::PackedTensorAccessor32<float, 4,
    // torch::RestrictPtrTraits> float_accessor;`, `using P = Params<float>;`): its tokens, read in its place.
    const instance = templateInstanceAlias(tokens, i);
    if (instance) {
      aliases.set(instance.alias, instance.body.join(" "));
      continue;
    }
    if (tokens[i].text === "typedef") {
      const end = tokens.findIndex((t, j) => j > i && t.text === ";");
      const body = tokens.slice(i + 1, end < 0 ? tokens.length : end).map((t) => t.text);
      if (body.length >= 2 && body.every((w) => /^\w+$/.test(w) || w === "::" || w === "*")) {
        alias = body[body.length - 1];
        words = body.slice(0, -1);
      }
    } else if (tokens[i].text === "using" && /^\w+$/.test(tokens[i + 1]?.text ?? "") && tokens[i + 2]?.text === "=") {
      const end = tokens.findIndex((t, j) => j > i && t.text === ";");
      const body = tokens.slice(i + 3, end < 0 ? tokens.length : end).map((t) => t.text);
      if (body.every((w) => /^\w+$/.test(w) || w === "::" || w === "*")) {
        alias = tokens[i + 1].text;
        words = body;
        // An alias template (`template <typename T> using r_Ptr = T * __restrict__;`): its
        // parameters and words, which resolveAliases substitutes at each use.
        const head = tokens.slice(statementStart, i).map((t) => t.text);
        if (head[0] === "template" && head[1] === "<" && head[head.length - 1] === ">") {
          const params = parseTemplateParams(tokens.slice(statementStart + 2, i - 1)).map((p) => p.name);
          aliases.set(`${alias}<`, `${params.join(",")}|${body.join(" ")}`);
          continue;
        }
      }
    }
    if (!words) continue;
    // Qualifiers of the pointer itself say nothing of what is passed (`float* __restrict__`).
    words = words.filter((w, k) => !(["__restrict__", "__restrict", "restrict", "const"].includes(w) && words!.slice(0, k).includes("*")));
    // A pointer's alias (typedef float* realptr;): its pointee's, with the stars.
    const stars = words.filter((w) => w === "*").length;
    if (stars > 0 && words.indexOf("*") < words.length - stars) continue;
    const spelled = typeName(words.slice(0, words.length - stars));
    // A scalar's name, or a struct's (typedef struct Params Params_t; typedef ns::Params P;), one word.
    const known = C_TYPES[spelled] !== undefined ? spelled : aliases.get(spelled) ?? (spelled.includes(" ") ? undefined : spelled);
    const constPointee = stars > 0 && words.includes("const") ? "const " : "";
    if (known !== undefined && known !== alias) aliases.set(alias, constPointee + known + " *".repeat(stars));
  }
  return aliases;
}

// ---- Structs passed by value: their members read from the source's definitions.

const INTEGER_LITERAL = /^(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*$/;

// __align__(16), alignas(16), __attribute__((aligned(16))) in tokens: the alignment (1 when none) and the tokens without them.
function withoutAlignment(tokens: Token[]): { align: number; rest: Token[] } {
  let align = 1;
  const rest: Token[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i].text;
    if (["__align__", "alignas", "__attribute__", "__declspec"].includes(t) && tokens[i + 1]?.text === "(") {
      const close = closing(tokens, i + 1);
      const inside = tokens.slice(i + 2, close).map((x) => x.text);
      const number = inside.find((w) => INTEGER_LITERAL.test(w));
      if (number && (t !== "__attribute__" || inside.includes("aligned"))) align = Math.max(align, parseInt(number));
      i = close;
      continue;
    }
    rest.push(tokens[i]);
  }
  return { align, rest };
}

// A member's type from its words ("const float", "Inner", "uint"): a scalar, a vector type or a struct of the source.
function memberType(words: string[], structs: SourceStructs, aliases: Map<string, string>): MemberType | string {
  const spelled = typeName(words);
  const resolved = aliases.get(spelled) ?? spelled;
  if (resolved === "bool") return { kind: "scalar", scalar: "bool" };
  const vector = VECTOR_TYPES.get(resolved);
  if (vector) return { kind: "struct", layout: vector };
  const scalar = C_TYPES[resolved];
  if (scalar !== undefined && scalar !== "void") return { kind: "scalar", scalar: scalar as MemberScalar };
  const struct = structNamed(structs, resolved);
  if (typeof struct === "object") return { kind: "struct", layout: struct };
  if (typeof struct === "string") return struct;
  return `has the type "${spelled}", which is neither a scalar, a vector type nor a struct defined before it`;
}

// A pointer member's type, from its base type's words and its declarator's stars ("const float", 1):
// a tensor of that dtype, or of any ("void") for other pointees and pointers to pointers. Undefined
// for no pointer (a typedef'd pointer, `typedef float* fptr;`, counts as one).
function pointerMember(baseWords: string[], stars: number, aliases: Map<string, string>): MemberType | undefined {
  const spelled = typeName(baseWords);
  const resolved = aliases.get(spelled) ?? spelled;
  const aliasStars = resolved.split(" ").filter((w) => w === "*").length;
  if (stars + aliasStars === 0 || resolved.includes("(")) return undefined;
  const pointee = resolved.replace(/ \*/g, "");
  const isConst = baseWords.includes("const") || pointee.startsWith("const ");
  const scalar = C_TYPES[pointee.replace(/^const /, "")];
  return { kind: "pointer", element: stars + aliasStars === 1 && scalar !== undefined ? scalar : "void", isConst };
}

// A member's tokens without the access labels before it ("public: int n").
function withoutAccessLabels(tokens: Token[]): Token[] {
  while (["public", "private", "protected"].includes(tokens[0]?.text) && tokens[1]?.text === ":") tokens = tokens.slice(2);
  return tokens;
}

// A declaration's tokens without its C++11 attributes (`[[nodiscard]] int at(int i) const`,
// `[[maybe_unused]] int n`), which change no layout; `[[` always opens one.
function withoutAttributes(tokens: Token[]): Token[] {
  const kept: Token[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i].text === "[" && tokens[i + 1]?.text === "[") {
      i = closing(tokens, i);
      continue;
    }
    kept.push(tokens[i]);
  }
  return kept;
}

// The data members of a struct body (member functions, static members, types and access labels skipped),
// or why the struct cannot be passed by value.
function structMembers(body: Token[], structs: SourceStructs, namespaceAliases: Map<string, string>): DeclaredMember[] | string {
  const members: DeclaredMember[] = [];
  // The struct's own aliases (`using index_t = uint32_t;`, causal-conv1d's params), over the namespace's.
  const aliases = new Map(namespaceAliases);
  for (const [name, spelled] of typeAliases(body)) aliases.set(name, namespaceAliases.get(spelled) ?? spelled);
  // One declaration: "float a, b[4]", "__align__(16) float4 v", "public: int n".
  const declare = (statement: Token[]): string | undefined => {
    const tokens = withoutAttributes(withoutAccessLabels(statement));
    const first = tokens[0]?.text;
    if (first === undefined || ["static", "using", "typedef", "friend", "template", "static_assert"].includes(first)) return undefined;
    if (first === "enum") {
      const named = tokens.slice(tokens.findIndex((t) => t.text === "{}") + 1).find((t) => /^[A-Za-z_]/.test(t.text));
      return named ? `its member ${named.text} has an enum type (pass an integer)` : undefined;
    }
    if (tokens.some((t) => t.text === "virtual")) return "it has virtual functions";
    const { align, rest } = withoutAlignment(tokens);
    // A parenthesis before any array length (`int n[(16)]` is an array) makes a member function.
    const bracket = rest.findIndex((t) => t.text === "[");
    const parenthesis = rest.findIndex((t, i) => t.text === "(" && (bracket < 0 || i < bracket));
    if (parenthesis >= 0) return rest[parenthesis + 1]?.text === "*" ? "it has a function pointer member" : undefined;  // a member function
    const declarators = splitTopLevel(rest, 0, rest.length);
    // The name: the last identifier before the array lengths.
    const nameAt = (d: Token[]) => {
      const bracket = d.findIndex((t) => t.text === "[");
      const head = bracket < 0 ? d : d.slice(0, bracket);
      for (let i = head.length - 1; i >= 0; i--) if (/^[A-Za-z_]/.test(head[i].text)) return i;
      return -1;
    };
    const typeTokens = declarators[0].slice(0, Math.max(0, nameAt(declarators[0])));
    const firstStar = typeTokens.findIndex((t) => t.text === "*");
    const baseWords = (firstStar < 0 ? typeTokens : typeTokens.slice(0, firstStar)).map((t) => t.text);
    const typeWords = typeTokens.map((t) => t.text).filter((w) => w !== "*" && w !== "&");
    for (const d of declarators) {
      const at = nameAt(d);
      if (at < 0) return "it has a member without a name";
      const name = d[at].text;
      if (d.some((t) => t.text === "&" || t.text === "&&")) return `its member ${name} is a reference`;
      const after = d.slice(at + 1);
      if (after[0]?.text === ":") return `its member ${name} is a bit-field`;
      // "float* a", "float a, *b": the stars are in the declarator (the first one holds the type's words too).
      const stars = d.slice(0, at).filter((t) => t.text === "*").length;
      // A member of a template struct's instance (OneFlow's `SimpleFactory<AxpyFunctor<float>>` holds `AxpyFunctor<float> tpl`).
      const instance = stars === 0 ? templateStructInstance(typeTokens, structs) : undefined;
      let type = pointerMember(baseWords, stars, aliases) ??
        (instance === undefined ? memberType(typeWords, structs, aliases) : typeof instance === "string" ? instance : { kind: "struct", layout: instance });
      if (typeof type === "string") return type.startsWith("has the type") ? `its member ${name} ${type}` : type;
      const lengths: number[] = [];
      for (let i = 0; after[i]?.text === "["; i = closing(after, i) + 1) {
        let inside = after.slice(i + 1, closing(after, i)).map((t) => t.text);
        // A length given by a macro such as #define N (1024).
        while (inside.length > 2 && inside[0] === "(" && inside[inside.length - 1] === ")") inside = inside.slice(1, -1);
        if (inside.length !== 1 || !INTEGER_LITERAL.test(inside[0]) || parseInt(inside[0]) < 1) {
          return `the length of its array member ${name} is not a positive integer literal ("${inside.join(" ")}")`;
        }
        lengths.push(parseInt(inside[0]));
      }
      for (const length of lengths.reverse()) type = { kind: "array", element: type, length };
      const declaration = `${baseWords.includes("const") && stars > 0 ? "const " : ""}${typeName(baseWords)}${"*".repeat(stars)}`;
      members.push({ name, declaration, type, align });
    }
    return undefined;
  };
  let statement: Token[] = [];
  for (let i = 0; i < body.length; i++) {
    const t = body[i];
    if (t.text === ";") {
      const problem = declare(statement);
      if (problem) return problem;
      statement = [];
    } else if (t.text === "{") {
      const close = closing(body, i);
      const words = statement.map((s) => s.text);
      const start = withoutAccessLabels(statement)[0]?.text;
      if (words.includes("(")) {
        statement = [];  // a member function's body: it ends the member
      } else if (start === "enum" || start === "typedef" || start === "static" || start === "using") {
        statement.push({ text: "{}", at: t.at });
      } else if (start === "struct" || start === "class" || start === "union") {
        return "it defines a struct or union inside itself (define it outside)";
      }
      // else: int n{4}, a default member initializer: the layout is the same without it
      i = close;
    } else if (t.text === "=") {
      // A default member initializer (or a default argument), up to the declarator's end.
      let j = i + 1;
      for (let depth = 0; j < body.length; j++) {
        const x = body[j].text;
        if (x === "(" || x === "[" || x === "{") depth++;
        if (x === ")" || x === "]" || x === "}") depth--;
        if (depth < 0 || (depth === 0 && (x === "," || x === ";"))) break;
      }
      i = j - 1;
    } else {
      statement.push(t);
    }
  }
  return declare(statement) ?? members;
}

// The struct that tokens[from, open) ... tokens[close] define, under each name it gets
// ("struct Tag { } Name;" and "typedef struct { } Name;"), added to `structs`; nothing
// for other braces (functions, namespaces, initializers, templates, enums).
function defineStruct(tokens: Token[], from: number, open: number, close: number, structs: Map<string, StructLayout | string | StructTemplate>,
                      aliases: Map<string, string>): void {
  const end = tokens.findIndex((t, j) => j > close && t.text === ";");
  const after = withoutAlignment(tokens.slice(close + 1, end < 0 ? tokens.length : end));  // } __attribute__((aligned(16))) Name;
  const before = withoutAlignment(tokens.slice(from, open));
  const align = Math.max(before.align, after.align);
  const words = before.rest.map((t) => t.text);
  if (words[0] === "template" && words[1] === "<") {
    // `template <typename T, int N> struct Vec { T v[N]; };` (not a specialization, `struct Vec<float, 4>`).
    const head = closing(before.rest, 1);
    const rest = words.slice(head + 1);
    const name = /^(?:struct|class)$/.test(rest[0] ?? "") ? rest[1] : undefined;
    if (!name || !/^[A-Za-z_]\w*$/.test(name) || rest.length > 2 && rest[2] !== "final" && rest[2] !== ":") return;
    structs.set(name, rest.includes(":") ? `struct ${name} cannot be passed by value: it derives from another struct: pass one without a base` :
      { kind: "template", params: parseTemplateParams(before.rest.slice(2, head)), body: tokens.slice(open + 1, close), align, aliases });
    return;
  }
  const keyword = words.findIndex((w) => w === "struct" || w === "class" || w === "union");
  if (keyword < 0 || words.some((w) => ["(", "=", "template", "enum"].includes(w))) return;
  const tag = words.slice(keyword + 1).find((w) => /^[A-Za-z_]\w*$/.test(w) && w !== "final");
  const names = words[0] === "typedef" ? after.rest.map((t) => t.text).filter((w) => /^[A-Za-z_]/.test(w)) : [];
  const named = [...(tag ? [tag] : []), ...names.slice(0, 1)];
  if (named.length === 0) return;
  let layout: StructLayout | string;
  if (words[keyword] === "union") layout = "a union's members share their bytes: pass a struct";
  else if (words.slice(keyword + 1).includes(":")) layout = "it derives from another struct: pass one without a base";
  else {
    const members = structMembers(tokens.slice(open + 1, close), structs, aliases);
    layout = typeof members === "string" ? members : layoutStruct(named[named.length - 1], members, align);
  }
  for (const name of named) structs.set(name, typeof layout === "string" ? `struct ${name} cannot be passed by value: ${layout}` : layout);
}

// The pointer declarators of a struct's typedef, `typedef struct { ... } RpptROI, *RpptROIPtr;`
// (rpp's kernels take RpptROIPtr): each the struct's pointer, named as its first declarator or its tag.
function pointerTypedefs(tokens: readonly Token[], close: number, opener: readonly string[], aliases: Map<string, string>): void {
  const end = tokens.findIndex((t, j) => j > close && (t.text === ";" || t.text === "{"));
  if (end < 0 || tokens[end].text !== ";") return;
  const declarators = splitTopLevel(tokens as Token[], close + 1, end).map((d) => d.map((t) => t.text));
  const tag = opener.filter((w) => /^[A-Za-z_]\w*$/.test(w) && !["typedef", "struct", "union", "alignas", "__align__"].includes(w)).pop();
  const named = declarators.find((d) => d.length === 1)?.[0] ?? tag;
  if (!named) return;
  for (const d of declarators) {
    const stars = d.filter((w) => w === "*").length, name = d[d.length - 1];
    if (stars > 0 && d.slice(0, stars).every((w) => w === "*") && d.length === stars + 1 && /^[A-Za-z_]\w*$/.test(name)) aliases.set(name, `${named}${" *".repeat(stars)}`);
  }
}

// `typedef ns::T<A, B> name;` or `using name = ns::T<A, B>;` at tokens[i] (not an alias template):
// the alias and the instance's tokens, a qualified name and one argument list that ends it.
function templateInstanceAlias(tokens: readonly Token[], i: number): { alias: string; body: string[] } | undefined {
  const using = tokens[i].text === "using" && /^[A-Za-z_]\w*$/.test(tokens[i + 1]?.text ?? "") && tokens[i + 2]?.text === "=";
  if (tokens[i].text !== "typedef" && !using) return undefined;
  if (using && tokens[i - 1]?.text === ">") return undefined;
  const end = tokens.findIndex((t, j) => j > i && t.text === ";");
  if (end < 0) return undefined;
  const words = tokens.slice(using ? i + 3 : i + 1, using ? end : end - 1).map((t) => t.text);
  const alias = using ? tokens[i + 1].text : tokens[end - 1].text;
  const open = words.indexOf("<");
  if (open < 1 || words[words.length - 1] !== ">" || !/^[A-Za-z_]\w*$/.test(alias)) return undefined;
  if (!words.slice(0, open).every((w) => /^[A-Za-z_]\w*$/.test(w) || w === "::")) return undefined;
  let depth = 0;
  for (let k = open; k < words.length; k++) {
    if (words[k] === "<") depth++;
    else if (words[k] === ">") {
      if (--depth === 0 && k !== words.length - 1) return undefined;
    } else if (!/^(?:\w+|::|,|\*|-)$/.test(words[k])) return undefined;
  }
  return depth === 0 ? { alias, body: words } : undefined;
}

// Replaces typedef'd names by the type they stand for.
function resolveAliases(tokens: Token[], aliases: Map<string, string>): Token[] {
  const out: Token[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k];
    const template = tokens[k + 1]?.text === "<" ? aliases.get(`${t.text}<`) : undefined;
    if (template !== undefined) {
      // An alias template's use: its words with the arguments in place of its parameters.
      const [params, words] = template.split("|");
      const close = closing(tokens, k + 1);
      const args = splitTopLevel(tokens, k + 2, close).map(spell);
      const bound = new Map(params.split(",").map((p, n) => [p, args[n] ?? p]));
      out.push(...words.split(" ").flatMap((w) => (bound.get(w) ?? w).split(" ")).map((w) => ({ text: w, at: t.at })));
      k = close;
      continue;
    }
    const spelled = aliases.get(t.text);
    if (spelled === undefined) {
      out.push(t);
      continue;
    }
    // A name qualified with its namespace (`cuda::index_t`, `a::b::idx`): the qualifier goes with it.
    while (out[out.length - 1]?.text === "::") {
      out.pop();
      if (/^[A-Za-z_]\w*$/.test(out[out.length - 1]?.text ?? "")) out.pop();
    }
    // And the keyword of an enum's name written as C writes it (llama.cpp's `const enum ggml_op_pool op`).
    if (out[out.length - 1]?.text === "enum") out.pop();
    // `const realptr p` is the pointer made const (float* const p), not its pointee.
    const constPointer = spelled.endsWith("*") && out[out.length - 1]?.text === "const";
    if (constPointer) out.pop();
    out.push(...spelled.split(" ").map((w) => ({ text: w, at: t.at })), ...(constPointer ? [{ text: "const", at: t.at }] : []));
  }
  return out;
}

function parseParams(kernel: string, line: number, parts: Token[][], structs: SourceStructs): KernelParam[] {
  const params: KernelParam[] = [];
  for (const part of parts) {
    if (parts.length === 1 && part.length === 1 && part[0].text === "void") break;
    const param = parseParam(kernel, line, params.length, part, structs);
    const equals = part.findIndex((t) => t.text === "=");
    params.push(equals < 0 ? param : { ...param, fallback: defaultArgument(param, part.slice(equals + 1).map((t) => t.text).join("")) });
  }
  return params;
}

// A parameter's default argument as a launch passes it: a literal number or bool, or a
// pointer's null; other expressions (a constant's name, arithmetic) by their text alone.
function defaultArgument(param: KernelParam, text: string): NonNullable<KernelParam["fallback"]> | null {
  if (param.pointer) return /^(?:nullptr|NULL|0|__null)$/.test(text) ? null : { text };
  if (text === "true" || text === "false") return param.type === "bool" ? text === "true" : { text };
  const literal = /^([-+]?)(0[xX][0-9a-fA-F]+|\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)[uUlLfF]*$/.exec(text);
  if (!literal || param.type === "bool" || param.type === "struct") return { text };
  const integer = /^(?:0[xX][0-9a-fA-F]+|\d+)$/.test(literal[2]);
  if (integer && (param.type === "i64" || param.type === "u64")) return BigInt(literal[1] === "-" ? `-${literal[2]}` : literal[2]);
  const value = integer ? Number(BigInt(literal[2])) : Number(literal[2]);
  return literal[1] === "-" ? -value : value;
}

/** Parameters' types as a declaration lists them: "const float*, int". */
export function parameterList(params: readonly Pick<KernelParam, "declaration">[]): string {
  return params.map((q) => q.declaration).join(", ");
}

/** A kernel named with its parameter types, as `fn` takes an overload: "k<32>(float*, int)". */
export function typedName(name: string, declaration: Pick<KernelDeclaration, "params">): string {
  return `${name}(${parameterList(declaration.params)})`;
}

/** The name and template arguments of a name expression: "ns::k<float, 256>". */
export function parseNameExpression(expression: string): { name: string; args: Token[][] } | undefined {
  const tokens = tokenize(expression);
  if (tokens.length === 0) return undefined;
  const open = tokens.findIndex((t) => t.text === "<");
  const nameTokens = open < 0 ? tokens : tokens.slice(0, open);
  if (!nameTokens.every((t, i) => (i % 2 === 0 ? /^[A-Za-z_]\w*$/.test(t.text) : t.text === "::"))) return undefined;
  if (nameTokens.length % 2 === 0) return undefined;
  if (open < 0) return { name: spell(nameTokens), args: [] };
  const close = closing(tokens, open);
  if (close !== tokens.length - 1) return undefined;
  return { name: spell(nameTokens), args: splitTopLevel(tokens, open + 1, close) };
}

/**
 * A kernel named with its parameter types, as tools print one ("k<32, 1>(float*,
 * const float*, int)"), to pick one of its overloads: the name expression and
 * each type as written; undefined when there is no parameter list.
 */
export function splitParameterList(expression: string): { name: string; types: string[] } | undefined {
  const tokens = tokenize(expression);
  if (tokens.length < 3 || tokens[tokens.length - 1].text !== ")") return undefined;
  let depth = 0, open = tokens.length - 1;
  for (; open >= 0; open--) {
    if (tokens[open].text === ")") depth++;
    if (tokens[open].text === "(" && --depth === 0) break;
  }
  if (open <= 0) return undefined;
  const inner = splitTopLevel(tokens, open + 1, tokens.length - 1);
  const types = inner.length === 1 && spell(inner[0]) === "void" ? [] : inner.map(spell);
  return { name: spell(tokens.slice(0, open)), types };
}

/** A parameter type as written ("const float*", "float const *"), as a declaration spells it: its KernelParam's `declaration`. */
export function typeDeclaration(type: string): string {
  const tokens = tokenize(type);
  // A class template's instance by value (GPU-LBMsim's `use_LES<false>` tags), as its parameter's declaration spells it.
  if (tokens.some((t) => t.text === "<") && !tokens.some((t) => t.text === "*" || t.text === "&")) {
    return spell(tokens.filter((t) => t.text !== "const"));
  }
  const words = tokens.map((t) => t.text);
  const { pointer, isConst } = pointerShape(words);
  return declarationText(typeName(words), pointer, isConst);
}

/**
 * A kernel named as NVRTC's name expressions may pick an overload, by a cast to
 * its function pointer type (`(void (*)(float*, int))k<float>`,
 * `static_cast<void (*)(float*, int)>(&k<float>)`) or by its address (`&k<float>`),
 * written with its parameter types instead ("k<float>(float*, int)"); undefined
 * for any other expression.
 */
function withoutCast(expression: string): string | undefined {
  const tokens = tokenize(expression);
  // `void (*)(types)` from `from`: the parameters' tokens, or undefined.
  const pointerType = (from: number, to: number): Token[][] | undefined => {
    const t = tokens.slice(from, to).map((token) => token.text);
    if (t[0] !== "void" || t[1] !== "(" || t[2] !== "*" || t[3] !== ")" || t[4] !== "(") return undefined;
    const close = closing(tokens, from + 4);
    if (close !== to - 1) return undefined;
    return splitTopLevel(tokens, from + 5, close);
  };
  const named = (from: number, to: number, params?: Token[][]): string | undefined => {
    const start = tokens[from]?.text === "&" ? from + 1 : from;
    if (start >= to) return undefined;
    const name = spell(tokens.slice(start, to));
    if (!params) return name;
    const types = params.length === 1 && spell(params[0]) === "void" ? [] : params.map(spell);
    return `${name}(${types.join(", ")})`;
  };
  if (tokens[0]?.text === "&") return named(0, tokens.length);
  if (tokens[0]?.text === "(") {
    const close = closing(tokens, 0);
    const params = pointerType(1, close);
    return params ? named(close + 1, tokens.length, params) : undefined;
  }
  if (tokens[0]?.text === "static_cast" && tokens[1]?.text === "<") {
    const close = closing(tokens, 1);
    const params = pointerType(2, close);
    if (!params || tokens[close + 1]?.text !== "(" || closing(tokens, close + 1) !== tokens.length - 1) return undefined;
    return named(close + 2, tokens.length - 1, params);
  }
  return undefined;
}

/** The canonical spelling of a kernel name expression (spaces as `spell` puts them), or undefined when malformed. */
export function canonicalName(expression: string): string | undefined {
  const uncast = withoutCast(expression);
  if (uncast !== undefined) return canonicalName(uncast);
  const typed = splitParameterList(expression);
  if (typed) {
    const name = canonicalName(typed.name);
    return name === undefined ? undefined : `${name}(${typed.types.join(", ")})`;
  }
  const parsed = parseNameExpression(expression);
  if (!parsed) return undefined;
  return parsed.args.length === 0 && !expression.includes("<") ? parsed.name : `${parsed.name}<${parsed.args.map(spell).join(", ")}>`;
}

/** The kernel `template` instantiated with `args`: template arguments substituted into its parameters. */
export function instantiate(template: KernelTemplate, args: Token[][]): KernelDeclaration {
  const name = `${template.name}<${args.map(spell).join(", ")}>`;
  const given = template.templateParams;
  // A parameter pack, the last parameter, takes the rest of the arguments.
  const pack = given[given.length - 1]?.pack ? given[given.length - 1] : undefined;
  const packArgs = pack ? args.slice(given.length - 1) : [];
  if (!pack && args.length > given.length) {
    throw new ArgumentError("module.fn", "name", `${template.name} with at most ${given.length} template arguments (line ${template.line})`,
      JSON.stringify(name));
  }
  const bound = new Map<string, Token[]>();
  const substitute = (tokens: Token[]): Token[] => tokens.flatMap((t) => bound.get(t.text) ?? [t]);
  // A function parameter pack (`const IN*... in`): one parameter an argument of the pack, in_0, in_1 ...
  const expanded = (part: Token[]): Token[][] => {
    if (!pack || !part.some((_, i) => isEllipsis(part, i)) || !part.some((t) => t.text === pack.name)) return [part];
    const written = withoutEllipses(part);
    const last = written[written.length - 1];
    const named = written.length > 1 && /^[A-Za-z_]\w*$/.test(last.text) && last.text !== pack.name;
    return packArgs.map((arg, j) => written.flatMap((t) => (t.text === pack.name ? arg : named && t === last ? [{ text: `${t.text}_${j}`, at: t.at }] : [t])));
  };
  given.forEach((p, i) => {
    if (p.pack) return;
    if (i < args.length) bound.set(p.name, args[i]);
    else if (p.fallback.length > 0) bound.set(p.name, substitute(p.fallback));
    else {
      throw new ArgumentError("module.fn", "name", `${template.name} with a value for its template parameter ${p.name} (line ${template.line})`,
        JSON.stringify(name));
    }
  });
  const maxThreads = template.boundsTokens && integerValue(substitute(template.boundsTokens));
  return { name, params: parseParams(name, template.line, template.paramTokens.flatMap(expanded).map(substitute), template.structs), line: template.line,
    ...(maxThreads ? { maxThreads } : {}) };
}

// The value of an integer constant expression of literals, parentheses and + - * / % (`(256)`,
// `BLOCK * 2` once BLOCK is substituted), as C++ computes it; undefined for anything else.
function integerValue(tokens: Token[]): number | undefined {
  const text = tokens.map((t) => t.text.replace(/^(\d+)[uUlL]*$/, "$1")).join(" ");
  if (!/^[\d\s()+\-*/%]+$/.test(text)) return undefined;
  let at = 0;
  const words = text.match(/\d+|[()+\-*/%]/g) ?? [];
  const primary = (): number => {
    const w = words[at++];
    if (w === "(") { const v = sum(); at++; return v; }
    if (w === "-") return -primary();
    return Number(w);
  };
  const product = (): number => {
    let v = primary();
    while (["*", "/", "%"].includes(words[at])) {
      const op = words[at++], r = primary();
      v = op === "*" ? v * r : op === "/" ? Math.trunc(v / r) : v % r;
    }
    return v;
  };
  const sum = (): number => {
    let v = product();
    while (words[at] === "+" || words[at] === "-") v = words[at++] === "+" ? v + product() : v - product();
    return v;
  };
  const value = sum();
  return at === words.length && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** Every __global__ function of `source` after preprocessing, with its parameters; templates apart. */
export function findKernels(source: string, predefined: Record<string, string> = {}): SourceKernels {
  const code = stripNonCode(new Preprocessor(predefined).run(source));
  const tokens = tokenize(code);
  const aliases = typeAliases(tokens);
  const kernels: KernelDeclaration[] = [];
  const templates: KernelTemplate[] = [];
  const constants: ConstantDeclaration[] = [];
  const structs = new Map<string, StructLayout | string | StructTemplate>();
  const overloaded = new Map<string, number[]>();
  const overloads = new Map<string, Overload[]>();
  const unlaunchable = new Map<string, ArgumentError>();
  // The kernels of each name, to tell a prototype and its definition from another overload.
  const declared = new Map<string, KernelDeclaration[]>();
  const prototypes: { declaration: KernelDeclaration; at: number }[] = [];
  const add = (declaration: KernelDeclaration, at: number) => {
    const seen = declared.get(declaration.name) ?? [];
    if (seen.some((d) => sameParams(d.params, declaration.params))) return;  // a prototype and its definition
    declared.set(declaration.name, [...seen, declaration]);
    if (seen.length === 0) {
      kernels.push(declaration);
      return;
    }
    const earlier = kernels.findIndex((k) => k.name === declaration.name);
    if (earlier >= 0) {
      overloaded.set(declaration.name, [kernels.splice(earlier, 1)[0].line]);
      overloads.set(declaration.name, [...seen]);
    }
    overloaded.get(declaration.name)!.push(lineAt(code, at));
    overloads.get(declaration.name)!.push({ ...declaration, line: lineAt(code, at) });
  };
  // Namespaces enclosing the current token ("" for other braces).
  const scopes: string[] = [];
  const qualified = (name: string) => [...scopes.filter((s) => s.trim() !== ""), name].join("::");
  let statementStart = 0;
  for (let g = 0; g < tokens.length; g++) {
    const text = tokens[g].text;
    if (text === "namespace") {
      let j = g + 1;
      const name: string[] = [];
      while (j < tokens.length && tokens[j].text !== "{" && tokens[j].text !== "=" && tokens[j].text !== ";") name.push(tokens[j++].text);
      if (tokens[j]?.text === "{") {
        // namespace a::b { opens two scopes; an anonymous one adds no qualifier.
        const parts = name.filter((w) => w !== "::" && w !== "inline");
        scopes.push(parts.join("::") || " ");
        g = j;
        statementStart = g + 1;
        continue;
      }
    }
    if (text === "{") {
      // A function body or a class: skip it whole (no kernel lives inside one).
      scopes.push("");
      const close = closing(tokens, g);
      const opener = tokens.slice(statementStart, g).map((t) => t.text);
      if (!opener.includes("extern")) {
        scopes.pop();
        defineStruct(tokens, statementStart, g, close, structs, aliases);
        g = close;
      }
      statementStart = g + 1;
      continue;
    }
    if (text === "}") {
      scopes.pop();
      statementStart = g + 1;
      continue;
    }
    if (text === ";") {
      statementStart = g + 1;
      continue;
    }
    if (text === "template" && tokens[g + 1]?.text !== "<" && g === statementStart) {
      // An explicit instantiation: template __global__ void k<float>(float*, int);
      const end = tokens.findIndex((t, j) => j > g && (t.text === ";" || t.text === "{"));
      const stop = end < 0 ? tokens.length : end;
      for (let j = g + 1; j < stop; j++) {
        if (tokens[j + 1]?.text !== "<" || !/^[A-Za-z_]/.test(tokens[j].text)) continue;
        let first = j;
        while (first >= 2 && tokens[first - 1].text === "::") first -= 2;
        const written = spell(tokens.slice(first, j + 1));
        const template = templates.find((t) => t.name === written || t.name === qualified(written));
        if (!template) continue;
        const close = closing(tokens, j + 1);
        const args = splitTopLevel(tokens, j + 2, close);
        try {
          add(instantiate(template, args), tokens[g].at);
        } catch (e) {
          if (!(e instanceof ArgumentError)) throw e;
          unlaunchable.set(`${template.name}<${args.map(spell).join(", ")}>`, e);
        }
        break;
      }
      g = stop - 1;
      continue;
    }
    // __managed__ alone declares a __device__ variable too (nvcc), which the host writes and reads.
    const managedAlone = text === "__managed__" && !tokens.slice(statementStart, g).some((t) => t.text === "__device__");
    if (text === "__constant__" || text === "__device__" || managedAlone) {
      // __constant__ float table[64]; the name is the identifier before [ = { or ;
      // A __device__ variable likewise (`__device__ unsigned retirement_count = 0;`), one
      // the host may write (not static, const or a template); a function's ( comes first.
      let end = g;
      while (end < tokens.length && !["[", "=", "{", ";", "(", ","].includes(tokens[end].text)) {
        const attribute = ["__align__", "alignas", "__attribute__", "__launch_bounds__"].includes(tokens[end].text) && tokens[end + 1]?.text === "(";
        end = attribute ? closing(tokens, end + 1) + 1 : tokens[end].text === "<" ? closing(tokens, end) + 1 : end + 1;
      }
      // A variable template's head: template <typename T> __constant__ T mask[16];
      let head = tokens.slice(statementStart, end);
      let templateParams: string[] | undefined;
      if (head[0]?.text === "template" && head[1]?.text === "<") {
        const close = closing(head, 1);
        templateParams = parseTemplateParams(head.slice(2, close)).map((p) => p.name);
        head = head.slice(close + 1);
      }
      const statement = head.map((t) => t.text);
      const device = text !== "__constant__";
      // A pointer to a function, `__device__ float (*p_max)(float, float) = fmaxf;`.
      if (tokens[end]?.text === "(" && tokens[end + 1]?.text === "*" && !templateParams && !scopes.includes(" ")) {
        const declarator = closing(tokens, end);
        const fn = tokens[declarator + 1]?.text === "(" ? functionPointer(tokens.slice(statementStart, closing(tokens, declarator + 1) + 1)) : undefined;
        if (fn?.name && !statement.includes("const") && !statement.includes("constexpr")) {
          constants.push({ name: qualified(fn.name), type: "u64", line: lineAt(code, tokens[g].at), space: device ? "__device__" : "__constant__",
            isStatic: statement.includes("static"), functionPointer: fn.type });
        }
        continue;
      }
      // One in an unnamed namespace has no symbol outside its file. An operator's
      // tokens (`operator!=`) hold the = a variable's initializer begins with.
      // A pointer to const (`__device__ const int* table;`) is itself written by the host.
      const variableWords = statement.includes("*") ? statement.slice(statement.lastIndexOf("*")) : statement;
      if (tokens[end]?.text === "(" || scopes.includes(" ") || statement.includes("template") || statement.includes("operator") ||
          (device && (variableWords.includes("const") || statement.some((w) => ["__constant__", "constexpr", "extern", "__shared__"].includes(w))))) continue;
      const words = statement.filter((w) => /^[A-Za-z_]/.test(w) && !QUALIFIERS.has(w) && !["static", "extern", "__device__", "__constant__", "__managed__", "__align__"].includes(w));
      const name = words.pop();
      // A pointer or a struct by its type, one of them set from tensors (the CS149 renderer's
      // `__constant__ GlobalConstants cuConstRendererParams;` holds device pointers).
      const aliased = aliases.get(words.join(" ")) ?? "";
      const functionType = aliased.includes("(") ? { functionPointer: spell(tokenize(aliased)) } : {};
      const type = functionType.functionPointer ? "u64" : C_TYPES[words.join(" ")] ?? C_TYPES[aliased] ?? "void";
      const single = tokens[end]?.text !== "[";
      const pointer = single && statement.includes("*") ? typeName(words) : undefined;
      const struct = pointer || !single || type !== "void" ? undefined : structNamed(structs, aliases.get(words.join(" ")) ?? words.join(" "));
      const shape = { ...(pointer ? { pointer } : {}), ...(typeof struct === "object" ? { layout: struct } : {}) };
      // `__constant__ float T, r, sigma;` declares each name, of one type.
      for (const each of name ? [name, ...laterDeclarators(tokens, end)] : []) {
        constants.push({ name: qualified(each), type,
          line: lineAt(code, tokens[g].at), space: device ? "__device__" : "__constant__", isStatic: statement.includes("static"), ...shape, ...functionType,
          ...(templateParams ? { templateParams, typeWords: words.map((w) => aliases.get(w) ?? w) } : {}) });
      }
      continue;
    }
    if (text !== "__global__") continue;
    const head = tokens.slice(statementStart, g);
    const templateAt = head.findIndex((t) => t.text === "template");
    let i = g + 1;
    let nameAt = -1;
    let boundsTokens: Token[] | undefined;
    // __launch_bounds__(N) before __global__ (`__launch_bounds__(256) __global__ void k`).
    const before = head.findIndex((t) => t.text === "__launch_bounds__");
    if (before >= 0 && head[before + 1]?.text === "(") boundsTokens = splitTopLevel(head, before + 2, closing(head, before + 1))[0];
    while (i < tokens.length && tokens[i].text !== "(") {
      const t = tokens[i].text;
      // PyTorch's C10_LAUNCH_BOUNDS_1(n) stands for __launch_bounds__ (its header is the compiler's to read, not this reader's).
      if (["__launch_bounds__", "__attribute__", "__declspec", "alignas", "C10_LAUNCH_BOUNDS_1", "C10_LAUNCH_BOUNDS_2"].includes(t) && tokens[i + 1]?.text === "(") {
        const close = closing(tokens, i + 1);
        if (t === "__launch_bounds__" || t.startsWith("C10_LAUNCH_BOUNDS_")) boundsTokens = splitTopLevel(tokens, i + 2, close)[0];
        i = close + 1;
        continue;
      }
      if (t === "<") {  // an explicit specialization's arguments: k<float>(...)
        i = closing(tokens, i) + 1;
        continue;
      }
      if (/^[A-Za-z_]/.test(t)) nameAt = i;
      i++;
    }
    if (i >= tokens.length || nameAt < 0) continue;
    const name = qualified(tokens[nameAt].text);
    const line = lineAt(code, tokens[g].at);
    const close = closing(tokens, i);
    const templated = templateAt >= 0 && head[templateAt + 1]?.text === "<";
    const openAt = statementStart + templateAt + 1;
    const templateClose = templated ? closing(tokens, openAt) : openAt;
    const templateParams = parseTemplateParams(tokens.slice(openAt + 1, templateClose));
    // A template parameter hides an alias of its name.
    const visible = new Map([...aliases].filter(([alias]) => !templateParams.some((p) => p.name === alias)));
    const parts = splitTopLevel(tokens, i + 1, close).map((part) => resolveAliases(part, visible));
    if (templated) {
      // template <> is a specialization of a template already found: nothing new to launch.
      // Another template of the name with other parameter types overloads it (DeepSpeed's
      // attn_softmax on float* and on __half*): neither is launched by name.
      const earlier = templates.findIndex((t) => t.name === name);
      // The source's structs, also those defined after the template: an instance's arguments are read after the whole source.
      const template = (): KernelTemplate => ({ name, line, templateParams, paramTokens: parts, structs, ...(boundsTokens ? { boundsTokens } : {}) });
      const known = overloads.get(name)?.filter(isTemplate) ?? [];
      if (templateClose > openAt + 1 && earlier < 0 && !overloaded.has(name)) {
        templates.push(template());
      } else if (templateClose > openAt + 1 && earlier >= 0 && parameterTypes(templates[earlier].paramTokens) !== parameterTypes(parts)) {
        const first = templates.splice(earlier, 1)[0];
        overloaded.set(name, [first.line, line]);
        overloads.set(name, [first, template()]);
      } else if (templateClose > openAt + 1 && overloaded.has(name) && known.every((t) => parameterTypes(t.paramTokens) !== parameterTypes(parts))) {
        overloaded.get(name)!.push(line);
        overloads.get(name)!.push(template());
      }
    } else {
      // A prototype (`__global__ void k(int*);`, a project header's) declares a kernel
      // another file may define: it counts once a definition of it is found.
      let end = close + 1;
      while (end < tokens.length && tokens[end].text !== "{" && tokens[end].text !== ";") end++;
      try {
        const maxThreads = boundsTokens && integerValue(boundsTokens);
        // `extern "C" __global__ void k(...)`, or a kernel inside an `extern "C" {` block (its scope "").
        const cLinkage = head.some((t) => t.text === "extern") || scopes.includes("");
        const declaration: KernelDeclaration = { name, params: parseParams(name, line, parts, structs), line,
          ...(maxThreads ? { maxThreads } : {}), ...(cLinkage ? { cLinkage } : {}) };
        if (tokens[end]?.text === ";") prototypes.push({ declaration, at: tokens[g].at });
        else add(declaration, tokens[g].at);
      } catch (e) {
        if (!(e instanceof ArgumentError)) throw e;
        if (!unlaunchable.has(name)) unlaunchable.set(name, e);
      }
    }
    g = close;
  }
  // A kernel only declared is defined in another file, compiled apart (as nvcc compiles one file);
  // one declared beside a definition of its name with other parameters (a header's stale
  // prototype, CIS565's kernScatter) is a function the file does not define: the name
  // picks the definition, as a launch by name in the file compiles to the one defined.
  const staleOverloads = new Set<string>();
  for (const { declaration: p } of prototypes) {
    const defined = declared.get(p.name);
    const definition = defined?.find((d) => sameParams(d.params, p.params));
    if (definition) {
      if (p.cLinkage) definition.cLinkage = true;  // the linkage the first declaration gives
      // Default arguments are written in the prototype, not again in the definition.
      definition.params.forEach((q, n) => { if (p.params[n].fallback !== undefined && q.fallback === undefined) q.fallback = p.params[n].fallback; });
      continue;
    }
    if (unlaunchable.has(p.name)) continue;
    if (defined) {
      // Declared all the same: the compilers take the kernel's address by its parameter types.
      staleOverloads.add(p.name);
      continue;
    }
    unlaunchable.set(p.name, new ArgumentError("fl.compile", "source", "a kernel the source defines (one it only declares is another file's, which nvcc compiles apart)",
      `a declaration on line ${p.line}, with no definition`));
  }
  for (const lines of overloaded.values()) lines.sort((a, b) => a - b);
  const shared = namesSharedByOtherFunctions(tokens, new Set(kernels.map((k) => k.name.split("::").pop()!)));
  for (const kernel of kernels) {
    // An overload TS cannot launch (rocDecode's texture one beside ResizeHip's pointer one) shares the name too,
    // and so does a template kernel of the name (calm's kernel_embed<T> beside its uint32_t* overload).
    if (shared.has(kernel.name.split("::").pop()!) || unlaunchable.has(kernel.name) || staleOverloads.has(kernel.name) ||
      templates.some((t) => t.name === kernel.name)) kernel.exportedAs = typedName(kernel.name, kernel);
  }
  return { kernels, templates, constants, overloaded, overloads, unlaunchable };
}

/** The kernels of `source` (explicit template instantiations among them), with their parameters; an error for one TS cannot launch. */
export function parseKernels(source: string, predefined: Record<string, string> = {}): KernelDeclaration[] {
  const found = findKernels(source, predefined);
  const refused = found.unlaunchable.values().next();
  if (!refused.done) throw refused.value;
  return found.kernels;
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
