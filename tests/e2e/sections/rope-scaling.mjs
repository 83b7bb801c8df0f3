// e2e: RoPE scaling and "paste a model's config.json". Each scaling type's readouts are compared with
// pe.rope.frequencies / pe.rope.apply in Node for the same spec and seqLen; the example configs
// with pe.rope.fromConfig; a bad config must show INVALID_CONFIG naming the field.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { randomVector } from '../../../web/js/toy.js';
import { EXAMPLE_CONFIGS, formatConfig } from '../../../web/js/sections/rope/examples.js';
import { SCALING_DEFAULTS, sampleLists } from '../../../web/js/sections/rope/scaling.js';
import { bandRuns } from '../../../web/js/sections/rope/stretch.js';
import { fixed, int, num, plain, signed } from '../../../web/js/ui/format.js';
import { canvasStats, choose, fill, heatmapCursor, numberField, parseNumber, plotKeys, press, readout, select, settled } from '../page-helpers.mjs';
import { ropeParts } from './rope.mjs';

/** The spec the page builds for a type at its default parameters. */
function pageSpec(type, headDim = 64) {
  const given = Object.entries(SCALING_DEFAULTS[type]).filter(([, v]) => v !== ''); // an empty field is an option left out
  const scaling = type === 'default' ? undefined : { type, ...Object.fromEntries(given) };
  if (type === 'longrope') Object.assign(scaling, sampleLists(headDim / 2, 131072 / 4096));
  return { headDim, rotaryDim: headDim, base: 10000, pairing: 'half', ...(scaling ? { scaling } : {}) };
}

/** Picks pair i in the stretch plot with the keyboard (and moves the mouse off the plots, whose hover also picks). */
async function stretchPair(page, i) {
  await page.mouse.move(1, 1);
  await plotKeys(ropeParts(page).stretch, ['Home', ...Array(i).fill('ArrowRight')]);
}

async function reset(page) {
  const p = ropeParts(page);
  await select(p.s, 'scaling type', 'default');
  await fill(p.headDim, 64);
  await fill(p.rotaryDim, 64);
  await fill(p.base, 10000);
  await fill(p.context, 4096);
  await choose(p.s, 'half (NeoX, HF Llama)');
  assert.equal(await p.s.getByRole('alert').count(), 0);
}

export function ropeScalingTests(ctx) {
  describe('rope scaling and config.json', () => {
    test('each scaling type: frequencies, attention factor and diagnostics are pe.rope.frequencies’', async () => {
      const { pe, page } = ctx;
      await reset(page);
      const { s, stretch, wave, context } = ropeParts(page);
      await stretchPair(page, 8);
      let hashes = new Set([(await canvasStats(stretch)).hash]);
      const plain = pe.rope.frequencies({ rotaryDim: 64 }).invFreq;
      for (const type of ['linear', 'ntk', 'dynamic', 'yarn', 'llama3', 'longrope']) {
        await select(s, 'scaling type', type); // the mouse is off the plots: pair 8 stays chosen
        const f = pe.rope.frequencies(pageSpec(type), { seqLen: 4096 });
        assert.equal(await page.locator('#rope').getAttribute('data-scaling'), type);
        assert.equal(await readout(stretch, 'type'), type);
        assert.equal(await readout(stretch, 'pair'), '8');
        assert.equal(await readout(stretch, 'theta'), num(f.invFreq[8], 6), type);
        assert.equal(await readout(stretch, 'attention-factor'), fixed(f.attentionFactor, 6), type);
        assert.equal(await readout(stretch, 'factor'), num(f.factor, 6), type);
        assert.equal(await readout(stretch, 'ratio'), num(plain[8] / f.invFreq[8], 6), type);
        const wavePair = Number(await readout(wave, 'pair'));
        assert.equal(await readout(wave, 'theta'), num(f.invFreq[wavePair], 6), type);
        assert.equal(await readout(wave, 'wavelength-unscaled'), num((2 * Math.PI) / plain[wavePair], 6), type);
        if (type === 'ntk' || type === 'dynamic') assert.equal(await readout(stretch, 'effective-base'), num(f.effectiveBase, 6), type);
        if (type === 'dynamic') assert.equal(await readout(stretch, 'seqlen'), int(4096));
        if (type === 'yarn') {
          assert.equal(await readout(stretch, 'low'), num(f.yarn.low, 6));
          assert.equal(await readout(stretch, 'high'), num(f.yarn.high, 6));
          assert.equal(await readout(stretch, 'ramp'), fixed(f.yarn.ramp[8], 4));
        }
        if (type === 'llama3') {
          assert.equal(await readout(stretch, 'bands'), bandRuns(f.llama3.band));
          assert.equal(await readout(stretch, 'band'), f.llama3.band[8]);
        }
        if (type === 'longrope') {
          assert.equal(await readout(stretch, 'list'), 'short');
          assert.equal(await readout(stretch, 'ext'), num(f.longrope.factors[8], 6));
        }
        const h = (await canvasStats(stretch)).hash;
        assert.ok(!hashes.has(h), `${type} did not change the stretch plot`);
        hashes.add(h);
        assert.equal(await stretch.locator('canvas').getAttribute('data-label-overlaps'), '0', `${type}: reference labels off the lines`);
      }
      // the context length is the seqLen: LongRoPE switches lists past the trained length
      const before = await canvasStats(wave);
      await fill(context, 4097);
      assert.equal(await readout(stretch, 'list'), 'long');
      const long = pe.rope.frequencies(pageSpec('longrope'), { seqLen: 4097 });
      assert.equal(await readout(stretch, 'theta'), num(long.invFreq[8], 6));
      assert.notEqual((await canvasStats(wave)).hash, before.hash);
      // parameters: each changes the picture
      await select(s, 'scaling type', 'yarn');
      hashes = new Set([(await canvasStats(stretch)).hash]);
      for (const [label, value] of [['factor', 16], ['trained length', 2048], ['betaFast', 16], ['betaSlow', 2]]) {
        await fill(numberField(s, label), value);
        const h = (await canvasStats(stretch)).hash;
        assert.ok(!hashes.has(h), `${label} did not change the stretch plot`);
        hashes.add(h);
      }
      const yarn = pe.rope.frequencies({ rotaryDim: 64, scaling: { type: 'yarn', factor: 16, originalMaxPositionEmbeddings: 2048, betaFast: 16, betaSlow: 2 } }, { seqLen: 4097 });
      assert.equal(await readout(stretch, 'low'), num(yarn.yarn.low, 6));
      assert.equal(await readout(stretch, 'attention-factor'), fixed(yarn.attentionFactor, 6));
      await select(s, 'scaling type', 'linear');
      await select(s, 'scaling type', 'yarn');
      assert.equal(await numberField(s, 'factor').inputValue(), '16', 'each type keeps its values');
      await fill(numberField(s, 'factor'), -1);
      assert.equal(await s.getByRole('alert').textContent(), 'rope.frequencies: scaling.factor must be a finite number > 0, got -1');
      await select(s, 'scaling type', 'longrope');
      await fill(s.getByRole('textbox', { name: /^shortFactor/ }), '1, 1, 1');
      assert.equal(await s.getByRole('alert').textContent(), 'rope.frequencies: scaling.shortFactor must have rotaryDim/2 = 32 entries, got 3');
      await reset(page);
    });

    test('the turning pair and q·k use the scaled spec (YaRN: angles and the attention factor)', async () => {
      const { pe, page } = ctx;
      await reset(page);
      const { s, turning, pair, position, scores } = ropeParts(page);
      await select(s, 'scaling type', 'yarn');
      await fill(numberField(s, 'factor'), 4);
      await fill(numberField(s, 'trained length'), 4096);
      await fill(numberField(s, 'betaFast'), 32);
      await fill(numberField(s, 'betaSlow'), 1);
      await fill(pair, 20);
      await fill(position, 3000);
      const spec = pageSpec('yarn');
      const x = new Float32Array(64);
      for (let i = 0; i < 32; i++) x[i] = 1;
      pe.rope.apply(x, null, { ...spec, dims: [1, 64], positionIds: [3000], seqLen: 4096 });
      const f = pe.rope.frequencies(spec, { seqLen: 4096 });
      assert.equal(await readout(turning, 'x'), signed(x[20]));
      assert.equal(await readout(turning, 'y'), signed(x[52]));
      assert.equal(await readout(turning, 'theta'), num(f.invFreq[20], 6));
      assert.equal(await readout(turning, 'length'), fixed(Math.hypot(x[20], x[52]), 6));
      assert.ok(Math.abs(Math.hypot(x[20], x[52]) - f.attentionFactor) < 1e-6, 'the vector is as long as the attention factor');
      assert.equal(await turning.locator('canvas').getAttribute('data-label-overlaps'), '0');
      await fill(numberField(scores, 'positions'), 24);
      await heatmapCursor(scores, 10, 4);
      const rotate = (v, m) => {
        const r = v.slice();
        pe.rope.apply(r, null, { ...spec, dims: [1, 64], positionIds: [m], seqLen: 4096 });
        return r;
      };
      const seed = Number(await scores.getAttribute('data-seed'));
      const q = rotate(randomVector(64, 2 * seed), 10);
      const k = rotate(randomVector(64, 2 * seed + 1), 4);
      let score = 0;
      for (let l = 0; l < 64; l++) score += q[l] * k[l];
      assert.equal(await readout(scores, 'score'), signed(score));
      assert.ok(parseNumber(await readout(scores, 'spread')) < 1e-4, 'diagonals stay constant');
      await fill(position, 3);
      await fill(pair, 2);
      await fill(numberField(scores, 'positions'), 64);
      await reset(page);
    });

    test('example config.json files: the spec pe.rope.fromConfig derives drives the settings and plots', async () => {
      const { pe, page } = ctx;
      const p = ropeParts(page);
      for (const [name, label, expected] of [
        ['llama31', 'Llama 3.1 8B', { headDim: 128, rotaryDim: 128, base: 500000, type: 'llama3', context: 131072 }],
        ['phi35', 'Phi-3.5-mini style', { headDim: 96, rotaryDim: 96, base: 10000, type: 'longrope', context: 131072 }],
        ['yarn', 'Qwen2.5 + YaRN', { headDim: 128, rotaryDim: 128, base: 1000000, type: 'yarn', context: 131072 }],
        ['neox', 'GPT-NeoX-20B', { headDim: 96, rotaryDim: 24, base: 10000, type: 'default', context: 2048 }],
      ]) {
        const before = await canvasStats(p.wave);
        await press(p.config, label);
        const spec = pe.rope.fromConfig(EXAMPLE_CONFIGS[name]);
        assert.deepEqual(JSON.parse(await p.config.getByRole('textbox', { name: 'config.json' }).inputValue()), EXAMPLE_CONFIGS[name], `${name}: the text box holds the config`);
        const out = p.config.locator('output');
        assert.equal(await out.getAttribute('data-state'), 'ok');
        for (const [key, shown] of [['headDim', int], ['rotaryDim', int], ['base', plain], ['pairing', String]]) assert.equal(await readout(out, key), shown(spec[key]), `${name} ${key}`);
        assert.equal(spec.headDim, expected.headDim);
        assert.equal(await p.headDim.inputValue(), String(expected.headDim));
        assert.equal(await p.rotaryDim.inputValue(), String(expected.rotaryDim));
        assert.equal(await p.base.inputValue(), String(expected.base));
        assert.equal(await p.s.getByRole('combobox', { name: 'scaling type' }).inputValue(), expected.type);
        assert.equal(await p.context.inputValue(), String(expected.context));
        assert.notEqual((await canvasStats(p.wave)).hash, before.hash, `${name} redraws the wavelengths`);
        const f = pe.rope.frequencies(spec, { seqLen: expected.context });
        await stretchPair(page, 8);
        assert.equal(await readout(p.stretch, 'theta'), num(f.invFreq[8], 6), name);
        assert.equal(await readout(p.stretch, 'attention-factor'), fixed(f.attentionFactor, 6), name);
        if (name === 'llama31') assert.equal(await readout(p.stretch, 'bands'), 'unchanged pairs 0–28, blended pairs 29–34, divided pairs 35–63');
        if (name === 'phi35') {
          assert.equal(await readout(p.stretch, 'list'), 'long');
          assert.equal(await readout(p.stretch, 'ext'), num(EXAMPLE_CONFIGS.phi35.rope_scaling.long_factor[8], 6));
          // the config's factor has a field: away to another type and back, the scaling still holds
          await select(p.s, 'scaling type', 'linear');
          await select(p.s, 'scaling type', 'longrope');
          assert.equal(await numberField(p.s, 'factor').inputValue(), '32');
          assert.equal(await p.s.getByRole('alert').count(), 0);
        }
        if (name === 'neox') {
          assert.equal(await p.pair.getAttribute('max'), '11', 'pairs of the rotary part only');
          await fill(p.pair, 2);
          assert.ok((await p.turning.locator('output').textContent()).includes('lanes (2, 14)'));
        }
      }
    });

    test('a bad config.json shows INVALID_CONFIG naming the field and keeps the last good settings', async () => {
      const { page } = ctx;
      const p = ropeParts(page);
      await press(p.config, 'Llama 3.1 8B');
      const phi = structuredClone(EXAMPLE_CONFIGS.phi35);
      phi.rope_scaling.long_factor.pop();
      const box = p.config.getByRole('textbox', { name: 'config.json' });
      const out = p.config.locator('output');
      for (const [text, message] of [
        ['{ "hidden_size": 4096, ', /^INVALID_CONFIG: rope\.fromConfig: the config is not valid JSON/],
        ['{ "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_scaling": { "rope_type": "llama3", "factor": 8 } }',
          "INVALID_CONFIG: rope.fromConfig: rope_scaling.low_freq_factor is required for rope type 'llama3' (rope_scaling.rope_type)"],
        ['{ "model_type": "bloom", "n_head": 8, "n_layer": 2, "hidden_size": 64 }', "INVALID_CONFIG: rope.fromConfig: model_type 'bloom' does not use RoPE (it uses ALiBi)"],
        [formatConfig(phi), 'INVALID_CONFIG: rope.fromConfig: rope_scaling.long_factor must have rotary_dim/2 = 48 entries, got 47'],
      ]) {
        await box.fill(text);
        await press(p.config, 'Use this config');
        assert.equal(await out.getAttribute('data-state'), 'error');
        const shown = await readout(out, 'error');
        if (typeof message === 'string') assert.equal(shown, message);
        else assert.match(shown, message);
        assert.equal(await p.headDim.inputValue(), '128', 'the settings keep the last good config');
        assert.equal(await p.s.getByRole('combobox', { name: 'scaling type' }).inputValue(), 'llama3');
      }
      // Ctrl+Enter reads the text too
      await box.fill(JSON.stringify(EXAMPLE_CONFIGS.neox));
      await box.focus();
      await page.keyboard.press('Control+Enter');
      await settled(page);
      assert.equal(await readout(out, 'rotaryDim'), '24');
      await reset(page);
    });
  });
}
