// M-RoPE sections of any count, as transformers applies them (issue 22, item 6): modeling_qwen2_vl.py
// apply_multimodal_rotary_pos_emb splits the cos/sin rows (two copies of the pairs) into
// `mrope_section * 2` chunks and gives chunk k the ids of axis k % 3 (temporal, height, width), with
// position_ids of three axes whatever the count. The reference below is that function in float64.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, randomFloats, throwsPosEnc } from './helpers.mjs';

const pe = await createPosEnc();

const headDim = 32;
const pairs = headDim / 2;

function planOf(section) {
  return pe.model.fromConfig({ model_type: 'qwen2_vl', num_hidden_layers: 1, hidden_size: 2 * headDim, num_attention_heads: 2,
    rope_theta: 10000, rope_scaling: { type: 'mrope', mrope_section: section } });
}

/** HF's apply_multimodal_rotary_pos_emb on q [seq, headDim] with ids [3][seq], in float64. */
function hfReference(q, ids, section, w) {
  const seq = ids[0].length;
  const chunks = [...section, ...section];
  const axisOfLane = [];
  chunks.forEach((size, k) => { for (let j = 0; j < size; j++) axisOfLane.push(k % 3); });
  assert.equal(axisOfLane.length, headDim);
  const out = new Float64Array(q.length);
  for (let s = 0; s < seq; s++) {
    for (let j = 0; j < headDim; j++) {
      const angle = ids[axisOfLane[j]][s] * w[j % pairs];
      const x = q[s * headDim + j];
      const rotated = j < pairs ? -q[s * headDim + j + pairs] : q[s * headDim + j - pairs];
      out[s * headDim + j] = x * Math.cos(angle) + rotated * Math.sin(angle);
    }
  }
  return out;
}

function check(section, ids) {
  const plan = planOf(section);
  const seq = ids[0].length;
  const q = randomFloats(seq * headDim, 81);
  const w = pe.model.frequencies(plan, 0).invFreq;
  const want = hfReference(q, ids, section, w);
  const got = q.slice();
  pe.model.apply(plan, 0, got, null, { dims: [seq, headDim], positionIds: ids.flat() });
  const worst = got.reduce((m, v, i) => Math.max(m, Math.abs(v - want[i])), 0);
  assert.ok(worst < 1e-6, `[${section}]: ${worst}`);
}

const vision = [[0, 0, 0, 5, 5, 5], [0, 1, 2, 0, 1, 2], [0, 0, 0, 1, 1, 1]]; // three axes that differ

test('three or six sections: chunk k takes axis k % 3 (six sections were read as six axes)', () => {
  check([6, 5, 5], vision);
  check([2, 2, 2, 4, 3, 3], vision);
});

test('two (or four) sections: exact for text ids, refused where a pair\'s two lanes would read different ids', () => {
  const text = [[0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]];
  check([10, 6], text);
  check([4, 4, 4, 4], text);
  const plan = planOf([10, 6]);
  assert.deepEqual(plan.layers[0].rope.form.section, [10, 6]);
  // positions are read as three axes: [2, seq] is not M-RoPE ids (it was, for two sections)
  throwsPosEnc(() => pe.model.apply(plan, 0, new Float32Array(6 * headDim), null, { dims: [6, headDim], positionIds: vision.flat() }),
    'INVALID_ARGUMENT', /mrope_section \[10, 6\] has 2 entries: .*section 0's pairs take the temporal and width ids, which differ at position id 3 \(5 and 1\)/);
  const apply = pe.model.apply(plan, 0, new Float32Array(2 * headDim), null, { dims: [2, headDim], positionIds: [7, 8] });
  assert.equal(apply, undefined); // text ids [seq]: every axis the same
});
