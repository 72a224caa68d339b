// The messages between the grader and a submission's process. A message is a
// frame: 4 bytes (little-endian) giving the length of a JSON header, the
// header, then the binary payloads the header's `payloads` lists, in order.
// The grader checks every frame it reads: the submission's process is untrusted,
// so a frame that is too large or malformed ends the submission, never the grader.

/** The most bytes of a header; payloads are limited by what the grader asked for. */
export const MAX_HEADER_BYTES = 1 << 20;

export interface Frame {
  header: Record<string, unknown> & { payloads?: number[] };
  payloads: Buffer[];
}

/** A frame as bytes: header (with `payloads` set to the payloads' lengths) and payloads. */
export function encodeFrame(header: Record<string, unknown>, payloads: readonly ArrayBufferView[] = []): Buffer[] {
  const json = Buffer.from(JSON.stringify({ ...header, payloads: payloads.map((p) => p.byteLength) }));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length);
  return [length, json, ...payloads.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength))];
}

/**
 * Reassembles frames from a byte stream: `push` takes bytes as they come and
 * returns the frames completed. `payloadLimit` bounds one frame's payload bytes.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private pending?: { header: Frame["header"]; total: number };

  constructor(private readonly payloadLimit: () => number) {}

  push(chunk: Buffer): Frame[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Frame[] = [];
    for (;;) {
      if (!this.pending) {
        if (this.buffered < 4) break;
        const length = this.take(4).readUInt32LE(0);
        if (length > MAX_HEADER_BYTES) throw new Error(`a message header of ${length} bytes (at most ${MAX_HEADER_BYTES})`);
        this.pending = { header: { payloads: [] }, total: -length };
      }
      if (this.pending.total < 0) {
        const length = -this.pending.total;
        if (this.buffered < length) break;
        const header = JSON.parse(this.take(length).toString("utf8")) as Frame["header"];
        if (typeof header !== "object" || header === null || Array.isArray(header)) throw new Error("a message header that is not an object");
        const sizes = header.payloads ?? [];
        if (!Array.isArray(sizes) || !sizes.every((n) => Number.isSafeInteger(n) && n >= 0)) throw new Error("a message with malformed payload sizes");
        const total = sizes.reduce((a, b) => a + b, 0);
        if (total > this.payloadLimit()) throw new Error(`a message of ${total} payload bytes (at most ${this.payloadLimit()} expected)`);
        this.pending = { header, total };
      }
      if (this.buffered < this.pending.total) break;
      const all = this.take(this.pending.total);
      const payloads: Buffer[] = [];
      let offset = 0;
      for (const n of this.pending.header.payloads ?? []) {
        payloads.push(all.subarray(offset, offset + n));
        offset += n;
      }
      frames.push({ header: this.pending.header, payloads });
      this.pending = undefined;
    }
    return frames;
  }

  private take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    const whole = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    const taken = whole.subarray(0, n);
    const rest = whole.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered -= n;
    return taken;
  }
}

export type DTypeName = "f32" | "f16" | "bf16" | "i32" | "u8";

/** A buffer a launch uses: its element type and count; `init` says what it starts as. */
export interface BufferSpec {
  dtype: DTypeName;
  /** Elements the kernel may use (a canary region follows them). */
  elements: number;
  /** "data": the next payload; "nan": every byte 0xFF (an output's canary: NaN in every float type). */
  init: "data" | "nan";
  /** The byte the canary region is filled with (canaryByte of the buffer's index). */
  canary: number;
}

/** A kernel argument: a buffer by index, or a scalar. */
export type ArgSpec = { buffer: number } | { value: number };

export interface LaunchSpec {
  kernel: string;
  grid: number[];
  block: number[];
  sharedBytes?: number;
  args: ArgSpec[];
}

/** Bytes after every buffer, filled with CANARY_BYTE: a write past the end shows there. */
export const CANARY_BYTES = 256;
// Each buffer of a case gets its own canary byte: with one byte for all, a kernel
// that copied past the end of an input into the region past the end of an output
// (x[i] - mean, where x[i] is the input's canary, rounds back to the same bits)
// left the output's canary as it found it.
const CANARY_PATTERNS = [0x5a, 0xa7, 0x3c, 0xd2, 0x69, 0x96, 0x1e, 0xe1];

/** The canary byte of buffer `index` of a case. */
export function canaryByte(index: number): number {
  return CANARY_PATTERNS[index % CANARY_PATTERNS.length] ^ (Math.floor(index / CANARY_PATTERNS.length) & 0x0f);
}
