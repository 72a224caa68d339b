// Helpers shared by the test files.
import { spawnSync } from "child_process";
import * as path from "path";
import { expect } from "chai";
import * as fl from "../src";

/** The first line of a script run in a node process of its own: `fl` is this fuselab. */
export const FUSELAB_PRELUDE = `const fl = require(${JSON.stringify(path.join(__dirname, "..", "src"))});`;

/** Runs `script` in a node process of its own, with `fl` (this fuselab) already required, and `environment` added. */
export function runScript(script: string, environment: Record<string, string> = {}) {
  return spawnSync(process.execPath, ["-e", `${FUSELAB_PRELUDE}\n${script}`],
    { encoding: "utf8", timeout: 60_000, env: { ...process.env, ...environment } });
}

/** The device the tests run on: the CPU emulator in CI, the GPU with FUSELAB_DEVICE=gpu. */
export function testDevice(): fl.Device {
  return fl.device();
}

/** A device other than `testDevice()`, for mixed-device errors: the CPU, or a CPU with 64-lane warps. */
export function otherDevice(): fl.Device {
  const dev = testDevice();
  return dev.kind === "gpu" ? fl.device("cpu") : fl.device("cpu", { warpSize: 64 });
}

/** Whether a GPU backend has a device here. */
export function hasGpu(): boolean {
  return fl.backends().some((b) => (b.name === "cuda" || b.name === "hip") && b.loaded && b.deviceCount > 0);
}

/** Runs `fn`, expects it to throw an instance of `type` with exactly `message`, and returns the error. */
export function expectThrows<E extends Error>(fn: () => unknown, type: new (...args: never[]) => E, message: string | RegExp): E {
  let thrown: unknown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  expect(thrown, "an error was expected").to.be.instanceOf(type);
  const error = thrown as E;
  // The whole message in the failure: chai would cut a long one short.
  if (typeof message === "string") expect(error.message).to.equal(message, `the message was: ${error.message}`);
  else expect(error.message).to.match(message, `the message was: ${error.message}`);
  return error;
}

/** As `expectThrows`, for a promise that must reject. */
export async function expectRejects<E extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => E, message: string | RegExp): Promise<E> {
  let thrown: unknown;
  try {
    await promise;
  } catch (e) {
    thrown = e;
  }
  return expectThrows(() => {
    if (thrown !== undefined) throw thrown;
  }, type, message);
}

/** 0, 1, 2, ... n-1 as numbers. */
export function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** What a stand-in notebook was sent: one display_data or update_display_data each. */
export interface SentDisplay { data: Record<string, string>; transient: { display_id?: string }; update: boolean }

/**
 * Runs `fn` as if inside a tslab kernel (stand-ins for its executor and its display
 * writer in the module cache) and returns what was sent to the notebook.
 */
export async function withNotebook(fn: () => unknown): Promise<SentDisplay[]> {
  const dir = path.join(path.sep, "stand-in", "node_modules", "tslab", "dist");
  const sent: SentDisplay[] = [];
  const write = (d: Omit<SentDisplay, "update">, update: boolean) => sent.push({ ...d, update });
  require.cache[path.join(dir, "executor.js")] = { exports: {} } as NodeModule;
  require.cache[path.join(dir, "jupyter.js")] = { exports: { lastWriteDisplayData: write } } as NodeModule;
  try {
    await fn();
  } finally {
    delete require.cache[path.join(dir, "executor.js")];
    delete require.cache[path.join(dir, "jupyter.js")];
  }
  return sent;
}
