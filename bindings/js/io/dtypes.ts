// The float formats of files (.npy, .safetensors): decoded into float32 on reading (a copy first,
// so the source may be unaligned or in either byte order), and float32 encoded into float32,
// float16 or bfloat16 (little-endian, rounded to nearest, ties to even) on writing.
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
 * Decodes `count` elements of `dtype` at byte `start` of `bytes` into `out` (at least `count` long),
 * in place of a new array: for readers that decode a file piece by piece into one buffer.
 */
export function decodeFloatsInto(
  fn: string, what: string, bytes: Uint8Array, start: number, count: number, dtype: FileDtype, littleEndian: boolean,
  out: Float32Array,
): void {
  if (dtype === 'float32' && littleEndian === PLATFORM_LITTLE_ENDIAN) {
    new Uint8Array(out.buffer, out.byteOffset, count * 4).set(bytes.subarray(start, start + count * 4));
    return;
  }
  out.set(decodeFloats(fn, what, bytes, start, count, dtype, littleEndian));
}

/**
 * `value` rounded to float32; a finite value beyond the float32 range (it would round to infinity)
 * is an OUT_OF_RANGE error naming `what`, never an infinity.
 */
export function float32Value(fn: string, what: string, value: number): number {
  const rounded = Math.fround(value);
  if (Number.isFinite(value) && !Number.isFinite(rounded)) {
    throw new PosEncError('OUT_OF_RANGE', `${fn}: ${what} is ${value}, beyond the float32 range (±3.4e38)`);
  }
  return rounded;
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

/** An element type posenc writes: float32 as computed, or rounded to float16 or bfloat16. */
export type OutputDtype = 'float32' | 'float16' | 'bfloat16';

/** The element types posenc writes, in the order the CLI lists them. */
export const OUTPUT_DTYPES: readonly OutputDtype[] = ['float32', 'float16', 'bfloat16'];

/** Bytes per element of each written type. */
export const OUTPUT_ITEM_SIZE: Readonly<Record<OutputDtype, number>> = { float32: 4, float16: 2, bfloat16: 2 };

/**
 * The binary16 bits nearest to the float32 whose bits are `u` (ties to even); overflow gives
 * infinity, NaN stays a (quiet) NaN with the sign and top payload bits kept.
 */
export function float16Bits(u: number): number {
  const sign = (u >>> 16) & 0x8000;
  const exponent = (u >>> 23) & 0xff;
  const mantissa = u & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa === 0 ? 0 : 0x200 | (mantissa >>> 13));
  if (exponent >= 143) return sign | 0x7c00; // >= 2^16: beyond the largest half (65504) and its rounding range
  if (exponent >= 113) {
    // A normal half: keep 10 of the 23 mantissa bits and round on the 13 dropped ones. A carry out
    // of the mantissa moves to the next exponent (and from 65504 up to infinity), as it should.
    let h = ((exponent - 112) << 10) | (mantissa >>> 13);
    const dropped = mantissa & 0x1fff;
    if (dropped > 0x1000 || (dropped === 0x1000 && (h & 1) !== 0)) h += 1;
    return sign | h;
  }
  if (exponent >= 102) {
    // A subnormal half (a multiple of 2^-24): the float32's 24-bit significand shifted down.
    const significand = mantissa | 0x800000;
    const shift = 126 - exponent; // 14..24
    let h = significand >>> shift;
    const dropped = significand & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (dropped > half || (dropped === half && (h & 1) !== 0)) h += 1;
    return sign | h;
  }
  return sign; // below 2^-25: rounds to a signed zero
}

/** The bfloat16 bits nearest to the float32 whose bits are `u` (ties to even); NaN stays a quiet NaN. */
export function bfloat16Bits(u: number): number {
  if ((u & 0x7fffffff) > 0x7f800000) return (u >>> 16) | 0x40;
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}

/**
 * Writes `src` into `dst` as `dtype`, little-endian: `src.length * OUTPUT_ITEM_SIZE[dtype]` bytes.
 * float16 and bfloat16 values are rounded to nearest, ties to even.
 */
export function encodeFloats(src: Float32Array, dtype: OutputDtype, dst: Uint8Array): void {
  const n = src.length;
  if (dtype === 'float32') {
    if (PLATFORM_LITTLE_ENDIAN) {
      dst.set(new Uint8Array(src.buffer, src.byteOffset, n * 4));
    } else {
      const view = new DataView(dst.buffer, dst.byteOffset, n * 4);
      for (let i = 0; i < n; i++) view.setFloat32(4 * i, src[i]!, true);
    }
    return;
  }
  const bits = new Uint32Array(src.buffer, src.byteOffset, n); // src is 4-byte aligned: it is a Float32Array
  const round = dtype === 'float16' ? float16Bits : bfloat16Bits;
  if (PLATFORM_LITTLE_ENDIAN && dst.byteOffset % 2 === 0) {
    const out = new Uint16Array(dst.buffer, dst.byteOffset, n);
    for (let i = 0; i < n; i++) out[i] = round(bits[i]!);
  } else {
    for (let i = 0; i < n; i++) {
      const h = round(bits[i]!);
      dst[2 * i] = h & 0xff;
      dst[2 * i + 1] = h >>> 8;
    }
  }
}
