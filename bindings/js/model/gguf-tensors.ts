// Reads the values of small F32 tensors of a GGUF file (ggml docs/gguf.md: tensor data starts at the
// aligned data offset, each tensor at its own offset inside it): the per-pair RoPE divisors
// llama.cpp stores as `rope_freqs.weight` (llama3 scaling) and `rope_factors_long/short.weight`
// (LongRoPE). Other types are refused: these tensors are written as F32 by convert_hf_to_gguf.py.
import { PosEncError } from '../runtime/errors.js';
import type { GgufHeader, GgufTensorInfo } from './gguf-header.js';

/** ggml type id of F32 (ggml.h `GGML_TYPE_F32`). */
const GGML_TYPE_F32 = 0;

/** The float32 values of tensor `name` (a 1-D F32 tensor of `length` values), or undefined when the file has no such tensor. */
export function readF32Tensor(fn: string, header: GgufHeader, bytes: Uint8Array, name: string, length: number): Float32Array | undefined {
  const t: GgufTensorInfo | undefined = header.tensors.find((x) => x.name === name);
  if (!t) return undefined;
  if (t.ggmlType !== GGML_TYPE_F32) {
    throw new PosEncError('INVALID_FILE', `${fn}: tensor ${name} has ggml type ${t.ggmlType}; posenc reads RoPE factor tensors only as F32 (type 0), as convert_hf_to_gguf.py writes them`);
  }
  const count = t.dims.reduce((a, b) => a * b, 1);
  if (t.dims.length !== 1 || count !== length) {
    throw new PosEncError('INVALID_FILE', `${fn}: tensor ${name} has dims [${t.dims.join(', ')}]; the RoPE needs ${length} values (rotary_dim / 2)`);
  }
  if (header.dataOffset < 0) {
    throw new PosEncError('INVALID_FILE', `${fn}: tensor ${name} holds the RoPE's per-pair factors, but the bytes end inside the tensor list; pass the whole file`);
  }
  const start = header.dataOffset + t.offset;
  const end = start + 4 * count;
  if (end > bytes.length) {
    throw new PosEncError('INVALID_FILE', `${fn}: tensor ${name} lies at bytes ${start}-${end} but only ${bytes.length} bytes were given; pass the whole file, or at least its first ${end} bytes`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset + start, 4 * count);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    out[i] = view.getFloat32(4 * i, true);
    if (!Number.isFinite(out[i]!) || !(out[i]! > 0)) throw new PosEncError('INVALID_FILE', `${fn}: tensor ${name}[${i}] is ${out[i]}; RoPE divisors must be finite and > 0`);
  }
  return out;
}
