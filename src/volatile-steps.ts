// On the CPU, a source's volatile shared objects become fl::emu::stepped<T> and
// its pointers to volatile T fl::emu::stepped_ptr<T> (kernels/fuselab/emulator/stepped.h),
// whose loads and stores take turns with the block's other threads: the lanes
// of a warp then make the accesses of warp-synchronous code (a reduction's last
// 32 threads through `volatile float* vsmem`, with no __syncwarp) in step, as a
// GPU's warp does, where the emulator would otherwise run one lane through all
// of them before the next. A dynamic shared array declared volatile
// (`extern volatile __shared__`) keeps its declaration; a pointer to it gives
// the steps.

// A type written before `volatile` or after it: C's arithmetic types in any
// order, or a name (a typedef, a template parameter, a namespace-qualified one).
const KEYWORDS = "__shared__|__device__|__constant__|__restrict__|const|volatile|static|extern|register|struct|class|union|enum|noexcept|override|final|throw|goto|asm|__asm__|__asm";
const ARITHMETIC = "(?:unsigned|signed|short|long|int|char|float|double|bool)";
const TYPE = `(${ARITHMETIC}(?:\\s+${ARITHMETIC})*\\b|(?!(?:${KEYWORDS})\\b)[A-Za-z_]\\w*(?:\\s*::\\s*[A-Za-z_]\\w*)*\\b)`;
const NOT_ASM = "(?<!\\b(?:asm|__asm__|__asm)\\s+)";

const CAST = new RegExp(`\\b(?:reinterpret_cast|static_cast|const_cast)\\s*<\\s*(?:const\\s+)?volatile\\s+(?:const\\s+)?${TYPE}\\s*\\*\\s*>`, "g");
// The casts left, to types that are not volatile pointers: their operand may be a stepped_ptr.
const OTHER_CAST = /\b(reinterpret_cast|const_cast)\s*</g;
const POINTER = new RegExp(`${NOT_ASM}\\b(?:const\\s+)?volatile\\s+(?:const\\s+)?${TYPE}\\s*\\*`, "g");
const POINTER_AFTER = new RegExp(`\\b(?:const\\s+)?${TYPE}\\s+volatile\\s*\\*`, "g");
// A shared object's declaration, `__shared__ volatile float s[64]` (a thread's own volatile
// locals need no steps; nor a `float* volatile p`, a volatile pointer to plain floats).
const SHARED = new RegExp(`(?:\\b__shared__\\s+(?:const\\s+)?volatile|\\bvolatile\\s+(?:const\\s+)?__shared__)\\s+(?:const\\s+)?${TYPE}(?=\\s+[A-Za-z_])`, "g");

// A function's parameter `volatile T* name`: it keeps its type, so that a template's T
// is deduced from the argument and a kernel's signature stays as written, and the body
// begins with the stepped pointer of that name (`fl::emu::stepped_ptr<T> name(name__fl_volatile);`).
const PARAMETER = new RegExp(`([(,]\\s*)(?:const\\s+)?volatile\\s+(?:const\\s+)?${TYPE}(\\s*\\*\\s*(?:__restrict__\\s*)?)([A-Za-z_]\\w*)(?=\\s*[,)])`, "g");
const KEPT = "__fl_kept_volatile";

function withParametersStepped(source: string, spelled: (type: string) => string): string {
  // Edits of `source`: [start, end, text], none overlapping.
  const edits: [number, number, string][] = [];
  for (const m of source.matchAll(PARAMETER)) {
    const [whole, before, type, , name] = m;
    const at = m.index! + before.length, end = m.index! + whole.length;
    edits.push([at, end, `${whole.slice(before.length).replace(/\bvolatile\b/, KEPT)}__fl_volatile`]);
    // The list's closing parenthesis, then the body's opening brace (none for a prototype).
    let depth = 0, k = end;
    for (; k < source.length; k++) {
      if (source[k] === "(") depth++;
      else if (source[k] === ")" && depth-- === 0) break;
    }
    const body = /^[^;{}]*\{/.exec(source.slice(k + 1));
    if (body) edits.push([k + 1 + body[0].length, k + 1 + body[0].length, ` fl::emu::stepped_ptr<${spelled(type)}> ${name}(${name}__fl_volatile);`]);
  }
  edits.sort((x, y) => x[0] - y[0]);
  let out = "", from = 0;
  for (const [start, end, text] of edits) {
    out += source.slice(from, start) + text;
    from = end;
  }
  return out + source.slice(from);
}

/** `source` with its volatile objects and pointers stepped, as the CPU runs them. */
export function withVolatileSteps(source: string): string {
  if (!/\bvolatile\b/.test(source)) return source;
  const spelled = (type: string) => type.trim().replace(/\s+/g, " ");
  return withParametersStepped(source, spelled)
    .replace(CAST, (_, type: string) => `fl::emu::stepped_ptr<${spelled(type)}>`)
    .replace(POINTER, (_, type: string) => `fl::emu::stepped_ptr<${spelled(type)}> `)
    .replace(POINTER_AFTER, (_, type: string) => `fl::emu::stepped_ptr<${spelled(type)}> `)
    .replace(SHARED, (whole: string, type: string, at: number, text: string) => {
      // A dynamic shared array keeps its declaration: the emulator lays it out by its element type.
      const statement = text.slice(Math.max(text.lastIndexOf(";", at), text.lastIndexOf("{", at), text.lastIndexOf("}", at)) + 1, at);
      return /\bextern\b/.test(statement) ? whole : `__shared__ fl::emu::stepped<${spelled(type)}>`;
    })
    .replace(OTHER_CAST, (_, cast: string) => `fl::emu::volatile_${cast}<`)
    .replaceAll(KEPT, "volatile");
}
