// A graph of ONNX operators, written as a model and handed to ONNX Runtime, to see
// which of its operators the runtime's graph optimizer fuses: the same graph run
// with optimizations off and at the "extended" level (where its transformer fusions
// live), with the kernels each run launched and the bytes each kernel moved, as
// ONNX Runtime's own profiler counts them. ONNX Runtime is an optional package
// (onnxruntime-node, CPU execution provider); without it `runtime()` says so.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { performance } from "perf_hooks";
import { percentile } from "../bench";
import { ArgumentError, FuselabError, describe } from "../errors";
import { normal } from "../random";
import { elementCount } from "../tensor";
import { MessageWriter } from "./protobuf";

/** One operator: [op type, input names, output name, attributes]. */
export type OnnxNode = [opType: string, inputs: string[], output: string, attributes?: Record<string, number | number[]>];

/** A graph of f32 tensors, in the order it computes. */
export interface OnnxGraph {
  /**
   * The graph's inputs, name → shape. `fl.onnx.fuse` fills the i-th with the numbers
   * of `fl.randn(shape, { seed: seed + i })`, so a fuselab op can be given the same.
   */
  inputs: Record<string, number[]>;
  /** Constant tensors (ONNX initializers), name → a scalar or { shape, values }. */
  constants?: Record<string, number | { shape: number[]; values: ArrayLike<number> }>;
  /**
   * The operators, each reading inputs, constants or earlier outputs. An attribute
   * that is a whole number is written as an integer (`axis: -1`), any other number
   * as a float (`epsilon: 1e-5`), an array as integers (`axes: [-1]`).
   */
  nodes: OnnxNode[];
  /** The name of the graph's one output. */
  output: string;
}

/** One kernel ONNX Runtime ran: its operator and the bytes its profiler counted. */
export interface OnnxKernelRun {
  op: string;
  /** Inputs read plus constants read plus outputs written, in bytes. */
  bytes: number;
}

/** The graph run at one optimization level. */
export interface OnnxLevelRun {
  level: "disabled" | "extended";
  /** The kernels of one run, in the order they ran. */
  kernels: OnnxKernelRun[];
  /** Bytes moved by all of them. */
  bytes: number;
  /** The median time of a run (`session.run`, inputs in, output out) on one thread, in ms. */
  medianMs: number;
}

/** What ONNX Runtime's optimizer did to a graph. */
export interface OnnxFusionReport {
  /** e.g. "onnxruntime-node 1.30.0, CPU execution provider". */
  runtime: string;
  unoptimized: OnnxLevelRun;
  optimized: OnnxLevelRun;
  /** The largest difference between the two runs' outputs. */
  maxAbsDiff: number;
  /** The optimized run's output, row-major. */
  output: Float32Array;
}

export interface FuseOptions {
  /** Timed runs at each level (after 3 untimed ones). Default 20. */
  repeats?: number;
  /** Seed of the first input's numbers (the next input's is one more, and so on). Default 1. */
  seed?: number;
}

const FLOAT = 1; // TensorProto.DataType.FLOAT
const OPSET = 17; // LayerNormalization is an operator from 17 on
const IR_VERSION = 8;
const ATTRIBUTE_FLOAT = 1;
const ATTRIBUTE_INT = 2;
const ATTRIBUTE_INTS = 7;

/** The ONNX model (a serialized ModelProto) of a graph; every name and shape checked first. */
export function model(graph: OnnxGraph): Uint8Array {
  return encode("fl.onnx.model", graph);
}

function encode(where: string, graph: OnnxGraph): Uint8Array {
  checkGraph(where, graph);
  const body = new MessageWriter();
  graph.nodes.forEach(([opType, inputs, output, attributes], i) => {
    const node = new MessageWriter();
    for (const input of inputs) node.string(1, input);
    node.string(2, output).string(3, `node${i}_${opType}`).string(4, opType);
    for (const [name, value] of Object.entries(attributes ?? {})) node.message(5, attribute(name, value));
    body.message(1, node);
  });
  body.string(2, "fuselab");
  for (const [name, value] of Object.entries(graph.constants ?? {})) {
    const constant = typeof value === "number" ? { shape: [], values: [value] } : value;
    const tensor = new MessageWriter();
    for (const extent of constant.shape) tensor.int(1, extent);
    tensor.int(2, FLOAT).string(8, name).raw(9, new Uint8Array(Float32Array.from(constant.values).buffer));
    body.message(5, tensor);
  }
  for (const [name, shape] of Object.entries(graph.inputs)) body.message(11, valueInfo(name, shape));
  body.message(12, valueInfo(graph.output));
  return new MessageWriter().int(1, IR_VERSION).string(2, "fuselab")
    .message(8, new MessageWriter().string(1, "").int(2, OPSET))
    .message(7, body).finish();
}

function attribute(name: string, value: number | number[]): MessageWriter {
  const written = new MessageWriter().string(1, name);
  if (Array.isArray(value)) {
    for (const item of value) written.int(8, item);
    return written.int(20, ATTRIBUTE_INTS);
  }
  return Number.isInteger(value) ? written.int(3, value).int(20, ATTRIBUTE_INT) : written.float(2, value).int(20, ATTRIBUTE_FLOAT);
}

/** A value's name and type: f32, with its shape where known. */
function valueInfo(name: string, shape?: number[]): MessageWriter {
  const tensorType = new MessageWriter().int(1, FLOAT);
  if (shape) {
    const dims = new MessageWriter();
    for (const extent of shape) dims.message(1, new MessageWriter().int(1, extent));
    tensorType.message(2, dims);
  }
  return new MessageWriter().string(1, name).message(2, new MessageWriter().message(1, tensorType));
}

function checkGraph(where: string, graph: OnnxGraph): void {
  if (typeof graph !== "object" || graph === null) throw new ArgumentError(where, "graph", "an object { inputs, nodes, output }", describe(graph));
  const defined = new Set<string>();
  const define = (name: unknown, argument: string): void => {
    if (typeof name !== "string" || name === "") throw new ArgumentError(where, argument, "a non-empty name", describe(name));
    if (defined.has(name)) throw new ArgumentError(where, argument, "a name not used before", describe(name));
    defined.add(name);
  };
  if (typeof graph.inputs !== "object" || graph.inputs === null || Object.keys(graph.inputs).length === 0) {
    throw new ArgumentError(where, "graph.inputs", "an object of one or more name → shape", describe(graph.inputs));
  }
  for (const [name, shape] of Object.entries(graph.inputs)) {
    define(name, "an input name");
    if (!Array.isArray(shape) || shape.length === 0 || !shape.every((n) => Number.isInteger(n) && n > 0)) {
      throw new ArgumentError(where, `graph.inputs.${name}`, "a shape of positive integers", describe(shape));
    }
  }
  for (const [name, value] of Object.entries(graph.constants ?? {})) {
    define(name, "a constant name");
    if (typeof value === "number") continue;
    const size = Array.isArray(value?.shape) && value.shape.every((n) => Number.isInteger(n) && n > 0)
      ? elementCount(value.shape) : -1;
    if (size < 0 || value.values?.length !== size) {
      throw new ArgumentError(where, `graph.constants.${name}`, "a number or { shape, values } with one value per element", describe(value));
    }
  }
  if (!Array.isArray(graph.nodes) || graph.nodes.length === 0) throw new ArgumentError(where, "graph.nodes", "a list of one or more nodes", describe(graph.nodes));
  graph.nodes.forEach((node, i) => {
    const at = `graph.nodes[${i}]`;
    if (!Array.isArray(node) || typeof node[0] !== "string" || !/^[A-Za-z]\w*$/.test(node[0]) || !Array.isArray(node[1])) {
      throw new ArgumentError(where, at, "[op type, input names, output name, attributes?]", describe(node));
    }
    node[1].forEach((input, j) => {
      if (!defined.has(input)) throw new ArgumentError(where, `${at} input ${j}`, "an input, a constant or an earlier node's output", describe(input));
    });
    define(node[2], `${at} output`);
    for (const [name, value] of Object.entries(node[3] ?? {})) {
      const ok = Array.isArray(value) ? value.every(Number.isSafeInteger) : Number.isFinite(value);
      if (!ok) throw new ArgumentError(where, `${at} attribute ${name}`, "a finite number or a list of integers", describe(value));
    }
  });
  if (!graph.nodes.some((node) => node[2] === graph.output)) {
    throw new ArgumentError(where, "graph.output", "the output name of one of the nodes", describe(graph.output));
  }
}

// The part of onnxruntime-node's API used here.
interface OrtTensor { data: unknown }
interface OrtSession {
  run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>>;
  endProfiling(): void;
  release(): Promise<void>;
}
interface OrtModule {
  InferenceSession: { create(model: Uint8Array, options: object): Promise<OrtSession> };
  Tensor: new (type: "float32", data: Float32Array, dims: number[]) => OrtTensor;
  env: { versions?: { node?: string } };
}

let loaded: OrtModule | null | undefined;

function ort(): OrtModule | null {
  if (loaded === undefined) {
    try {
      loaded = require("onnxruntime-node") as OrtModule;
    } catch {
      loaded = null;
    }
  }
  return loaded;
}

/** The ONNX Runtime this process can load, e.g. "onnxruntime-node 1.30.0"; undefined where none is installed. */
export function runtime(): string | undefined {
  const module = ort();
  return module ? `onnxruntime-node ${module.env.versions?.node ?? "(version unknown)"}` : undefined;
}

/**
 * Runs a graph in ONNX Runtime on the CPU, with graph optimizations off and at the
 * extended level: the kernels each run launched, the bytes they moved, the median
 * time of a run, how far apart the two outputs are, and the optimized output.
 */
export async function fuse(graph: OnnxGraph, options: FuseOptions = {}): Promise<OnnxFusionReport> {
  const where = "fl.onnx.fuse";
  const bytes = encode(where, graph);
  const repeats = options.repeats ?? 20;
  const seed = options.seed ?? 1;
  if (!Number.isInteger(repeats) || repeats < 1) throw new ArgumentError(where, "options.repeats", "a positive integer", describe(repeats));
  if (!Number.isSafeInteger(seed) || seed < 0) throw new ArgumentError(where, "options.seed", "a non-negative integer", describe(seed));
  const module = ort();
  if (!module) throw new FuselabError(`${where}: ONNX Runtime is not installed here (npm install onnxruntime-node)`);
  const feeds: Record<string, OrtTensor> = {};
  Object.entries(graph.inputs).forEach(([name, shape], i) => {
    feeds[name] = new module.Tensor("float32", normal(elementCount(shape), seed + i), shape);
  });
  const unoptimized = await runAtLevel(module, bytes, graph.output, feeds, "disabled", repeats);
  const optimized = await runAtLevel(module, bytes, graph.output, feeds, "extended", repeats);
  let maxAbsDiff = 0;
  for (let i = 0; i < unoptimized.output.length; i++) {
    const a = unoptimized.output[i], b = optimized.output[i];
    // NaN in one output only, or infinities that differ, are as far apart as can be.
    const diff = Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b)) ? 0 : Math.abs(a - b);
    maxAbsDiff = Math.max(maxAbsDiff, Number.isNaN(diff) ? Infinity : diff);
  }
  return { runtime: `${runtime()}, CPU execution provider`, unoptimized: unoptimized.run, optimized: optimized.run, maxAbsDiff,
    output: optimized.output };
}

async function runAtLevel(module: OrtModule, bytes: Uint8Array, output: string, feeds: Record<string, OrtTensor>,
  level: OnnxLevelRun["level"], repeats: number): Promise<{ run: OnnxLevelRun; output: Float32Array }> {
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-onnx-"));
  try {
    // One thread: timings that compare from run to run, whatever else the machine does.
    const base = { graphOptimizationLevel: level, executionProviders: ["cpu"], logSeverityLevel: 3, intraOpNumThreads: 1 };
    // The plain session first: a graph the runtime refuses is refused before a profiler starts.
    const timed = await createSession(module, bytes, base);
    const times: number[] = [];
    for (let i = 0; i < repeats + 3; i++) {
      const start = performance.now();
      await timed.run(feeds);
      if (i >= 3) times.push(performance.now() - start);
    }
    await timed.release();
    // One profiled run counts the kernels; the timed runs are made without the profiler.
    const profiled = await createSession(module, bytes, { ...base, enableProfiling: true, profileFilePrefix: path.join(profileDir, "run") });
    const result = await profiled.run(feeds);
    profiled.endProfiling();
    await profiled.release();
    const kernels = profiledKernels(profileDir);
    const medianMs = percentile(times.sort((a, b) => a - b), 0.5);
    return {
      run: { level, kernels, bytes: kernels.reduce((s, k) => s + k.bytes, 0), medianMs },
      output: result[output].data as Float32Array,
    };
  } finally {
    fs.rmSync(profileDir, { recursive: true, force: true });
  }
}

async function createSession(module: OrtModule, bytes: Uint8Array, options: object): Promise<OrtSession> {
  try {
    return await module.InferenceSession.create(bytes, options);
  } catch (error) {
    throw new FuselabError(`fl.onnx.fuse: ONNX Runtime refused the graph: ${(error as Error).message}`);
  }
}

/** The kernels of the profile ONNX Runtime wrote into `dir`, in the order they ran. */
function profiledKernels(dir: string): OnnxKernelRun[] {
  const file = fs.readdirSync(dir).find((name) => name.endsWith(".json"));
  if (file === undefined) throw new FuselabError("fl.onnx.fuse: ONNX Runtime wrote no profile");
  const events = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as
    { cat?: string; name?: string; args?: Record<string, string> }[];
  return events.filter((e) => e.cat === "Node" && e.name?.endsWith("_kernel_time") && e.args?.op_name)
    .map((e) => ({
      op: e.args!.op_name,
      bytes: Number(e.args!.activation_size ?? 0) + Number(e.args!.parameter_size ?? 0) + Number(e.args!.output_size ?? 0),
    }));
}
