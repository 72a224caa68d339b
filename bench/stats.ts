// npm run bench:stats [-- --out DIR]
//
// On a GPU (FUSELAB_DEVICE respected): what the compiler decided for every
// built-in kernel (registers a thread, spills, static shared memory) and the
// occupancy that allows at 128, 256, 512 and 1024 threads a block. Writes
// bench/results/kernel-stats-<device>-<date>.json, which lesson 15 shows where
// no GPU is present. The CPU emulator has no such facts: the command says so.
import * as fs from "fs";
import * as path from "path";
import * as fl from "../src";
import { slug } from "./naming";

const BLOCKS = [128, 256, 512, 1024];

function main(argv: string[]): void {
  let out = path.resolve(__dirname, "..", "..", "bench", "results");
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] !== "--out" || argv[i + 1] === undefined) throw new Error("usage: npm run bench:stats [-- --out DIR]");
    out = path.resolve(argv[i + 1]);
  }
  const dev = fl.device();
  if (dev.kind === "cpu") {
    throw new Error(`${dev.describe()} is the CPU emulator: kernels run as host code, with no registers or occupancy. ` +
      "Run this on a GPU (FUSELAB_DEVICE=gpu).");
  }
  const builtins = fl.builtins(dev);
  const kernels = Object.fromEntries(builtins.kernels.map((name) => {
    const first = builtins.stats(name, { block: BLOCKS[0] });
    const occupancy = Object.fromEntries(BLOCKS.filter((b) => b <= first.maxThreadsPerBlock)
      .map((block) => [block, builtins.stats(name, { block }).occupancy]));
    return [name, {
      registers: first.registers, spillBytes: first.spillBytes, staticSharedBytes: first.staticSharedBytes,
      constBytes: first.constBytes, maxThreadsPerBlock: first.maxThreadsPerBlock, occupancy,
    }];
  }));
  const given = argv.length > 0 ? ` -- ${argv.join(" ")}` : "";
  const date = new Date();
  const record = {
    device: { describe: dev.describe(), backend: dev.backend, kind: dev.kind, props: dev.props },
    date: date.toISOString(),
    command: `npm run bench:stats${given}`,
    node: process.version,
    blocks: BLOCKS,
    kernels,
  };
  fs.mkdirSync(out, { recursive: true });
  const file = path.join(out, `kernel-stats-${slug(dev.name)}-${date.toISOString().slice(0, 10)}.json`);
  fs.writeFileSync(file, JSON.stringify(record, null, 2) + "\n");
  console.log(`${Object.keys(kernels).length} kernels on ${dev.name}: wrote ${file}`);
}

try {
  main(process.argv.slice(2));
} catch (e) {
  console.error(`bench:stats: ${(e as Error).message}`);
  process.exitCode = 1;
}
