// Protocol-buffers messages written in the wire format, as much of it as an ONNX
// model needs: varints, length-delimited fields (strings, bytes, nested messages)
// and 32-bit floats. Written out here so that building a model needs no schema
// compiler.

const VARINT = 0;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

/** Writes one message, field by field, in the order the calls are made. */
export class MessageWriter {
  private readonly bytes: number[] = [];

  /** A varint field (int32, int64, enum); negative numbers as 10-byte two's complement. */
  int(field: number, value: number): this {
    return this.key(field, VARINT).varint(value);
  }

  /** A 32-bit float field. */
  float(field: number, value: number): this {
    const word = Buffer.alloc(4);
    word.writeFloatLE(value);
    this.key(field, FIXED32).bytes.push(...word);
    return this;
  }

  /** A UTF-8 string field. */
  string(field: number, value: string): this {
    return this.raw(field, Buffer.from(value, "utf8"));
  }

  /** A bytes field. */
  raw(field: number, value: Uint8Array): this {
    this.key(field, LENGTH_DELIMITED).varint(value.length);
    for (const byte of value) this.bytes.push(byte);
    return this;
  }

  /** A nested message field. */
  message(field: number, value: MessageWriter): this {
    return this.raw(field, value.finish());
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }

  private key(field: number, wireType: number): this {
    return this.varint(field * 8 + wireType);
  }

  private varint(value: number): this {
    let rest = BigInt.asUintN(64, BigInt(value));
    while (rest >= 0x80n) {
      this.bytes.push(Number(rest & 0x7fn) | 0x80);
      rest >>= 7n;
    }
    this.bytes.push(Number(rest));
    return this;
  }
}
