// The traffic model: the fewest bytes each launch must move between the kernel
// and device memory (each input read once, each output written once, a bias or
// weight vector once), stated by the op that launches it. `traffic(fn)` keeps
// the record of every launch `fn` makes; fusion shows up as fewer launches and
// fewer bytes: the intermediate tensors never touch memory.
import { inspect } from "util";
import { ArgumentError, describe } from "./errors";
import { formatMB, markdownTable, textTable } from "./format";
import { LaunchRecord, observeLaunches } from "./kernel";
import { inspectRich } from "./tslab";

/** The op name under which a kernel launched directly (`kernel.launch`) is ledgered. */
const DIRECT_LAUNCH = "kernel.launch";

/** Bytes and launches of one kernel under one op, summed over its launches. */
export interface TrafficEntry {
  /** The public op that launched it, e.g. "ops.add" or "fused.addRelu"; "kernel.launch" for a direct launch. */
  op: string;
  /** The kernel, e.g. "add_relu_f32". */
  kernel: string;
  bytesRead: number;
  bytesWritten: number;
  launches: number;
  /** Whether an op's traffic model counts the bytes (a direct launch has none: its bytes are 0). */
  modelled: boolean;
}

/** Every launch made inside one `traffic()` call: each record in order, and grouped by op and kernel. */
export class Ledger {
  /** One record a launch, in launch order. */
  readonly records: LaunchRecord[] = [];
  /** The launches grouped by op and kernel, in first-launch order. */
  readonly entries: TrafficEntry[] = [];

  get bytesRead(): number { return this.entries.reduce((s, e) => s + e.bytesRead, 0); }
  get bytesWritten(): number { return this.entries.reduce((s, e) => s + e.bytesWritten, 0); }
  /** Bytes read plus bytes written. */
  get bytes(): number { return this.bytesRead + this.bytesWritten; }
  get launches(): number { return this.records.length; }

  /** @internal Adds one launch. */
  add(record: LaunchRecord): void {
    this.records.push(record);
    const op = record.op ?? DIRECT_LAUNCH;
    const kernel = record.kernel.name;
    let entry = this.entries.find((e) => e.op === op && e.kernel === kernel);
    if (!entry) {
      entry = { op, kernel, bytesRead: 0, bytesWritten: 0, launches: 0, modelled: record.op !== null };
      this.entries.push(entry);
    }
    entry.bytesRead += record.bytesRead;
    entry.bytesWritten += record.bytesWritten;
    entry.launches += 1;
  }

  /** An aligned text table in MB (10^6 bytes), with a total row; "-" where a launch has no traffic model. */
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
    const mb = (e: { modelled: boolean }, bytes: number) => (e.modelled ? formatMB(bytes) : "-");
    return [
      ["op", "kernel", "read MB", "written MB", "launches"],
      ...this.entries.map((e) => [e.op, e.kernel, mb(e, e.bytesRead), mb(e, e.bytesWritten), String(e.launches)]),
      ["total", "", formatMB(this.bytesRead), formatMB(this.bytesWritten), String(this.launches)],
    ];
  }
}

/**
 * Runs `fn` and returns the ledger of every launch it made. Nestable: an outer
 * ledger also counts the launches of inner ones. `fn` must do its launches before
 * it returns (ops launch synchronously), so it may not be async.
 */
export function traffic(fn: () => unknown): Ledger {
  return trafficAs("fl.traffic", "fn", fn);
}

/** @internal traffic(), with its errors worded for the caller (`bench()` names the case). */
export function trafficAs(where: string, argument: string, fn: unknown): Ledger {
  if (typeof fn !== "function") throw new ArgumentError(where, argument, "a function", describe(fn));
  const ledger = new Ledger();
  const stop = observeLaunches((record) => ledger.add(record));
  try {
    const result = fn();
    if (result instanceof Promise) {
      result.catch(() => undefined);  // the error below is the one the caller sees
      throw new ArgumentError(where, argument, "a synchronous function (launches after an await are not counted)",
        "a function that returned a Promise");
    }
  } finally {
    stop();
  }
  return ledger;
}
