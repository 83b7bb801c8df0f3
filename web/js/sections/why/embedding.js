// "Why order matters", X = E + P: one word's toy embedding E, the sinusoidal encoding P of its
// position (pe.sinusoidal.table at that position) and their sum X (pe.sinusoidal.addTo on a copy
// of E), drawn as vectors: all their components side by side, and one pair of columns as arrows
// in a plane, P drawn from E's tip so that X closes the triangle.
import { PlotCanvas } from '../../plot/canvas.js';
import { seriesColour } from '../../plot/colormap.js';
import { LinePlot } from '../../plot/lineplot.js';
import { choice, number } from '../../ui/control-specs.js';
import { int, signed, sub } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { PageError } from '../../ui/section.js';
import { TOY_DIM as D, wordEmbedding } from '../../toy.js';
import { drawArrows } from './arrows.js';

/** @typedef {import('../../ui/section.js').Section} Section */

const COLOURS = { e: seriesColour(0), p: seriesColour(1), x: seriesColour(2) };

/** The controls of the figure; the word's options come from the sentence. */
export const TOOLS = {
  word: choice({ label: 'word', value: '1', options: [['1', 'really (position 1)']] }),
  position: number({ label: 'position p', value: 1, step: 1, min: 0, max: 100000, slider: [0, 63] }),
  pair: number({ label: 'columns (2i, 2i+1), i', value: 0, step: 1, min: 0, max: D / 2 - 1, slider: [0, D / 2 - 1] }),
};

/**
 * E, P and X = E + P of `word` at position p, computed by posenc.
 * @param {import('posenc').PosEnc} pe @param {string} word @param {number} p
 */
export function embedAt(pe, word, p) {
  const e = wordEmbedding(word, D);
  const pRow = pe.sinusoidal.table({ positionIds: [p], dim: D }).data;
  const x = e.slice();
  pe.sinusoidal.addTo({ data: x, dims: [1, D] }, { offset: p });
  return { e, p: pRow, x };
}

/** @param {Section} section */
export function embeddingPart(section) {
  const { pe } = section;
  const tools = section.panel('embedding', TOOLS);
  const vectorsFig = section.figure('vectors');
  const planeFig = section.figure('plane');
  /** @type {string[]} */
  let words = [];
  /** @type {{ word: string, p: number, e: Float32Array, pRow: Float32Array, x: Float32Array, pair: number } | null} */
  let shown = null;
  let column = 0;

  const vectors = new LinePlot(vectorsFig.plot(), {
    label: 'The components of the token embedding E, the positional encoding P and their sum X', xLabel: 'column j', yLabel: 'value', xPad: 0.6,
    yZero: true, onCursor: (_, k) => {
      column = k;
      readVectors();
    },
  });
  const plane = new PlotCanvas(planeFig.plot(), (ctx, w, h) => {
    if (!shown) return;
    const [a, b] = [2 * shown.pair, 2 * shown.pair + 1];
    drawArrows(ctx, w, h, {
      axes: [`column ${a}`, `column ${b}`],
      arrows: [
        { from: [0, 0], to: [shown.e[a], shown.e[b]], label: 'E', color: COLOURS.e },
        { from: [shown.e[a], shown.e[b]], to: [shown.x[a], shown.x[b]], label: 'P', color: COLOURS.p },
        { from: [0, 0], to: [shown.x[a], shown.x[b]], label: 'X = E + P', color: COLOURS.x, bold: true },
      ],
    }).report(plane.canvas);
  }, 'One pair of columns of E, P and X as arrows in a plane: P starts at the tip of E and X closes the triangle');

  function readVectors() {
    if (!shown) return;
    const j = Math.min(column, D - 1);
    vectors.setCursorIndex(j);
    setReadout(vectorsFig.readout(),
      [`'${shown.word}' at position ${int(shown.p)}   `, field('j', String(j))],
      ['E = ', valueSpan('e', signed(shown.e[j], 4)), '   P = ', valueSpan('p', signed(shown.pRow[j], 4)), '   X = ', valueSpan('x', signed(shown.x[j], 4))]);
  }

  const update = section.updater({ status: section.status(tools), figures: [vectorsFig, planeFig] }, () => {
    if (!words.length) return false;
    const problem = tools.problem();
    if (problem) throw new PageError(problem);
    const p = tools.get('position');
    const pair = tools.get('pair');
    if (!Number.isInteger(p) || !Number.isInteger(pair)) throw new PageError('the position and the pair are whole numbers');
    const word = words[Number(tools.get('word'))] ?? words[0] ?? '';
    const { e, p: pRow, x } = embedAt(pe, word, p);
    shown = { word, p, e, pRow, x, pair };
    const at = (/** @type {number} */ shift) => Float64Array.from({ length: D }, (_, j) => j + shift);
    vectors.setSeries([
      { name: `E: '${word}'`, color: COLOURS.e, x: at(0), y: e, style: 'stems', radius: 2.5 },
      { name: `P: position ${int(p)}`, color: COLOURS.p, x: at(0.22), y: pRow, style: 'stems', radius: 2.5 },
      { name: 'X = E + P', color: COLOURS.x, x: at(0.44), y: x, style: 'stems', radius: 2.5 },
    ]);
    readVectors();
    plane.redraw();
    const [a, b] = [2 * pair, 2 * pair + 1];
    setReadout(planeFig.readout(),
      [`E = (${signed(e[a], 4)}, ${signed(e[b], 4)})   P = (`, valueSpan('p-pair', `${signed(pRow[a], 4)}, ${signed(pRow[b], 4)}`), ')'],
      ['X = (', valueSpan('x-pair', `${signed(x[a], 4)}, ${signed(x[b], 4)}`), `)   P = (sin p·w${sub(pair)}, cos p·w${sub(pair)})`]);
    section.calls('embedding', [
      `const E = toyEmbedding('${word}');                                     // [1, ${D}]`,
      `const P = pe.sinusoidal.table({ positionIds: [${p}], dim: ${D} });      // row p of PE`,
      `const X = E.slice(); pe.sinusoidal.addTo({ data: X, dims: [1, ${D}] }, { offset: ${p} });   // X = E + P`,
    ]);
    return true;
  });
  tools.onChange((key) => {
    if (key === 'word') tools.set('position', Number(tools.get('word')));
    update();
  });

  return {
    figures: [vectorsFig, planeFig],
    /** The sentence's words (the word picker lists them at their positions). @param {string[]} next */
    setWords(next) {
      const same = next.length === words.length && next.every((w, k) => w === words[k]);
      words = next;
      if (!same) {
        const k = Math.min(Number(tools.get('word')), next.length - 1);
        tools.setOptions('word', next.map((w, i) => [String(i), `${w} (position ${i})`]), String(k));
        if (tools.get('position') >= next.length && tools.get('position') < 64) tools.set('position', k);
      }
      update();
    },
  };
}

