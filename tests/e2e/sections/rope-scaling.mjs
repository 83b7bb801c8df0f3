// e2e: RoPE scaling and config.json. Every scaling type's readouts are compared with
// pe.rope.frequencies / pe.rope.apply in Node for the same spec and seqLen; the example configs
// with pe.rope.fromConfig; a bad config must show INVALID_CONFIG naming the field.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { randomVector } from '../../../web/js/lib/toy.js';
import { EXAMPLE_CONFIGS, formatConfig } from '../../../web/js/sections/rope-examples.js';
import { SCALING_DEFAULTS, sampleLists } from '../../../web/js/sections/rope-scaling-controls.js';
import { ARTIFACTS } from '../harness.mjs';
import { canvasStats, choose, field, frames, heatmapCursor, select, setValue, sig, signed } from '../page-helpers.mjs';

/** The spec the page builds for a type at its default parameters. */
function pageSpec(type, headDim = 64) {
  const scaling = type === 'default' ? undefined : { type, ...SCALING_DEFAULTS[type] };
  if (type === 'longrope') Object.assign(scaling, sampleLists(headDim / 2, 131072 / 4096));
  return { headDim, rotaryDim: headDim, base: 10000, pairing: 'half', ...(scaling ? { scaling } : {}) };
}

/** 'unchanged pairs 0–28, blended pairs 29–34, divided pairs 35–63' from the bands. */
function bandText(bands) {
  const runs = [];
  bands.forEach((b, i) => {
    if (runs.length && runs[runs.length - 1].b === b) runs[runs.length - 1].to = i;
    else runs.push({ b, from: i, to: i });
  });
  return runs.map((r) => `${r.b} ${r.from === r.to ? `pair ${r.from}` : `pairs ${r.from}–${r.to}`}`).join(', ');
}

async function useExample(page, name) {
  await page.click(`#rope-config-${name}`);
  await frames(page, 3);
}

/** Picks pair i in the stretch plot with the keyboard (and moves the mouse off the plots, whose hover also picks). */
async function stretchPair(page, i) {
  await page.mouse.move(1, 1);
  await page.focus('#rope-stretch canvas');
  await page.keyboard.press('Home');
  for (let k = 0; k < i; k++) await page.keyboard.press('ArrowRight');
  await frames(page, 2);
}

async function reset(page) {
  await select(page, 'rope-scaling', 'default');
  await setValue(page, 'rope-headdim', 64);
  await setValue(page, 'rope-rotarydim', 64);
  await setValue(page, 'rope-base', 10000);
  await setValue(page, 'rope-context', 4096);
  await choose(page, 'rope-pairing', 'half');
  assert.equal(await page.isVisible('#rope-status'), false);
}

export function ropeScalingTests(ctx) {
  describe('rope scaling and config.json', () => {
    test('each scaling type: frequencies, attention factor and diagnostics are pe.rope.frequencies’', async () => {
      const { page, pe } = ctx;
      await reset(page);
      await stretchPair(page, 8);
      let hashes = new Set([(await canvasStats(page, '#rope-stretch')).hash]);
      for (const type of ['linear', 'ntk', 'dynamic', 'yarn', 'llama3', 'longrope']) {
        await select(page, 'rope-scaling', type); // the mouse is off the plots: pair 8 stays chosen
        const spec = pageSpec(type);
        const f = pe.rope.frequencies(spec, { seqLen: 4096 });
        assert.equal(await page.getAttribute('#rope', 'data-scaling'), type);
        assert.equal(await field(page, 'rope-stretch-readout', 'type'), type);
        assert.equal(await field(page, 'rope-stretch-readout', 'pair'), '8');
        assert.equal(await field(page, 'rope-stretch-readout', 'theta'), sig(f.invFreq[8], 6), type);
        assert.equal(await field(page, 'rope-stretch-readout', 'attention-factor'), f.attentionFactor.toFixed(6), type);
        assert.equal(await field(page, 'rope-stretch-readout', 'factor'), sig(f.factor, 6), type);
        const plain = pe.rope.frequencies({ rotaryDim: 64 }).invFreq;
        assert.equal(await field(page, 'rope-stretch-readout', 'ratio'), sig(plain[8] / f.invFreq[8], 6), type);
        const wavePair = Number(await field(page, 'rope-wave-readout', 'pair'));
        assert.equal(await field(page, 'rope-wave-readout', 'theta'), sig(f.invFreq[wavePair], 6), type);
        assert.equal(await field(page, 'rope-wave-readout', 'wavelength-unscaled'), sig((2 * Math.PI) / plain[wavePair], 6), type);
        if (type === 'ntk' || type === 'dynamic') assert.equal(await field(page, 'rope-stretch-readout', 'effective-base'), sig(f.effectiveBase, 6), type);
        if (type === 'dynamic') assert.equal(await field(page, 'rope-stretch-readout', 'seqlen'), '4\u2009096');
        if (type === 'yarn') {
          assert.equal(await field(page, 'rope-stretch-readout', 'low'), sig(f.yarn.low, 6));
          assert.equal(await field(page, 'rope-stretch-readout', 'high'), sig(f.yarn.high, 6));
          assert.equal(await field(page, 'rope-stretch-readout', 'ramp'), f.yarn.ramp[8].toFixed(4));
        }
        if (type === 'llama3') {
          assert.equal(await field(page, 'rope-stretch-readout', 'bands'), bandText(f.llama3.band));
          assert.equal(await field(page, 'rope-stretch-readout', 'band'), f.llama3.band[8]);
        }
        if (type === 'longrope') {
          assert.equal(await field(page, 'rope-stretch-readout', 'list'), 'short');
          assert.equal(await field(page, 'rope-stretch-readout', 'ext'), sig(f.longrope.factors[8], 6));
        }
        const h = (await canvasStats(page, '#rope-stretch')).hash;
        assert.ok(!hashes.has(h), `${type} did not change the stretch plot`);
        hashes.add(h);
      }
      // the context length is the seqLen: LongRoPE switches lists past the trained length
      const wave = await canvasStats(page, '#rope-wave');
      await setValue(page, 'rope-context', 4097);
      assert.equal(await field(page, 'rope-stretch-readout', 'list'), 'long');
      const long = pe.rope.frequencies(pageSpec('longrope'), { seqLen: 4097 });
      assert.equal(await field(page, 'rope-stretch-readout', 'theta'), sig(long.invFreq[8], 6));
      assert.notEqual((await canvasStats(page, '#rope-wave')).hash, wave.hash);
      await page.locator('#rope').screenshot({ path: `${ARTIFACTS}desktop-rope-longrope.png` });
      // parameters: each changes the picture
      await select(page, 'rope-scaling', 'yarn');
      hashes = new Set([(await canvasStats(page, '#rope-stretch')).hash]);
      for (const [id, value] of [['rope-factor', 16], ['rope-orig', 2048], ['rope-beta-fast', 16], ['rope-beta-slow', 2]]) {
        await setValue(page, id, value);
        const h = (await canvasStats(page, '#rope-stretch')).hash;
        assert.ok(!hashes.has(h), `${id} did not change the stretch plot`);
        hashes.add(h);
      }
      const yarn = pe.rope.frequencies({ rotaryDim: 64, scaling: { type: 'yarn', factor: 16, originalMaxPositionEmbeddings: 2048, betaFast: 16, betaSlow: 2 } }, { seqLen: 4097 });
      assert.equal(await field(page, 'rope-stretch-readout', 'low'), sig(yarn.yarn.low, 6));
      assert.equal(await field(page, 'rope-stretch-readout', 'attention-factor'), yarn.attentionFactor.toFixed(6));
      await select(page, 'rope-scaling', 'linear');
      await select(page, 'rope-scaling', 'yarn');
      assert.equal(await page.inputValue('#rope-factor'), '16', 'each type keeps its values');
      await setValue(page, 'rope-factor', -1);
      assert.equal(await page.textContent('#rope-status'), 'rope.frequencies: scaling.factor must be a finite number > 0, got -1');
      await select(page, 'rope-scaling', 'longrope');
      await setValue(page, 'rope-short', '1, 1, 1');
      assert.equal(await page.textContent('#rope-status'), 'rope.frequencies: scaling.shortFactor must have rotaryDim/2 = 32 entries, got 3');
      await reset(page);
    });

    test('the turning pair and q·k use the scaled spec (YaRN: angles and the attention factor)', async () => {
      const { page, pe } = ctx;
      await reset(page);
      await select(page, 'rope-scaling', 'yarn');
      await setValue(page, 'rope-factor', 4);
      await setValue(page, 'rope-orig', 4096);
      await setValue(page, 'rope-beta-fast', 32);
      await setValue(page, 'rope-beta-slow', 1);
      await setValue(page, 'rope-pair', 20);
      await setValue(page, 'rope-pos', 3000);
      const spec = pageSpec('yarn');
      const x = new Float32Array(64);
      for (let i = 0; i < 32; i++) x[i] = 1;
      pe.rope.apply(x, null, { ...spec, dims: [1, 64], positionIds: [3000], seqLen: 4096 });
      const f = pe.rope.frequencies(spec, { seqLen: 4096 });
      assert.equal(await field(page, 'rope-circle-readout', 'x'), signed(x[20]));
      assert.equal(await field(page, 'rope-circle-readout', 'y'), signed(x[52]));
      assert.equal(await field(page, 'rope-circle-readout', 'theta'), sig(f.invFreq[20], 6));
      assert.equal(await field(page, 'rope-circle-readout', 'length'), Math.hypot(x[20], x[52]).toFixed(6));
      assert.ok(Math.abs(Math.hypot(x[20], x[52]) - f.attentionFactor) < 1e-6, 'the vector is as long as the attention factor');
      await setValue(page, 'rope-qk-n', 24);
      await heatmapCursor(page, '#rope-qk', 10, 4);
      const rotate = (v, m) => {
        const r = v.slice();
        pe.rope.apply(r, null, { ...spec, dims: [1, 64], positionIds: [m], seqLen: 4096 });
        return r;
      };
      const seed = Number(await page.getAttribute('#rope-qk', 'data-seed'));
      const q = rotate(randomVector(64, 2 * seed), 10);
      const k = rotate(randomVector(64, 2 * seed + 1), 4);
      let score = 0;
      for (let l = 0; l < 64; l++) score += q[l] * k[l];
      assert.equal(await field(page, 'rope-qk-readout', 'score'), signed(score));
      assert.ok(Number((await field(page, 'rope-qk-readout', 'spread')).replace('−', '-')) < 1e-4, 'diagonals stay constant');
      await page.locator('#rope').screenshot({ path: `${ARTIFACTS}desktop-rope-yarn.png` });
      await setValue(page, 'rope-pos', 3);
      await setValue(page, 'rope-pair', 2);
      await setValue(page, 'rope-qk-n', 64);
      await reset(page);
    });

    test('example config.json files: the spec pe.rope.fromConfig derives drives the settings and plots', async () => {
      const { page, pe } = ctx;
      for (const [name, expected] of [
        ['llama31', { headDim: 128, rotaryDim: 128, base: 500000, pairing: 'half', type: 'llama3', context: 131072 }],
        ['phi35', { headDim: 96, rotaryDim: 96, base: 10000, pairing: 'half', type: 'longrope', context: 131072 }],
        ['yarn', { headDim: 128, rotaryDim: 128, base: 1000000, pairing: 'half', type: 'yarn', context: 131072 }],
        ['neox', { headDim: 96, rotaryDim: 24, base: 10000, pairing: 'half', type: 'default', context: 2048 }],
      ]) {
        const before = await canvasStats(page, '#rope-wave');
        await useExample(page, name);
        const spec = pe.rope.fromConfig(EXAMPLE_CONFIGS[name]);
        assert.deepEqual(JSON.parse(await page.inputValue('#rope-config')), EXAMPLE_CONFIGS[name], `${name}: the textarea holds the config`);
        assert.equal(await page.getAttribute('#rope-config-readout', 'data-state'), 'ok');
        for (const key of ['headDim', 'rotaryDim', 'base', 'pairing']) {
          assert.equal(await field(page, 'rope-config-readout', key), String(spec[key]), `${name} ${key}`);
          assert.equal(spec[key], expected[key], `${name} ${key}`);
        }
        assert.equal(await page.inputValue('#rope-headdim'), String(expected.headDim));
        assert.equal(await page.inputValue('#rope-rotarydim'), String(expected.rotaryDim));
        assert.equal(await page.inputValue('#rope-base'), String(expected.base));
        assert.equal(await page.inputValue('#rope-scaling'), expected.type);
        assert.equal(await page.inputValue('#rope-context'), String(expected.context));
        assert.notEqual((await canvasStats(page, '#rope-wave')).hash, before.hash, `${name} redraws the wavelengths`);
        const f = pe.rope.frequencies(spec, { seqLen: expected.context });
        await stretchPair(page, 8);
        assert.equal(await field(page, 'rope-stretch-readout', 'theta'), sig(f.invFreq[8], 6), name);
        assert.equal(await field(page, 'rope-stretch-readout', 'attention-factor'), f.attentionFactor.toFixed(6), name);
        if (name === 'llama31') {
          assert.equal(await field(page, 'rope-stretch-readout', 'bands'), 'unchanged pairs 0–28, blended pairs 29–34, divided pairs 35–63');
          await page.locator('#rope').screenshot({ path: `${ARTIFACTS}desktop-rope-llama31.png` });
        }
        if (name === 'phi35') {
          assert.equal(await field(page, 'rope-stretch-readout', 'list'), 'long');
          assert.equal(await field(page, 'rope-stretch-readout', 'ext'), sig(EXAMPLE_CONFIGS.phi35.rope_scaling.long_factor[8], 6));
        }
        if (name === 'neox') {
          assert.equal(await page.getAttribute('#rope-pair', 'max'), '11', 'pairs of the rotary part only');
          await setValue(page, 'rope-pair', 2);
          assert.match(await page.textContent('#rope-circle-readout'), /lanes \(2, 14\)/);
        }
      }
    });

    test('a bad config.json shows INVALID_CONFIG naming the field and keeps the last good settings', async () => {
      const { page } = ctx;
      await useExample(page, 'llama31');
      const phi = structuredClone(EXAMPLE_CONFIGS.phi35);
      phi.rope_scaling.long_factor.pop();
      for (const [text, message] of [
        ['{ "hidden_size": 4096, ', /^INVALID_CONFIG: rope\.fromConfig: the config is not valid JSON/],
        ['{ "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_scaling": { "rope_type": "llama3", "factor": 8 } }',
          "INVALID_CONFIG: rope.fromConfig: rope_scaling.low_freq_factor is required for rope type 'llama3' (rope_scaling.rope_type)"],
        ['{ "model_type": "bloom", "alibi": true }', "INVALID_CONFIG: rope.fromConfig: model_type 'bloom' does not use RoPE"],
        [formatConfig(phi), 'INVALID_CONFIG: rope.fromConfig: rope_scaling.long_factor must have rotary_dim/2 = 48 entries, got 47'],
      ]) {
        await page.fill('#rope-config', text);
        await page.click('#rope-config-use');
        await frames(page, 2);
        assert.equal(await page.getAttribute('#rope-config-readout', 'data-state'), 'error');
        const shown = await field(page, 'rope-config-readout', 'error');
        if (typeof message === 'string') assert.equal(shown, message);
        else assert.match(shown, message);
        assert.equal(await page.inputValue('#rope-headdim'), '128', 'the settings keep the last good config');
        assert.equal(await page.inputValue('#rope-scaling'), 'llama3');
      }
      await page.locator('#rope-config-fig').screenshot({ path: `${ARTIFACTS}desktop-rope-config-error.png` });
      // Ctrl+Enter reads the text too
      await page.fill('#rope-config', JSON.stringify(EXAMPLE_CONFIGS.neox));
      await page.focus('#rope-config');
      await page.keyboard.press('Control+Enter');
      await frames(page, 3);
      assert.equal(await field(page, 'rope-config-readout', 'rotaryDim'), '24');
      await reset(page);
    });
  });
}
