// Every user-facing argument error is worded by one template, so that messages
// read alike across the library and tests can check them word for word:
//
//   <where>: <argument> must be <expected>, got <received>
//
// e.g. "fl.ops.add: b must be a tensor, got 3". An <expected> that begins with
// "have " takes "must" alone: "fl.ops.add: b must have shape [4, 7] (the shape
// of a), got [4, 8]".

import * as path from "path";
import { inspect } from "util";
import { cellLine } from "./tslab";

export class FuselabError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FuselabError";
  }

  /**
   * How a notebook (and console.log, util.inspect) shows the error: its message and
   * the user's own frames, without fuselab's internal ones. `stack` keeps them all.
   */
  [inspect.custom](): string {
    return [`${this.name}: ${this.message}`, ...userFrames(this.stack ?? "")].join("\n");
  }
}

// Frames from files here (the compiled library) are fuselab's own.
const LIBRARY_DIR = __dirname + path.sep;
const FOREIGN_FILE = /^node:|[\\/]node_modules[\\/](tslab|mocha)[\\/]/;
const FRAME_LOCATION = /\(?([^()\s]+|evalmachine\.<anonymous>):(\d+):\d+\)?$/;
const USER_FRAMES_SHOWN = 3;

/**
 * The user's frames of a stack trace, innermost first: a notebook cell's frames as
 * "in the cell: <its line>", a file's as the stack wrote them; frames of fuselab,
 * Node, tslab and mocha left out.
 */
export function userFrames(stack: string): string[] {
  const frames: string[] = [];
  for (const line of stack.split("\n")) {
    const location = /^\s+at /.test(line) ? FRAME_LOCATION.exec(line) : null;
    if (!location) continue;
    const [, file, lineNumber] = location;
    if (file.startsWith(LIBRARY_DIR) || FOREIGN_FILE.test(file)) continue;
    if (file === "evalmachine.<anonymous>") {
      const code = cellLine(Number(lineNumber));
      if (code?.includes("__tslab__")) continue; // the call of tslab's wrapper around the cell
      frames.push(code ? `    in the cell: ${code}` : "    in the cell");
    } else {
      frames.push(line);
    }
  }
  return frames.filter((frame, i) => frames.indexOf(frame) === i).slice(0, USER_FRAMES_SHOWN);
}

/** A bad argument: names it, says what was expected and what came. */
export class ArgumentError extends FuselabError {
  constructor(readonly where: string, readonly argument: string, readonly expected: string, readonly received: string) {
    super(`${where}: ${argument} must ${expected.startsWith("have ") ? "" : "be "}${expected}, got ${received}`);
    this.name = "ArgumentError";
  }
}

/** A failure reported by a backend (runtime call, compile, launch). */
export class DeviceError extends FuselabError {
  constructor(message: string, readonly log?: string) {
    super(message);
    this.name = "DeviceError";
  }
}

/** How a received value is shown in messages: short, typed, never "[object Object]". */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? value.slice(0, 37) + "..." : value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "function") return "a function";
  try {
    if (Array.isArray(value)) {  // throws for a revoked Proxy
      const items = value.slice(0, 8).map(describe).join(", ");
      return `[${items}${value.length > 8 ? ", ..." : ""}]`;
    }
    if (ArrayBuffer.isView(value)) return `${value.constructor.name}(${(value as unknown as { length?: number }).length ?? value.byteLength})`;
    const described = (value as { describe?: () => string }).describe;
    if (typeof described === "function") return String(described.call(value));
    return `an object (${(value as object).constructor?.name ?? "Object"})`;
  } catch {
    return "an object that cannot be described (a Proxy?)";
  }
}

/**
 * An options object (left out: {}) whose keys are all among `keys` (null: any
 * keys), as a plain copy with each value read once (a getter cannot answer
 * differently later); throws an ArgumentError naming `argument` for anything
 * else, also when reading it throws.
 */
export function checkOptionsObject(where: string, options: unknown, keys: readonly string[] | null, argument = "options"): Record<string, unknown> {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new ArgumentError(where, argument, "an object", describe(options));
  }
  let given: string[];
  try {
    given = Object.keys(options);
  } catch (e) {
    throw new ArgumentError(where, argument, "a plain object", `an object whose keys cannot be listed (${errorText(e)})`);
  }
  const copy: Record<string, unknown> = {};
  for (const key of given) {
    if (keys && !keys.includes(key)) throw new ArgumentError(where, argument, `an object with keys among ${keys.join(", ")}`, `the key ${JSON.stringify(key)}`);
    try {
      copy[key] = (options as Record<string, unknown>)[key];
    } catch (e) {
      throw new ArgumentError(where, argument === "options" ? `options.${key}` : `${argument}[${JSON.stringify(key)}]`, "a value", `a getter that threw (${errorText(e)})`);
    }
  }
  return copy;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** "a" or "an" and a dtype, as it is read aloud: "an f32", "an i8", "a u8", "a bf16". */
export function aDtype(dtype: string): string {
  return `${/^[fi]/.test(dtype) ? "an" : "a"} ${dtype}`;
}

export function shapeString(shape: readonly number[]): string {
  return `[${shape.join(", ")}]`;
}
