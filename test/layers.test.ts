// The layer order of src/: a file may import only from its own layer's files
// (without a cycle) or from layers below it, so that each layer can be read,
// tested and replaced knowing only what is under it. Type-only imports count too.
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";

const SRC = path.resolve(__dirname, "..", "..", "src");

// Lowest first. A new file in src/ gets a layer here, or this test fails.
const LAYERS: string[][] = [
  ["tslab", "errors"],
  ["dtype", "random", "format", "preprocess", "layout", "signature", "host-code", "grid-sync", "volatile-steps", "language", "file-access", "headers"],
  ["native"],
  ["device"],
  ["tensor"],
  ["kernel"],
  ["module", "source"],
  ["compile"],
  ["ops/declare", "ops/common", "ops/elementwise", "ops/norm", "ops/reduce", "ops/rope", "ops/kvcache", "ops/quant", "ops/index"],
  ["traffic", "compare"],
  ["bench"],
  // The grader: exercises, the submission's process and its sandbox, the engine, reports.
  ["grading/usage", "grading/protocol", "grading/results", "grading/exercise", "grading/data", "grading/workbench",
    "grading/engine", "grading/numbers", "grading/sandbox", "grading/executor", "grading/fixtures", "grading/reports",
    "grading/ceiling", "grading/grade", "grading/check", "grading/runner"],
  ["display", "progress", "sweep", "plot"],
  // Other frameworks' fusion, run beside fuselab's.
  ["frameworks/protobuf", "frameworks/onnx"],
  ["index"],
  ["jupyter", "lessons", "workspace", "run-lessons", "cli", "grading/authoring", "grading/cli"],
];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

/** The src-relative module names (no extension) a file imports, type-only imports included. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
  const specs = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+["'](\.[^"']+)["']/g),
    ...text.matchAll(/(?:require|import)\(\s*["'](\.[^"']+)["']\s*\)/g),
  ].map((m) => m[1]);
  return specs.map((spec) => {
    const target = path.relative(SRC, path.resolve(path.dirname(file), spec)).split(path.sep).join("/");
    return fs.existsSync(path.join(SRC, target, "index.ts")) ? `${target}/index` : target;
  });
}

describe("layers of src/", () => {
  const files = sourceFiles(SRC).map((f) => path.relative(SRC, f).replace(/\.ts$/, "").split(path.sep).join("/"));
  const layerOf = new Map(LAYERS.flatMap((names, i) => names.map((n) => [n, i] as [string, number])));

  it("gives every file a layer, and names no file that is gone", () => {
    expect(files.filter((f) => !layerOf.has(f)), "files with no layer in test/layers.test.ts").to.deep.equal([]);
    expect([...layerOf.keys()].filter((n) => !files.includes(n)), "layers naming missing files").to.deep.equal([]);
  });

  it("has no import that runs back up the order", () => {
    const backEdges: string[] = [];
    for (const file of files) {
      for (const target of importsOf(path.join(SRC, `${file}.ts`))) {
        if ((layerOf.get(target) ?? -1) > (layerOf.get(file) ?? Infinity)) backEdges.push(`${file} -> ${target}`);
      }
    }
    expect(backEdges).to.deep.equal([]);
  });

  it("has no import cycle within a layer", () => {
    const edges = new Map(files.map((f) => [f, importsOf(path.join(SRC, `${f}.ts`)).filter((t) => layerOf.get(t) === layerOf.get(f))]));
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (file: string, trail: string[]): void => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "open") {
        cycles.push([...trail.slice(trail.indexOf(file)), file].join(" -> "));
        return;
      }
      state.set(file, "open");
      for (const next of edges.get(file) ?? []) visit(next, [...trail, file]);
      state.set(file, "done");
    };
    for (const file of files) visit(file, []);
    expect(cycles).to.deep.equal([]);
  });

  it("catches a back-edge when there is one (the check itself is checked)", () => {
    const probe = path.join(SRC, "errors.ts");
    const imports = importsOf(probe);
    expect(imports.every((t) => (layerOf.get(t) ?? 0) <= (layerOf.get("errors") ?? 0))).to.equal(true);
    expect(importsOf(path.join(SRC, "bench.ts"))).to.include.members(["traffic", "kernel", "tensor"]);
  });
});
