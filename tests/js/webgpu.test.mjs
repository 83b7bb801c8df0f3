// posenc/webgpu without a GPU, in Node: float16 rounding (every pattern and every midpoint),
// the WGSL emitter's source and argument checks, and UNSUPPORTED where there is no WebGPU. The
// kernels themselves run in tests/e2e/webgpu.test.mjs (Chromium with SwiftShader WebGPU).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc } from 'posenc';
import { createPosEncGpu, float16Bits, float16Value, requestPosEncGpu, ropeWgsl, PosEncError } from 'posenc/webgpu';

const pe = await createPosEnc();

test('float16Bits rounds float64 once to the nearest binary16, ties to even, over every pattern and midpoint', () => {
  for (let h = 0; h < 0x10000; h++) {
    const v = float16Value(h);
    if (Number.isNaN(v)) {
      assert.equal(float16Bits(v), 0x7e00);
      continue;
    }
    assert.equal(float16Bits(v), h, `pattern ${h.toString(16)}`);
    if ((h & 0x7fff) >= 0x7bff) continue; // the largest finite value and infinity have no next pattern up
    const next = float16Value(h + 1);
    const mid = (v + next) / 2; // exact in float64
    const even = (h & 1) === 0 ? h : h + 1;
    assert.equal(float16Bits(mid), even, `midpoint above ${h.toString(16)}`);
    assert.equal(float16Bits(mid + (next - v) * 2 ** -20), h + 1, `just past the midpoint above ${h.toString(16)}`);
    assert.equal(float16Bits(mid - (next - v) * 2 ** -20), h, `just short of the midpoint above ${h.toString(16)}`);
  }
  assert.equal(float16Bits(65519.99), 0x7bff);
  assert.equal(float16Bits(65520), 0x7c00);
  assert.equal(float16Bits(-1e9), 0xfc00);
  assert.equal(float16Bits(2 ** -26), 0, 'half the smallest subnormal: a tie, to even (zero)');
});

const LAYOUT = { rows: 4096, pairs: 32, pairing: 'half', span: 32, axes: null, dtype: 'float32', width: 64, nopeHeadDim: 0, headDim: 64 };

test('ropeWgsl: the bindings, the lanes of each pairing and the M-RoPE axis of each pair', () => {
  const w = ropeWgsl(LAYOUT, { group: 1, binding: 4 });
  assert.deepEqual(w.bindings, { cos: { group: 1, binding: 4 }, sin: { group: 1, binding: 5 } });
  assert.equal(w.enableF16, false);
  assert.match(w.code, /@group\(1\) @binding\(4\) var<storage, read> posenc_rope_cos: array<f32>;/);
  assert.match(w.code, /return vec2<u32>\(pair, pair \+ 32u\);/);
  assert.match(ropeWgsl({ ...LAYOUT, pairing: 'interleaved' }).code, /vec2<u32>\(2u \* pair, 2u \* pair \+ 1u\)/);
  assert.match(ropeWgsl({ ...LAYOUT, pairs: 4, span: 16 }).code, /pair \+ 16u/, 'proportional: lanes i and i + headDim/2');
  const sections = ropeWgsl({ ...LAYOUT, axes: { kind: 'sections', section: [8, 12, 12] } }).code;
  assert.match(sections, /if \(pair < 8u\) \{ return 0u; \}\n {2}if \(pair < 20u\) \{ return 1u; \}\n {2}return 2u;/);
  const inter = ropeWgsl({ ...LAYOUT, axes: { kind: 'interleaved', section: [16, 8, 8] } }).code;
  assert.match(inter, /pair % 3u == 1u && pair < 24u/);
  const f16 = ropeWgsl({ ...LAYOUT, dtype: 'float16' }, { prefix: 'a_' });
  assert.equal(f16.enableF16, true);
  assert.match(f16.code, /var<storage, read> a_rope_sin: array<f16>;/);
  assert.equal(f16.functions.rotate, 'a_rope_rotate');
});

test('ropeWgsl refuses a layout it cannot emit, naming the field', () => {
  const cases = [
    [{ ...LAYOUT, pairing: 'neox' }, 'INVALID_ARGUMENT', /layout.pairing/],
    [{ ...LAYOUT, span: 8 }, 'INVALID_ARGUMENT', /span 8 is less than/],
    [{ ...LAYOUT, axes: { kind: 'sections', section: [8, 8] } }, 'SHAPE_MISMATCH', /sum to the table's 32 pairs/],
    [{ ...LAYOUT, rows: 0 }, 'INVALID_ARGUMENT', /layout.rows/],
    [{ ...LAYOUT, extra: 1 }, 'UNKNOWN_OPTION', /extra/],
  ];
  for (const [layout, code, message] of cases) {
    assert.throws(() => ropeWgsl(layout), (e) => e instanceof PosEncError && e.code === code && message.test(e.message), JSON.stringify(layout));
  }
  assert.throws(() => ropeWgsl(LAYOUT, { prefix: '1x' }), (e) => e.code === 'INVALID_ARGUMENT' && /prefix/.test(e.message));
});

test('no WebGPU: requestPosEncGpu is UNSUPPORTED saying why; createPosEncGpu refuses what is not a device', async () => {
  await assert.rejects(requestPosEncGpu(pe), (e) => e instanceof PosEncError && e.code === 'UNSUPPORTED' && /navigator\.gpu is undefined \(not a browser/.test(e.message));
  await assert.rejects(requestPosEncGpu(pe, { gpu: { requestAdapter: async () => null } }), (e) => e.code === 'UNSUPPORTED' && /no adapter/.test(e.message));
  await assert.rejects(requestPosEncGpu(pe, { gpu: { requestAdapter: async () => { throw new Error('blocked'); } } }), (e) => e.code === 'UNSUPPORTED' && /blocked/.test(e.message));
  await assert.rejects(requestPosEncGpu({}), (e) => e.code === 'INVALID_TYPE' && /createPosEnc/.test(e.message));
  await assert.rejects(requestPosEncGpu(pe, { float16: 'yes' }), (e) => e.code === 'INVALID_TYPE');
  assert.throws(() => createPosEncGpu(pe, {}), (e) => e.code === 'INVALID_TYPE' && /GPUDevice/.test(e.message));
  assert.throws(() => createPosEncGpu(pe, null), (e) => e.code === 'INVALID_TYPE');
});
