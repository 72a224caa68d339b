// How numbers and tables are written, everywhere: the ledger, bench results,
// the benchmarks' reports and the lessons read alike.

/** Milliseconds with about four significant digits. */
export function formatMs(ms: number): string {
  if (ms >= 100) return ms.toFixed(1);
  if (ms >= 1) return ms.toFixed(3);
  return ms.toFixed(4);
}

/** Bytes in binary units: "512 bytes", "1.50 KiB", "2.00 GiB". */
export function formatBytes(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(2)} ${units[unit]}`;
}

/** Bytes in MB (10^6 bytes, as bandwidth is counted), three decimals. */
export function formatMB(bytes: number): string {
  return (bytes / 1e6).toFixed(3);
}

/**
 * Rows, the header first, as an aligned text table: the first `leftColumns`
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

/** The same table in Markdown, the first `leftColumns` columns left-aligned. */
export function markdownTable(rows: readonly string[][], leftColumns: number): string {
  const line = (r: string[]) => `| ${r.join(" | ")} |`;
  const align = rows[0].map((_, col) => (col < leftColumns ? "---" : "---:"));
  return [line(rows[0]), line(align), ...rows.slice(1).map(line)].join("\n");
}

/** Text made safe inside HTML elements and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

// Numbers line up in columns; nothing sets a colour, so light and dark themes both read.
const TABLE_STYLE = "border-collapse:collapse;font-variant-numeric:tabular-nums;margin:4px 0";
const CELL_STYLE = "padding:2px 10px;border-bottom:1px solid rgba(127,127,127,0.35);white-space:nowrap";

/**
 * Rows, the header first, as an HTML table: the first `leftColumns` columns left-aligned,
 * the others (numbers) right-aligned; with `totalRow` the last row is bold.
 */
export function htmlTable(rows: readonly string[][], leftColumns: number, totalRow = false): string {
  const cell = (tag: string, text: string, col: number, bold: boolean) =>
    `<${tag} style="${CELL_STYLE};text-align:${col < leftColumns ? "left" : "right"}${bold ? ";font-weight:bold" : ""}">${escapeHtml(text)}</${tag}>`;
  const [header, ...body] = rows;
  const head = `<tr>${header.map((text, col) => cell("th", text, col, true)).join("")}</tr>`;
  const lines = body.map((row, i) => `<tr>${row.map((text, col) => cell("td", text, col, totalRow && i === body.length - 1)).join("")}</tr>`);
  return `<table style="${TABLE_STYLE}"><thead>${head}</thead><tbody>${lines.join("")}</tbody></table>`;
}
