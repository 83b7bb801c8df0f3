// The learned section's training: its settings, the loss curve, and the loop that trains the table
// in a compute worker of its own (jobs.js trainTable, about 60 ms a job; other sections' jobs
// neither wait for it nor hold it up) and hands every new state to the section, which draws the
// table as it emerges while the worker computes the next one. A new setting or "Train again"
// starts over; the run it replaces stops at its next job.
import { ComputeClient } from '../../compute/client.js';
import { seriesColour } from '../../plot/colormap.js';
import { LinePlot } from '../../plot/lineplot.js';
import { button, number } from '../../ui/control-specs.js';
import { int, num } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { PageError } from '../../ui/section.js';
import { BATCH, initialState } from '../../compute/train.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('../../compute/train.js').TrainState} TrainState */

export const SETTINGS = {
  positions: number({ label: 'positions', unit: 'rows L', value: 64, step: 1, min: 4, max: 128, slider: [4, 128] }),
  dim: number({ label: 'width', unit: 'columns d', value: 16, step: 1, min: 2, max: 32, slider: [2, 32] }),
  window: number({ label: 'window', unit: 'neighbours each side', value: 2, step: 1, min: 1, max: 16 }),
  steps: number({ label: 'steps', value: 1000, step: 100, min: 100, max: 2000 }),
};
const AGAIN = { again: button({ label: 'Train again from a new start', primary: true }) };

/**
 * @param {Section} section
 * @param {(state: TrainState) => Promise<void>} onState  draws a new state (awaited before the next job)
 */
export function trainingPart(section, onState) {
  const settings = section.panel('train', SETTINGS);
  const again = section.panel('train-again', AGAIN);
  const figure = section.figure('loss');
  let seed = 1;
  const worker = new ComputeClient(section.compute.packageUrl, section.pe);
  const plot = new LinePlot(figure.plot(), {
    label: 'Training loss of the position table against the step', xLabel: 'step', yLabel: 'loss (mean squared error)', yScale: 'log', xPad: 20,
    onCursor: (_, k) => read(k),
  });
  /** @type {TrainState | null} */
  let state = null;

  /** @param {number} [k] the step under the cursor */
  function read(k) {
    if (!state) return;
    if (state.step === 0) {
      setReadout(figure.readout(), [field('step', `0 of ${int(state.steps)}`, 'step'), '   the table is random: training starts']);
      return;
    }
    const last = state.step - 1;
    const at = Math.min(k ?? last, last);
    setReadout(figure.readout(),
      [field('step', `${int(state.step)} of ${int(state.steps)}`, 'step'), '   loss at step 1 = ', valueSpan('first-loss', num(state.losses[0], 3))],
      [`loss at step ${int(at + 1)} = `, valueSpan('loss', num(state.losses[at], 3)),
        `   (a batch of ${BATCH} sequences of ${int(state.positions)} numbers a step; window ±${state.window})`]);
  }

  function drawLoss() {
    if (!state) return;
    const n = state.step;
    plot.setSeries([{
      name: 'loss of each step', color: seriesColour(0), x: Float64Array.from({ length: n }, (_, k) => k + 1), y: state.losses.subarray(0, n), width: 1,
    }]);
    read();
  }

  const run = section.updater({ status: section.status(settings), figures: [figure] }, async (current) => {
    const problem = settings.problem();
    if (problem) throw new PageError(problem);
    const t = settings.values();
    for (const [k, v] of Object.entries(t)) if (!Number.isInteger(v)) throw new PageError(`${k} must be a whole number, got ${v}`);
    if (t.window >= t.positions) throw new PageError(`window must be smaller than positions (${t.positions}), got ${t.window}`);
    let run = initialState({ ...t, seed });
    state = run;
    section.root.dataset.training = 'running';
    section.calls('train', [
      `const A = pe.attention.scores(P, P);   // every step: softmax(P·Pᵀ/√${t.dim}) for the table P [${t.positions}, ${t.dim}], then ŷ = A·u and the gradient by hand`,
    ]);
    // the worker trains the next ~60 ms while this thread draws the state it sent (a copy of it)
    while (run.step < run.steps) {
      /** @type {Promise<{ state: TrainState } | null>} */
      const next = worker.run('train', 'trainTable', { state: run, budgetMs: 60 });
      await onState(run);
      if (!current()) return false;
      drawLoss();
      const result = await next;
      if (!result || !current()) return false;
      run = result.state;
      state = run;
    }
    await onState(run);
    drawLoss();
    section.root.dataset.training = 'done';
    return true;
  });
  settings.onChange(() => run());
  again.on('again', () => {
    seed += 1;
    run();
  });

  return {
    start: run,
    /** The seed of the current run (the tests train the same table). */
    get seed() {
      return seed;
    },
  };
}
