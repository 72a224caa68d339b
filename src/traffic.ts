// The traffic model: the fewest bytes each launch must move between the kernel
// and device memory (each input read once, each output written once, a bias or
// weight vector once), recorded by the ops as they launch. Fusion shows up as
// fewer launches and fewer bytes: the intermediate tensors never touch memory.
import { inspect } from "util";
import { ArgumentError, describe } from "./errors";
import { inspectRich } from "./tslab";

/** Bytes and launches of one kernel under one op, summed over its launches. */
export interface TrafficEntry {
  /** The public op that launched it, e.g. "ops.add" or "fused.addRelu". */
  op: string;
  /** The builtin kernel, e.g. "add_relu_f32". */
  kernel: string;
  bytesRead: number;
  bytesWritten: number;
  launches: number;
}

/** Every launch made inside one `traffic()` call, grouped by op and kernel in first-launch order. */
export class Ledger {
  readonly entries: TrafficEntry[] = [];

  get bytesRead(): number { return this.entries.reduce((s, e) => s + e.bytesRead, 0); }
  get bytesWritten(): number { return this.entries.reduce((s, e) => s + e.bytesWritten, 0); }
  /** Bytes read plus bytes written. */
  get bytes(): number { return this.bytesRead + this.bytesWritten; }
  get launches(): number { return this.entries.reduce((s, e) => s + e.launches, 0); }

  /** Adds one launch. */
  record(op: string, kernel: string, bytesRead: number, bytesWritten: number): void {
    let entry = this.entries.find((e) => e.op === op && e.kernel === kernel);
    if (!entry) {
      entry = { op, kernel, bytesRead: 0, bytesWritten: 0, launches: 0 };
      this.entries.push(entry);
    }
    entry.bytesRead += bytesRead;
    entry.bytesWritten += bytesWritten;
    entry.launches += 1;
  }

  /** An aligned text table in MB (10^6 bytes), with a total row. */
  toString(): string {
    return textTable(this.tableRows(), 2, true);
  }

  /** What console.log shows: the text table; as a notebook cell's last expression, the table in HTML. */
  [inspect.custom](): string {
    return inspectRich(this, () => this.toString());
  }

  /** The same table in Markdown. */
  toMarkdown(): string {
    return markdownTable(this.tableRows(), 2);
  }

  /** @internal The table's cells, the header row first. */
  tableRows(): string[][] {
    const mb = (bytes: number) => (bytes / 1e6).toFixed(3);
    return [
      ["op", "kernel", "read MB", "written MB", "launches"],
      ...this.entries.map((e) => [e.op, e.kernel, mb(e.bytesRead), mb(e.bytesWritten), String(e.launches)]),
      ["total", "", mb(this.bytesRead), mb(this.bytesWritten), String(this.launches)],
    ];
  }
}

/**
 * @internal Rows, the header first, as an aligned text table: the first `leftColumns`
 * columns (names) left-aligned, the others (numbers) right-aligned; a rule under the
 * header and, with `totalRow`, another above the last row.
 */
export function textTable(rows: readonly string[][], leftColumns: number, totalRow = false): string {
  const widths = rows[0].map((_, col) => Math.max(...rows.map((r) => r[col].length)));
  const line = (r: string[]) => r.map((cell, col) => (col < leftColumns ? cell.padEnd(widths[col]) : cell.padStart(widths[col]))).join("  ");
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  const body = rows.slice(1).map(line);
  if (totalRow) body.splice(body.length - 1, 0, rule);
  return [line(rows[0]), rule, ...body].join("\n");
}

/** @internal The same table in Markdown, the first `leftColumns` columns left-aligned. */
export function markdownTable(rows: readonly string[][], leftColumns: number): string {
  const line = (r: string[]) => `| ${r.join(" | ")} |`;
  const align = rows[0].map((_, col) => (col < leftColumns ? "---" : "---:"));
  return [line(rows[0]), line(align), ...rows.slice(1).map(line)].join("\n");
}

// Ledgers of the traffic() calls now running, innermost last: a launch counts in each.
const openLedgers: Ledger[] = [];

/**
 * Runs `fn` and returns the ledger of every op launch it made. Nestable: an outer
 * ledger also counts the launches of inner ones. `fn` must do its launches before
 * it returns (ops launch synchronously), so it may not be async.
 */
export function traffic(fn: () => unknown): Ledger {
  if (typeof fn !== "function") throw new ArgumentError("fl.traffic", "fn", "a function", describe(fn));
  const ledger = new Ledger();
  openLedgers.push(ledger);
  try {
    const result = fn();
    if (result instanceof Promise) {
      result.catch(() => undefined);  // the error below is the one the caller sees
      throw new ArgumentError("fl.traffic", "fn", "a synchronous function (launches after an await are not counted)",
        "a function that returned a Promise");
    }
  } finally {
    openLedgers.splice(openLedgers.lastIndexOf(ledger), 1);
  }
  return ledger;
}

/** Called by an op once per launch; does nothing outside `traffic()`. */
export function recordTraffic(op: string, kernel: string, bytesRead: number, bytesWritten: number): void {
  for (const ledger of openLedgers) ledger.record(op, kernel, bytesRead, bytesWritten);
}
