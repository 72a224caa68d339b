// Which kernels synchronize their whole grid (cooperative groups' grid.sync()):
// a GPU must launch them cooperatively, every block resident at once, or the
// sync traps and the device is lost for the process. Read from the source after
// preprocessing, through the device functions a kernel calls.
import { Preprocessor } from "./preprocess";
import { stripNonCode } from "./signature";

// A function's head before its body: its name, template arguments of a specialization, parameters, qualifiers.
const FUNCTION_HEAD = /([A-Za-z_]\w*)\s*(?:<[^;{}()]*>)?\s*\([^;{}]*\)\s*(?:(?:const|noexcept|override|final|mutable|__\w+__(?:\([^()]*\))?)\s*)*(?:->[^;{}]*)?$/;
const NOT_FUNCTIONS = new Set(["if", "for", "while", "switch", "catch", "return", "sizeof", "alignof", "decltype", "__launch_bounds__"]);

/** Each function of `code` (comments and strings blanked), by name: its head and body, overloads together. */
function functionsOf(code: string): Map<string, string> {
  const functions = new Map<string, string>();
  let from = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === ";" || c === "}") from = i + 1;
    if (c !== "{") continue;
    const head = code.slice(from, i);
    const name = FUNCTION_HEAD.exec(head)?.[1];
    from = i + 1;
    if (!name || NOT_FUNCTIONS.has(name)) continue;
    let depth = 0, end = i;
    for (; end < code.length; end++) {
      if (code[end] === "{") depth++;
      else if (code[end] === "}" && --depth === 0) break;
    }
    functions.set(name, (functions.get(name) ?? "") + head + code.slice(i, end + 1));
    i = end;
    from = end + 1;
  }
  return functions;
}

/** Whether a function's text syncs a grid group itself: `this_grid().sync()`, `grid.sync()` of a `grid_group grid`, `cg::sync(grid)`. */
function syncsGrid(text: string): boolean {
  const groups = ["this_grid\\s*\\(\\s*\\)"];
  for (const m of text.matchAll(/\bgrid_group\s*&?\s*([A-Za-z_]\w*)|\bauto\s*&?\s*([A-Za-z_]\w*)\s*=\s*(?:[\w:]*::)?this_grid\s*\(/g)) groups.push(`\\b${m[1] ?? m[2]}`);
  const group = `(?:${groups.join("|")})`;
  return new RegExp(`${group}\\s*\\.\\s*sync\\s*\\(|\\bsync\\s*\\(\\s*${group}\\s*\\)`).test(text);
}

/**
 * The names of the functions in `source` (unqualified, overloads together)
 * that sync their grid, themselves or through a function they call.
 */
export function gridSyncFunctions(source: string, predefined: Record<string, string>): Set<string> {
  if (!/\b(?:this_grid|grid_group)\b/.test(source)) return new Set();
  const functions = functionsOf(stripNonCode(new Preprocessor(predefined).run(source)));
  const reaching = new Set([...functions].filter(([, text]) => syncsGrid(text)).map(([name]) => name));
  for (let grown = reaching.size > 0; grown;) {
    grown = false;
    const calls = new RegExp(`\\b(?:${[...reaching].join("|")})\\s*(?:<[^;{}()]*>\\s*)?\\(`);
    for (const [name, text] of functions) {
      if (reaching.has(name) || !calls.test(text.slice(text.indexOf("{")))) continue;
      reaching.add(name);
      grown = true;
    }
  }
  return reaching;
}
