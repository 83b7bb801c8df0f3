// Reads the values of small F32 tensors of a GGUF file (ggml docs/gguf.md: tensor data starts at the
// aligned data offset, each tensor at its own offset inside it): the per-pair RoPE divisors
// llama.cpp stores as `rope_freqs.weight` (llama3 scaling) and `rope_factors_long/short.weight`
// (LongRoPE). Other types are refused: these tensors are written as F32 by convert_hf_to_gguf.py.
// The bytes of each are fetched first (from the caller's bytes, or streamed: gguf-source.ts), each
// range checked against the file, so that no read ever leaves the caller's view.
import { PosEncError } from '../runtime/errors.js';
import type { GgufHeader, GgufTensorInfo } from './gguf-header.js';
import { MAX_HEAD_DIM } from './plan.js';

/** ggml type id of F32 (ggml.h `GGML_TYPE_F32`). */
const GGML_TYPE_F32 = 0;
/** The tensors that carry per-pair RoPE divisors. */
export const FACTOR_TENSORS = ['rope_freqs.weight', 'rope_factors_long.weight', 'rope_factors_short.weight'] as const;

/** A GGUF file as the planner reads it: its header, and the bytes of the factor tensors that could be read. */
export interface GgufFile {
  header: GgufHeader;
  /** The bytes of each factor tensor whose data the given bytes (or the file) hold, by name. */
  tensorBytes: Map<string, Uint8Array>;
}

/** A factor tensor's place in the file: `[start, end)` from the start of the file. */
export interface TensorRange {
  name: string;
  start: number;
  end: number;
}

/**
 * The byte ranges of the factor tensors the header lists that posenc could read (1-D F32 of at most
 * MAX_HEAD_DIM / 2 values); the others are refused by readF32Tensor from their header entry alone.
 */
export function factorRanges(header: GgufHeader): TensorRange[] {
  const out: TensorRange[] = [];
  for (const name of FACTOR_TENSORS) {
    const t = header.tensors.get(name);
    if (!t || t.ggmlType !== GGML_TYPE_F32 || t.dims.length !== 1 || t.dims[0]! > MAX_HEAD_DIM / 2) continue;
    const start = header.dataOffset + t.offset;
    out.push({ name, start, end: start + 4 * t.dims[0]! });
  }
  return out;
}

/** The bytes of each range that lies inside `bytes` (the first bytes of the file). */
export function rangesFrom(bytes: Uint8Array, ranges: TensorRange[]): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const r of ranges) if (Number.isSafeInteger(r.end) && r.end <= bytes.length) out.set(r.name, bytes.subarray(r.start, r.end));
  return out;
}

/** The float32 values of tensor `name` (a 1-D F32 tensor of `length` values), or undefined when the file has no such tensor. */
export function readF32Tensor(fn: string, file: GgufFile, name: string, length: number): Float32Array | undefined {
  const t: GgufTensorInfo | undefined = file.header.tensors.get(name);
  if (!t) return undefined;
  if (t.ggmlType !== GGML_TYPE_F32) {
    throw new PosEncError('INVALID_FILE', `${fn}: tensor ${name} has ggml type ${t.ggmlType}; posenc reads RoPE factor tensors only as F32 (type 0), as convert_hf_to_gguf.py writes them`);
  }
  const count = t.dims.reduce((a, b) => a * b, 1);
  if (t.dims.length !== 1 || count !== length) {
    throw new PosEncError('INVALID_FILE', `${fn}: tensor ${name} has dims [${t.dims.join(', ')}]; the RoPE needs ${length} values (rotary_dim / 2)`);
  }
  const bytes = file.tensorBytes.get(name);
  if (bytes === undefined || bytes.length !== 4 * count) {
    const end = file.header.dataOffset + t.offset + 4 * count;
    throw new PosEncError('INVALID_FILE', `${fn}: tensor ${name} lies at bytes ${end - 4 * count}-${end}, past the end of the bytes given; pass the whole file, or at least its first ${end} bytes`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    out[i] = view.getFloat32(4 * i, true);
    if (!Number.isFinite(out[i]!) || !(out[i]! > 0)) throw new PosEncError('INVALID_FILE', `${fn}: tensor ${name}[${i}] is ${out[i]}; RoPE divisors must be finite and > 0`);
  }
  return out;
}
