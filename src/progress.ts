// Progress of long work (sweeps, grading): in a notebook one output updated in
// place (a display id); in a terminal one line redrawn on stderr; elsewhere (logs,
// CI, tests) nothing.
import { escapeHtml } from "./format";
import { inNotebook, newDisplayId, publishDisplay } from "./tslab";

export interface Progress {
  /** Marks `done` of the total as finished, with what is running now. */
  update(done: number, doing: string): void;
  /** Replaces the progress with a closing line. */
  finish(summary: string): void;
}

const BAR_WIDTH = 30;

function bar(done: number, total: number): string {
  const filled = Math.round((BAR_WIDTH * done) / total);
  return `[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}] ${done}/${total}`;
}

/** Progress over `total` steps of work named `title`. */
export function progress(title: string, total: number): Progress {
  if (inNotebook()) {
    const id = newDisplayId();
    let shown = false;
    const show = (html: string, text: string) => {
      publishDisplay({ "text/html": html, "text/plain": text }, id, shown);
      shown = true;
    };
    return {
      update: (done, doing) => show(
        `<div><b>${escapeHtml(title)}</b> <progress value="${done}" max="${total}" style="width:240px;vertical-align:middle"></progress> ` +
        `${done}/${total} ${escapeHtml(doing)}</div>`,
        `${title} ${bar(done, total)} ${doing}`),
      finish: (summary) => show(`<div>${escapeHtml(summary)}</div>`, summary),
    };
  }
  const stream = process.stderr;
  if (!stream.isTTY) return { update: () => undefined, finish: () => undefined };
  return {
    update: (done, doing) => stream.write(`\r\x1b[2K${title} ${bar(done, total)} ${doing}`),
    finish: (summary) => stream.write(`\r\x1b[2K${summary}\n`),
  };
}
