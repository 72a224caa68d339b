// The values a kernel takes by value, as the C ABI lays them out: scalars, the
// GPU's vector types and plain structs; and their packing from JS values, each
// checked by name and type. x86-64 (System V), CUDA and HIP lay a struct out
// alike: each member at the next multiple of its alignment, the struct aligned
// as its most aligned member (or as __align__/alignas raise it), its size a
// multiple of its alignment; so the bytes packed here are what the kernel reads
// on every target.
import { ArgumentError, describe } from "./errors";
import { INTEGER_RANGES, f32ToBf16Bits, f32ToF16Bits } from "./dtype";

/** Scalar types a launch can pass. */
export const SCALAR_TYPES = ["i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16", "bf16", "f32", "f64"] as const;

export type ScalarType = (typeof SCALAR_TYPES)[number];

/** A struct member's scalar type: a kernel's scalars, and bool. */
export type MemberScalar = ScalarType | "bool";

const SCALAR_BYTES: Readonly<Record<MemberScalar, number>> = {
  bool: 1, i8: 1, u8: 1, i16: 2, u16: 2, f16: 2, bf16: 2, i32: 4, u32: 4, f32: 4, i64: 8, u64: 8, f64: 8,
};

/** The type of a struct member. */
export type MemberType =
  | { kind: "scalar"; scalar: MemberScalar }
  | { kind: "struct"; layout: StructLayout }
  | { kind: "array"; element: MemberType; length: number }
  /** A pointer: a tensor of `element` ("void": any tensor), a view of one, or null, whose address the addon writes in. */
  | { kind: "pointer"; element: string; isConst: boolean };

/** One member of a struct, where the layout puts it. */
export interface StructMember {
  name: string;
  /** The member's type as the source spells it: "float", "int", "Inner" ("float w[4]" is a float). */
  declaration: string;
  type: MemberType;
  /** Bytes from the struct's start. */
  offset: number;
}

/** A struct's members, size and alignment, as the C ABI lays it out. */
export interface StructLayout {
  name: string;
  size: number;
  align: number;
  members: readonly StructMember[];
}

// Every target is 64-bit: a pointer member is 8 bytes, 8-byte aligned.
const POINTER_BYTES = 8;

export function sizeOf(type: MemberType): number {
  if (type.kind === "pointer") return POINTER_BYTES;
  if (type.kind === "scalar") return SCALAR_BYTES[type.scalar];
  if (type.kind === "struct") return type.layout.size;
  return type.length * sizeOf(type.element);
}

export function alignOf(type: MemberType): number {
  if (type.kind === "pointer") return POINTER_BYTES;
  if (type.kind === "scalar") return SCALAR_BYTES[type.scalar];
  if (type.kind === "struct") return type.layout.align;
  return alignOf(type.element);
}

const roundUp = (n: number, to: number) => Math.ceil(n / to) * to;

/** A member as the source declares it, before the layout places it. */
export interface DeclaredMember {
  name: string;
  declaration: string;
  type: MemberType;
  /** An alignment the declaration asks for (__align__, alignas); the type's own when larger. */
  align?: number;
}

/** The layout of a struct of `members` in order, aligned to at least `align` (__align__ on the struct). */
export function layoutStruct(name: string, members: readonly DeclaredMember[], align = 1): StructLayout {
  let offset = 0;
  let most = align;
  const placed = members.map((m) => {
    const memberAlign = Math.max(alignOf(m.type), m.align ?? 1);
    offset = roundUp(offset, memberAlign);
    const member = { name: m.name, declaration: m.declaration, type: m.type, offset };
    offset += sizeOf(m.type);
    most = Math.max(most, memberAlign);
    return member;
  });
  return { name, size: roundUp(Math.max(offset, 1), most), align: most, members: placed };
}

// The vector types of CUDA and HIP (cuda's vector_types.h, emulator/types.h): x, y, z, w of one
// scalar, with the GPU's alignment: a float4 is 16-byte aligned, a float3 only as a float.
function vectorTypes(): Map<string, StructLayout> {
  const vectors = new Map<string, StructLayout>();
  const families: [string, MemberScalar, string, number, number, number][] = [
    ["char", "i8", "signed char", 1, 2, 4], ["uchar", "u8", "unsigned char", 1, 2, 4],
    ["short", "i16", "short", 2, 4, 8], ["ushort", "u16", "unsigned short", 2, 4, 8],
    ["int", "i32", "int", 4, 8, 16], ["uint", "u32", "unsigned int", 4, 8, 16],
    ["long", "i64", "long", 8, 16, 16], ["ulong", "u64", "unsigned long", 8, 16, 16],
    ["longlong", "i64", "long long", 8, 16, 16], ["ulonglong", "u64", "unsigned long long", 8, 16, 16],
    ["float", "f32", "float", 4, 8, 16], ["double", "f64", "double", 8, 16, 16],
  ];
  const lanes = ["x", "y", "z", "w"];
  for (const [family, scalar, declaration, a1, a2, a4] of families) {
    [a1, a2, SCALAR_BYTES[scalar], a4].forEach((align, i) => {
      const name = `${family}${i + 1}`;
      const members = lanes.slice(0, i + 1).map((lane) => ({ name: lane, declaration, type: { kind: "scalar" as const, scalar } }));
      vectors.set(name, layoutStruct(name, members, align));
    });
  }
  // A launch's shape, a uint3 as CUDA and HIP declare it (text-generation-inference passes a `const dim3 blockDim`).
  vectors.set("dim3", { ...vectors.get("uint3")!, name: "dim3" });
  // Pairs of 16-bit floats, 4-byte aligned.
  for (const [names, scalar, declaration] of [
    [["half2", "__half2"], "f16", "half"], [["__nv_bfloat162", "__hip_bfloat162", "nv_bfloat162"], "bf16", "__nv_bfloat16"],
  ] as const) {
    for (const name of names) {
      vectors.set(name, layoutStruct(name, ["x", "y"].map((lane) => ({ name: lane, declaration, type: { kind: "scalar", scalar } })), 4));
    }
  }
  return vectors;
}

/** The vector types by value, by name ("float4", "uint2", "half2", "dim3" ...). */
export const VECTOR_TYPES: ReadonlyMap<string, StructLayout> = vectorTypes();

/**
 * A scalar argument or member checked against its type (integers in range, as
 * numbers within 2^53 or as bigints; floats as numbers; 16-bit floats rounded
 * to their bits): the value to store. Throws naming `label`.
 */
export function scalarValue(where: string, label: string, type: MemberScalar, declaration: string, value: unknown): number | bigint {
  if (type === "bool") {
    if (typeof value !== "boolean") throw new ArgumentError(where, label, `true or false (${declaration})`, describe(value));
    return value ? 1 : 0;
  }
  const range = INTEGER_RANGES[type];
  if (!range) {
    if (typeof value !== "number") throw new ArgumentError(where, label, `a number (${declaration})`, describe(value));
    return type === "f16" ? f32ToF16Bits(value) : type === "bf16" ? f32ToBf16Bits(value) : value;
  }
  if (typeof value !== "bigint") {
    if (typeof value !== "number" || !Number.isInteger(value)) throw new ArgumentError(where, label, `an integer (${declaration})`, describe(value));
    if (!Number.isSafeInteger(value)) {
      throw new ArgumentError(where, label, `an integer within 2^53 (pass larger ones as a bigint) (${declaration})`, describe(value));
    }
  }
  if (BigInt(value) < range[0] || BigInt(value) > range[1]) {
    throw new ArgumentError(where, label, `an integer from ${range[0]} to ${range[1]} (${declaration})`, describe(value));
  }
  return value;
}

function storeScalar(view: DataView, offset: number, type: MemberScalar, value: number | bigint): void {
  switch (type) {
    case "bool": case "u8": view.setUint8(offset, Number(value)); break;
    case "i8": view.setInt8(offset, Number(value)); break;
    case "i16": view.setInt16(offset, Number(value), true); break;
    case "u16": case "f16": case "bf16": view.setUint16(offset, Number(value), true); break;
    case "i32": view.setInt32(offset, Number(value), true); break;
    case "u32": view.setUint32(offset, Number(value), true); break;
    case "f32": view.setFloat32(offset, Number(value), true); break;
    case "f64": view.setFloat64(offset, Number(value), true); break;
    case "i64": view.setBigInt64(offset, BigInt(value), true); break;
    case "u64": view.setBigUint64(offset, BigInt(value), true); break;
  }
}

/** "struct Params { scale, n, inner }": a struct's member names, for messages. */
function fieldsOf(layout: StructLayout): string {
  return `struct ${layout.name} { ${layout.members.map((m) => m.name).join(", ")} }`;
}

/** Whether `value` is a plain object: not an array, a tensor or another class's instance, whose fields are its own business. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  let prototype: unknown;
  try {
    prototype = typeof value === "object" && value !== null ? Object.getPrototypeOf(value) : undefined;
  } catch {
    prototype = undefined;  // a revoked Proxy
  }
  return prototype === Object.prototype || prototype === null;
}

// The value's own fields, each read once (a getter cannot answer one thing when checked and another when packed).
function readFields(where: string, label: string, layout: StructLayout, value: unknown): Map<string, unknown> {
  const expected = `an object with the fields of ${fieldsOf(layout)}`;
  if (!isPlainObject(value)) throw new ArgumentError(where, label, expected, describe(value));
  const fields = new Map<string, unknown>();
  try {
    for (const key of Object.keys(value as object)) fields.set(key, (value as Record<string, unknown>)[key]);
  } catch (e) {
    throw new ArgumentError(where, label, expected, `an object whose fields cannot be read (${e instanceof Error ? e.message : String(e)})`);
  }
  const names = layout.members.map((m) => m.name);
  const extra = [...fields.keys()].find((key) => !names.includes(key));
  if (extra !== undefined) throw new ArgumentError(where, label, expected, `an object with the field ${JSON.stringify(extra)}, which ${layout.name} does not have`);
  const missing = names.find((name) => !fields.has(name));
  if (missing !== undefined) throw new ArgumentError(where, label, expected, `an object without the field ${JSON.stringify(missing)}`);
  return fields;
}

/** Where a pointer member points: a buffer from a byte offset (for `bytes`, a view's), or nowhere (null). */
export interface MemberPointer<Buffer> {
  buffer: Buffer;
  byteOffset?: number;
  bytes?: number;
}

/** A pointer member's value checked (a tensor of its element type, a view of one, or null): where it points. */
export type PointerReader<Buffer> = (label: string, type: { element: string; isConst: boolean }, declaration: string, value: unknown) =>
  MemberPointer<Buffer> | null;

/** The pointer members met while packing, with their offsets in the struct's bytes. */
interface Packing<Buffer> {
  view: DataView;
  readPointer: PointerReader<Buffer>;
  pointers: (MemberPointer<Buffer> & { offset: number })[];
}

function packMember<B>(where: string, label: string, member: StructMember, type: MemberType, value: unknown, into: Packing<B>, offset: number): void {
  const view = into.view;
  if (type.kind === "pointer") {
    const pointer = into.readPointer(label, type, member.declaration, value);
    if (pointer) into.pointers.push({ ...pointer, offset });  // null: the zeroed bytes
  } else if (type.kind === "scalar") {
    storeScalar(view, offset, type.scalar, scalarValue(where, label, type.scalar, member.declaration, value));
  } else if (type.kind === "struct") {
    packInto(where, label, type.layout, value, into, offset);
  } else {
    const list = value as ArrayLike<unknown>;
    const length = typeof value === "object" && value !== null ? list.length : undefined;
    if (length !== type.length || !(Array.isArray(value) || ArrayBuffer.isView(value))) {
      throw new ArgumentError(where, label, `an array of ${type.length} values (${member.declaration} ${member.name}${arraySuffix(member.type)})`, describe(value));
    }
    const step = sizeOf(type.element);
    for (let i = 0; i < type.length; i++) packMember(where, `${label}[${i}]`, member, type.element, list[i], into, offset + i * step);
  }
}

function arraySuffix(type: MemberType): string {
  return type.kind === "array" ? `[${type.length}]${arraySuffix(type.element)}` : "";
}

function packInto<B>(where: string, label: string, layout: StructLayout, value: unknown, into: Packing<B>, at: number): void {
  const fields = readFields(where, label, layout, value);
  for (const member of layout.members) {
    packMember(where, `${label}.${member.name}`, member, member.type, fields.get(member.name), into, at + member.offset);
  }
}

/**
 * The bytes of `value`, an object with exactly the fields of `layout` (nested
 * structs as objects, fixed arrays as arrays), padding and pointers zeroed, and
 * the pointers to write in (each member's value read by `readPointer`). Throws
 * naming the field at fault: "argument 2 (p).inner.scale must be a number (float), got ...".
 */
export function packStruct<B>(where: string, label: string, layout: StructLayout, value: unknown, readPointer: PointerReader<B>):
  { bytes: Uint8Array; pointers: (MemberPointer<B> & { offset: number })[] } {
  const bytes = new Uint8Array(layout.size);
  const into: Packing<B> = { view: new DataView(bytes.buffer), readPointer, pointers: [] };
  packInto(where, label, layout, value, into, 0);
  return { bytes, pointers: into.pointers };
}
