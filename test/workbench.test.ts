// The workbench's timed sets: every set is read as one launch left it, the
// first one too, which the warm-up launches also ran on.
import { expect } from "chai";
import { canaryByte } from "../src/grading/protocol";
import { Workbench } from "../src/grading/workbench";
import { testDevice } from "./helpers";

const N = 100;

// A buffer updated in place: after k launches r holds r0 + k * x.
const SOURCE = `
__global__ void accumulate(float* r, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) r[i] += x[i];
}`;

describe("the grader's workbench", () => {
  it("reads every timed set as one launch left it, the warmed-up first set too", async () => {
    const bench = new Workbench(testDevice());
    bench.compile(SOURCE);
    const specs = [0, 1].map((i) => ({ dtype: "f32" as const, elements: N, init: "data" as const, canary: canaryByte(i) }));
    const sets = 3;
    const values = (set: number, buffer: number) => Float32Array.from({ length: N }, (_, i) => (set + 1) * 100 + buffer * 10 + (i % 7));
    const payloads = Array.from({ length: sets }, (_, s) => [0, 1].map((b) => Buffer.from(values(s, b).buffer))).flat();
    const launch = { kernel: "accumulate", grid: [2], block: [64], args: [{ buffer: 0 }, { buffer: 1 }, { value: N }] };
    try {
      bench.stage(specs, payloads, sets);
      const times = await bench.time([launch], 3);
      expect(times).to.have.length(sets);
      for (let s = 0; s < sets; s++) {
        const [r] = bench.read(s, [0]).buffers;
        const got = new Float32Array(r.buffer, r.byteOffset, N);
        const [r0, x] = [values(s, 0), values(s, 1)];
        expect(Array.from(got), `set ${s}`).to.deep.equal(Array.from(r0, (v, i) => v + x[i]));
      }
    } finally {
      bench.release();
    }
  });
});
