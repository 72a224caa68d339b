// A C preprocessor, enough to read kernel signatures as the compiler will see
// them: #define (object- and function-like, # and ##, __VA_ARGS__), #undef,
// #if/#ifdef/#ifndef/#elif/#else/#endif with integer expressions and defined().
// #include is not followed: the headers it names are the toolkit's and the
// emulator's, which declare no kernels. Lines are kept, so positions in the
// output still give the user's line numbers.

export type PpToken = { text: string; kind: "id" | "num" | "str" | "ws" | "punct"; hide?: ReadonlySet<string> };

/** A directive as `Preprocessor.run` met it, in a branch it takes or not. */
export interface Directive {
  /** The physical line it starts on (from 1), and how many it spans. */
  line: number;
  lines: number;
  /** "include", "if", "line", ...; a GNU line marker (`# 12 "file"`) gives its number. */
  name: string;
  rest: string;
  /** Whether its branch is taken, as far as this preprocessor can tell (headers' macros are unknown to it). */
  active: boolean;
  /** #include, #if, #elif in a taken branch: the operand with macros expanded. */
  expanded?: string;
  /** #if, #ifdef, #ifndef, #elif, #else: whether the text it opens is kept. */
  opensKept?: boolean;
  /** #if, #elif: whether names no macro defines here (which a header may define) leave its value as it is. */
  decided?: boolean;
}

interface Macro {
  params?: string[];  // undefined for an object-like macro
  variadic: boolean;
  body: PpToken[];
}

const TOKEN = /([A-Za-z_]\w*)|(\.?\d(?:[eEpP][+-]|[\w.])*)|("(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?)|(\s+)|(##|::|<<|>>|<=|>=|==|!=|&&|\|\||->|[\s\S])/g;

export function lex(text: string): PpToken[] {
  const tokens: PpToken[] = [];
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m; m = TOKEN.exec(text)) {
    const kind = m[1] ? "id" : m[2] ? "num" : m[3] ? "str" : m[4] ? "ws" : "punct";
    tokens.push({ text: m[0], kind });
  }
  return tokens;
}

/**
 * Comments replaced by a space each (newlines inside kept), line continuations
 * kept. A block comment inside a directive continues it past its line breaks,
 * as lines are spliced before comments are removed: its breaks come out as
 * continuations.
 */
export function withoutComments(source: string): string {
  let out = "";
  let i = 0;
  // Whether the text so far on this line is blank, and whether a directive is open.
  let lineStart = true, inDirective = false;
  while (i < source.length) {
    const c = source[i];
    if (c === "\n") {
      inDirective = inDirective && source[i - 1] === "\\";
      lineStart = true;
    } else if (c === "#" && lineStart) {
      inDirective = true;
    }
    if (c !== "\n" && c !== " " && c !== "\t" && c !== "\r") lineStart = false;
    if (c === "/" && source[i + 1] === "/") {
      while (i < source.length && source[i] !== "\n") {
        // A line comment ending in a backslash continues on the next line.
        if (source[i] === "\\" && source[i + 1] === "\n") { out += "\\\n"; i += 2; continue; }
        i++;
      }
      out += " ";
    } else if (c === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end < 0 ? source.length : end + 2;
      const breaks = source.slice(i, stop).replace(/[^\n]/g, "");
      out += " " + (inDirective ? breaks.replace(/\n/g, "\\\n") : breaks);
      i = stop;
    } else if (c === "\"" || c === "'") {
      let end = i + 1;
      if (c === "\"" && source[i - 1] === "R") {  // raw string R"delim( ... )delim"
        const open = source.indexOf("(", i);
        const close = source.indexOf(")" + source.slice(i + 1, open) + "\"", open);
        end = close < 0 ? source.length : close + (open - i) + 1;
      } else {
        while (end < source.length && source[end] !== c && source[end] !== "\n") end += source[end] === "\\" ? 2 : 1;
      }
      out += source.slice(i, end + 1);
      i = end + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Logical lines: a line ending in a backslash joins the next; `lines` counts the physical lines of each. */
function logicalLines(text: string): { text: string; lines: number }[] {
  const physical = text.split("\n");
  const result: { text: string; lines: number }[] = [];
  for (let i = 0; i < physical.length; i++) {
    let line = physical[i];
    let lines = 1;
    while (line.endsWith("\\") && i + 1 < physical.length) {
      line = line.slice(0, -1) + physical[++i];
      lines++;
    }
    result.push({ text: line, lines });
  }
  return result;
}

const stringify = (tokens: PpToken[]): string =>
  JSON.stringify(tokens.map((t) => (t.kind === "ws" ? " " : t.text)).join("").trim());

function trimWs(tokens: PpToken[]): PpToken[] {
  let a = 0, b = tokens.length;
  while (a < b && tokens[a].kind === "ws") a++;
  while (b > a && tokens[b - 1].kind === "ws") b--;
  return tokens.slice(a, b);
}

export class Preprocessor {
  private readonly macros = new Map<string, Macro>();

  constructor(predefined: Record<string, string> = {}) {
    for (const [name, value] of Object.entries(predefined)) this.define(`${name} ${value}`);
  }

  /**
   * `source` preprocessed: directives blanked, macros expanded, the line count
   * kept. Each directive, taken or not, is added to `directives` when given.
   */
  run(source: string, directives?: Directive[]): string {
    const out: string[] = [];
    // Each level of #if: is its text kept, was a branch taken, is the enclosing text kept.
    const stack: { active: boolean; taken: boolean; outer: boolean }[] = [];
    const active = () => stack.length === 0 || stack[stack.length - 1].active;
    let pending: string[] = [];  // text lines awaiting expansion (a macro call may span lines)
    const flush = () => {
      if (pending.length === 0) return;
      const expanded = this.expandText(pending.join("\n"));
      // Keep the line count: lines an invocation folded together come back as blank lines.
      const lines = expanded.split("\n");
      while (lines.length < pending.length) lines.push("");
      out.push(...lines);
      pending = [];
    };
    let physical = 1;
    for (const { text, lines } of logicalLines(withoutComments(source))) {
      const line = physical;
      physical += lines;
      // `%:` is the digraph of `#`.
      const directive = /^\s*(?:#|%:)\s*(\w*)(.*)$/.exec(text);
      if (!directive) {
        pending.push(active() ? text : "");
        for (let i = 1; i < lines; i++) pending.push("");
        continue;
      }
      flush();
      const [, name, rest] = directive;
      const top = stack[stack.length - 1];
      const record: Directive = { line, lines, name, rest, active: active() };
      directives?.push(record);
      if (record.active && (name === "include" || name === "if")) record.expanded = this.expandText(rest);
      if (name === "elif" && top && top.outer && !top.taken) record.expanded = this.expandText(rest);
      switch (name) {
        case "if": case "ifdef": case "ifndef": {
          const outer = active();
          let value = false;
          if (outer) {
            if (name === "if") value = this.evaluate(rest);
            if (name === "if") record.decided = value === this.evaluate(rest, UNKNOWN_AS_LARGE);
            else value = this.macros.has(rest.trim().split(/\s+/)[0]) === (name === "ifdef");
          }
          stack.push({ active: outer && value, taken: value, outer });
          record.opensKept = outer && value;
          break;
        }
        case "elif":
          if (top) {
            const value = top.outer && !top.taken && this.evaluate(rest);
            if (top.outer && !top.taken) record.decided = value === this.evaluate(rest, UNKNOWN_AS_LARGE);
            top.active = value;
            top.taken = top.taken || value;
            record.opensKept = value;
          }
          break;
        case "else":
          if (top) {
            top.active = top.outer && !top.taken;
            top.taken = true;
            record.opensKept = top.active;
          }
          break;
        case "endif":
          stack.pop();
          break;
        case "define":
          if (active()) this.define(rest);
          break;
        case "undef":
          if (active()) this.macros.delete(rest.trim());
          break;
        default:  // include, pragma, error, line: the compiler's business
          break;
      }
      for (let i = 0; i < lines; i++) out.push("");
    }
    flush();
    return out.join("\n");
  }

  private define(text: string): void {
    const m = /^\s*([A-Za-z_]\w*)(\()?/.exec(text);
    if (!m) return;
    const name = m[1];
    let rest = text.slice(m[0].length);
    let params: string[] | undefined;
    let variadic = false;
    if (m[2]) {
      const close = rest.indexOf(")");
      if (close < 0) return;
      params = rest.slice(0, close).split(",").map((p) => p.trim()).filter((p) => p !== "");
      rest = rest.slice(close + 1);
      if (params.length > 0 && params[params.length - 1].endsWith("...")) {
        variadic = true;
        const last = params[params.length - 1].slice(0, -3).trim();
        params[params.length - 1] = last === "" ? "__VA_ARGS__" : last;
      }
    }
    this.macros.set(name, { params, variadic, body: trimWs(lex(rest)) });
  }

  private expandText(text: string): string {
    return this.expand(lex(text)).map((t) => t.text).join("");
  }

  /** Every macro in `input` expanded, rescanned with what follows it, as C does. */
  private expand(input: PpToken[]): PpToken[] {
    const out: PpToken[] = [];
    const tokens = input.slice();
    let i = 0;
    while (i < tokens.length) {
      const t = tokens[i];
      const macro = t.kind === "id" ? this.macros.get(t.text) : undefined;
      if (!macro || t.hide?.has(t.text)) {
        out.push(t);
        i++;
        continue;
      }
      const hide = new Set(t.hide ?? []).add(t.text);
      if (!macro.params) {
        const body = macro.body.map((b) => ({ ...b, hide }));
        tokens.splice(i, 1, ...body);
        continue;
      }
      let open = i + 1;
      while (open < tokens.length && tokens[open].kind === "ws") open++;
      if (tokens[open]?.text !== "(") {  // a function-like macro's name alone is not a call
        out.push(t);
        i++;
        continue;
      }
      const args: PpToken[][] = [[]];
      let depth = 0;
      let close = open + 1;
      for (; close < tokens.length; close++) {
        const a = tokens[close].text;
        if (a === "(") depth++;
        else if (a === ")") {
          if (depth === 0) break;
          depth--;
        } else if (a === "," && depth === 0 && !(macro.variadic && args.length >= macro.params.length)) {
          args.push([]);
          continue;
        }
        args[args.length - 1].push(tokens[close]);
      }
      if (close >= tokens.length) {  // unbalanced: leave it for the compiler to report
        out.push(t);
        i++;
        continue;
      }
      // Newlines inside the call are kept after the expansion, so later lines stay in place;
      // within an argument they are spaces, as the C preprocessor reads them.
      const newlines = tokens.slice(i, close + 1).reduce((n, x) => n + (x.text.match(/\n/g)?.length ?? 0), 0);
      const spaced = (arg: PpToken[]) => trimWs(arg).map((x) => (x.kind === "ws" && x.text.includes("\n") ? { ...x, text: " " } : x));
      const body = this.substitute(macro, args.map(spaced), hide);
      tokens.splice(i, close + 1 - i, ...body, ...(newlines ? [{ text: "\n".repeat(newlines), kind: "ws" as const }] : []));
    }
    return out;
  }

  private substitute(macro: Macro, args: PpToken[][], hide: ReadonlySet<string>): PpToken[] {
    const params = macro.params ?? [];
    const argOf = (name: string): PpToken[] | undefined => {
      const index = params.indexOf(name);
      return index < 0 ? undefined : args[index] ?? [];
    };
    const body = macro.body;
    const result: PpToken[] = [];
    for (let k = 0; k < body.length; k++) {
      const b = body[k];
      const nextIndex = (from: number) => { let j = from; while (j < body.length && body[j].kind === "ws") j++; return j; };
      if (b.text === "#" && macro.params) {
        const j = nextIndex(k + 1);
        const raw = body[j] ? argOf(body[j].text) : undefined;
        if (raw) {
          result.push({ text: stringify(raw), kind: "str", hide });
          k = j;
          continue;
        }
      }
      if (b.text === "##") {
        // Paste the last token so far with the first of the next operand.
        while (result.length > 0 && result[result.length - 1].kind === "ws") result.pop();
        const j = nextIndex(k + 1);
        if (j >= body.length) break;
        const right = argOf(body[j].text) ?? [body[j]];
        const left = result.pop();
        const pasted = lex((left?.text ?? "") + (right[0]?.text ?? "")).map((x) => ({ ...x, hide }));
        result.push(...pasted, ...right.slice(1));
        k = j;
        continue;
      }
      const arg = argOf(b.text);
      if (arg) {
        const nextIsPaste = body[nextIndex(k + 1)]?.text === "##";
        result.push(...(nextIsPaste ? arg : this.expand(arg)));
        continue;
      }
      result.push({ ...b, hide });
    }
    return result;
  }

  /** The value of an #if expression: defined() first, then macros, then unknown names are 0 (or `unknown`). */
  private evaluate(text: string, unknown = "0"): boolean {
    const tokens = lex(text);
    const resolved: PpToken[] = [];
    for (let i = 0; i < tokens.length; i++) {
      if (tokens[i].text === "defined" || tokens[i].text === "__has_include") {
        const isDefined = tokens[i].text === "defined";
        let j = i + 1;
        while (tokens[j]?.kind === "ws") j++;
        const parenthesised = tokens[j]?.text === "(";
        let name = "";
        if (parenthesised) {
          let k = j + 1;
          while (k < tokens.length && tokens[k].text !== ")") name += tokens[k++].text;
          j = k;
        } else {
          name = tokens[j]?.text ?? "";
        }
        resolved.push({ text: isDefined && this.macros.has(name.trim()) ? "1" : "0", kind: "num" });
        i = j;
        continue;
      }
      resolved.push(tokens[i]);
    }
    const expanded = this.expand(resolved).filter((t) => t.kind !== "ws");
    return evaluateExpression(expanded.map((t) => (t.kind === "id" ? (t.text === "true" ? "1" : unknown) : t.text))) !== 0n;
  }
}

// A value for names no macro defines, to tell a condition they decide (`CUDART_VERSION >= 11000`) from one
// they do not (`defined(__HIP_PLATFORM_AMD__) && TORCH_VERSION_MAJOR < 2` where no platform macro is defined).
const UNKNOWN_AS_LARGE = "1000000";

// Integer expressions of #if, with C's precedence. Values are 64-bit; division by zero gives 0.
function evaluateExpression(tokens: string[]): bigint {
  let p = 0;
  const peek = () => tokens[p];
  const literal = (text: string): bigint => {
    if (text.startsWith("'")) return BigInt(text.charCodeAt(1) || 0);
    const digits = text.replace(/[uUlL]+$/, "");
    try {
      return /^0[0-7]+$/.test(digits) ? BigInt("0o" + digits.slice(1)) : BigInt(digits);
    } catch {
      return 0n;
    }
  };
  const primary = (): bigint => {
    const t = tokens[p++];
    if (t === "(") {
      const v = ternary();
      if (peek() === ")") p++;
      return v;
    }
    if (t === "!") return primary() === 0n ? 1n : 0n;
    if (t === "-") return -primary();
    if (t === "+") return primary();
    if (t === "~") return ~primary();
    return t === undefined ? 0n : literal(t);
  };
  const levels: string[][] = [["*", "/", "%"], ["+", "-"], ["<<", ">>"], ["<", ">", "<=", ">="], ["==", "!="], ["&"], ["^"], ["|"], ["&&"], ["||"]];
  const apply = (op: string, a: bigint, b: bigint): bigint => {
    switch (op) {
      case "*": return a * b;
      case "/": return b === 0n ? 0n : a / b;
      case "%": return b === 0n ? 0n : a % b;
      case "+": return a + b;
      case "-": return a - b;
      case "<<": return a << b;
      case ">>": return a >> b;
      case "<": return a < b ? 1n : 0n;
      case ">": return a > b ? 1n : 0n;
      case "<=": return a <= b ? 1n : 0n;
      case ">=": return a >= b ? 1n : 0n;
      case "==": return a === b ? 1n : 0n;
      case "!=": return a !== b ? 1n : 0n;
      case "&": return a & b;
      case "^": return a ^ b;
      case "|": return a | b;
      case "&&": return a !== 0n && b !== 0n ? 1n : 0n;
      default: return a !== 0n || b !== 0n ? 1n : 0n;
    }
  };
  const binary = (level: number): bigint => {
    if (level < 0) return primary();
    let v = binary(level - 1);
    while (levels[level].includes(peek())) {
      const op = tokens[p++];
      v = apply(op, v, binary(level - 1));
    }
    return v;
  };
  function ternary(): bigint {
    const condition = binary(levels.length - 1);
    if (peek() !== "?") return condition;
    p++;
    const a = ternary();
    if (peek() === ":") p++;
    const b = ternary();
    return condition !== 0n ? a : b;
  }
  return ternary();
}
