// npm run bench:q4_0-variants
//
// The two forms of fused Q4_0 dequantization + RMSNorm, timed side by side over
// row lengths from 256 to 14336 values (the widths of real models' hidden and
// feed-forward dims), in f32 and bf16, with about the same bytes at each width
// (32768 x 4096 values' worth on a GPU, 64 x 4096 on the CPU emulator, where the
// times mean nothing): "row" (a thread block a row) and "batch" (many rows a
// block, a warp's lanes a row), against the copy ceiling. The last columns say
// which form the op picks by itself at that width, and whether it is the faster.
import * as fl from "../src";
import { formatMs, textTable } from "../src/format";

const WIDTHS = [256, 512, 1024, 2048, 4096, 11008, 14336];
const DTYPES = ["f32", "bf16"] as const;
const GPU_VALUES = 32768 * 4096;
const CPU_VALUES = 64 * 4096;

/** The form the op launches by itself for these arguments, from the kernel its ledger names. */
function pickedForm(q: fl.Tensor, weight: fl.Tensor): string {
  const ledger = fl.traffic(() => fl.fused.dequantizeQ4_0RmsNorm(q, weight).dispose());
  return ledger.entries[0].kernel.includes("batch") ? "batch" : "row";
}

async function main(): Promise<void> {
  const device = fl.device();
  const values = device.kind === "cpu" ? CPU_VALUES : GPU_VALUES;
  const ceiling = await fl.copyCeiling({ device, bytes: device.kind === "cpu" ? 2 ** 24 : 2 ** 30 });
  console.log(`device: ${device.name} (${device.describe()}); copy ceiling ${ceiling.gbs.toFixed(1)} GB/s (copy_f32x4)`);
  const header = ["dtype", "rows x cols", "row ms", "row % of copy", "batch ms", "batch % of copy", "op picks", "faster"];
  const body: string[][] = [];
  for (const dtype of DTYPES) {
    for (const cols of WIDTHS) {
      const rows = Math.max(1, Math.round(values / cols));
      const q = fl.quant.quantizeQ4_0(fl.randn([rows, cols], { device, seed: 1 }));
      const weight = fl.randn([cols], { device, dtype, seed: 2 });
      const results = await fl.bench({
        row: () => fl.fused.dequantizeQ4_0RmsNorm(q, weight, { variant: "row" }),
        batch: () => fl.fused.dequantizeQ4_0RmsNorm(q, weight, { variant: "batch" }),
      }, { copyCeilingGBs: ceiling.gbs });
      const [row, batch] = results;
      const faster = row.medianMs <= batch.medianMs ? "row" : "batch";
      body.push([dtype, `${rows}x${cols}`, formatMs(row.medianMs), `${row.pctOfCopy!.toFixed(1)}%`,
        formatMs(batch.medianMs), `${batch.pctOfCopy!.toFixed(1)}%`, pickedForm(q, weight), faster]);
      q.dispose();
      weight.dispose();
    }
  }
  console.log(textTable([header, ...body], 2));
}

if (require.main === module) {
  main().catch((e: Error) => {
    console.error(e.message);
    process.exit(1);
  });
}
