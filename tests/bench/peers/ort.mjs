// onnxruntime-web on its wasm execution provider, one thread, SIMD build, running one-node models
// written by onnx-writer.mjs. Two RotaryEmbedding operators exist and both are measured:
//   ai.onnx RotaryEmbedding (opset 23):  inputs X, cos_cache, sin_cache, position_ids (optional)
//   com.microsoft RotaryEmbedding:        inputs input, position_ids, cos_cache, sin_cache
// Both take X as [batch, seq, hidden] (3-D, with num_heads) or [batch, heads, seq, headDim], and
// with position_ids caches of [maxPositions, rotaryDim/2]; attribute `interleaved` picks the pairing.
import { oneNodeModel } from '../onnx-writer.mjs';

/** Loads onnxruntime-web; returns { ort, info } or { error }. */
export async function loadOrt() {
  let ort;
  try {
    ort = await import('onnxruntime-web');
  } catch (error) {
    return { error: `onnxruntime-web not installed (${error.code ?? error.message})` };
  }
  ort.env.wasm.numThreads = 1; // no worker threads: one thread, like posenc
  ort.env.wasm.simd = true;
  ort.env.logLevel = 'error';
  const version = ort.env.versions?.web ?? 'unknown';
  return { ort, info: `onnxruntime-web ${version}, wasm EP (SIMD, 1 thread)` };
}

/** The two RotaryEmbedding flavours: model spec and the order of inputs. */
export const ROTARY_FLAVOURS = {
  'ai.onnx-23': { domain: '', opset: 23, order: ['X', 'cos', 'sin', 'pos'] },
  'com.microsoft': { domain: 'com.microsoft', opset: 1, order: ['X', 'pos', 'cos', 'sin'] },
};

/** A session running RotaryEmbedding on X [1, seq, heads * headDim] with caches [maxPositions, pairs]. */
export async function rotarySession(ort, flavour, { heads, headDim, maxPositions, interleaved }) {
  const f = ROTARY_FLAVOURS[flavour];
  const pairs = headDim / 2;
  const io = {
    X: { name: 'X', type: 'FLOAT', dims: ['batch', 'seq', heads * headDim] },
    cos: { name: 'cos', type: 'FLOAT', dims: [maxPositions, pairs] },
    sin: { name: 'sin', type: 'FLOAT', dims: [maxPositions, pairs] },
    pos: { name: 'pos', type: 'INT64', dims: ['batch', 'seq'] },
  };
  const model = await oneNodeModel({
    opType: 'RotaryEmbedding',
    domain: f.domain,
    opset: f.opset,
    inputs: f.order.map((n) => io[n]),
    outputs: [{ name: 'Y', type: 'FLOAT', dims: ['batch', 'seq', heads * headDim] }],
    attributes: { num_heads: heads, interleaved: interleaved ? 1 : 0 },
  });
  return ort.InferenceSession.create(model, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
}
