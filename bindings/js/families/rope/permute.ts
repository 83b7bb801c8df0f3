// Weight permutation between the two RoPE pairings: the output rows of a q or k projection (and its
// bias) reordered inside each head so that a checkpoint trained with one pairing runs with the other.
// Interleaved -> half is the `permute` of Hugging Face's convert_llama_weights_to_hf.py (Meta
// checkpoints to transformers: w.view(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(1, 2)); half
// -> interleaved is the `permute` of llama.cpp's convert_hf_to_gguf.py (LlamaModel.permute, which
// undoes it for GGUF's NORM rope). Here the rotated lanes of a head may be a leading part of it
// (partial rotary), whose other rows stay in place. Rows move whole, so any element type works,
// including the raw bytes of quantized rows. Plain JavaScript: a permutation needs no arithmetic.
import * as args from '../../runtime/args.js';
import { PosEncError } from '../../runtime/errors.js';
import { bufferOf, byteOffsetOf, typedArrayName } from '../../runtime/typed.js';
import { PAIRINGS } from './spec.js';
import type { RopePairing } from './spec.js';

/** A typed array of any element type (float32, float64, the uint16 bits of float16/bfloat16, the bytes of quantized rows...). */
export type WeightData =
  | Float32Array | Float64Array | Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array
  | BigInt64Array | BigUint64Array;

/** A projection weight `[outFeatures, inFeatures]` or bias `[outFeatures]`, of any element type. */
export interface WeightTensor<T extends WeightData = WeightData> {
  /** The values, row-major. */
  data: T;
  /** `[outFeatures, inFeatures]` or `[outFeatures]`. */
  dims: number[];
}

/** Options of {@link RopeApi.permuteWeights}. */
export interface RopePermuteOptions {
  /**
   * The pairing the rows should have afterwards: `'half'` turns Meta-style (interleaved) rows into
   * Hugging Face's (half); `'interleaved'` turns Hugging Face rows into Meta's / GGUF's.
   */
  to: RopePairing;
  /** Heads of this projection: `num_attention_heads` for q_proj, `num_key_value_heads` for k_proj. */
  numHeads: number;
  /** Rows per head (default outFeatures / numHeads). */
  headDim?: number;
  /** Leading rows of each head that rotate (even, default headDim); the other rows stay in place. */
  rotaryDim?: number;
  /** Shape of a bare typed array: `[outFeatures, inFeatures]`, or `[outFeatures]` for a bias. */
  dims?: readonly number[];
}

/** The typed-array classes, by the engine's name of their instances' class (a subclass's is its base's). */
const PLAIN_TYPES = new Map<string, new (...a: [ArrayBufferLike, number, number] | [number]) => WeightData>(
  [Float32Array, Float64Array, Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array]
    .map((C) => [C.name, C as unknown as new (...a: [ArrayBufferLike, number, number] | [number]) => WeightData]));

// Every typed array has subarray and set; the union of their signatures is not callable in TS.
type Rows = { subarray(begin: number, end: number): Rows; set(rows: Rows, offset: number): void; length: number };

function isWeightData(value: unknown): value is WeightData {
  const name = typedArrayName(value);
  return name !== undefined && PLAIN_TYPES.has(name);
}

/**
 * The source row (inside one head) of every row of the permuted head: `source[j]` is the row that
 * lands at j. To 'half': rows 2i and 2i+1 become rows i and i + r/2; to 'interleaved', the reverse.
 */
export function headRowSource(to: RopePairing, headDim: number, rotaryDim: number): Int32Array {
  const source = Int32Array.from({ length: headDim }, (_, j) => j);
  const half = rotaryDim / 2;
  for (let i = 0; i < half; i++) {
    if (to === 'half') {
      source[i] = 2 * i;
      source[half + i] = 2 * i + 1;
    } else {
      source[2 * i] = i;
      source[2 * i + 1] = half + i;
    }
  }
  return source;
}

/** `rope.permuteWeights`: a permuted copy of a q/k projection weight or bias, of the same element type. */
export function permuteWeights<T extends WeightData>(weight: T | WeightTensor<T>, options: RopePermuteOptions): WeightTensor<T> {
  const fn = 'rope.permuteWeights';
  const opts = args.options(fn, options, ['to', 'numHeads', 'headDim', 'rotaryDim', 'dims']);
  const to = PAIRINGS[args.choice(fn, 'to', args.required(fn, opts, 'to'), PAIRINGS)]!;
  // Every option is read before the weight's data: a getter of the caller's could otherwise free a
  // WasmTensor weight between reading its view and permuting it.
  const givenHeads = args.integer(fn, 'numHeads', args.required(fn, opts, 'numHeads'));
  const givenHeadDim = opts.headDim === undefined ? undefined : args.integer(fn, 'headDim', opts.headDim);
  const givenRotaryDim = opts.rotaryDim === undefined ? undefined : args.integer(fn, 'rotaryDim', opts.rotaryDim);
  const givenDims = opts.dims;
  let data: unknown;
  let shape: unknown;
  args.readingCallerValue(fn, 'weight', () => {
    if (isWeightData(weight)) {
      data = weight;
      shape = args.required(fn, { dims: givenDims }, 'dims');
    } else if (weight !== null && typeof weight === 'object' && 'data' in weight && 'dims' in weight) {
      data = weight.data;
      shape = weight.dims;
      if (givenDims !== undefined) throw new PosEncError('INVALID_ARGUMENT', `${fn}: the weight carries its dims; do not give option 'dims' too`);
      if (!isWeightData(data)) throw new PosEncError('INVALID_TYPE', `${fn}: weight.data must be a typed array, got ${args.describe(data)}`);
    } else {
      throw new PosEncError('INVALID_TYPE', `${fn}: weight must be a typed array or a { data, dims } tensor, got ${args.describe(weight)}`);
    }
  });
  const dims = args.shapeOf(fn, 'dims', shape);
  if (dims.length !== 1 && dims.length !== 2) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: a projection weight is [outFeatures, inFeatures] and a bias [outFeatures], got dims [${dims.join(', ')}]`);
  }
  const values = data as T;
  const rows = dims[0]!;
  const cols = dims.length === 2 ? dims[1]! : 1;
  const length = args.attachedLength(fn, 'weight', values);
  if (length !== rows * cols) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: weight has ${length} elements, but dims [${dims.join(', ')}] need ${rows * cols}`);
  }
  const numHeads = givenHeads;
  const headDim = givenHeadDim ?? rows / numHeads;
  if (!Number.isInteger(headDim) || headDim * numHeads !== rows) {
    const why = givenHeadDim === undefined ? `numHeads ${numHeads} does not divide them` : `they are not numHeads ${numHeads} x headDim ${headDim}`;
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: the weight has ${rows} output rows, and ${why}`);
  }
  const rotaryDim = givenRotaryDim ?? headDim;
  if (rotaryDim % 2 !== 0 || rotaryDim > headDim) {
    throw new PosEncError(rotaryDim > headDim ? 'OUT_OF_RANGE' : 'INVALID_ARGUMENT', `${fn}: rotaryDim must be an even integer from 2 to headDim (${headDim}), got ${rotaryDim}`);
  }
  const source = headRowSource(to, headDim, rotaryDim);
  // No caller code runs from here on: the rows are read through a plain view of the engine's own
  // class over the caller's bytes (never the input's `constructor`, `subarray` or species), and the
  // output is a fresh array of that class (a Node Buffer gives a Uint8Array, with no deprecation).
  const Plain = PLAIN_TYPES.get(typedArrayName(values)!)!;
  const src = new Plain(bufferOf.call(values), byteOffsetOf.call(values), length) as unknown as Rows;
  const dst = new Plain(length) as unknown as Rows;
  for (let h = 0; h < numHeads; h++) {
    for (let j = 0; j < headDim; j++) {
      const from = (h * headDim + source[j]!) * cols;
      dst.set(src.subarray(from, from + cols), (h * headDim + j) * cols);
    }
  }
  const out = dst as unknown as T;
  return { data: out, dims };
}
