// RoPE, the rotation as a matrix: R_Θ,m for the position m of "One pair, turning", built column by
// column with pe.rope.apply (rotating the unit vector of each lane; the page never forms a
// rotation itself). In pair order (lanes of one pair next to each other) it is block-diagonal: one
// 2 × 2 rotation by m·θ_i per pair, ones on the lanes that do not turn, zeros everywhere else.
import { Heatmap } from '../../plot/heatmap.js';
import { check, number } from '../../ui/control-specs.js';
import { fixed, num, signed, sub } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { PageError } from '../../ui/section.js';
import { pairLanes } from './rotation.js';
import { redrawnPart } from './part.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./state.js').RopeState} RopeState */

const TOOLS = {
  lanes: number({ label: 'lanes shown', value: 16, step: 2, min: 2, max: 512 }),
  grouped: check({ label: 'pair order (the lanes of a pair side by side)', value: true }),
};

/** The lanes in the order the matrix shows them. @param {RopeState['spec']} spec @param {boolean} grouped */
export function laneOrder(spec, grouped) {
  const { headDim: d, rotaryDim: r, pairing } = spec;
  if (!grouped || pairing === 'interleaved') return Array.from({ length: d }, (_, l) => l);
  const order = [];
  for (let i = 0; i < r / 2; i++) order.push(...pairLanes(i, r, pairing));
  for (let l = r; l < d; l++) order.push(l);
  return order;
}

/** R_Θ,m [d, d] (row-major, float32): column l is lane l's unit vector rotated by pe.rope.apply. @param {import('posenc').PosEnc} pe @param {RopeState} rope @param {number} m */
export function rotationMatrix(pe, rope, m) {
  const d = rope.spec.headDim;
  const units = new Float32Array(d * d);
  for (let l = 0; l < d; l++) units[l * d + l] = 1;
  pe.rope.apply(units, null, { ...rope.apply, dims: [d, d], positionIds: new Array(d).fill(m) });
  const R = new Float32Array(d * d);
  for (let l = 0; l < d; l++) for (let r = 0; r < d; r++) R[r * d + l] = units[l * d + r];
  return R;
}

/** @param {Section} section */
export function matrixPart(section) {
  const { pe } = section;
  const tools = section.panel('matrix', TOOLS);
  const figure = section.figure('matrix');
  /** @type {RopeState | null} */
  let rope = null;
  let m = 3;
  /** @type {{ R: Float32Array, order: number[], n: number } | null} */
  let shown = null;
  let cell = { row: 0, col: 1 };
  const heatmap = new Heatmap(figure.plot(), {
    label: 'The rotation matrix R at position m', xLabel: 'input lane', yLabel: 'output lane', legendLabel: 'entry of R',
    cellText: (v) => fixed(v, 2), margin: { left: 50 },
    onCursor: (c) => {
      cell = c;
      read();
    },
  });

  function read() {
    if (!shown || !rope) return;
    const { R, order, n } = shown;
    const d = rope.spec.headDim;
    const row = Math.min(cell.row, n - 1);
    const col = Math.min(cell.col, n - 1);
    const [a, b] = [order[row], order[col]];
    const v = R[a * d + b];
    const r = rope.spec.rotaryDim;
    /** @param {number} lane */
    const pairOf = (lane) => {
      if (lane >= r) return -1;
      return rope?.spec.pairing === 'half' ? lane % (r / 2) : Math.floor(lane / 2);
    };
    const [pa, pb] = [pairOf(a), pairOf(b)];
    let why;
    if (pa < 0 || pb < 0) why = a === b ? 'a lane that does not turn: 1' : 'a lane that does not turn mixes with nothing: 0';
    else if (pa !== pb) why = `lanes of pairs ${pa} and ${pb}: pairs never mix, 0`;
    else {
      const angle = m * rope.freqs.invFreq[pa];
      const A = rope.freqs.attentionFactor;
      const f = A === 1 ? '' : `${fixed(A, 4)}·`; // YaRN and LongRoPE lengthen the rotated lanes
      why = `pair ${pa}: m·θ${sub(pa)} = ${num(angle, 6)} rad, ${f}cos = ${signed(A * Math.cos(angle), 6)}, ${f}sin = ${signed(A * Math.sin(angle), 6)}`;
    }
    heatmap.setCursor(row, col);
    setReadout(figure.readout(), [field('m', fixed(m, 2)), '   ', field('R[out, in]', `R[${a}, ${b}]`, 'cell'), ' = ', valueSpan('entry', signed(v, 6))], [why]);
  }

  const update = section.updater({ status: section.status(tools), figures: [figure] }, () => {
    if (!rope) return false;
    const problem = tools.problem();
    if (problem) throw new PageError(problem);
    const lanes = tools.get('lanes');
    if (lanes % 2 !== 0) throw new PageError(`lanes shown must be even, got ${lanes}`);
    const d = rope.spec.headDim;
    const n = Math.min(lanes, d);
    const R = rotationMatrix(pe, rope, m);
    const order = laneOrder(rope.spec, tools.get('grouped'));
    const view = new Float32Array(n * n);
    for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) view[r * n + c] = R[order[r] * d + order[c]];
    const labels = order.slice(0, n).map(String);
    const top = Math.max(1, rope.freqs.attentionFactor);
    shown = { R, order, n };
    heatmap.setData({ values: view, rows: n, cols: n, range: [-top, top], rowLabels: labels, colLabels: labels, legendNote: n < d ? `(first ${n} of ${d})` : '' });
    read();
    section.calls('matrix', [`pe.rope.apply(I, null, { ...spec, dims: [${d}, ${d}], positionIds: Array(${d}).fill(${fixed(m, 2)}) });   // row l: R e_l, column l of R_Θ,m`]);
    return true;
  });
  tools.onChange(() => update());
  section.bus.subscribe('rope-turning', (detail) => {
    const next = /** @type {{ m: number }} */ (detail).m;
    if (next === m) return;
    m = next;
    update();
  });

  return redrawnPart(figure, (state) => {
    rope = state;
    tools.setMax('lanes', state.spec.headDim);
    update();
  });
}
