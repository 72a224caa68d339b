// The tslab kernel, when fuselab runs inside one: rich outputs (display_data with
// several MIME types at once, updated in place by display id) and the code of the
// cell that is running, so that an error can show the user's line. Outside a
// notebook (node, mocha, a grader) none of this is active and nothing is patched.
import * as crypto from "crypto";
import vm = require("vm");

type WriteDisplayData = (data: { data: Record<string, string>; metadata: Record<string, unknown>; transient: { display_id?: string } }, update: boolean) => void;

// The kernel's own instance of tslab's jupyter module: whichever copy of tslab runs
// the kernel, it is the one in the module cache whose writer is set per execution.
function tslabModule(file: string): Record<string, unknown> | undefined {
  for (const key of Object.keys(require.cache)) {
    if (key.endsWith(`tslab/dist/${file}`) || key.endsWith(`tslab\\dist\\${file}`)) return require.cache[key]?.exports as Record<string, unknown>;
  }
  return undefined;
}

/** Whether this process is a tslab kernel (fuselab imported from a notebook). */
export function inNotebook(): boolean {
  return tslabModule("executor.js") !== undefined;
}

/**
 * Sends one output with each of `data`'s MIME types (the notebook shows the richest
 * it can, exported text keeps text/plain). With `displayId`, a later call with the
 * same id and `update` replaces it in place. False when there is no notebook to send to.
 */
export function publishDisplay(data: Record<string, string>, displayId?: string, update = false): boolean {
  const write = tslabModule("jupyter.js")?.lastWriteDisplayData as WriteDisplayData | undefined;
  if (typeof write !== "function") return false;
  write({ data, metadata: {}, transient: displayId ? { display_id: displayId } : {} }, update);
  return true;
}

/** A fresh display id for an output that will be updated in place. */
export function newDisplayId(): string {
  return crypto.randomBytes(8).toString("hex");
}

// tslab runs each cell as one script through vm.runInThisContext, with no file
// name (its frames read "evalmachine.<anonymous>:LINE:COL"); the last such script
// is the running cell's code, compiled to JavaScript.
let cellScript: string | undefined;

function watchCellScripts(): void {
  const run = vm.runInThisContext;
  if ((run as { fuselabWatch?: boolean }).fuselabWatch) return;
  const watched = function (this: unknown, code: string, options?: vm.RunningScriptOptions | string) {
    if (typeof code === "string" && (options === undefined || typeof options === "object" && !options.filename)) cellScript = code;
    return run.call(vm, code, options);
  };
  (watched as { fuselabWatch?: boolean }).fuselabWatch = true;
  (vm as { runInThisContext: typeof run }).runInThisContext = watched as typeof run;
}

if (inNotebook()) watchCellScripts();

/** Line `line` (from 1) of the running cell's compiled code, trimmed; undefined when not known. */
export function cellLine(line: number): string | undefined {
  const text = cellScript?.split("\n")[line - 1]
    ?.replace(/^\((async )?function\(exports, require\) \{ /, "") // tslab's wrapper
    .replace(/^exports\.tsLastExpr\w* = /, "")                   // where tslab keeps a last expression
    .replace(/\bexports\.(?=[A-Za-z_$])/g, "")                    // the cell's variables, shared between cells
    .trim();
  return text || undefined;
}

// How values are shown rich; set by display.ts, which knows every result type
// (the layers below it only know their own text).
let richRenderer: ((value: unknown) => Record<string, string>) | undefined;

export function setRichRenderer(render: (value: unknown) => Record<string, string>): void {
  richRenderer = render;
}

// Printed by console.log in place of a value shown rich, and kept out of the cell's output.
const SHOWN_RICH = "\u2063";

/** Whether tslab itself is printing a value: a cell's last expression, which it console.log()s. */
function printedByTslab(): boolean {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 30;
  const stack = new Error().stack ?? "";
  Error.stackTraceLimit = limit;
  // The first frame that is neither this library's nor Node's own is the caller of console.log.
  const caller = stack.split("\n").slice(1).find((line) => !line.includes(__dirname) && !/\(node:|at node:/.test(line));
  return caller !== undefined && /[\\/]tslab[\\/]dist[\\/]executor\.js:/.test(caller);
}

/**
 * For a result type's [util.inspect.custom]: when the value is a notebook cell's
 * last expression, it is shown rich (HTML with its text) and nothing is printed;
 * otherwise (console.log, a terminal) returns `text()`. `shown`: the value is on
 * show already, and only the printing is left out.
 */
export function inspectRich(value: unknown, text: () => string, shown = false): string {
  if (!richRenderer || !inNotebook() || !printedByTslab()) return text();
  if (!shown && !publishDisplay(richRenderer(value))) return text();
  // console.log writes the returned text and a newline next: that one write is dropped.
  const stdout = process.stdout;
  const write = stdout.write;
  const restore = () => { if (stdout.write === dropShown) stdout.write = write; };
  const dropShown = function (this: unknown, chunk: unknown, ...rest: unknown[]): boolean {
    restore();
    if (chunk === SHOWN_RICH + "\n") return true;
    return (write as (...args: unknown[]) => boolean).call(stdout, chunk, ...rest);
  };
  stdout.write = dropShown as typeof stdout.write;
  setImmediate(restore);
  return SHOWN_RICH;
}
