// Where a submission's kernels run: compiled on a device, launched on buffers
// the grader describes, outputs returned as bytes. The submission's process
// serves the grader with it (runner.ts); a notebook's `fl.check` uses it in
// the notebook's own process. It knows nothing of exercises or right answers.
import { Device } from "../device";
import { compile } from "../compile";
import { Module } from "../module";
import { DTYPE_BYTES } from "../dtype";
import { native, nativeAsync, nativeCall } from "../native";
import { Tensor, empty } from "../tensor";
import { BufferSpec, CANARY_BYTES, LaunchSpec } from "./protocol";

/** What came back from a run: each read buffer's bytes, each other buffer's canary bytes. */
export interface RunOutput {
  /** In the order of `read`: the buffer's elements then its canary region. */
  buffers: Buffer[];
  /** Every buffer's canary region after the launches, in buffer order. */
  canaries: Buffer[];
}

interface BufferSet {
  tensors: Tensor[];
  specs: readonly BufferSpec[];
}

function bytesOf(spec: BufferSpec): number {
  return spec.elements * DTYPE_BYTES[spec.dtype];
}

/** A device and the submission's module on it. */
export class Workbench {
  private module?: Module;
  private sets: BufferSet[] = [];
  /** The first set's inputs, to make it again after the warm-up launches changed it. */
  private firstPayloads: readonly Buffer[] = [];
  private flush?: Tensor;

  constructor(readonly device: Device) {}

  /** Compiles the submission (throws the compile error as fl.compile words it). */
  compile(source: string): readonly string[] {
    this.module = compile(source, { device: this.device, name: "submission" });
    return this.module.kernels;
  }

  /** Makes the buffers, runs the launches in order, waits, and returns what `read` asks for. */
  run(specs: readonly BufferSpec[], payloads: readonly Buffer[], launches: readonly LaunchSpec[], read: readonly number[]): RunOutput {
    const set = this.allocate(specs, payloads);
    try {
      for (const launch of launches) this.launch(set, launch);
      return this.collect(set, read);
    } finally {
      for (const t of set.tensors) t.dispose();
    }
  }

  /**
   * Makes `count` sets of buffers, each freshly made at its own addresses
   * (payloads: every set's inputs, set after set), for `time`. The sets stay
   * until `release()`, for `read()`.
   */
  stage(specs: readonly BufferSpec[], payloads: readonly Buffer[], count: number): void {
    this.release();
    const inputs = specs.filter((s) => s.init === "data").length;
    if (payloads.length !== count * inputs) throw new Error(`stage: ${count * inputs} payloads expected (${count} sets of ${inputs}), got ${payloads.length}`);
    for (let i = 0; i < count; i++) this.sets.push(this.allocate(specs, payloads.slice(i * inputs, (i + 1) * inputs)));
    this.firstPayloads = payloads.slice(0, inputs);
  }

  /**
   * Times the launches on the staged sets, one timed iteration a set after
   * `warmup` untimed ones on the first; outputs are canaried before every
   * launch and L2 is flushed before every timed one. The first set is made
   * again after the warm-up, so that every set is read as one run left it
   * (a buffer updated in place would otherwise hold warmup + 1 updates).
   */
  async time(launches: readonly LaunchSpec[], warmup: number): Promise<number[]> {
    if (this.sets.length === 0) throw new Error("time: no sets staged");
    const count = this.sets.length;
    this.flush ??= empty([Math.max(2 * this.device.props.l2Bytes, 1 << 20) / 4], { dtype: "f32", device: this.device });
    const flush = this.flush.handle("grader");
    const prepared = this.sets.map((set) => launches.map((l) => this.prepare(set, l)));
    if (warmup > 0) {
      for (let i = 0; i < warmup; i++) {
        this.canary(this.sets[0]);
        await nativeAsync(() => native().bench(this.device.handle, prepared[0].map((p) => p.handle), { warmup: 0, iters: 1 }));
      }
      const warmed = this.sets[0];
      this.sets[0] = this.allocate(warmed.specs, this.firstPayloads);
      for (const t of warmed.tensors) t.dispose();
      prepared[0] = launches.map((l) => this.prepare(this.sets[0], l));
    }
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      this.canary(this.sets[i]);
      const [ms] = await nativeAsync(() => native().bench(this.device.handle, prepared[i].map((p) => p.handle), { warmup: 0, iters: 1, flush }));
      times.push(ms);
    }
    return times;
  }

  /** The outputs of timed set `index`, as `run` returns them. */
  read(index: number, read: readonly number[]): RunOutput {
    const set = this.sets[index];
    if (!set) throw new Error(`no timed set ${index} (${this.sets.length} were made)`);
    return this.collect(set, read);
  }

  /** Frees the timed sets. */
  release(): void {
    for (const set of this.sets) for (const t of set.tensors) t.dispose();
    this.sets = [];
    this.firstPayloads = [];
  }

  private allocate(specs: readonly BufferSpec[], payloads: readonly Buffer[]): BufferSet {
    const tensors: Tensor[] = [];
    let next = 0;
    try {
      for (const spec of specs) {
        const bytes = bytesOf(spec);
        // The canary region is part of the buffer: elements + CANARY_BYTES / element size more.
        const t = empty([spec.elements + CANARY_BYTES / DTYPE_BYTES[spec.dtype]], { dtype: spec.dtype, device: this.device });
        tensors.push(t);
        const handle = t.handle("grader");
        const image = Buffer.alloc(bytes + CANARY_BYTES, spec.init === "nan" ? 0xff : 0);
        if (spec.init === "data") {
          const data = payloads[next++];
          if (!data || data.length !== bytes) throw new Error(`buffer ${tensors.length - 1}: ${bytes} bytes of data expected, got ${data?.length ?? 0}`);
          data.copy(image);
        }
        image.fill(spec.canary, bytes);
        nativeCall(() => native().upload(handle, image));
      }
    } catch (e) {
      for (const t of tensors) t.dispose();
      throw e;
    }
    return { tensors, specs };
  }

  private canary(set: BufferSet): void {
    set.specs.forEach((spec, i) => {
      if (spec.init !== "nan") return;
      const image = Buffer.alloc(bytesOf(spec) + CANARY_BYTES, 0xff);
      image.fill(spec.canary, bytesOf(spec));
      nativeCall(() => native().upload(set.tensors[i].handle("grader"), image));
    });
  }

  private kernelArgs(set: BufferSet, launch: LaunchSpec): (Tensor | number)[] {
    return launch.args.map((a) => {
      if ("buffer" in a) {
        const t = set.tensors[a.buffer];
        if (!t) throw new Error(`launch of ${launch.kernel}: no buffer ${a.buffer}`);
        return t;
      }
      return a.value;
    });
  }

  private kernel(name: string) {
    if (!this.module) throw new Error("nothing compiled yet");
    return this.module.fn(name);
  }

  private launch(set: BufferSet, launch: LaunchSpec): void {
    this.kernel(launch.kernel).launch({ grid: launch.grid, block: launch.block, sharedBytes: launch.sharedBytes ?? 0 }, ...this.kernelArgs(set, launch));
  }

  private prepare(set: BufferSet, launch: LaunchSpec) {
    return this.kernel(launch.kernel).prepare({ grid: launch.grid, block: launch.block, sharedBytes: launch.sharedBytes ?? 0 }, ...this.kernelArgs(set, launch));
  }

  private collect(set: BufferSet, read: readonly number[]): RunOutput {
    const download = (t: Tensor, bytes: number, offset: number): Buffer => {
      const out = Buffer.alloc(bytes);
      nativeCall(() => native().download(t.handle("grader"), out, offset));
      return out;
    };
    for (const i of read) if (!set.tensors[i]) throw new Error(`no buffer ${i} to read`);
    const buffers = read.map((i) => download(set.tensors[i], bytesOf(set.specs[i]) + CANARY_BYTES, 0));
    const canaries = set.tensors.map((t, i) => {
      const whole = read.indexOf(i);
      return whole >= 0 ? buffers[whole].subarray(bytesOf(set.specs[i])) : download(t, CANARY_BYTES, bytesOf(set.specs[i]));
    });
    return { buffers, canaries };
  }
}
