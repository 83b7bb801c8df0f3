// RoPE, the plan of a whole model: pe.model.fromConfig reads a config.json (pasted, or one of the
// examples in web/models/, published configs fetched from the page's own server) and says for
// every layer what it does with positions (RoPE with which base and scaling, ALiBi, nothing) and
// which keys it sees (a sliding window, chunks). Drawn as a strip of layers, with
// pe.model.summarize's lines and the frequencies of each kind of layer (pe.model.frequencies).
import { seriesColour } from '../../plot/colormap.js';
import { LayerStrip } from '../../plot/layer-strip.js';
import { LinePlot } from '../../plot/lineplot.js';
import { button, textarea } from '../../ui/control-specs.js';
import { int, plain } from '../../ui/format.js';
import { setReadout, valueSpan } from '../../ui/readout.js';
import { formatConfig } from './examples.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {ReturnType<import('posenc').PosEnc['model']['fromConfig']>} ModelPlan */
/** @typedef {ModelPlan['layers'][number]} LayerPlan */

/** The example configs (files in web/models/) and their buttons. */
export const PLAN_EXAMPLES = {
  planGemma3: { file: 'gemma-3-1b-it.json', label: 'Gemma 3 1B' },
  planSmollm3: { file: 'smollm3-3b.json', label: 'SmolLM3 3B' },
  planLlama31: { file: 'llama-3.1-8b.json', label: 'Llama 3.1 8B' },
  planPhi35: { file: 'phi-3.5-mini-instruct.json', label: 'Phi-3.5 mini' },
  planMinistral3: { file: 'ministral-3-3b-reasoning-2512.json', label: 'Ministral 3 3B' },
  planGpt2: { file: 'gpt2.json', label: 'GPT-2' },
};
const EXAMPLES = /** @type {Record<keyof typeof PLAN_EXAMPLES, import('../../ui/control-specs.js').ButtonSpec>} */ (
  Object.fromEntries(Object.entries(PLAN_EXAMPLES).map(([k, v]) => [k, button({ label: v.label })])));
const CONFIG = {
  planConfig: textarea({ label: 'config.json of a model, for its plan', rows: 8, value: '', placeholder: '{ "model_type": "gemma3_text", "num_hidden_layers": 26, "rope_theta": 1000000, "rope_local_base_freq": 10000, … }' }),
};
const READ = { planRead: button({ label: 'Read the plan', primary: true }) };

/** What a layer does with positions, in words. @param {LayerPlan} layer @param {ModelPlan} plan */
export function positionKind(layer, plan) {
  if (layer.rope) {
    const { spec, form } = layer.rope;
    let text = `RoPE base ${plain(spec.base)}`;
    if (spec.rotaryDim !== spec.headDim) text += `, ${int(spec.rotaryDim)} of ${int(spec.headDim)} lanes`;
    if (spec.scaling) text += `, ${spec.scaling.type}${'factor' in spec.scaling && spec.scaling.factor ? ` ×${plain(spec.scaling.factor)}` : ''}`;
    if (form.kind !== 'standard') text += `, ${form.kind === 'mrope' ? 'M-RoPE' : form.kind}`;
    return text;
  }
  if (layer.alibi) return `ALiBi, ${int(layer.alibi.numHeads)} heads`;
  return plan.absolute ? 'no RoPE (a table at the input)' : 'no position encoding';
}

/** Which keys a layer attends to, in words. @param {LayerPlan} layer */
export function attentionKind(layer) {
  if (layer.window?.kind === 'sliding') return `sliding window ${int(layer.window.size)}`;
  if (layer.window?.kind === 'chunked') return `chunks of ${int(layer.window.size)}`;
  if (layer.attention === 'linear_attention') return 'linear attention';
  return 'full attention';
}

/** Groups the layers by a description: the distinct descriptions in order, and each layer's index. @param {string[]} descriptions */
function categories(descriptions) {
  /** @type {string[]} */
  const names = [];
  const values = descriptions.map((d) => {
    let k = names.indexOf(d);
    if (k < 0) k = names.push(d) - 1;
    return k;
  });
  return { names, values };
}

/** @param {Section} section */
export function planPart(section) {
  const { pe } = section;
  const examples = section.panel('plan-examples', EXAMPLES);
  const text = section.panel('plan-config', CONFIG);
  const action = section.panel('plan-read', READ);
  const figure = section.figure('plan');
  const summary = section.part('plan-summary');
  /** @type {ModelPlan | null} */
  let plan = null;
  const strip = new LayerStrip(figure.plot('layers'), { label: 'The layers of the model: what each does with positions, and which keys it sees', xLabel: 'layer', onCursor: (c) => readLayer(c) });
  const freqs = new LinePlot(figure.plot('frequencies'), {
    label: 'Rotation frequency of every pair, for each kind of RoPE layer', xLabel: 'pair i', yLabel: 'θ_i (rad/token, log)', yScale: 'log', emptyText: 'no RoPE layer',
  });

  /** @param {number} k */
  function readLayer(k) {
    if (!plan) return;
    const layer = /** @type {LayerPlan} */ (plan.layers[k]);
    const scale = layer.queryScaling ? `; queries × (1 + ${plain(layer.queryScaling.scale)}·ln(1 + ⌊(p + ${layer.queryScaling.positionOffset})/${int(layer.queryScaling.floorScale)}⌋))` : '';
    setReadout(figure.readout(),
      ['layer ', valueSpan('layer', int(k)), ': ', valueSpan('positions', positionKind(layer, plan)), ` (${layer.rope?.spec.pairing ?? '—'} pairing)`],
      ['attends to ', valueSpan('attention', attentionKind(layer)), scale]);
  }

  /** @param {string} message */
  function fail(message) {
    const out = figure.readout();
    out.dataset.state = 'error';
    setReadout(out, valueSpan('error', message));
    figure.stale(true, out); // the plot and the summary stay those of the last plan read, dimmed
  }

  function read() {
    const source = text.get('planConfig');
    try {
      plan = pe.model.fromConfig(source);
    } catch (error) {
      const e = /** @type {{ code?: string, message?: string }} */ (error);
      if (!(error instanceof pe.PosEncError)) console.error(error);
      fail(e.code ? `${e.code}: ${e.message}` : String(e.message ?? error));
      return;
    }
    figure.stale(false);
    figure.readout().dataset.state = 'ok';
    const p = plan;
    const pos = categories(p.layers.map((l) => positionKind(l, p)));
    const att = categories(p.layers.map((l) => attentionKind(l)));
    let ropeColour = 0;
    const posColours = pos.names.map((name) => (name.startsWith('RoPE') ? seriesColour(ropeColour++) : name.startsWith('ALiBi') ? '#8a5cc2' : '#c4c8d2'));
    const attColours = att.names.map((name, k) => (name === 'full attention' ? '#e3e6ee' : ['#f0c36d', '#7ccba2', '#b08ad6'][k % 3] ?? '#f0c36d'));
    strip.setRows([
      { name: 'positions', categories: pos.names, colors: posColours, values: pos.values },
      { name: 'attention', categories: att.names, colors: attColours, values: att.values },
    ], p.numLayers);
    strip.setCursor(Math.min(strip.cursor ?? 0, p.numLayers - 1));
    readLayer(strip.cursor ?? 0);
    // one frequency curve per kind of RoPE layer (its first layer)
    const series = [];
    for (const [k, name] of pos.names.entries()) {
      if (!name.startsWith('RoPE')) continue;
      const first = pos.values.indexOf(k);
      const f = pe.model.frequencies(p, first, p.maxPositionEmbeddings ? { seqLen: p.maxPositionEmbeddings } : {});
      if (!f) continue;
      series.push({ name, color: /** @type {string} */ (posColours[k]), x: Float64Array.from(f.invFreq, (_, i) => i), y: f.invFreq, style: /** @type {const} */ ('line') });
    }
    if (series.length) freqs.setSeries(series);
    else freqs.clear('no layer of this model uses RoPE');
    summary.replaceChildren(pe.model.summarize(p).join('\n'));
    section.root.dataset.plan = p.modelType;
    section.calls('plan', [
      `const plan = pe.model.fromConfig(config);   // ${p.modelType}: ${int(p.numLayers)} layers, ${int(pos.names.length)} kind(s) of position handling`,
      'pe.model.summarize(plan);   // the lines shown below the figure',
      ...(series.length ? [`pe.model.frequencies(plan, layer${p.maxPositionEmbeddings ? `, { seqLen: ${p.maxPositionEmbeddings} }` : ''});   // θ_i of a layer`] : []),
    ]);
  }

  /** Loads an example config from web/models/ into the text box and reads it. @param {keyof typeof PLAN_EXAMPLES} name */
  async function load(name) {
    const url = new URL(`../../../models/${PLAN_EXAMPLES[name].file}`, import.meta.url);
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url.pathname}: HTTP ${response.status}`);
    text.set('planConfig', formatConfig(await response.json()));
    read();
  }

  for (const name of /** @type {Array<keyof typeof PLAN_EXAMPLES>} */ (Object.keys(PLAN_EXAMPLES))) {
    examples.on(name, () => section.whileBusy(load(name)));
  }
  action.on('planRead', read);
  text.element('planConfig').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      read();
    }
  });
  // a model on first load, so the figure is never empty
  section.whileBusy(load('planGemma3'));
}
