// The grader's canaries, on a device without guard bands (as a GPU is): a write
// past the end of an output shows in the bytes after it, whatever it writes,
// even the bytes found past the end of an input.
import { expect } from "chai";
import { compareOutputs, prepareCase } from "../src/grading/engine";
import { KernelCase } from "../src/grading/exercise";
import { Workbench } from "../src/grading/workbench";
import { device } from "../src/device";

const N = 7;

// out[i] = x[i] - 1 for 64 elements: 57 past the end of both, through the canary regions.
const SOURCE = `
__global__ void shift(float* out, const float* x, int n) {
  const int i = threadIdx.x;
  out[i] = x[i] - 1.0f;
}`;

function shiftCase(): KernelCase {
  return {
    label: `n = ${N}`,
    inputs: [{ name: "x", dtype: "f32", values: Float32Array.from({ length: N }, (_, i) => i + 0.5) }],
    outputs: [{ name: "out", dtype: "f32", elements: N, tolerance: { rtol: 0, atol: 0 } }],
    launches: [{ kernel: "shift", grid: 1, block: 64, args: ["out", "x", N] }],
    reference: ({ x }) => ({ out: x.map((v) => v - 1) }),
  };
}

describe("the grader's canaries", () => {
  it("differ from buffer to buffer", () => {
    const bytes = prepareCase(shiftCase()).buffers.map((b) => b.canary);
    expect(new Set(bytes).size).to.equal(bytes.length);
  });

  it("show a copy of an input's canary into an output's as a write past the end", () => {
    // A plain device: no guard bands, so only the canaries can tell.
    const bench = new Workbench(device("cpu", { check: false }));
    bench.compile(SOURCE);
    const c = shiftCase();
    const prepared = prepareCase(c);
    const cmp = compareOutputs(c, prepared, bench.run(prepared.buffers, prepared.payloads, prepared.launches, prepared.read));
    expect(cmp.verdict).to.equal("out_of_bounds");
    expect(cmp.message).to.match(/^wrote past the end of out \(7 elements\): element 7 was changed/);
  });
});
