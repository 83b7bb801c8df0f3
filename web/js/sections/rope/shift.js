// RoPE, a common shift: a query at position m and a key at position n, both moved by s tokens.
// Both turn (drawn for one pair), the angle between them stays, and so does their dot product:
// q_{m+s}·k_{n+s} = q_m·k_n = qᵀ R_{n−m} k (with R_0 q in place of q when a scaling has an
// attention factor A, since every rotated lane is then multiplied by A). Every vector comes from
// pe.rope.apply with the section's spec; the dot products are float64 sums here.
import { PlotCanvas } from '../../plot/canvas.js';
import { seriesColour } from '../../plot/colormap.js';
import { number } from '../../ui/control-specs.js';
import { int, num, signed, sub } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { PageError } from '../../ui/section.js';
import { randomVector } from '../../toy.js';
import { drawArrows } from '../why/arrows.js';
import { pairLanes } from './rotation.js';
import { redrawnPart } from './part.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./state.js').RopeState} RopeState */

const TOOLS = {
  m: number({ label: 'query position m', value: 5, step: 1, min: 0, max: 1_000_000 }),
  n: number({ label: 'key position n', value: 2, step: 1, min: 0, max: 1_000_000 }),
  shift: number({ label: 'shift both by s', value: 40, step: 1, min: 0, max: 1_000_000, slider: [0, 200], format: (v) => `${int(v)} tokens` }),
};

/** Seeds of the random query and key of this figure. */
export const SHIFT_SEEDS = { q: 71, k: 72 };

/** Σ a_l b_l in float64. @param {Float32Array} a @param {Float32Array} b */
export function dot(a, b) {
  let s = 0;
  for (let l = 0; l < a.length; l++) s += a[l] * b[l];
  return s;
}

/** A copy of `v` [d] rotated to position p by pe.rope.apply. @param {import('posenc').PosEnc} pe @param {RopeState} rope @param {Float32Array} v @param {number} p */
export function rotated(pe, rope, v, p) {
  const x = v.slice();
  pe.rope.apply(x, null, { ...rope.apply, dims: [1, rope.spec.headDim], positionIds: [p] });
  return x;
}

/** A position as a subscript: −3 -> '₋₃'. @param {number} v */
const low = (v) => (v < 0 ? `₋${sub(-v)}` : sub(v));

/** @param {Section} section */
export function shiftPart(section) {
  const { pe } = section;
  const tools = section.panel('shift', TOOLS);
  const figure = section.figure('shift');
  /** @type {RopeState | null} */
  let rope = null;
  let pair = 2;
  /** @type {{ q0: Float32Array, k0: Float32Array, q: Float32Array, k: Float32Array, a: number, b: number } | null} */
  let shown = null;

  const plane = new PlotCanvas(figure.plot(), (ctx, w, h) => {
    if (!shown) return;
    const { q0, k0, q, k, a, b } = shown;
    drawArrows(ctx, w, h, {
      axes: [`lane ${a}`, `lane ${b}`],
      arrows: [
        { from: [0, 0], to: [q0[a], q0[b]], label: 'q at m', color: seriesColour(0), dashed: true },
        { from: [0, 0], to: [k0[a], k0[b]], label: 'k at n', color: seriesColour(1), dashed: true },
        { from: [0, 0], to: [q[a], q[b]], label: 'q at m + s', color: seriesColour(0), bold: true },
        { from: [0, 0], to: [k[a], k[b]], label: 'k at n + s', color: seriesColour(1), bold: true },
      ],
    }).report(plane.canvas);
  }, 'One pair of a query and a key, before and after both move by the same number of tokens');

  const update = section.updater({ status: section.status(tools), figures: [figure] }, () => {
    if (!rope) return false;
    const problem = tools.problem();
    if (problem) throw new PageError(problem);
    const { m, n, shift: s } = tools.values();
    for (const [name, v] of [['m', m], ['n', n], ['s', s]]) {
      if (!Number.isInteger(v)) throw new PageError(`${name} must be a whole number of tokens, got ${v}`);
    }
    const d = rope.spec.headDim;
    const qv = randomVector(d, SHIFT_SEEDS.q);
    const kv = randomVector(d, SHIFT_SEEDS.k);
    const q0 = rotated(pe, rope, qv, m);
    const k0 = rotated(pe, rope, kv, n);
    const q = rotated(pe, rope, qv, m + s);
    const k = rotated(pe, rope, kv, n + s);
    // qᵀ R_{n−m} k: the key turned by the distance alone (the query at position 0, which is q itself without an attention factor)
    const relative = dot(rotated(pe, rope, qv, 0), rotated(pe, rope, kv, n - m));
    const i = Math.min(pair, rope.spec.rotaryDim / 2 - 1);
    const [a, b] = pairLanes(i, rope.spec.rotaryDim, rope.spec.pairing);
    shown = { q0, k0, q, k, a, b };
    plane.redraw();
    const before = dot(q0, k0);
    const after = dot(q, k);
    const angle = (/** @type {Float32Array} */ u, /** @type {Float32Array} */ v) => {
      const t = Math.atan2(v[b], v[a]) - Math.atan2(u[b], u[a]);
      return Math.atan2(Math.sin(t), Math.cos(t));
    };
    setReadout(figure.readout(),
      [field('pair', String(i)), `   angle from q to k: before `, valueSpan('angle-before', signed(angle(q0, k0), 4)), ' rad, after ', valueSpan('angle-after', signed(angle(q, k), 4)), ' rad'],
      [`q${low(m)}·k${low(n)} = `, valueSpan('before', signed(before, 6)), `   q${low(m + s)}·k${low(n + s)} = `, valueSpan('after', signed(after, 6))],
      [`qᵀR${low(n - m)}k = `, valueSpan('relative', signed(relative, 6)), '   largest difference ', valueSpan('spread', num(Math.max(Math.abs(after - before), Math.abs(relative - before)), 2))]);
    section.calls('shift', [`pe.rope.apply(q, null, { ...spec, dims: [1, ${d}], positionIds: [${m + s}] });   // and k at ${n + s}, q at ${m}, k at ${n}; k at n − m = ${n - m} for qᵀR_{n−m}k`]);
    return true;
  });
  tools.onChange(() => update());
  section.bus.subscribe('rope-turning', (detail) => {
    const next = /** @type {{ pair: number }} */ (detail).pair;
    if (next === pair) return;
    pair = next;
    update();
  });

  return redrawnPart(figure, (state) => {
    rope = state;
    update();
  });
}
