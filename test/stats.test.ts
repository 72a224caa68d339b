// module.stats: the compiler's facts (registers, spills, shared memory) and the
// occupancy they allow, on a GPU; on the CPU emulator, an error that says why
// there are none. The same file runs on the GPU with FUSELAB_DEVICE=gpu.
import { expect } from "chai";
import * as fl from "../src";
import { expectThrows, testDevice } from "./helpers";

// A light kernel, one with a fixed __shared__ array, and one whose per-thread
// array is indexed by a run-time value, which no compiler can keep in registers.
const SOURCE = `
__global__ void light(float* out, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] * 2.0f;
}

__global__ void with_shared(float* out, const float* x, int n) {
  __shared__ float tile[1024];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = tile[blockDim.x - 1 - threadIdx.x];
}

__global__ void local_array(float* out, const float* x, int n, int pick) {
  float values[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 256; ++k) values[k] = i < n ? x[i] * k : 0.0f;
  if (i < n) out[i] = values[(pick + i) & 255];
}
`;

describe("module.stats", () => {
  const dev = testDevice();

  if (dev.kind === "cpu") {
    it("on the CPU emulator, says there are no registers or occupancy to report, and where to read a GPU's", () => {
      const module = fl.compile(SOURCE, { device: dev });
      expectThrows(() => module.stats("light"), fl.DeviceError,
        /module.stats: cpu.* is the CPU emulator, which runs kernels as host code: it has no registers, spills or occupancy to report/);
      expectThrows(() => fl.builtins(dev).stats("add_f32"), fl.DeviceError, /no registers, spills or occupancy/);
    });
  } else {
    it("reads registers, spills, shared memory and occupancy of compiled kernels", () => {
      const module = fl.compile(SOURCE, { device: dev });
      const light = module.stats("light", { block: 256 });
      expect(light.registers).to.be.within(1, 255);
      expect(light.spillBytes).to.equal(0);
      expect(light.staticSharedBytes).to.equal(0);
      expect(light.blocksPerMultiprocessor).to.be.greaterThan(0);
      expect(light.occupancy).to.be.within(0.25, 1);
      const shared = module.stats("with_shared", { block: 1024 });
      expect(shared.staticSharedBytes).to.be.at.least(4096);
      const local = module.stats("local_array");
      expect(local.spillBytes, "a 1 KiB per-thread array indexed at run time lives in local memory").to.be.at.least(1024);
    });

    it("reads the built-in kernels' stats, and a larger block never raises occupancy past 1", () => {
      const builtins = fl.builtins(dev);
      for (const name of ["add_f32", "rms_norm_weight_f32", "add_rms_norm_bf16"]) {
        for (const block of [128, 256, 512]) {
          const s = builtins.stats(name, { block });
          expect(s.registers, name).to.be.greaterThan(0);
          expect(s.occupancy, name).to.be.within(0, 1);
          expect(s.maxThreadsPerBlock, name).to.be.at.least(512);
        }
      }
    });
  }

  it("names a bad option or kernel", () => {
    const module = fl.compile(SOURCE, { device: dev });
    const max = dev.props.maxThreadsPerBlock;
    expectThrows(() => module.stats("light", { block: 0 }), fl.ArgumentError,
      `module.stats: options.block must be an integer from 1 to ${max} (threads a block on ${dev.describe()}), got 0`);
    expectThrows(() => module.stats("light", { block: max + 1 }), fl.ArgumentError, /options.block must be an integer from 1 to/);
    expectThrows(() => module.stats("light", { sharedBytes: -1 }), fl.ArgumentError, /options.sharedBytes must be an integer >= 0/);
    expectThrows(() => module.stats("light", { blocks: 2 } as never), fl.ArgumentError, /blocks/);
    expectThrows(() => module.stats("nope"), fl.ArgumentError, /module.fn: name must be one of the module's kernels/);
  });
});
