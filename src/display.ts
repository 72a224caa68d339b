// Rich display in notebooks: results shown as HTML with a text fallback in one
// output (Jupyter shows the HTML, exports to text keep the text). Outside a
// notebook, display() prints the text.
import { inspect } from "util";
import { BenchResults } from "./bench";
import { CompareReport, isCompareReport } from "./compare";
import { DeviceInfo } from "./device";
import type { DType } from "./dtype";
import { shapeString } from "./errors";
import { escapeHtml, formatBytes, htmlTable } from "./format";
import { PREVIEW_COLUMNS, PREVIEW_ROWS, Tensor, previewNumber, tensorText } from "./tensor";
import { Ledger } from "./traffic";
import { inNotebook, publishDisplay, setRichRenderer } from "./tslab";

/** Anything with its own HTML and text: charts, sweep results. */
export interface Displayable {
  toHTML(): string;
  toString(): string;
  /** Called before it is shown in a notebook (a chart puts plotly.js there first). */
  prepareToShow?(): void;
}

/** An output in both forms. */
export interface RichOutput {
  html: string;
  text: string;
}

function caption(html: string): string {
  return `<div style="margin:2px 0">${html}</div>`;
}

function tensorHtml(t: Tensor<DType>): string {
  const head = `<b>tensor</b> ${t.dtype} ${escapeHtml(shapeString(t.shape))} on ${escapeHtml(t.device.describe())}`;
  if (t.disposed) return caption(`${head} (disposed)`);
  if (t.size === 0) return caption(`${head} (no elements)`);
  const width = t.shape[t.shape.length - 1];
  const corner = t.corner(PREVIEW_ROWS, PREVIEW_COLUMNS);
  const moreColumns = width > PREVIEW_COLUMNS;
  const rows = corner.map((row) => [...row.map(previewNumber), ...(moreColumns ? ["…"] : [])]);
  if (t.size / width > corner.length) rows.push(rows[0].map(() => "⋮"));
  const header = [...corner[0].map((_, i) => String(i)), ...(moreColumns ? [""] : [])];
  return caption(`${head}, ${formatBytes(t.bytes)}`) + htmlTable([header, ...rows], 0);
}

function compareHtml(r: CompareReport): string {
  const [summary] = r.toString().split("\n");
  const verdict = r.close ? "<b>close</b>" : "<b>not close</b>";
  const rows = [["index", "got", "expected", "abs error", "rel error"],
    ...r.worst.map((m) => [shapeString(m.index), String(m.actual), String(m.expected), m.absError.toExponential(3), m.relError.toExponential(3)])];
  const more = r.mismatches > r.worst.length ? caption(`… and ${r.mismatches - r.worst.length} more`) : "";
  return caption(`${verdict}: ${escapeHtml(summary)}`) + (r.worst.length > 0 ? htmlTable(rows, 1) + more : "");
}

const DEVICE_KEYS = ["backend", "index", "name", "kind"];

function isDeviceList(value: unknown): value is DeviceInfo[] {
  return Array.isArray(value) && value.length > 0 &&
    value.every((d) => typeof d === "object" && d !== null && DEVICE_KEYS.every((k) => k in d) && Object.keys(d).length === DEVICE_KEYS.length);
}

function isDisplayable(value: unknown): value is Displayable {
  return typeof value === "object" && value !== null && typeof (value as Displayable).toHTML === "function";
}

/** The HTML and text of a value: tensors, bench results, ledgers, compare reports, devices(), charts; anything else as util.inspect writes it. */
export function richOutput(value: unknown): RichOutput {
  if (Tensor.isTensor(value)) return { html: tensorHtml(value), text: tensorText(value) };
  if (value instanceof BenchResults) return { html: htmlTable(value.tableRows(), 1), text: value.toString() };
  if (value instanceof Ledger) return { html: htmlTable(value.tableRows(), 2, true), text: value.toString() };
  if (isCompareReport(value)) return { html: compareHtml(value), text: value.toString() };
  if (isDeviceList(value)) {
    const rows = [DEVICE_KEYS, ...value.map((d) => [d.backend, String(d.index), d.name, d.kind])];
    return { html: htmlTable(rows, 4), text: value.map((d) => `${d.backend}:${d.index}  ${d.name} (${d.kind})`).join("\n") };
  }
  if (isDisplayable(value)) return { html: value.toHTML(), text: value.toString() };
  const text = typeof value === "string" ? value : inspect(value);
  return { html: `<pre>${escapeHtml(text)}</pre>`, text };
}

setRichRenderer((value) => {
  if (isDisplayable(value)) value.prepareToShow?.();
  const { html, text } = richOutput(value);
  return { "text/html": html, "text/plain": text };
});

/**
 * Shows `value` in the notebook as HTML, with its text for exports and untrusted
 * views; prints the text outside a notebook. Tensors show their dtype, shape,
 * device and first values; bench results, ledgers and devices() as tables.
 */
export function display(value: unknown): void {
  if (isDisplayable(value) && inNotebook()) value.prepareToShow?.();
  const { html, text } = richOutput(value);
  if (!publishDisplay({ "text/html": html, "text/plain": text })) console.log(text);
}
