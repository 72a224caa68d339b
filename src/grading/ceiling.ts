// The copy ceiling of each GPU, measured when grading starts (fl.copyCeiling:
// events, L2 flushed, warm-up, median), in a process of its own pinned to that
// GPU, so that the grader's process holds no GPU context a submission could share.
import { execFile } from "child_process";
import { CopyCeiling, copyCeiling } from "../bench";
import { device } from "../device";

/** Measures GPU `gpu`'s copy ceiling in a child process. */
export function measureCeiling(gpu: number): Promise<CopyCeiling> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [__filename, "--measure"], {
      env: { ...process.env, CUDA_VISIBLE_DEVICES: String(gpu), HIP_VISIBLE_DEVICES: String(gpu) }, timeout: 300_000,
    }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`--gpus: GPU ${gpu} cannot be used: ${stderr.trim() || error.message}`));
      try {
        resolve(JSON.parse(stdout) as CopyCeiling);
      } catch {
        reject(new Error(`measuring the copy ceiling of GPU ${gpu} printed ${JSON.stringify(stdout.slice(0, 200))}`));
      }
    });
  });
}

if (require.main === module && process.argv[2] === "--measure") {
  // device() throws at once where there is no such GPU: that too is an error message, not a stack.
  Promise.resolve().then(() => copyCeiling({ device: device("gpu") })).then(
    (c) => process.stdout.write(JSON.stringify(c)),
    (e) => {
      process.stderr.write(String((e as Error).message));
      process.exit(1);
    },
  );
}
