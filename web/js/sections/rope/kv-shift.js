// RoPE, a KV cache shifted: twelve cached keys rotated at their positions (pe.rope.apply, this
// section's RoPE); a span of them dropped; the keys after it moved back with pe.rope.shift, and
// compared with the same keys rotated afresh at their new positions. The difference is float32
// rounding; keys left where they were would be off by the whole rotation.
import { seriesColour } from '../../plot/colormap.js';
import { LinePlot } from '../../plot/lineplot.js';
import { number } from '../../ui/control-specs.js';
import { int, num } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { PageError } from '../../ui/section.js';
import { randomVector } from '../../toy.js';
import { redrawnPart } from './part.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./state.js').RopeState} RopeState */

/** Keys in the toy cache. */
export const CACHE_TOKENS = 12;
/** The seed of the cached keys (randomVector). */
export const CACHE_SEED = 81;

const TOOLS = {
  from: number({ label: 'drop tokens from', value: 3, step: 1, min: 0, max: CACHE_TOKENS - 1 }),
  to: number({ label: 'to', value: 5, step: 1, min: 0, max: CACHE_TOKENS - 1 }),
  offset: number({ label: 'cache starts at position', value: 0, step: 1, min: 0, max: 10_000_000 }),
};

/** The cache's keys [CACHE_TOKENS, d], not yet rotated. @param {number} d */
export const cacheKeys = (d) => randomVector(CACHE_TOKENS * d, CACHE_SEED);

/** Largest |a − b| of row r. @param {Float32Array} a @param {Float32Array} b @param {number} r @param {number} d */
function rowGap(a, b, r, d) {
  let g = 0;
  for (let l = 0; l < d; l++) g = Math.max(g, Math.abs(a[r * d + l] - b[r * d + l]));
  return g;
}

/** @param {Section} section */
export function kvShiftPart(section) {
  const { pe } = section;
  const tools = section.panel('kv-shift', TOOLS);
  const figure = section.figure('kv-shift');
  /** @type {RopeState | null} */
  let rope = null;
  /** @type {{ kept: number[], oldPos: number[], newPos: number[], shifted: Float64Array, stale: Float64Array } | null} */
  let shown = null;
  const plot = new LinePlot(figure.plot(), {
    label: 'For each kept key: its distance from the key rotated afresh at its new position, shifted or not', xLabel: 'kept token',
    yLabel: 'largest |difference| (log)', yScale: 'log', xPad: 0.6, onCursor: (_, k) => read(k),
  });

  /** @param {number} k */
  function read(k) {
    if (!shown) return;
    const at = Math.max(0, Math.min(k, shown.kept.length - 1));
    const moved = shown.oldPos[at] !== shown.newPos[at];
    setReadout(figure.readout(),
      [`token ${shown.kept[at]}: position `, valueSpan('old', int(shown.oldPos[at])), ' → ', valueSpan('new', int(shown.newPos[at])), moved ? '' : ' (before the span: not moved)'],
      ['shifted vs rotated afresh: ', valueSpan('shifted', num(shown.shifted[at], 2)), '   left unshifted: ', valueSpan('unshifted', num(shown.stale[at], 2))]);
  }

  const update = section.updater({ status: section.status(tools), figures: [figure] }, () => {
    if (!rope) return false;
    const problem = tools.problem();
    if (problem) throw new PageError(problem);
    const { from, to, offset } = tools.values();
    if (![from, to, offset].every(Number.isInteger)) throw new PageError('the tokens and the position are whole numbers');
    if (to < from) throw new PageError(`“to” must not be before “from”, got ${from} to ${to}`);
    const d = rope.spec.headDim;
    const { seqLen: _seqLen, ...spec } = rope.apply;
    const keys = cacheKeys(d);
    const cached = keys.slice();
    pe.rope.apply(cached, null, { ...spec, dims: [CACHE_TOKENS, d], offset });
    const kept = Array.from({ length: CACHE_TOKENS }, (_, t) => t).filter((t) => t < from || t > to);
    const oldPos = kept.map((t) => offset + t);
    const newPos = kept.map((_, row) => offset + row);
    const k = new Float32Array(kept.length * d);
    const raw = new Float32Array(kept.length * d);
    kept.forEach((t, row) => {
      k.set(cached.subarray(t * d, (t + 1) * d), row * d);
      raw.set(keys.subarray(t * d, (t + 1) * d), row * d);
    });
    const unshifted = k.slice();
    // posenc refuses what cannot be shifted exactly (dynamic NTK; LongRoPE across its list switch)
    pe.rope.shift(k, { ...spec, dims: [kept.length, d], positionIds: oldPos, newOffset: offset });
    pe.rope.apply(raw, null, { ...spec, dims: [kept.length, d], offset });
    const shifted = Float64Array.from(kept, (_, row) => rowGap(k, raw, row, d));
    const stale = Float64Array.from(kept, (_, row) => rowGap(unshifted, raw, row, d));
    shown = { kept, oldPos, newPos, shifted, stale };
    const x = Float64Array.from(kept);
    plot.setSeries([
      // keys before the span do not move: their differences are 0, which a log axis leaves out
      { name: 'shifted with pe.rope.shift', color: seriesColour(2), x, y: shifted, style: 'stems', radius: 4 },
      { name: 'left at the old position', color: seriesColour(1), x, y: stale, style: 'dots', radius: 4 },
    ]);
    plot.setLines({ hlines: [{ at: 2 ** -23, label: 'one float32 step between 1 and 2 (2⁻²³)', color: '#888' }] });
    const cursor = Math.min(plot.cursorIndex ?? Math.min(from, kept.length - 1), kept.length - 1);
    plot.setCursorIndex(cursor);
    read(cursor);
    figure.element.dataset.kept = kept.join(' ');
    section.calls('kv-shift', [
      `pe.rope.shift(k, { ...spec, dims: [${kept.length}, ${d}], positionIds: [${oldPos.join(', ')}], newOffset: ${offset} });   // tokens ${from}–${to} dropped`,
    ]);
    return true;
  });
  tools.onChange(() => update());

  return redrawnPart(figure, (state) => {
    rope = state;
    update();
  });
}
