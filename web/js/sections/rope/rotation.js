// RoPE, part 1: one pair of lanes turning as the position grows, and the angle of every pair.
// The vectors are a unit vector (1, 0) in every pair rotated by pe.rope.apply at position m (any
// real m), with the section's spec (scaling included: YaRN and LongRoPE also lengthen the vector by
// their attention factor); the angles are read back with atan2, so the page never forms a rotation.
import { PlotCanvas } from '../../plot/canvas.js';
import { seriesColour } from '../../plot/colormap.js';
import { LinePlot } from '../../plot/lineplot.js';
import { button, choice, number } from '../../ui/control-specs.js';
import { fixed, num, signed, sub } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { PageError } from '../../ui/section.js';
import { drawCircle } from './circle.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./state.js').RopeState} RopeState */

const TRAIL = 48; // integer positions drawn behind the current one

export const TOOLS = {
  pair: number({ label: 'pair i', value: 2, step: 1, min: 0, max: 31, slider: [0, 31] }),
  position: number({
    label: 'position m', value: 3, step: 1, fineStep: 0.01, min: 0, max: 1e6, slider: [0, 64],
    format: (v) => `${fixed(v, 2)} tokens`,
  }),
};
const PLAY = {
  play: button({ label: '▶ Play', toggle: true }),
  speed: choice({ label: 'speed', value: '1', options: [['0.5', '0.5 tokens/s'], ['1', '1 token/s'], ['4', '4 tokens/s']] }),
};

/** The two lanes pair i occupies among the `rotaryDim` rotated lanes (see RopePairing in the package). @param {number} i @param {number} rotaryDim @param {'half' | 'interleaved'} pairing */
export function pairLanes(i, rotaryDim, pairing) {
  return pairing === 'half' ? [i, i + rotaryDim / 2] : [2 * i, 2 * i + 1];
}

/** @param {Section} section */
export function rotationPart(section) {
  const { pe } = section;
  const tools = section.panel('turning', TOOLS);
  const play = section.panel('play', PLAY);
  const circleFig = section.figure('turning');
  const anglesFig = section.figure('angles');
  /** @type {RopeState | null} */
  let rope = null;
  let trail = { key: '', points: /** @type {Array<{ p: number, x: number, y: number }>} */ ([]) };
  /** @type {import('./circle.js').CircleState | null} */
  let current = null;

  const circle = new PlotCanvas(circleFig.plot(), (ctx, w, h) => {
    if (current) drawCircle(ctx, w, h, current).report(circle.canvas);
  }, 'The chosen pair of lanes as a point on the unit circle, turning with the position');
  const angles = new LinePlot(anglesFig.plot(), {
    label: 'The rotation angle of every pair at position m', xLabel: 'pair i', yLabel: 'angle (rad)', yRange: [-3.6, 3.6], xPad: 0.6,
    onCursor: (i) => {
      tools.set('pair', i);
      changed();
    },
  });

  /** Rows of a unit vector (1 in the first lane of every pair), rotated to `positions` by posenc. @param {RopeState} r @param {number[]} positions */
  function rotatedUnits(r, positions) {
    const { headDim: d, rotaryDim, pairing } = r.spec;
    const x = new Float32Array(positions.length * d);
    for (let row = 0; row < positions.length; row++) {
      for (let i = 0; i < rotaryDim / 2; i++) x[row * d + pairLanes(i, rotaryDim, pairing)[0]] = 1;
    }
    pe.rope.apply(x, null, { ...r.apply, dims: [positions.length, d], positionIds: positions });
    return x;
  }

  /** Draws the pair and the position the fields hold (they are within their limits: see `changed`). */
  function redraw() {
    if (!rope) return;
    const { rotaryDim: r, pairing, headDim: d } = rope.spec;
    const pairs = r / 2;
    const i = tools.get('pair');
    const m = tools.get('position');
    const [a, b] = pairLanes(i, r, pairing);
    const row = rotatedUnits(rope, [m]);
    const all = Float64Array.from({ length: pairs }, (_, k) => {
      const [ka, kb] = pairLanes(k, r, pairing);
      return Math.atan2(row[kb], row[ka]);
    });
    const last = Math.floor(m);
    const key = `${JSON.stringify(rope.apply)}/${i}/${last}`;
    if (trail.key !== key) {
      const first = Math.max(0, last - TRAIL + 1);
      const ids = Array.from({ length: last - first + 1 }, (_, k) => first + k);
      const rows = rotatedUnits(rope, ids);
      trail = { key, points: ids.map((p, k) => ({ p, x: rows[k * d + a], y: rows[k * d + b] })) };
    }
    current = { m, a, b, x: row[a], y: row[b], angle: all[i], trail: trail.points, attentionFactor: rope.freqs.attentionFactor };
    section.bus.publish('rope-turning', { m, pair: i }); // the matrix R_Θ,m follows this position
    circle.redraw();
    angles.setSeries([{ name: `angle at m = ${fixed(m, 2)}`, color: seriesColour(0), x: Float64Array.from({ length: pairs }, (_, k) => k), y: all, style: 'stems', highlight: i }]);
    angles.setLines({ hlines: [{ at: Math.PI, label: '+π', color: '#999' }, { at: -Math.PI, label: '−π', color: '#999' }] });
    angles.setCursorIndex(i);
    const w = rope.freqs.invFreq[i];
    setReadout(circleFig.readout(),
      [field('m', fixed(m, 2)), '   ', field('pair i', String(i), 'pair'), `   lanes (${a}, ${b})   `, field(`θ${sub(i)}`, num(w, 6), 'theta'), ' rad/token'],
      [`m·θ${sub(i)} = `, valueSpan('angle', num(m * w, 6)), ` rad = ${num((m * w * 180) / Math.PI, 5)}°   wrapped to ±π: `, valueSpan('wrapped', signed(all[i], 6)), ' rad'],
      ['pe.rope.apply: (1, 0) ↦ (', valueSpan('x', signed(row[a], 6)), ', ', valueSpan('y', signed(row[b], 6)), '), length ', valueSpan('length', fixed(Math.hypot(row[a], row[b]), 6))]);
    setReadout(anglesFig.readout(), [field('pair i', String(i), 'pair'), `   angle at m = ${fixed(m, 2)}: `, valueSpan('angle', signed(all[i], 6)), ' rad']);
  }
  // A pair past the last one, a position out of range or not a number: said, and not drawn.
  const changed = section.updater({ status: section.status(tools), figures: [circleFig, anglesFig] }, () => {
    const problem = tools.problem();
    if (problem) throw new PageError(problem);
    if (!Number.isInteger(tools.get('pair'))) throw new PageError(`pair i must be a whole number, got ${tools.get('pair')}`);
    redraw();
  });
  tools.onChange(() => changed());

  // Playing: the position grows in real time; a section out of view does not animate.
  let visible = true;
  let lastTime = 0;
  new IntersectionObserver(([entry]) => { visible = Boolean(entry?.isIntersecting); }).observe(circleFig.element);
  /** @param {number} time */
  function tick(time) {
    if (!play.get('play') || circleFig.element.dataset.stale) return;
    const dt = Math.min(0.1, (time - lastTime) / 1000);
    lastTime = time;
    if (visible) {
      const m = (Number.isFinite(tools.get('position')) ? tools.get('position') : 0) + Number(play.get('speed')) * dt;
      tools.extendSlider('position', Math.ceil(m / 64) * 64);
      tools.set('position', Math.round(m * 100) / 100);
      redraw();
    }
    requestAnimationFrame(tick);
  }
  play.on('play', () => {
    if (!play.get('play')) return;
    requestAnimationFrame((t) => {
      lastTime = t;
      tick(t);
    });
  });

  return {
    figures: [circleFig, anglesFig],
    /** @param {RopeState} state */
    update(state) {
      rope = state;
      tools.setMax('pair', state.spec.rotaryDim / 2 - 1);
      trail.key = '';
      changed();
      return [`pe.rope.apply(unit, null, { ...spec, dims: [1, ${state.spec.headDim}], positionIds: [m], seqLen: ${state.seqLen} });   // one pair turning`];
    },
  };
}
