// Every public function with a valid call, for the sweeps that replace its arguments (robustness)
// or disturb it while it runs (getters): [name, call(args...), valid args], options objects last.
// Tensor arguments are { data: Float32Array, dims } objects.
import { randomFloats } from './helpers.mjs';

/** The cases over one posenc instance (`pe`), with the caches, tables and plans they use. */
export function apiCases(pe) {
  const f32 = (n, seed = 1) => randomFloats(n, seed);
  const T = (dims, seed) => ({ data: f32(dims.reduce((a, b) => a * b, 1), seed), dims });
  /** A one-tensor .safetensors file: 8-byte header length, JSON header, float32 data. */
  function safetensors() {
    const header = new TextEncoder().encode(JSON.stringify({ t: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }));
    const bytes = new Uint8Array(8 + header.length + 8);
    new DataView(bytes.buffer).setBigUint64(0, BigInt(header.length), true);
    bytes.set(header, 8);
    bytes.set(new Uint8Array(new Float32Array([1, 2]).buffer), 8 + header.length);
    return bytes;
  }

  // Cached tables: full rows (learned) and anchored rows (a fast sinusoidal table of 100 positions).
  const learnedTable = pe.learned.createTable(T([40, 4]));
  const anchoredTable = pe.sinusoidal.createTable({ maxPositions: 100, dim: 4, precision: 'fast', storage: 'anchored' });
  // The tools: a cos/sin cache to shift keys with, and keys rotated at positions 3..8 for the doctor.
  const ropeCache = pe.rope.createCache({ rotaryDim: 8, maxPositions: 16 });
  const rotatedAt3 = T([6, 8], 7);
  pe.rope.apply(rotatedAt3, null, { offset: 3 });

  // Model plans with each RoPE form (docs/encodings.md#812-proportional-rope-gemma-4 to #815-pixtrals-2-d-image-rope), for pe.model.apply and layer caches.
  const plans = {
    proportional: pe.model.fromConfig({ model_type: 'gemma4_text', num_hidden_layers: 6, hidden_size: 32, num_attention_heads: 4, head_dim: 8,
      global_head_dim: 16, sliding_window: 8, rope_parameters: { full_attention: { partial_rotary_factor: 0.25, rope_theta: 1e6, rope_type: 'proportional' },
        sliding_attention: { rope_theta: 10000, rope_type: 'default' } } }),
    mrope: pe.model.fromConfig({ model_type: 'qwen3_vl_text', num_hidden_layers: 1, hidden_size: 32, num_attention_heads: 4, rope_theta: 1e6,
      rope_scaling: { rope_type: 'default', mrope_section: [2, 1, 1], mrope_interleaved: true } }),
    decoupled: pe.model.fromConfig({ model_type: 'deepseek_v3', num_hidden_layers: 1, hidden_size: 32, num_attention_heads: 4, qk_nope_head_dim: 4,
      qk_rope_head_dim: 8, rope_theta: 10000, max_position_embeddings: 64,
      rope_scaling: { type: 'yarn', factor: 4, original_max_position_embeddings: 16, mscale: 1, mscale_all_dim: 1 } }),
    pixtral: pe.model.fromConfig({ model_type: 'pixtral', num_hidden_layers: 1, hidden_size: 32, num_attention_heads: 4, head_dim: 8,
      image_size: 64, patch_size: 16, rope_theta: 10000 }),
    llama4: pe.model.fromConfig({ model_type: 'llama4_text', num_hidden_layers: 4, hidden_size: 32, num_attention_heads: 4, head_dim: 8,
      rope_theta: 500000, attention_chunk_size: 8, attn_temperature_tuning: true, floor_scale: 4, attn_scale: 0.1 }),
  };
  const layerCache = pe.model.createCache(plans.decoupled, 0, { maxPositions: 16 });

  /** [name, call(args...), valid args]. Options objects are the last argument. */
  return [
    ['model.apply (proportional)', (p, l, q, k, o) => pe.model.apply(p, l, q, k, o), [plans.proportional, 5, T([1, 3, 2, 16]), T([1, 3, 1, 16], 2), { layout: 'bshd', offset: 4 }]],
    ['model.apply (mrope)', (q, o) => pe.model.apply(plans.mrope, 0, q, null, o), [T([1, 3, 1, 8]), { layout: 'bshd', positionIds: [0, 1, 2, 0, 1, 1, 0, 0, 1], seqLen: 9 }]],
    ['model.apply (decoupled)', (q, k, o) => pe.model.apply(plans.decoupled, 0, q, k, o), [T([1, 2, 3, 12]), T([1, 1, 3, 8], 2), { layout: 'bhsd', positionIds: [3, 4, 40], laneOrder: 'vllm' }]],
    ['model.apply (pixtral)', (q, o) => pe.model.apply(plans.pixtral, 0, q, null, o), [T([1, 4, 2, 8]), { layout: 'bshd', grid: [2, 2] }]],
    ['model.apply (llama4 NoPE)', (q, k, o) => pe.model.apply(plans.llama4, 3, q, k, o), [T([2, 3, 8]), T([2, 3, 8], 2), { numHeads: 1, positionIds: [2, 3, 9, 0, 1, 2] }]],
    ['model.createCache', (p, l, o) => pe.model.createCache(p, l, o).dispose(), [plans.proportional, 5, { maxPositions: 12, seqLen: 12 }]],
    ['LayerRopeCache.apply', (q, k, o) => layerCache.apply(q, k, o), [T([1, 3, 2, 12]), T([1, 3, 1, 8], 2), { layout: 'bshd', positionIds: [0, 7, 15] }]],
    ['PositionTable (learned).addTo', (x, o) => learnedTable.addTo(x, o), [T([2, 3, 4]), { offset: 30 }]],
    ['PositionTable (learned).lookup', (o) => learnedTable.lookup(o), [{ length: 3, offset: 36 }]],
    ['PositionTable (anchored).addTo', (x, o) => anchoredTable.addTo(x, o), [T([2, 3, 4]), { offset: 90 }]],
    ['PositionTable (anchored).lookup', (o) => anchoredTable.lookup(o), [{ length: 3, offset: 96 }]],
    ['sinusoidal.table', (o) => pe.sinusoidal.table(o), [{ length: 4, dim: 6, base: 100, layout: 'half', precision: 'fast', offset: 2 }]],
    ['sinusoidal.addTo', (x, o) => pe.sinusoidal.addTo(x, o), [T([2, 3, 4]), { offset: 1, base: 10, layout: 'interleaved', precision: 'exact' }]],
    ['sinusoidal.createTable', (o) => pe.sinusoidal.createTable(o).dispose(), [{ maxPositions: 8, dim: 4, precision: 'fast', storage: 'rows' }]],
    ['learned.lookup', (t, o) => pe.learned.lookup(t, o), [T([6, 3]), { length: 2, offset: 1 }]],
    ['learned.addTo', (x, t, o) => pe.learned.addTo(x, t, o), [T([2, 3]), T([6, 3], 2), { positionIds: [0, 5] }]],
    ['learned.interpolate', (t, o) => pe.learned.interpolate(t, o), [T([10, 3]), { gridSize: [3, 3], newGridSize: [2, 4], numPrefixTokens: 1 }]],
    ['learned.robertaPositionIds', (ids, o) => pe.learned.robertaPositionIds(ids, o), [[0, 5, 1, 1], { paddingIdx: 1 }]],
    ['rope.apply', (q, k, o) => pe.rope.apply(q, k, o), [T([1, 3, 2, 8]), T([1, 3, 1, 8], 2), { layout: 'bshd', rotaryDim: 4, base: 100, pairing: 'interleaved', offset: 2 }]],
    ['rope.apply scaled', (q, o) => pe.rope.apply(q, null, o), [T([1, 3, 2, 8]), { layout: 'bhsd', scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 64 }, seqLen: 10 }]],
    ['rope.frequencies', (o) => pe.rope.frequencies(o), [{ rotaryDim: 8, base: 500000, scaling: { type: 'llama3', factor: 8 } }]],
    ['rope.angles', (s, ids) => pe.rope.angles(s, ids), [{ rotaryDim: 8 }, [0, 1, 2]]],
    ['rope.createCache', (o) => pe.rope.createCache(o).dispose(), [{ rotaryDim: 8, maxPositions: 16, scaling: { type: 'linear', factor: 2 } }]],
    ['rope.rotaryEmbedding', (x, c, s, o) => pe.rope.rotaryEmbedding(x, c, s, o), [T([1, 2, 3, 8]), T([10, 4], 2), T([10, 4], 3), { positionIds: [[1, 2, 3]].flat(), interleaved: true }]],
    ['rope.apply2d', (q, o) => pe.rope.apply2d(q, null, o), [T([1, 6, 1, 8]), { layout: 'bshd', grid: [2, 3] }]],
    ['rope.applyXPos', (q, k, o) => pe.rope.applyXPos(q, k, o), [T([1, 4, 1, 8]), T([1, 4, 1, 8], 2), { layout: 'bshd' }]],
    ['rope.applyMultimodal', (q, o) => pe.rope.applyMultimodal(q, null, o), [T([1, 3, 1, 8]), { layout: 'bshd', mropeSection: [2, 1, 1], positionIds: [0, 1, 2, 0, 1, 1, 0, 0, 1] }]],
    ['rope.fromConfig', (c) => pe.rope.fromConfig(c), [{ hidden_size: 64, num_attention_heads: 4, rope_theta: 10000, max_position_embeddings: 128 }]],
    ['shaw.relativeIndices', (o) => pe.shaw.relativeIndices(o), [{ qLen: 3, kLen: 4, maxRelativePosition: 2, queryOffset: 1 }]],
    ['shaw.gather', (t, o) => pe.shaw.gather(t, o), [T([5, 3]), { qLen: 2, kLen: 3 }]],
    ['shaw.attention', (q, k, v, rk, rv, o) => pe.shaw.attention(q, k, v, rk, rv, o), [T([2, 4]), T([3, 4], 2), T([3, 4], 3), T([5, 4], 4), T([5, 4], 5), { causal: true, queryOffset: 1 }]],
    ['transformerXL.relativeSinusoid', (o) => pe.transformerXL.relativeSinusoid(o), [{ qLen: 3, memLen: 2, dModel: 8, clampLen: 3 }]],
    ['transformerXL.relShift', (x, o) => pe.transformerXL.relShift(x, o), [T([3, 5]), { maskFuture: true }]],
    ['t5.bucket', (r, o) => pe.t5.bucket(r, o), [-20, { numBuckets: 32, maxDistance: 128, bidirectional: false }]],
    ['t5.buckets', (o) => pe.t5.buckets(o), [{ qLen: 3, kLen: 5, queryOffset: 2 }]],
    ['t5.bias', (t, o) => pe.t5.bias(t, o), [T([32, 2]), { qLen: 3, kLen: 4 }]],
    ['deberta.bucket', (r, o) => pe.deberta.bucket(r, o), [300, { bucketSize: 256, maxPosition: 512 }]],
    ['deberta.c2pIndices', (o) => pe.deberta.c2pIndices(o), [{ qLen: 3, kLen: 4, bucketSize: 8, maxPosition: 16 }]],
    ['alibi.slopes', (o) => pe.alibi.slopes(o), [{ numHeads: 12, maxBias: 8 }]],
    ['alibi.bias', (o) => pe.alibi.bias(o), [{ numHeads: 3, qLen: 2, kLen: 4, form: 'bloom', attentionMask: [0, 1, 1, 1] }]],
    ['attention.scores', (q, k, o) => pe.attention.scores(q, k, o), [T([2, 3, 4]), T([1, 3, 4], 2), { causal: true, rope: true }]],
    ['attention.output', (q, k, v, o) => pe.attention.output(q, k, v, o), [T([3, 4]), T([3, 4], 2), T([3, 2], 3), { bias: T([3, 3], 4) }]],
    ['io.readNpy', (b) => pe.io.readNpy(b), [pe.io.writeNpy(T([2, 2]))]],
    ['io.readSafetensors', (b, o) => pe.io.readSafetensors(b, o), [safetensors(), { names: ['t'] }]],
    ['rope.shift', (k, o) => pe.rope.shift(k, o), [T([1, 3, 2, 8]), { layout: 'bshd', rotaryDim: 4, base: 100, pairing: 'interleaved', offset: 2, delta: [1, -1, 0] }]],
    ['RopeCache.shift', (k, o) => ropeCache.shift(k, o), [T([3, 8]), { offset: 2, newPositionIds: [5, 6, 9] }]],
    ['rope.permuteWeights', (w, o) => pe.rope.permuteWeights(w, o), [T([16, 3]), { to: 'half', numHeads: 2, rotaryDim: 4 }]],
    ['doctor.identify', (b, a, o) => pe.doctor.identify(b, a, o), [T([6, 8], 7), rotatedAt3, { offset: 3 }]],
    // Every generator with a caller's reused `out` (tests/js/output.test.mjs): hostile values and getters reach it too.
    ['sinusoidal.table (out)', (o) => pe.sinusoidal.table(o), [{ length: 4, dim: 6, offset: 2, out: new Float32Array(24) }]],
    ['sinusoidal.frequencies (out)', (o) => pe.sinusoidal.frequencies(o), [{ dim: 7, base: 100, out: new Float64Array(4) }]],
    ['t5.bias (out)', (t, o) => pe.t5.bias(t, o), [T([32, 2]), { qLen: 3, kLen: 4, out: new Float32Array(24) }]],
    ['alibi.bias (out)', (o) => pe.alibi.bias(o), [{ numHeads: 3, qLen: 2, kLen: 4, out: new Float32Array(24) }]],
    ['alibi.slopes (out)', (o) => pe.alibi.slopes(o), [{ numHeads: 12, out: new Float64Array(12) }]],
    ['rope.angles (out)', (s, ids, o) => pe.rope.angles(s, ids, o), [{ rotaryDim: 8 }, [0, 1, 2], { out: new Float64Array(12) }]],
    ['learned.lookup (out)', (t, o) => pe.learned.lookup(t, o), [T([6, 3]), { length: 2, offset: 1, out: new Float32Array(6) }]],
    ['PositionTable (learned).lookup (out)', (o) => learnedTable.lookup(o), [{ length: 3, offset: 36, out: new Float32Array(12) }]],
    ['PositionTable (anchored).toTensor (out)', (o) => anchoredTable.toTensor(o), [{ out: new Float32Array(400) }]],
    ['learned.interpolate (out)', (t, o) => pe.learned.interpolate(t, o), [T([10, 3]), { gridSize: [3, 3], newGridSize: [2, 4], numPrefixTokens: 1, out: new Float32Array(27) }]],
    ['transformerXL.relativeSinusoid (out)', (o) => pe.transformerXL.relativeSinusoid(o), [{ qLen: 3, memLen: 2, dModel: 8, out: new Float32Array(40) }]],
    ['RopeCache.toTensors (out)', (o) => ropeCache.toTensors(o), [{ out: { cos: new Float32Array(64), sin: new Float32Array(64) } }]],
    // Hostile values for each key of a config (num_hidden_layers 2^31 - 1 among them) reach the plan reader.
    ['model.fromConfig', (c, o) => pe.model.fromConfig(c, o), [{ hidden_size: 64, num_attention_heads: 4, num_hidden_layers: 2, rope_theta: 10000 }, { longRope: 'hf' }]],
    ['doctor.config', (c, o) => pe.doctor.config(c, o), [{ hidden_size: 64, num_attention_heads: 4, num_hidden_layers: 2, rope_theta: 10000 }, { longRope: 'hf' }]],
    ['precision.oracle', (s, o) => pe.precision.oracle(s, o), [{ rotaryDim: 8, base: 100 }, { contextLength: 16, bucket: 4, pipelines: ['hf-bfloat16', 'ggml-float16'] }]],
  ];
}
