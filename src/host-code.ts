// A CUDA source may keep host code beside its kernels: a sample's globals
// (`int MATRIX_SIZE_X = 1024;`, `static uint* d_Partial;`) and helpers
// (`iDivUp`, an error check calling fprintf and exit, a random fill calling
// rand). nvcc compiles them for the host; NVRTC compiles device code only, and
// refuses them or (taking them as device code) fails on what they call or on an
// initializer that is not a constant. Device code cannot use a non-const host
// variable or call a host function (nvcc refuses both), so their definitions are
// blanked before NVRTC sees them: the kernels compile as they do under nvcc,
// and the line numbers stay. So are classes built on the host-only library (a
// sample's timer holding a std::chrono time point), which no kernel can take.

import { Directive, Preprocessor } from "./preprocess";
import { stripNonCode } from "./signature";

const ANNOTATED = /\b(?:__device__|__constant__|__shared__|__managed__|__global__|__host__)\b/;
const KEPT_FIRST_WORDS = new Set([
  "template", "typedef", "using", "struct", "class", "union", "enum", "namespace", "extern", "static_assert", "friend",
]);

/** Which characters of the source are preprocessor lines (with their continuations). */
function directives(source: string): boolean[] {
  const marks: boolean[] = [];
  let inDirective = false;
  for (const line of source.split("\n")) {
    inDirective = inDirective || line.trimStart().startsWith("#");
    for (let k = 0; k <= line.length; k++) marks.push(inDirective);
    inDirective = inDirective && line.endsWith("\\");
  }
  return marks;
}

// An explicit instantiation of a class template, `template class HIPStream<float>` (no `;`).
const CLASS_INSTANTIATION = /^(?:extern\s+)?template\s+(?:class|struct)\s+[\w:\s]+<[^;{}]*>$/;

/**
 * Whether a namespace-scope statement (code only, no trailing `;`) defines a variable that device code cannot use,
 * or declares a host function that names what device code cannot have: the host-only library's types, or with
 * `anyPrototype` (a run-time compiler, which sees no host headers: `hipMemcpyKind` in a prototype) any at all.
 */
// Where a declaration's initializer begins (its `=` or `{` outside parentheses), or its length.
function topLevelInitializer(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (depth === 0 && (c === "{" || (c === "=" && text[i + 1] !== "=" && !"=!<>".includes(text[i - 1] ?? "")))) return i;
  }
  return text.length;
}

function isHostVariable(statement: string, anyPrototype: boolean): boolean {
  // `struct timeval start;` declares a variable of a class named by its keyword.
  const text = statement.trim().replace(/^(?:struct|class|union)\s+(?=[A-Za-z_]\w*\s+[^{]*$)/, "");
  const first = /^[A-Za-z_]\w*/.exec(text)?.[0];
  // An explicit instantiation of a class template (BabelStream's `template class HIPStream<float>;`):
  // a host class's, whose members launch kernels, would need the members left out; device
  // code instantiates what it uses itself.
  if (CLASS_INSTANTIATION.test(text)) return true;
  // `using std::string;`, `using Clock = std::chrono::steady_clock;`: a name of the host-only library.
  if (first === "using") return HOST_LIBRARY.test(text);
  if (!first || KEPT_FIRST_WORDS.has(first)) return false;
  if (ANNOTATED.test(text)) return isHostPrototype(text);
  // A texture reference (`texture<float, 2> tex;`, before CUDA 12) is device code's to read.
  if (/^texture\s*</.test(text)) return false;
  // The declarator: up to the initializer (a prototype's default argument, `float t = 0.5)`, is none).
  const declarator = text.slice(0, topLevelInitializer(text));
  // A function's declaration (or anything this reading does not follow) is kept, but
  // for one of the host-only library's types (`std::string launch_test(int m);`).
  if (declarator.includes("(") || /\boperator\b|\b(?:constexpr|consteval)\b/.test(declarator)) {
    return /^[^(]*\([^{]*\)[^{]*$/.test(declarator) && (HOST_LIBRARY.test(text) || (anyPrototype && !/\b(?:constexpr|consteval)\b/.test(declarator)));
  }
  // const objects (not pointers to const) may be read by device code as constants, but not
  // those of the host-only library (`const std::string logFile = ...`).
  if (HOST_LIBRARY.test(declarator)) return true;
  const afterLastStar = declarator.slice(declarator.lastIndexOf("*") + 1);
  if (/\bconst\b/.test(declarator.includes("*") ? afterLastStar : declarator)) return false;
  return /[A-Za-z_]\w*\s*(?:\[[^\]]*\]\s*)*$/.test(declarator.trim());
}

// The execution-space macros of the headers fuselab gives (PyTorch's c10), which a source uses without defining.
const LIBRARY_SPACE_MACROS: [string, string][] = [["C10_HOST_DEVICE", "__host__ __device__"], ["C10_DEVICE", "__device__"], ["C10_HOST", "__host__"]];

/** The source's #define lines, continuations joined: each macro's name, a function-like one's parameters with their parentheses, and its replacement. */
function macroDefinitions(source: string): { name: string; params?: string; body: string; line: number }[] {
  const lines = source.split("\n");
  const definitions: { name: string; params?: string; body: string; line: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    let text = lines[i];
    while (/\\\r?$/.test(text) && i + 1 < lines.length) text = text.replace(/\\\r?$/, " ") + lines[++i];
    const m = /^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\([^)\n]*\))?(.*)$/.exec(text);
    if (m) definitions.push({ name: m[1], params: m[2], body: m[3], line });
  }
  return definitions;
}

/**
 * The source's object-like macros that stand for an execution space
 * (`#define HOST_DEVICE_INLINE __device__ __host__ inline`, `#define CONSTANT __constant__`),
 * and c10's: `expand` writes them out in a statement's text before it is judged;
 * `names` matches them and the keywords.
 */
function executionSpaceMacros(source: string, dropped: ReadonlySet<number>): { expand: (text: string) => string; names: RegExp } {
  const macros = new Map<string, string>(LIBRARY_SPACE_MACROS);
  // A definition in a branch the target's preprocessor drops (`#else #define HD` after `#ifdef __CUDACC__`) is not the macro.
  for (const { name, params, body, line } of macroDefinitions(source)) if (params === undefined && !dropped.has(line)) macros.set(name, body);
  // Those whose expansion names one, through other macros too.
  const spaces = new Map<string, string>();
  for (let more = true; more;) {
    more = false;
    for (const [name, body] of macros) {
      const expanded = body.replace(/\b[A-Za-z_]\w*\b/g, (word) => spaces.get(word) ?? word);
      if (!spaces.has(name) && ANNOTATED.test(expanded)) {
        spaces.set(name, expanded);
        more = true;
      }
    }
  }
  const macroNames = new RegExp(`\\b(?:${[...spaces.keys()].join("|")})\\b`, "g");
  return {
    expand: (text) => text.replace(macroNames, (name) => spaces.get(name)!),
    names: new RegExp(`\\b(?:__host__|__device__|${[...spaces.keys()].join("|")})\\b`, "g"),
  };
}

/** Whether a namespace-scope statement (code only, macros written out) declares a variable `__host__ __device__`, which nvcc ignores and NVRTC refuses (`C10_HOST_DEVICE constexpr auto kMax = 448.f;`). */
function isHostDeviceVariable(statement: string): boolean {
  const declarator = withoutTemplateHeads(statement.trim()).split(/[={]/, 1)[0];
  return /\b__host__\b/.test(statement) && /\b__device__\b/.test(statement) && !declarator.includes("(") && !/^(?:typedef|using|struct|class|union|enum)\b/.test(declarator);
}

/** `text` without its leading template heads (`template <class T, int N>`), whose `class` declares no class. */
function withoutTemplateHeads(text: string): string {
  let rest = text;
  for (let head = /^template\s*</.exec(rest); head; head = /^template\s*</.exec(rest)) {
    // A '<' or '>' inside parentheses (`(sizeof(T) > 1)`) is a comparison.
    let depth = 0, parens = 0, k = head[0].length - 1;
    for (; k < rest.length; k++) {
      if (rest[k] === "(") parens++;
      else if (rest[k] === ")") parens--;
      else if (parens > 0) continue;
      else if (rest[k] === "<") depth++;
      else if (rest[k] === ">" && --depth === 0) break;
    }
    rest = rest.slice(k + 1).trimStart();
  }
  return rest;
}

// Names of the C++ library's host-only parts (clocks, strings, containers, streams,
// random engines, threads), which no device code can use.
// Also a container named without std:: (`vector<double> host_spmv(...);` after `using namespace std;`).
// (`string s`, `string* path` after `using namespace std;` too.)
const HOST_LIBRARY = /\bstd::(?:chrono|string|vector|map|unordered_map|set|deque|list|unique_ptr|shared_ptr|function|cout|cerr|clog|ostream|istream|ofstream|ifstream|fstream|stringstream|ostringstream|istringstream|endl|ends|flush|setw|setprecision|setfill|fixed|scientific|boolalpha|mt19937(?:_64)?|random_device|default_random_engine|thread|mutex)\b|(?<![\w:])(?:vector|unordered_map|deque|unique_ptr|shared_ptr)\s*<|(?<![\w:.>])string(?=\s*[*&]*\s*[A-Za-z_])/;

// A call into the CUDA or HIP runtime or cuBLAS (cudaEventCreate(, hipMalloc( ...), or into
// OpenGL, which samples draw their results with (glDrawPixels(, glutMainLoop( ...).
const RUNTIME_CALL = /\b(?:(?:cuda|hip|cublas(?:Lt)?|curand)[A-Z]\w*|(?:gl|glu|glut|glew|glfw|glX)[A-Z]\w*)\s*\(/;

/**
 * RUNTIME_CALL, and a call through an object-like macro naming a runtime function
 * (GPUMD's `#define gpuMalloc cudaMalloc`, so that one text builds for CUDA and HIP).
 */
function runtimeCallOf(source: string): RegExp {
  const macros = macroDefinitions(source).filter((d) => d.params === undefined);
  const aliases: string[] = [];
  for (let more = true; more;) {
    more = false;
    for (const { name, body } of macros) {
      const target = body.trim();
      if (aliases.includes(name) || !/^[A-Za-z_]\w*$/.test(target)) continue;
      if (!RUNTIME_CALL.test(`${target}(`) && !aliases.includes(target)) continue;
      aliases.push(name);
      more = true;
    }
  }
  return aliases.length === 0 ? RUNTIME_CALL : new RegExp(`${RUNTIME_CALL.source}|\\b(?:${aliases.join("|")})\\s*\\(`);
}

/** Whether a namespace-scope statement defines a class with no device code in it (`typedef struct { ... } Matrix;` too). */
function isUnannotatedClass(statement: string): boolean {
  const text = withoutTemplateHeads(statement.trim());
  return /^(?:typedef\s+)?(?:class|struct)\b/.test(text) && text.includes("{") && !ANNOTATED.test(text);
}

/** Whether a namespace-scope class definition is host code: one of its members or functions uses the host-only library or calls the runtime (a sample's timer class). */
function isHostClass(statement: string, runtimeCall: RegExp): boolean {
  return isUnannotatedClass(statement) && (HOST_LIBRARY.test(statement) || runtimeCall.test(statement));
}

/** Whether a statement instantiates one of `functions` explicitly (`template void launch<int>(int*, int);`). */
function instantiatesOneOf(statement: string, functions: Set<string>): boolean {
  const named = /^template\s+(?!<)[^;{}]*?\b([A-Za-z_]\w*)\s*(?:<[^;{}]*>\s*)?\(/.exec(statement.trim());
  return named !== null && functions.has(named[1]);
}

/** Whether the code before a `{` (from the statement's start) makes it a function's body. */
function opensFunctionBody(head: string): boolean {
  const text = withoutTemplateHeads(head.trim());
  // What lies outside parentheses: a default argument's '=' is no initializer.
  let outside = text;
  while (/\([^()]*\)/.test(outside)) outside = outside.replace(/\([^()]*\)/g, "");
  // An initializer's '=', not a comparison's (`enable_if<pack_size == 1, void>::type f(...)`).
  return !/(?:^|[^=!<>])=(?!=)/.test(outside) && !/\b(?:struct|class|union|enum)\b/.test(text.split("(", 1)[0]) &&
    /\)\s*(?:(?:const|noexcept|override|final)\s*)*(?:->[^{]*)?$/.test(text);
}

/**
 * Whether a declaration (`__host__ static matrix make_gpu(unsigned n);`, a workshop's
 * header) declares a function marked `__host__` alone, which NVRTC refuses even unused.
 */
function isHostPrototype(declaration: string): boolean {
  const declarator = declaration.split(/[={]/, 1)[0];
  return /^[^(]*\([^{]*\)[^{]*;?\s*$/.test(declarator) && /\b__host__\b/.test(declarator) && isHostFunction(declarator);
}

/** Whether the head of a function's definition (up to its body) makes it a host function: no execution space or __host__ alone, not constexpr. */
function isHostFunction(head: string): boolean {
  const hostOnly = !ANNOTATED.test(head) || (/\b__host__\b/.test(head) && !/\b(?:__device__|__global__)\b/.test(head));
  return hostOnly && !/\b(?:constexpr|consteval)\b/.test(head);
}

/**
 * What withoutHostCode leaves out: every host function and non-const host variable, or only the host functions whose text matches `functionsMatching` (or calls a macro whose definition does).
 * With `predefined` (the target's macros), the source is read as the target's compiler reads it: only the branches of its `#if`s it takes.
 */
export interface HostCodeOptions {
  functionsMatching?: RegExp;
  predefined?: Record<string, string>;
}

/**
 * The lines of `source` in branches of an `#if` the preprocessor drops: two
 * branches that each close a declaration (`int algo = 1);` / `int algo = 0);`)
 * would otherwise read as one unbalanced statement. A condition on a name no
 * macro defines here (`CUDART_VERSION >= 11000`, which a header defines) decides
 * nothing: every branch of it is read.
 */
function droppedLines(source: string, predefined: Record<string, string>): Set<number> {
  const directives: Directive[] = [];
  new Preprocessor(predefined).run(source, directives);
  // Per open #if: whether the current branch is read, and whether this preprocessor decided it.
  const groups: { read: boolean; decided: boolean }[] = [{ read: true, decided: true }];
  const dropped = new Set<number>();
  let line = 1;
  for (const d of directives) {
    const top = groups[groups.length - 1];
    if (!top.read) for (; line < d.line; line++) dropped.add(line);
    // A #define (or another directive) in a dropped branch is dropped with it; an #if's own lines belong to the branch around it.
    if (!top.read && !["if", "ifdef", "ifndef", "elif", "else", "endif"].includes(d.name)) dropped.add(d.line);
    line = d.line + d.lines;
    const parent = groups[groups.length - 2] ?? { read: true, decided: true };
    if (d.name === "if" || d.name === "ifdef" || d.name === "ifndef" || d.name === "elif" || d.name === "else") {
      const opens = d.name !== "elif" && d.name !== "else";
      const within = opens ? top : parent;
      const decided = within.decided && (opens || top.decided) && d.decided !== false;
      const branch = { read: within.read && (!decided || (d.opensKept ?? true)), decided };
      if (opens) groups.push(branch);
      else groups[groups.length - 1] = branch;
    } else if (d.name === "endif" && groups.length > 1) {
      groups.pop();
    }
  }
  return dropped;
}

/**
 * `pattern`, or a call of a function-like macro whose replacement matches it:
 * a launch or runtime call written through a macro (`#define LAUNCH(k, n) k<<<n, 256>>>(...)`,
 * used in a host function) marks the function as host code as the written one does.
 */
function withMacrosMatching(source: string, pattern: RegExp): RegExp {
  const names = withInvokers(functionLikeMacros(source), [], pattern);
  return names.length === 0 ? pattern : new RegExp(`${pattern.source}|${invocationOf(names).source}`);
}

// The source's function-like macros, each with its parameters and replacement as one text.
function functionLikeMacros(source: string): { name: string; text: string }[] {
  return macroDefinitions(source).filter((d) => d.params !== undefined).map((d) => ({ name: d.name, text: d.params! + d.body }));
}

// A call of one of the macros `names`.
function invocationOf(names: string[]): RegExp {
  return new RegExp(`\\b(?:${names.join("|")})\\s*\\(`);
}

// `names`, and the macros whose replacement matches `direct` or calls one of
// them, until no more do (a macro calling the launching macro launches too).
function withInvokers(macros: { name: string; text: string }[], names: string[], direct?: RegExp): string[] {
  const found = [...names];
  for (let more = true; more;) {
    more = false;
    for (const { name, text } of macros) {
      if (found.includes(name) || !(direct?.test(text) || (found.length > 0 && invocationOf(found).test(text)))) continue;
      found.push(name);
      more = true;
    }
  }
  return found;
}

/**
 * The function-like macros whose replacement defines a host function (one that
 * `only`, where given, matches): an extension's bindings written once for each
 * dtype (`#define BIND(tag) void run_##tag(torch::Tensor x) { tag##_kernel<<<...>>>(...); }`).
 */
function hostFunctionMacros(source: string, only: RegExp | undefined): string[] {
  const names: string[] = [];
  for (const { name, params, body } of macroDefinitions(source)) {
    const brace = body.indexOf("{");
    if (params === undefined || brace < 0) continue;
    const head = body.slice(0, brace);
    if (opensFunctionBody(head) && isHostFunction(head) && (!only || only.test(body))) names.push(name);
  }
  // And those that invoke one (cub's test_util.h: CUB_VEC_OVERLOAD(T) invokes the macro defining `operator<<` for each vector type).
  return names.length === 0 ? names : withInvokers(functionLikeMacros(source), names);
}

/**
 * A statement that begins with an invocation of a function-like macro whose
 * replacement defines device code, directly or through another such macro
 * (candle's `BINARY_OP(float, badd_f32, x + y);`, which reads like a host
 * function's prototype); undefined where the source defines none.
 */
function deviceCodeInvocation(source: string): RegExp | undefined {
  const names = withInvokers(functionLikeMacros(source), [], /\b(?:__device__|__global__|__constant__|__shared__|__managed__)\b/);
  return names.length === 0 ? undefined : new RegExp(`^\\s*(?:${names.join("|")})\\s*\\(`);
}

/**
 * `code` with each namespace-scope invocation of `macros` (and its `;`) blanked,
 * through `blank` as well: the host functions they define are left out as written
 * ones are, and the statement after an invocation reads on its own.
 */
function withoutInvocations(code: string, macros: string[], directive: boolean[], blank: (from: number, to: number) => void): string {
  if (macros.length === 0) return code;
  const chars = code.split("");
  for (const m of code.matchAll(new RegExp(`\\b(?:${macros.join("|")})\\s*\\(`, "g"))) {
    const start = m.index!;
    if (directive[start] || !walkNamespaceScope(code, start)) continue;
    let end = start + m[0].length, depth = 1;
    for (; end < code.length && depth > 0; end++) depth += code[end] === "(" ? 1 : code[end] === ")" ? -1 : 0;
    const semicolon = /^\s*;/.exec(code.slice(end));
    if (semicolon) end += semicolon[0].length;
    blank(start, end - 1);
    for (let k = start; k < end; k++) if (chars[k] !== "\n") chars[k] = " ";
  }
  return chars.join("");
}

/** A statement ended at namespace scope: code[start, end], and for a function's definition where its body opens. */
interface NamespaceStatement {
  start: number;
  end: number;
  bodyAt?: number;
}

/**
 * Walks `code` (comments and strings blanked) up to `until`, calling `visit` for
 * each statement that ends at namespace scope (namespace and extern "C" blocks
 * keep their contents there); returns whether `until` lies at namespace scope.
 */
function walkNamespaceScope(code: string, until: number, visit?: (statement: NamespaceStatement) => void): boolean {
  // Per open brace: a namespace or extern "C" block, a function's body, or other.
  const braces: { kind: "namespace" | "function" | "other"; at: number }[] = [];
  let start = 0, parens = 0;
  const atNamespaceScope = () => braces.every((brace) => brace.kind === "namespace");
  for (let i = 0; i < until; i++) {
    const c = code[i];
    if (c === "(") parens++;
    else if (c === ")") parens--;
    else if (c === "{") {
      const head = code.slice(start, i);
      // extern "C" reads as `extern` here: the string is blanked.
      const kind = !atNamespaceScope() ? "other" : /(?:\bnamespace\b[^;{}=]*|\bextern\s*)$/.test(head) ? "namespace"
        : opensFunctionBody(head) ? "function" : "other";
      braces.push({ kind, at: i });
      if (kind === "namespace") start = i + 1;
    } else if (c === "}") {
      const brace = braces.pop();
      // A class body or an initializer ends at the ';' that follows.
      if (brace && brace.kind !== "other" && atNamespaceScope()) {
        if (brace.kind === "function") visit?.({ start, end: i, bodyAt: brace.at });
        start = i + 1;
      }
    } else if (c === ";" && parens === 0 && atNamespaceScope()) {
      visit?.({ start, end: i });
      start = i + 1;
    }
  }
  return atNamespaceScope();
}

/** Whether `offset` of `source` lies at namespace scope: in no function, class or initializer. */
export function atNamespaceScope(source: string, offset: number): boolean {
  return walkNamespaceScope(stripNonCode(source), offset);
}

/** `source` with its namespace-scope host functions and non-const host variables blanked (see above); the rest unchanged. */
export function withoutHostCode(source: string, options: HostCodeOptions = {}): string {
  const only = options.functionsMatching && withMacrosMatching(source, options.functionsMatching);
  const directive = directives(source);
  const out = source.split("");
  // Directives between a definition's lines stay, as do the line breaks.
  const blank = (from: number, to: number) => {
    for (let k = from; k <= to; k++) if (out[k] !== "\n" && !directive[k]) out[k] = " ";
  };
  const dropped = options.predefined ? droppedLines(source, options.predefined) : new Set<number>();
  const read = dropped.size === 0 ? stripNonCode(source) : stripNonCode(source).split("\n").map((text, k) => (dropped.has(k + 1) ? " ".repeat(text.length) : text)).join("\n");
  const code = withoutInvocations(read, hostFunctionMacros(source, only), directive, blank);
  const deviceInvocation = deviceCodeInvocation(source);
  const spaces = executionSpaceMacros(source, dropped);
  const runtimeCompiled = options.predefined?.__CUDACC_RTC__ !== undefined || options.predefined?.__HIPCC_RTC__ !== undefined;
  const runtimeCall = runtimeCallOf(source);
  const expanded = spaces.expand;
  const statements: NamespaceStatement[] = [];
  walkNamespaceScope(code, code.length, (statement) => statements.push(statement));
  const blanked = new Set<NamespaceStatement>();
  const leaveOut = (statement: NamespaceStatement, text: string) => {
    blank(statement.start, statement.end);
    blanked.add(statement);
    // A class left out stays declared: a host declaration kept may name it
    // (`void op(context& ctx, float* dst);`), as an incomplete type may be named.
    const declaration = statement.bodyAt === undefined ? forwardDeclaration(text) : undefined;
    const first = code.slice(statement.start, statement.end).search(/\S/);
    if (declaration && first >= 0) out[statement.start + first] = declaration;
  };
  // With `functionsMatching`, a host function calling one left out is left out too (a
  // main() calling the helper that launches), until no more are.
  const leftOut = new Set<string>();
  let calls: RegExp | undefined;
  for (let more = true; more;) {
    more = false;
    for (const statement of statements) {
      if (blanked.has(statement)) continue;
      const { start, end, bodyAt } = statement;
      const text = expanded(code.slice(start, end));
      const host = bodyAt === undefined
        ? deviceInvocation?.test(text) ? false : only ? isUnannotatedClass(text) && only.test(text) : isHostVariable(text, runtimeCompiled) || isHostClass(text, runtimeCall)
        : isHostFunction(expanded(code.slice(start, bodyAt))) && (!only || only.test(text) || (calls !== undefined && calls.test(text)));
      if (!host) {
        // A __host__ __device__ variable keeps its declaration without them, as nvcc reads it.
        if (bodyAt === undefined && isHostDeviceVariable(text)) {
          for (const m of code.slice(start, end).matchAll(spaces.names)) blank(start + m.index!, start + m.index! + m[0].length - 1);
        }
        continue;
      }
      leaveOut(statement, text);
      const name = bodyAt === undefined ? undefined : functionName(code.slice(start, bodyAt));
      if (name && !leftOut.has(name)) {
        leftOut.add(name);
        if (only) {
          calls = new RegExp(`\\b(?:${[...leftOut].join("|")})\\s*(?:<[^;{}]*>\\s*)?\\(`);
          more = true;
        }
      }
    }
  }
  // A template left out takes its explicit instantiations with it, also those a
  // macro makes (`#define INSTANTIATE(T) template void launch<T>(T*, int);`):
  // there, that statement of the macro's replacement is blanked (the last one
  // may end with the macro, its `;` left to the use: caffe's INSTANTIATE_LAYER_GPU_FUNCS),
  // as is a macro's explicit instantiation of a class template, which the
  // namespace-scope ones share (caffe's INSTANTIATE_CLASS: see isHostVariable).
  for (const statement of statements) {
    if (!blanked.has(statement) && instantiatesOneOf(code.slice(statement.start, statement.end), leftOut)) blank(statement.start, statement.end);
  }
  // A statement in a macro ends at its `;`, or at the end of the directive: a line end with no `\` before it.
  const directiveEnds = (k: number) => source[k] === "\n" && !/\\\r?$/.test(source.slice(Math.max(0, k - 2), k));
  for (const m of source.matchAll(/\btemplate\b(?!\s*<)/g)) {
    const start = m.index!;
    let end = start;
    while (end < source.length && directive[end] && source[end] !== ";" && !directiveEnds(end)) end++;
    const closed = source[end] === ";";
    if (!directive[start] || (!closed && end < source.length && directive[end] && !directiveEnds(end))) continue;
    const text = source.slice(start, end).replace(/\\\r?\n/g, " ").trim();
    if (!instantiatesOneOf(text, leftOut) && !CLASS_INSTANTIATION.test(text)) continue;
    for (let k = start; k < end + (closed ? 1 : 0); k++) if (!/[\n\r\\]/.test(source[k])) out[k] = " ";
  }
  // A class with no device code that names a class left out as host code is host code
  // too (MindSpore's CudaCommon, whose members call GPUdeviceInfo::GetInstance, which
  // returns a std::shared_ptr): kept, it would name an incomplete type.
  const hostClasses = new Set([...blanked].filter((st) => st.bodyAt === undefined).map((st) => className(expanded(code.slice(st.start, st.end)))).filter((n): n is string => !!n));
  for (let more = hostClasses.size > 0; more;) {
    more = false;
    const names = new RegExp(`\\b(?:${[...hostClasses].join("|")})\\b`);
    for (const statement of statements) {
      if (blanked.has(statement) || statement.bodyAt !== undefined) continue;
      const text = expanded(code.slice(statement.start, statement.end));
      const name = isUnannotatedClass(text) ? className(text) : undefined;
      if (!name || !names.test(text.slice(text.indexOf("{")))) continue;
      leaveOut(statement, text);
      hostClasses.add(name);
      more = true;
    }
  }
  // A class with no device code whose member functions no device code could call
  // (not constexpr), and that nothing kept names (a sample's comparator of results,
  // used by its main alone), is host code, with its specializations. A class of data
  // alone stays: a template argument named from TS may be all that uses it.
  const kept = statements.filter((statement) => !blanked.has(statement));
  const textOf = (statement: NamespaceStatement) => expanded(code.slice(statement.start, statement.end));
  const directiveText = source.split("").filter((_, k) => directive[k]).join("");
  for (const statement of kept) {
    const text = textOf(statement);
    // A constexpr member function device code could call; a constexpr local or member constant is no such thing.
    // Member functions defined in it, or any naming the host-only library (a class of prototypes, `int distance(string s);`).
    const hasHostMembers = (/\)\s*(?:(?:const|noexcept|override|final)\s*)*\{/.test(text) && !/\b(?:constexpr|consteval)\b[^;{}=]*\(/.test(text)) ||
      HOST_LIBRARY.test(text);
    const name = isUnannotatedClass(text) && hasHostMembers ? className(text) : undefined;
    if (!name) continue;
    const mention = new RegExp(`\\b${name}\\b`);
    const named = kept.some((other) => !(isUnannotatedClass(textOf(other)) && className(textOf(other)) === name) && mention.test(textOf(other)));
    if (!named && !mention.test(directiveText)) blank(statement.start, statement.end);
  }
  // In a class with device code, a member function that nvcc takes for host code and
  // that device code cannot call: one marked `__host__` alone (hip-clang's overload of a
  // `__device__` one of the same signature, `__host__ S() {} __device__ S() {...}`), or
  // one with no execution space that calls the runtime (CUDA by Example's `Lock() { cudaMalloc(...); }`)
  // or names the host-only library (a `std::string to_string() const` for printing).
  for (const statement of kept) {
    if (statement.bodyAt === undefined && classHead(textOf(statement)) && ANNOTATED.test(textOf(statement))) {
      for (const member of hostMembers(code, statement, expanded, runtimeCall)) blank(member.start, member.end);
    }
  }
  return out.join("");
}

/**
 * The host member functions (constexpr ones aside) of a class definition
 * (`statement`) that are marked `__host__`, or whose bodies call the runtime: each
 * from its head, after any access label (which the members after it keep), to its
 * body's end; and the member prototypes marked `__host__` alone, to their `;`.
 */
function hostMembers(code: string, statement: NamespaceStatement, expand: (text: string) => string, runtimeCall: RegExp): { start: number; end: number }[] {
  const open = code.indexOf("{", statement.start);
  if (open < 0 || open > statement.end) return [];
  const found: { start: number; end: number }[] = [];
  let start = open + 1, depth = 0, parens = 0;
  for (let i = open + 1; i < statement.end; i++) {
    const c = code[i];
    if (c === "(") parens++;
    else if (c === ")") parens--;
    else if (c === "{") {
      if (depth === 0 && opensFunctionBody(code.slice(start, i))) {
        const end = closingBrace(code, i);
        const head = code.slice(start, i).replace(/^(\s*(?:(?:public|private|protected)\s*:\s*)*)/, (labels) => " ".repeat(labels.length));
        const labelled = head.length - head.trimStart().length;
        const written = expand(head);
        if (isHostFunction(written) && (/\b__host__\b/.test(written) || HOST_LIBRARY.test(written) || runtimeCall.test(code.slice(i, end)))) {
          found.push({ start: start + labelled, end });
        }
        i = end;
        start = end + 1;
        continue;
      }
      depth++;
    } else if (c === "}") {
      depth--;
      if (depth < 0) break;
    } else if (c === ";" && depth === 0 && parens === 0) {
      const declaration = code.slice(start, i + 1).replace(/^\s*(?:(?:public|private|protected)\s*:\s*)*/, "");
      if (isHostPrototype(expand(declaration))) found.push({ start: i + 1 - declaration.length, end: i });
      start = i + 1;
    }
  }
  return found;
}

// The index of the brace closing the one at `open`.
function closingBrace(code: string, open: number): number {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    if (code[i] === "{") depth++;
    else if (code[i] === "}" && --depth === 0) return i;
  }
  return code.length - 1;
}

/**
 * The forward declaration of a class definition, on one line (`struct context;`,
 * `template <class T> struct Timer;`, `template <> struct Cmp<float>;`), or
 * undefined for another statement or an unnamed class.
 */
function forwardDeclaration(statement: string): string | undefined {
  // `typedef struct { ... } Matrix;`: the name the typedef gives, as a struct's.
  const typedefName = /^typedef\s+(?:class|struct)\b[\s\S]*\}\s*([A-Za-z_]\w*)\s*;?$/.exec(statement.trim());
  if (typedefName) return `struct ${typedefName[1]};`;
  const head = classHead(statement);
  if (!head || head.name === "final") return undefined;
  return `${head.templateHeads.replace(/\s+/g, " ")}${head.keyword} ${head.name}${head.args};`;
}

/** The name a class definition's head gives (`ArrayComparator` of `template <> class ArrayComparator<float> {`). */
function className(statement: string): string | undefined {
  return classHead(statement)?.name;
}

/** A class definition's head: its template heads, class or struct, its name and a specialization's arguments. */
function classHead(statement: string): { templateHeads: string; keyword: string; name: string; args: string } | undefined {
  const text = statement.trim();
  const rest = withoutTemplateHeads(text);
  const m = /^(class|struct)\s+(?:alignas\s*\([^)]*\)\s*)?([A-Za-z_]\w*)\s*(<[^{:;]*>)?/.exec(rest);
  return m ? { templateHeads: text.slice(0, text.length - rest.length), keyword: m[1], name: m[2], args: m[3] ?? "" } : undefined;
}

/** The name a function's head (up to its body) defines: the identifier before its parameters. */
function functionName(head: string): string | undefined {
  const beforeParameters = withoutTemplateHeads(head.trim()).split("(", 1)[0];
  return /([A-Za-z_]\w*)\s*$/.exec(beforeParameters)?.[1];
}
