// Every built-in kernel's export names its parameters and, for each pointer,
// how many elements the kernel may touch through it; the addon refuses any
// launch or prepare whose buffer is smaller, so no slip above it can make a
// built-in kernel reach memory it does not own. These tests go to the raw addon,
// below every TypeScript check.
import { expect } from "chai";
import * as path from "path";
import * as fl from "../src";
import { BufferHandle, DeviceHandle, NativeArg, native, packageRoot } from "../src/native";
import { expectThrows, range, testDevice } from "./helpers";

const ELEMENT_BYTES: Record<string, number> = { f32: 4, f16: 2, bf16: 2, f64: 8, i8: 1, u8: 1, i16: 2, u16: 2, i32: 4, u32: 4, i64: 8, u64: 8 };
const INTEGER_TYPES = ["i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64"];
// Awkward sizes (no multiple of a 16-byte vector), given to the integer scalars that extents use, in order.
const SIZES = [13, 37, 5];

interface Param { name: string; type: string; pointer: boolean; extent: string }

interface BuiltinKernel { name: string; params: Param[] }

// The export's "out[rows*cols] x[rows*cols] rows cols" beside the signature's "f32*,const f32*,i32,i32".
function builtinKernels(device: DeviceHandle): BuiltinKernel[] {
  const addon = native();
  return addon.kernels(addon.builtin(device)).map((k) => {
    // "const f32* x" -> "f32*"
    const types = (k.signature ?? "").split(",").map((item) => item.trim().replace(/^const /, "").split(" ")[0]);
    const entries = (k.params ?? "").split(" ").filter((e) => e !== "");
    expect(entries.length, `${k.name}: ${k.params} against ${k.signature}`).to.equal(types.length);
    return {
      name: k.name,
      params: entries.map((entry, i) => {
        const match = /^(\w+)(?:\[(.*)\])?$/.exec(entry);
        expect(match, `${k.name}: ${entry}`).to.not.equal(null);
        const pointer = types[i].endsWith("*");
        return { name: match![1], type: types[i].replace(/\*$/, ""), pointer, extent: match![2] ?? "" };
      }),
    };
  });
}

// The value of an extent: integers and names with + * ( ), evaluated here on its own.
function evaluate(extent: string, values: Map<string, bigint>): bigint {
  const tokens = extent.match(/\w+|[+*()]/g) ?? [];
  let at = 0;
  const factor = (): bigint => {
    const token = tokens[at++];
    if (token === "(") {
      const value = sum();
      at++; // ")"
      return value;
    }
    if (/^\d+$/.test(token)) return BigInt(token);
    const value = values.get(token);
    if (value === undefined) throw new Error(`extent ${extent}: ${token} is no integer scalar`);
    return value;
  };
  const product = (): bigint => {
    let value = factor();
    while (tokens[at] === "*") {
      at++;
      value *= factor();
    }
    return value;
  };
  const sum = (): bigint => {
    let value = product();
    while (tokens[at] === "+") {
      at++;
      value += product();
    }
    return value;
  };
  return sum();
}

const namesIn = (extent: string) => [...new Set(extent.match(/[A-Za-z_]\w*/g) ?? [])];

// A launch of `kernel` with right-sized buffers: the integer scalars that extents
// use get SIZES, other integers 0 (flags), floats 0.5.
function launchPlan(kernel: BuiltinKernel) {
  const used = new Set(kernel.params.flatMap((p) => namesIn(p.extent)));
  const values = new Map<string, bigint>();
  let next = 0;
  for (const p of kernel.params) {
    if (!p.pointer && INTEGER_TYPES.includes(p.type)) values.set(p.name, used.has(p.name) ? BigInt(SIZES[next++ % SIZES.length]) : 0n);
  }
  const elements = kernel.params.map((p) => (p.pointer ? evaluate(p.extent, values) : 0n));
  return { values, elements };
}

function scalarArg(p: Param, values: Map<string, bigint>): NativeArg {
  const type = p.type as "i32";
  if (!INTEGER_TYPES.includes(p.type)) return { type, value: 0.5 };
  const value = values.get(p.name)!;
  return { type, value: p.type.endsWith("64") ? value : Number(value) };
}

function args(kernel: BuiltinKernel, values: Map<string, bigint>, buffers: (BufferHandle | undefined)[]): NativeArg[] {
  return kernel.params.map((p, i) => (p.pointer ? buffers[i]! : scalarArg(p, values)));
}

// "kernel add_f32: argument 1 (a) needs 52 bytes (a[n] with n = 13: 13 elements of f32), its buffer holds 48 bytes"
function tooSmall(kernel: BuiltinKernel, index: number, values: Map<string, bigint>, elements: bigint, held: number): string {
  const p = kernel.params[index];
  const needed = elements * BigInt(ELEMENT_BYTES[p.type]);
  const scalars = namesIn(p.extent).map((name) => `${name} = ${values.get(name)}`).join(", ");
  return `kernel ${kernel.name}: argument ${index} (${p.name}) needs ${needed} bytes ` +
    `(${p.name}[${p.extent}]${scalars ? ` with ${scalars}` : ""}: ${elements} elements of ${p.type}), its buffer holds ${held} bytes`;
}

const GRID: [number, number, number] = [2, 1, 1];
const BLOCK: [number, number, number] = [64, 1, 1];

describe("extents of built-in kernels", () => {
  const addon = native();
  const dev = testDevice;
  const kernelHandle = (device: DeviceHandle, name: string) => addon.kernel(addon.builtin(device), name);

  it("every built-in kernel names each parameter and gives each pointer an extent over its integer scalars", () => {
    const kernels = builtinKernels(dev().handle);
    expect(kernels.map((k) => k.name)).to.include.members(["add_f32", "rms_norm_bf16", "gelu_tanh_and_mul_f16", "copy_f32x4"]);
    for (const kernel of kernels) {
      const integers = kernel.params.filter((p) => !p.pointer && INTEGER_TYPES.includes(p.type)).map((p) => p.name);
      for (const p of kernel.params) {
        expect(p.name, kernel.name).to.match(/^[A-Za-z_]\w*$/);
        if (!p.pointer) {
          expect(p.extent, `${kernel.name}: ${p.name} is a scalar`).to.equal("");
          continue;
        }
        expect(p.extent, `${kernel.name}: ${p.name} has no extent`).to.not.equal("");
        for (const name of namesIn(p.extent)) expect(integers, `${kernel.name}: ${p.name}[${p.extent}]`).to.include(name);
      }
      // The TypeScript side sees the same names, so its errors say "argument 1 (a)".
      expect(fl.builtins(dev()).fn(kernel.name).params.map((p) => p.name)).to.deep.equal(kernel.params.map((p) => p.name));
    }
  });

  it("a right-sized launch of every built-in kernel runs, and writes nothing past its buffers (CPU check mode)", async () => {
    // The check-mode CPU first: its guard bands catch an extent too small before an unguarded device writes past one.
    const checked = fl.device("cpu", { check: true });
    for (const device of [checked, dev()]) {
      for (const kernel of builtinKernels(device.handle)) {
        const { values, elements } = launchPlan(kernel);
        const buffers = kernel.params.map((p, i) => (p.pointer ? addon.alloc(device.handle, Number(elements[i]) * ELEMENT_BYTES[p.type]) : undefined));
        buffers.forEach((b) => b && addon.fill(b, 0));
        addon.launch(kernelHandle(device.handle, kernel.name), GRID, BLOCK, 0, args(kernel, values, buffers));
        await device.synchronize();
      }
    }
  });

  it("refuses a launch and a prepare of every built-in kernel with any buffer one element too small", () => {
    for (const kernel of builtinKernels(dev().handle)) {
      const { values, elements } = launchPlan(kernel);
      const handle = kernelHandle(dev().handle, kernel.name);
      kernel.params.forEach((p, short) => {
        if (!p.pointer) return;
        const buffers = kernel.params.map((q, i) => {
          if (!q.pointer) return undefined;
          const count = i === short ? elements[i] - 1n : elements[i];
          return addon.alloc(dev().handle, Number(count) * ELEMENT_BYTES[q.type]);
        });
        const held = Number(elements[short] - 1n) * ELEMENT_BYTES[p.type];
        const message = tooSmall(kernel, short, values, elements[short], held);
        expectThrows(() => addon.launch(handle, GRID, BLOCK, 0, args(kernel, values, buffers)), RangeError, message);
        expectThrows(() => addon.prepare(handle, GRID, BLOCK, 0, args(kernel, values, buffers)), RangeError, message);
      });
    }
  });

  it("refuses negative sizes, even where two negatives would multiply to a positive extent", () => {
    const add = kernelHandle(dev().handle, "add_f32");
    const b = addon.alloc(dev().handle, 64);
    expectThrows(() => addon.launch(add, GRID, BLOCK, 0, [b, b, b, { type: "i32", value: -1 }]), RangeError,
      "kernel add_f32: argument 3 (n) must not be negative (it counts the elements of out[n]), got -1");
    const norm = kernelHandle(dev().handle, "rms_norm_f32");
    expectThrows(() => addon.launch(norm, GRID, BLOCK, 0, [b, b, { type: "i32", value: -4 }, { type: "i32", value: -4 }, { type: "f32", value: 1e-5 }]),
      RangeError, "kernel rms_norm_f32: argument 2 (rows) must not be negative (it counts the elements of out[rows*cols]), got -4");
    const copy = kernelHandle(dev().handle, "copy_f32x4");
    expectThrows(() => addon.launch(copy, GRID, BLOCK, 0, [b, b, { type: "i64", value: -(2n ** 63n) }]), RangeError,
      "kernel copy_f32x4: argument 2 (n) must not be negative (it counts the elements of out[n]), got -9223372036854775808");
  });

  it("refuses sizes whose bytes pass 2^64, and huge ones that fit but exceed the buffer", () => {
    const b = addon.alloc(dev().handle, 64);
    const copy = kernelHandle(dev().handle, "copy_f32x4");
    expectThrows(() => addon.launch(copy, GRID, BLOCK, 0, [b, b, { type: "i64", value: 2n ** 62n }]), RangeError,
      "kernel copy_f32x4: argument 0 (out): out[n] with n = 4611686018427387904 is more than 2^64 bytes");
    expectThrows(() => addon.launch(copy, GRID, BLOCK, 0, [b, b, { type: "i64", value: 2n ** 63n - 1n }]), RangeError,
      "kernel copy_f32x4: argument 0 (out): out[n] with n = 9223372036854775807 is more than 2^64 bytes");
    const max = 2 ** 31 - 1;
    // (2^31-1)^2 * 2 elements of bf16 is just under 2^64 bytes: refused for its size, not its overflow.
    const halves = kernelHandle(dev().handle, "gelu_and_mul_bf16");
    const flags = [{ type: "i32", value: max }, { type: "i32", value: max }, { type: "i32", value: 0 }] as const;
    expectThrows(() => addon.launch(halves, GRID, BLOCK, 0, [b, b, ...flags]), RangeError,
      "kernel gelu_and_mul_bf16: argument 0 (out) needs 9223372028264841218 bytes " +
      "(out[rows*d] with rows = 2147483647, d = 2147483647: 4611686014132420609 elements of bf16), its buffer holds 64 bytes");
    const f32Halves = kernelHandle(dev().handle, "gelu_and_mul_f32");
    const out = addon.alloc(dev().handle, 64);
    expectThrows(() => addon.launch(f32Halves, GRID, BLOCK, 0, [out, b, ...flags]), RangeError,
      "kernel gelu_and_mul_f32: argument 0 (out) needs 18446744056529682436 bytes " +
      "(out[rows*d] with rows = 2147483647, d = 2147483647: 4611686014132420609 elements of f32), its buffer holds 64 bytes");
  });

  it("holds a view to its own bytes and a null pointer to none, and refuses a view past its buffer", () => {
    const add = fl.builtins(dev()).fn("add_f32");
    const t = fl.tensor(range(16), { device: dev() });
    const out = fl.empty([16], { device: dev() });
    add.launch({ grid: 1, block: 32 }, out.view(4, 8), t.view(8), t.view(0, 8), 8);
    expect(Array.from(out.toArray()).slice(4, 12)).to.deep.equal(range(8).map((i) => 2 * i + 8));
    expectThrows(() => add.launch({ grid: 1, block: 32 }, out.view(4, 8), t.view(9), t, 8), fl.DeviceError,
      "kernel add_f32: argument 1 (a) needs 32 bytes (a[n] with n = 8: 8 elements of f32), its view holds 28 bytes");
    expectThrows(() => add.launch({ grid: 1, block: 32 }, out, null, t, 8), fl.DeviceError,
      "kernel add_f32: argument 1 (a) needs 32 bytes (a[n] with n = 8: 8 elements of f32), it is null");
    add.launch({ grid: 1, block: 32 }, null, null, null, 0);  // reaches nothing: allowed
    // The addon checks a view's range against its buffer itself, whatever TS sent.
    const handle = kernelHandle(dev().handle, "add_f32");
    const b = addon.alloc(dev().handle, 64);
    expectThrows(() => addon.launch(handle, GRID, BLOCK, 0, [{ buffer: b, byteOffset: 60, bytes: 8 }, b, b, { type: "i32", value: 1 }]), Error,
      "kernel add_f32: argument 0 (out) is a view of 8 bytes at byte 60, past the end of its buffer of 64 bytes");
    expectThrows(() => addon.launch(handle, GRID, BLOCK, 0, [b, b, b, null]), Error,
      "kernel add_f32: argument 3 (n) must be a i32 scalar, got null");
    expectThrows(() => addon.launch(handle, GRID, BLOCK, 0, [b, b, { type: "struct", bytes: new Uint8Array(4) }, { type: "i32", value: 1 }]), Error,
      "kernel add_f32: argument 2 (b) must be a buffer (f32*), got a struct");
  });

  it("reaches users as an error naming the argument, and leaves compiled kernels to their own checks", () => {
    const small = fl.zeros([4], { device: dev() });
    const big = fl.zeros([8], { device: dev() });
    expectThrows(() => fl.builtins(dev()).fn("add_f32").launch({ grid: 1, block: 32 }, big, small, big, 8), fl.DeviceError,
      "kernel add_f32: argument 1 (a) needs 32 bytes (a[n] with n = 8: 8 elements of f32), its buffer holds 16 bytes");
    const source = `
      #include "fuselab/fuselab.h"
      __global__ void first(float* out, int n) { if (threadIdx.x == 0 && n > 0) out[0] = 1.0f; }
    `;
    const compiled = addon.compile(dev().handle, source, ["first"], [`-I${path.join(packageRoot(), "kernels")}`], 0);
    expect(addon.kernels(compiled).map((k) => k.params)).to.deep.equal([null]);
    // n says 8 elements, the buffer holds 4: no extent is known, so the launch goes ahead.
    fl.compile(source, { device: dev() }).fn("first").launch({ grid: 1, block: 32 }, small, 8);
    expect(small.toArray()[0]).to.equal(1);
  });
});
