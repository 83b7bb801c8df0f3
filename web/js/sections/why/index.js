// Section "Why order matters": a typed sentence and a permutation of it through toy self-attention
// with each way of giving positions (model.js); the weights, the outputs and their differences once
// the permutation is undone (figures.js), the verdict, a table of every encoding's verdict, and
// X = E + P for one word (embedding.js).
import { check, choice, text } from '../../ui/control-specs.js';
import { num } from '../../ui/format.js';
import { setReadout, valueSpan } from '../../ui/readout.js';
import { Figure, PageError } from '../../ui/section.js';
import { TOY_MAX_TOKENS } from '../../toy.js';
import { embeddingPart } from './embedding.js';
import { whyFigures } from './figures.js';
import { ENCODINGS, SAME_TOLERANCE, compareAll, keepsDistances, tokenize } from './model.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./model.js').EncodingId} EncodingId */
/** @typedef {ReturnType<typeof compareAll>} Comparison */

export const SETTINGS = {
  sentence: text({ label: 'sentence', unit: `2–${TOY_MAX_TOKENS} words`, value: 'I really love AI', size: 30, grow: true }),
  permutation: choice({
    label: 'permutation', value: 'reverse',
    options: [['reverse', 'reverse the order'], ['swap', 'swap the first and last words'], ['rotate', 'move the first word to the end'], ['shuffle', 'shuffle (fixed)']],
  }),
  encoding: choice({
    label: 'position information', as: 'radio', value: 'none',
    options: [['none', 'none'], ['sinusoidal', 'sinusoidal'], ['learned', 'learned table'], ['rope', 'RoPE'], ['alibi', 'ALiBi'], ['t5', 'T5 bias']],
  }),
  undo: check({ label: 'undo the permutation in the permuted figures', value: false }),
};

/** Why a result is what it is, in a sentence. @param {boolean} same @param {EncodingId} id @param {number[]} pos */
function reason(same, id, pos) {
  if (!same) return 'the weights change with the order: the model can tell the two sentences apart';
  if (id === 'none') return 'each token attends to every other token exactly as before: nothing tells the model the order';
  return keepsDistances(pos) ? 'this permutation keeps every distance |i − j|, and this bias sees nothing else'
    : 'this permutation changes nothing this encoding can see';
}

/** @param {HTMLElement} table @param {Comparison} state */
function showSummary(table, state) {
  for (const { id } of ENCODINGS) {
    const row = table.querySelector(`tr[data-encoding="${id}"]`);
    if (!(row instanceof HTMLElement)) continue;
    const { gap, outGap } = state.results[id];
    const same = gap <= SAME_TOLERANCE;
    row.dataset.same = String(same);
    row.querySelector('[data-field="verdict"]')?.replaceChildren(same ? 'same up to permutation' : 'different');
    row.querySelector('[data-field="gap"]')?.replaceChildren(num(gap, 3));
    row.querySelector('[data-field="output-gap"]')?.replaceChildren(num(outGap, 3));
  }
}

/** @param {Section} section */
export function mount(section) {
  const settings = section.panel('settings', SETTINGS);
  const names = /** @type {const} */ (['original', 'permuted', 'output', 'output2', 'difference']);
  const [original, permuted, output, output2, difference] = names.map((n) => section.figure(n));
  const verdict = section.part('verdict');
  const summary = section.part('summary');
  const figures = whyFigures({ original, permuted, output, output2, difference });
  section.callOrder(['why', 'embedding']);
  const embedding = embeddingPart(section);
  /** @type {Comparison | null} */
  let state = null;

  function show() {
    if (!state) return;
    const id = /** @type {EncodingId} */ (settings.get('encoding'));
    figures.show(state, id, settings.get('undo'));
    const r = state.results[id];
    const same = r.gap <= SAME_TOLERANCE;
    verdict.dataset.same = String(same);
    setReadout(verdict,
      [`${ENCODINGS.find((e) => e.id === id)?.name}: `, valueSpan('verdict', same ? 'same up to permutation' : 'different')],
      ['largest |A[i, j] − B[π(i), π(j)]| = ', valueSpan('gap', num(r.gap, 3))],
      [reason(same, id, state.pos)]);
    section.calls('why', r.calls);
  }

  const update = section.updater({
    status: section.status(settings), figures: [original, permuted, output, output2, difference, new Figure(verdict), new Figure(summary)],
  }, () => {
    const words = tokenize(settings.get('sentence'));
    if (words.length < 2) throw new PageError('Type a sentence of at least two words.');
    if (words.length > TOY_MAX_TOKENS) {
      throw new PageError(`The demo takes up to ${TOY_MAX_TOKENS} words (its toy learned table has ${TOY_MAX_TOKENS} rows); this sentence has ${words.length}.`);
    }
    state = compareAll(section.pe, words, /** @type {import('./model.js').PermutationId} */ (settings.get('permutation')));
    section.root.dataset.permuted = state.permuted.join(' ');
    showSummary(summary, state);
    show();
    embedding.setWords(words);
  });
  settings.onChange((key) => (key === 'encoding' || key === 'undo' ? show() : update()));
  update();
}
