// Hostile input to the core: a tensor's shape, dtype, size and device cannot be
// changed or faked, each argument is read once, and odd values are errors that
// name the argument, never a crash or a read of memory an op does not own.
import { expect } from "chai";
import * as fl from "../src";
import { expectThrows } from "./helpers";

describe("hostile input", () => {
  const dev = () => fl.device();
  const f32 = (n: number) => fl.randn([n], { device: dev(), seed: n });

  it("keeps a tensor's shape, dtype and size when they are reassigned or redefined", () => {
    const t = f32(4);
    const u = f32(4);
    const hostile = t as unknown as Record<string, unknown>;
    for (const key of ["shape", "dtype", "size", "bytes", "device"]) {
      expect(() => { hostile[key] = key === "shape" ? [4096] : "f16"; }, key).to.throw(TypeError);
      expect(() => Object.defineProperty(t, key, { value: [4096] }), key).to.throw(TypeError);
    }
    expect(() => (t.shape as number[]).push(1)).to.throw(TypeError);
    expect(t.shape).to.deep.equal([4]);
    expect(t.dtype).to.equal("f32");
    fl.assertClose(fl.ops.add(t, u), Array.from(t.toArray(), (v, i) => v + u.toArray()[i]), { rtol: 1e-6 });
    expectThrows(() => fl.ops.add(t, f32(1024)), fl.ArgumentError,
      "fl.ops.add: b must have shape [4] (the shape of a), got [1024]");
  });

  it("refuses a Proxy of a tensor, whatever it reports", () => {
    const t = f32(4);
    const liar = new Proxy(t, { get: (target, key) => (key === "shape" ? [1024] : key === "size" ? 1024 : Reflect.get(target, key)) });
    expect(liar instanceof fl.Tensor).to.equal(true);
    expect(fl.Tensor.isTensor(liar)).to.equal(false);
    expectThrows(() => fl.ops.relu(liar), fl.ArgumentError, "fl.ops.relu: x must be a tensor, got an object that cannot be described (a Proxy?)");
    expectThrows(() => fl.fused.addRmsNorm(f32(4), liar, f32(4)), fl.ArgumentError, /^fl\.fused\.addRmsNorm: residual must be a tensor/);
    const copy = fl.builtins(dev()).fn("copy_f32x4");
    expectThrows(() => copy.launch({ grid: 1, block: 32 }, f32(1024), liar, 1024), fl.ArgumentError,
      /^kernel copy_f32x4: argument 1.* must be an f32 tensor/);
    expectThrows(() => fl.compare(liar, [1, 2, 3, 4]), fl.ArgumentError, /^fl\.compare: a must be a tensor, a view, an array/);
  });

  it("keeps a view within its tensor whatever is done to it, and refuses a Proxy of one", () => {
    const t = f32(8);
    const view = t.view(6, 2);
    const hostile = view as unknown as Record<string, unknown>;
    for (const key of ["offset", "size", "bytes", "byteOffset", "tensor"]) {
      expect(() => { hostile[key] = 4096; }, key).to.throw(TypeError);
      expect(() => Object.defineProperty(view, key, { value: 4096 }), key).to.throw(TypeError);
    }
    const liar = new Proxy(view, { get: (target, key) => (key === "offset" ? 0 : key === "size" ? 1 << 20 : Reflect.get(target, key)) });
    expect(fl.TensorView.isView(liar)).to.equal(false);
    const copy = fl.builtins(dev()).fn("copy_f32x4");
    expectThrows(() => copy.launch({ grid: 1, block: 32 }, f32(2), liar, 2), fl.ArgumentError,
      "kernel copy_f32x4: argument 1 (in) must be an f32 tensor, a view of one or null (const f32*), got an object that cannot be described (a Proxy?)");
    const fake = { tensor: t, offset: 0, size: 1 << 20, byteOffset: 0, bytes: 4 << 20, dtype: "f32", device: dev() };
    expectThrows(() => copy.launch({ grid: 1, block: 32 }, f32(2), fake as unknown as fl.Tensor, 2), fl.ArgumentError,
      /^kernel copy_f32x4: argument 1 \(in\) must be an f32 tensor, a view of one or null \(const f32\*\), got an object \(Object\)$/);
  });

  it("reads a struct's fields once, names a getter that throws, and takes only plain objects", () => {
    const kernel = fl.compile(`
struct Scale { float factor; int n; };
__global__ void scale(float* out, Scale s) { if (threadIdx.x < s.n) out[threadIdx.x] = s.factor; }`, { device: dev() }).fn("scale");
    let reads = 0;
    const changing = { get factor() { return reads++ === 0 ? 2 : "two"; }, n: 2 };
    const out = fl.zeros([4], { device: dev() });
    kernel.launch({ grid: 1, block: 4 }, out, changing);
    expect(reads).to.equal(1);
    expect(Array.from(out.toArray())).to.deep.equal([2, 2, 0, 0]);
    const throwing = { get factor(): number { throw new Error("no"); }, n: 1 };
    expectThrows(() => kernel.launch({ grid: 1, block: 4 }, out, throwing), fl.ArgumentError,
      "kernel scale: argument 1 (s) must be an object with the fields of struct Scale { factor, n }, got an object whose fields cannot be read (no)");
    // Fields come from the object itself: inherited ones, and a class's instances, are not a struct's fields.
    expectThrows(() => kernel.launch({ grid: 1, block: 4 }, out, Object.assign(Object.create({ factor: 1 }), { n: 1 })), fl.ArgumentError,
      "kernel scale: argument 1 (s) must be an object with the fields of struct Scale { factor, n }, got an object (Object)");
    class Params { factor = 1; n = 1; }
    expectThrows(() => kernel.launch({ grid: 1, block: 4 }, out, new Params() as unknown as fl.StructValue), fl.ArgumentError,
      "kernel scale: argument 1 (s) must be an object with the fields of struct Scale { factor, n }, got an object (Params)");
    const { proxy, revoke } = Proxy.revocable({ factor: 1, n: 1 }, {});
    revoke();
    expectThrows(() => kernel.launch({ grid: 1, block: 4 }, out, proxy), fl.ArgumentError,
      "kernel scale: argument 1 (s) must be an object with the fields of struct Scale { factor, n }, got an object that cannot be described (a Proxy?)");
    expectThrows(() => kernel.launch({ grid: 1, block: 4 }, out, Object.create(null)), fl.ArgumentError,
      "kernel scale: argument 1 (s) must be an object with the fields of struct Scale { factor, n }, got an object without the field \"factor\"");
  });

  it("reads a shape once: a getter cannot answer [4] when checked and [0.5] after", () => {
    let reads = 0;
    const shape: number[] = [];
    Object.defineProperty(shape, 0, { get: () => (reads++ === 0 ? 4 : 0.5), enumerable: true });
    const t = fl.zeros(shape, { device: dev() });
    expect(t.shape).to.deep.equal([4]);
    expect(reads).to.equal(1);
    let gridReads = 0;
    const grid: number[] = [];
    Object.defineProperty(grid, 0, { get: () => (gridReads++ === 0 ? 1 : 1e9), enumerable: true });
    fl.builtins(dev()).fn("copy_f32x4").launch({ grid, block: 32 }, fl.zeros([4], { device: dev() }), t, 4);
    expect(gridReads).to.equal(1);
  });

  it("reads an options object once, and names a getter that throws", () => {
    let reads = 0;
    const options = { get dtype() { return reads++ === 0 ? "f32" : "f16"; } } as fl.TensorOptions;
    expect(fl.zeros([2], options).dtype).to.equal("f32");
    expect(reads).to.equal(1);
    const throwing = { get dtype(): fl.DType { throw new Error("no"); } };
    expectThrows(() => fl.zeros([2], throwing), fl.ArgumentError, "fl.zeros: options.dtype must be a value, got a getter that threw (no)");
    expectThrows(() => fl.ops.gelu(f32(2), { get approximate(): "tanh" { throw new Error("no"); } }), fl.ArgumentError,
      "fl.ops.gelu: options.approximate must be a value, got a getter that threw (no)");
    const unlistable = new Proxy({}, { ownKeys: () => { throw new Error("keys"); } });
    expectThrows(() => fl.compile("__global__ void k() {}", unlistable), fl.ArgumentError,
      "fl.compile: options must be a plain object, got an object whose keys cannot be listed (keys)");
  });

  it("names data nested 100,000 deep, and a hole in an array", () => {
    let deep: unknown = [1];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expectThrows(() => fl.tensor(deep as fl.NestedNumbers, { device: dev() }), fl.ArgumentError,
      `fl.tensor: data must be arrays nested at most ${fl.MAX_DIMS} deep, got deeper arrays`);
    expectThrows(() => fl.compare(deep as number[], [1]), fl.ArgumentError,
      `fl.compare: a must be arrays nested at most ${fl.MAX_DIMS} deep, got deeper arrays`);
    expectThrows(() => fl.tensor([1, , 3] as number[], { device: dev() }), fl.ArgumentError,
      "fl.tensor: data[1] must be a number, got an empty slot (a hole in the array)");
    expectThrows(() => fl.zeros(new Array(3), { device: dev() }), fl.ArgumentError, "fl.zeros: shape[0] must be a non-negative integer, got undefined");
    expectThrows(() => fl.zeros(new Array(17).fill(1), { device: dev() }), fl.ArgumentError,
      `fl.zeros: shape must be an array of at most ${fl.MAX_DIMS} dimensions, got 17 dimensions`);
  });

  it("names a NUL character in kernel source, and misspelt compile options", () => {
    expectThrows(() => fl.compile("__global__ void k() {}\n\0 int x;", { device: dev() }), fl.ArgumentError,
      "fl.compile: source must be a string without NUL characters, got a NUL character on line 2");
    expectThrows(() => fl.compile("__global__ void k() {}", { devcie: dev() } as fl.CompileOptions), fl.ArgumentError,
      'fl.compile: options must be an object with keys among device, name, timeoutMs, headers, defines, arch, std, instances, got the key "devcie"');
  });
});
