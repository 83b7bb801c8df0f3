// RoPE, how exact it is: pe.precision.oracle's error per position of RoPE computed the way Hugging
// Face's and ggml's pipelines compute it (float32, float16 or bfloat16) against float64, for this
// section's RoPE or a model's (a plan from one of the example configs), next to posenc's own error
// (float64 angles, rounded once). Runs in the compute worker (jobs.js precisionOracle).
import { seriesColour } from '../../plot/colormap.js';
import { LinePlot } from '../../plot/lineplot.js';
import { choice, number } from '../../ui/control-specs.js';
import { int, num } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { PageError } from '../../ui/section.js';
import { PLAN_EXAMPLES } from './plan.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./state.js').RopeState} RopeState */

/** The models offered, with the example file their plan is read from ('' = this section's settings). */
export const PRECISION_MODELS = {
  section: { file: '', label: 'the RoPE set above' },
  llama31: { file: PLAN_EXAMPLES.planLlama31.file, label: 'Llama 3.1 8B' },
  gemma3: { file: PLAN_EXAMPLES.planGemma3.file, label: 'Gemma 3 1B (first layer)' },
  phi35: { file: PLAN_EXAMPLES.planPhi35.file, label: 'Phi-3.5 mini' },
  ministral3: { file: PLAN_EXAMPLES.planMinistral3.file, label: 'Ministral 3 3B' },
};

/** The pipelines of each precision. */
export const PIPELINES_OF = {
  float32: ['hf-float32', 'ggml-float32'],
  float16: ['hf-float16', 'ggml-float16'],
  bfloat16: ['hf-bfloat16'],
};

/** Points on the curve (each the maximum over a bucket of positions). */
export const PRECISION_POINTS = 512;

const TOOLS = {
  precisionModel: choice({ label: 'model', value: 'llama31', options: Object.entries(PRECISION_MODELS).map(([k, v]) => [k, v.label]) }),
  precisionFormat: choice({ label: 'precision', as: 'radio', value: 'float32', options: [['float32', 'float32'], ['float16', 'float16'], ['bfloat16', 'bfloat16']] }),
  precisionLength: number({ label: 'positions', unit: 'context length', value: 131072, step: 1, min: 16, max: 262144 }),
};

/** @param {Section} section */
export function precisionPart(section) {
  const tools = section.panel('precision', TOOLS);
  const figure = section.figure('precision');
  /** @type {RopeState | null} */
  let rope = null;
  /** @type {Map<string, string>} */
  const configs = new Map();
  /** @type {import('../../compute/client.js').JobResult<'precisionOracle'> | null} */
  let report = null;
  const plot = new LinePlot(figure.plot(), {
    label: 'RoPE error against the float64 formula, per position, for each pipeline', xLabel: 'position',
    yLabel: 'largest error (log)', yScale: 'log', onCursor: (_, k) => read(k),
  });

  /** The config text of a model (fetched once from web/models/). @param {keyof typeof PRECISION_MODELS} model */
  async function configOf(model) {
    const file = PRECISION_MODELS[model].file;
    const known = configs.get(file);
    if (known) return known;
    const response = await fetch(new URL(`../../../models/${file}`, import.meta.url));
    if (!response.ok) throw new Error(`models/${file}: HTTP ${response.status}`);
    const text = await response.text();
    configs.set(file, text);
    return text;
  }

  /** @param {number} k */
  function read(k) {
    if (!report) return;
    const at = Math.max(0, Math.min(k, report.positions.length - 1));
    const from = report.positions[at];
    const to = Math.min(report.contextLength, from + report.bucket) - 1;
    setReadout(figure.readout(),
      [field('positions', `${int(from)}–${int(to)}`, 'positions'), '   posenc: ', valueSpan('posenc', num(report.posenc[at], 2))],
      ...report.pipelines.map((p) => [`${p.name}: `, valueSpan(p.name, num(p.rotationError[at], 2)), `   (worst ${num(p.maxRotationError, 2)} at ${int(p.maxRotationErrorPosition)})`]));
  }

  const update = section.updater({ status: section.status(tools), figures: [figure] }, async (current) => {
    if (!rope) return false;
    const problem = tools.problem();
    if (problem) throw new PageError(problem);
    const { precisionModel: model, precisionFormat: precision, precisionLength: context } = tools.values();
    if (!Number.isInteger(context)) throw new PageError(`positions must be a whole number, got ${context}`);
    const bucket = Math.max(1, Math.ceil(context / PRECISION_POINTS));
    const pipelines = PIPELINES_OF[/** @type {keyof typeof PIPELINES_OF} */ (precision)];
    const m = /** @type {keyof typeof PRECISION_MODELS} */ (model);
    const source = m === 'section' ? { spec: { ...rope.spec } } : { config: await configOf(m) };
    const result = await section.compute.run('precision', 'precisionOracle', { ...source, contextLength: context, bucket, pipelines });
    if (!result || !current()) return false;
    report = result;
    const x = Float64Array.from(result.positions);
    plot.setSeries([
      ...result.pipelines.map((p, k) => ({ name: p.name, color: seriesColour(k + 1), x, y: p.rotationError, width: 1.5 })),
      { name: 'posenc', color: seriesColour(0), x, y: result.posenc, width: 1.5 },
    ]);
    const k = Math.min(plot.cursorIndex ?? result.positions.length - 1, result.positions.length - 1);
    plot.setCursorIndex(k);
    read(k);
    figure.element.dataset.spec = JSON.stringify(result.spec);
    section.calls('precision', [
      `pe.precision.oracle(${m === 'section' ? 'spec' : 'pe.model.fromConfig(config)'}, { contextLength: ${context}, bucket: ${bucket}, pipelines: ${JSON.stringify(pipelines)} });   // ${result.spec.scalingType}, ${result.spec.rotaryDim} rotary lanes`,
    ]);
    return true;
  });
  tools.onChange((key) => {
    if (key === 'precisionModel') {
      const m = /** @type {keyof typeof PRECISION_MODELS} */ (tools.get('precisionModel'));
      if (m !== 'section') tools.set('precisionLength', { llama31: 131072, gemma3: 32768, phi35: 131072, ministral3: 262144 }[m]);
    }
    update();
  });

  return {
    figures: [figure],
    /** @param {RopeState} state */
    update(state) {
      rope = state;
      if (tools.get('precisionModel') === 'section') update();
      else if (!report) update();
      return [];
    },
  };
}
