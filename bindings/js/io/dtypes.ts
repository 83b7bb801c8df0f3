// The float formats posenc reads from files (.npy, .safetensors), decoded into float32. Decoding
// copies the bytes first, so the source may be unaligned (a Node Buffer slice) or in either byte order.
import { PosEncError } from '../runtime/errors.js';

/** A float element type posenc can read from a file. Everything is converted to float32. */
export type FileDtype = 'float16' | 'bfloat16' | 'float32' | 'float64';

/** Bytes per element of each readable format. */
export const ITEM_SIZE: Readonly<Record<FileDtype, number>> = { float16: 2, bfloat16: 2, float32: 4, float64: 8 };

/** Whether this machine stores multi-byte numbers little-endian (typed arrays use its order). */
export const PLATFORM_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

let halfTable: Float32Array | undefined;

/**
 * float32 value of every IEEE 754 binary16 bit pattern (65536 entries, built on first use).
 * binary16: 1 sign bit, 5 exponent bits (bias 15), 10 mantissa bits; exponent 0 is subnormal
 * (mantissa * 2^-24), exponent 31 is infinity (mantissa 0) or NaN. Every value is exact in float32.
 */
function halfToFloat(): Float32Array {
  if (halfTable) return halfTable;
  const table = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const exponent = (h >> 10) & 31;
    const mantissa = h & 1023;
    let magnitude: number;
    if (exponent === 0) magnitude = mantissa * 2 ** -24;
    else if (exponent === 31) magnitude = mantissa === 0 ? Infinity : NaN;
    else magnitude = (1024 + mantissa) * 2 ** (exponent - 25);
    table[h] = h & 0x8000 ? -magnitude : magnitude;
  }
  halfTable = table;
  return table;
}

/** Reverses the bytes of each `size`-byte element in place. */
function swapBytes(raw: Uint8Array, size: number): void {
  for (let at = 0; at < raw.length; at += size) {
    for (let a = at, b = at + size - 1; a < b; a++, b--) {
      const t = raw[a]!;
      raw[a] = raw[b]!;
      raw[b] = t;
    }
  }
}

/**
 * Decodes `count` elements of `dtype` starting at byte `start` of `bytes` into a new Float32Array.
 * float64 values beyond the float32 range are an OUT_OF_RANGE error (named by `what`), not infinity.
 */
export function decodeFloats(
  fn: string, what: string, bytes: Uint8Array, start: number, count: number, dtype: FileDtype, littleEndian: boolean,
): Float32Array {
  const size = ITEM_SIZE[dtype];
  const raw = bytes.slice(start, start + count * size); // a copy: aligned, and ours to byte-swap
  if (size > 1 && littleEndian !== PLATFORM_LITTLE_ENDIAN) swapBytes(raw, size);
  switch (dtype) {
    case 'float32':
      return new Float32Array(raw.buffer, 0, count);
    case 'float64': {
      const wide = new Float64Array(raw.buffer, 0, count);
      const out = Float32Array.from(wide);
      for (let i = 0; i < count; i++) {
        if (!Number.isFinite(out[i]!) && Number.isFinite(wide[i]!)) {
          throw new PosEncError('OUT_OF_RANGE', `${fn}: ${what} element ${i} is ${wide[i]}, beyond the float32 range (±3.4e38)`);
        }
      }
      return out;
    }
    case 'float16': {
      const bits = new Uint16Array(raw.buffer, 0, count);
      const table = halfToFloat();
      const out = new Float32Array(count);
      for (let i = 0; i < count; i++) out[i] = table[bits[i]!]!;
      return out;
    }
    case 'bfloat16': {
      // bfloat16 is the upper half of a float32: shifting its bits up 16 places is exact.
      const bits = new Uint16Array(raw.buffer, 0, count);
      const out = new Float32Array(count);
      const outBits = new Uint32Array(out.buffer);
      for (let i = 0; i < count; i++) outBits[i] = bits[i]! << 16;
      return out;
    }
  }
}

/** The elements of `dims` multiplied, or undefined if the product is not an exact integer. */
export function elementCount(dims: readonly number[]): number | undefined {
  let n = 1;
  for (const d of dims) n *= d;
  return Number.isSafeInteger(n) ? n : undefined;
}
