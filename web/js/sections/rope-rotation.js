// RoPE, part 1: one pair of lanes turning as the position grows, and the angle of every pair.
// The vectors are a unit vector (1, 0) in every pair rotated by pe.rope.apply at position m (any
// real m), with the section's spec (scaling included: YaRN and LongRoPE also lengthen the vector by
// their attention factor); the angles are read back with atan2, so the page never forms a rotation.
import { PlotCanvas, INK, MUTED, PLOT_FONT } from '../lib/canvas.js';
import { SERIES_COLOURS } from '../lib/colormap.js';
import { numberControl } from '../lib/controls.js';
import { sig, signed } from '../lib/format.js';
import { LinePlot } from '../lib/lineplot.js';
import { field, setReadout, sub, valueSpan } from '../lib/readout.js';

const TRAIL = 48; // integer positions drawn behind the current one

/** The two lanes pair i occupies among the `rotaryDim` rotated lanes (see RopePairing in the package). */
export function pairLanes(i, rotaryDim, pairing) {
  return pairing === 'half' ? [i, i + rotaryDim / 2] : [2 * i, 2 * i + 1];
}

export function mountRotation(pe) {
  const $ = (id) => document.getElementById(id);
  let spec = null; // { spec, seqLen, apply: the options of pe.rope.apply }
  let freqs = null; // pe.rope.frequencies(spec, { seqLen })
  let trail = { key: '', points: [] };
  let current = null; // { m, i, x, y, angles: Float64Array }
  const pair = numberControl('rope-pair', () => redraw());
  const pos = numberControl('rope-pos', () => redraw());
  const speed = $('rope-speed');
  const play = $('rope-play');

  const circle = new PlotCanvas($('rope-circle'), (ctx, w, h) => drawCircle(ctx, w, h),
    'The chosen pair of lanes as a point on the unit circle, turning with the position');
  const angles = new LinePlot($('rope-angles'), {
    label: 'The rotation angle of every pair at position m', xLabel: 'pair i', yLabel: 'angle (rad)', yRange: [-3.6, 3.6], xPad: 0.6,
    onCursor: (i) => {
      pair.set(i);
      redraw();
    },
  });

  /** Rows of a unit vector (1 in the first lane of every pair), rotated to `positions` by posenc. */
  function rotatedUnits(positions) {
    const { headDim: d, rotaryDim: r, pairing: p } = spec.spec;
    const rows = positions.length;
    const x = new Float32Array(rows * d);
    for (let row = 0; row < rows; row++) {
      for (let i = 0; i < r / 2; i++) x[row * d + pairLanes(i, r, p)[0]] = 1;
    }
    pe.rope.apply(x, null, { ...spec.apply, dims: [rows, d], positionIds: positions });
    return x;
  }

  function redraw() {
    if (!spec) return;
    const { rotaryDim: r, pairing: p } = spec.spec;
    const pairs = r / 2;
    const i = Math.max(0, Math.min(pairs - 1, Math.round(pair.get()) || 0));
    const m = Number.isFinite(pos.get()) ? pos.get() : 0;
    const [a, b] = pairLanes(i, r, p);
    const row = rotatedUnits([m]);
    const all = new Float64Array(pairs);
    for (let k = 0; k < pairs; k++) {
      const [ka, kb] = pairLanes(k, r, p);
      all[k] = Math.atan2(row[kb], row[ka]);
    }
    current = { m, i, a, b, x: row[a], y: row[b], angles: all, length: Math.hypot(row[a], row[b]) };
    const last = Math.floor(Math.max(0, m));
    const key = `${JSON.stringify(spec.apply)}/${i}/${last}`;
    if (trail.key !== key) {
      const first = Math.max(0, last - TRAIL + 1);
      const ids = Array.from({ length: last - first + 1 }, (_, k) => first + k);
      const rows = rotatedUnits(ids);
      trail = { key, points: ids.map((p, k) => ({ p, x: rows[k * spec.spec.headDim + a], y: rows[k * spec.spec.headDim + b] })) };
    }
    circle.redraw();
    const xs = Float64Array.from({ length: pairs }, (_, k) => k);
    angles.setSeries([{ name: `angle at m = ${m.toFixed(2)}`, color: SERIES_COLOURS[0], x: xs, y: all, style: 'stems', highlight: i }]);
    angles.setLines({ hlines: [{ at: Math.PI, label: '+π', color: '#999', side: 'right' }, { at: -Math.PI, label: '−π', color: '#999', side: 'right' }] });
    angles.setCursorIndex(i);
    const w = freqs.invFreq[i];
    setReadout($('rope-circle-readout'),
      field('m', m.toFixed(2)), '   ', field('pair i', String(i), 'pair'), `   lanes (${a}, ${b})   `,
      field(`θ${sub(i)}`, sig(w, 6), 'theta'), ' rad/token\n',
      `m·θ${sub(i)} = `, valueSpan('angle', sig(m * w, 6)), ` rad = ${sig((m * w * 180) / Math.PI, 5)}°   wrapped to ±π: `,
      valueSpan('wrapped', signed(all[i], 6)), ' rad\n',
      'pe.rope.apply: (1, 0) ↦ (', valueSpan('x', signed(current.x, 6)), ', ', valueSpan('y', signed(current.y, 6)), '), length ',
      valueSpan('length', current.length.toFixed(6)),
    );
    setReadout($('rope-angles-readout'), field('pair i', String(i), 'pair'), `   angle at m = ${m.toFixed(2)}: `,
      valueSpan('angle', signed(all[i], 6)), ' rad');
  }

  function drawCircle(ctx, w, h) {
    if (!current) return;
    const A = freqs.attentionFactor;
    // the unit circle shrinks when the attention factor lengthens the vector, so both fit
    const R = Math.max(10, Math.min(w, h) / 2 - 34) / Math.max(1, A);
    const cx = w / 2;
    const cy = h / 2;
    const at = (x, y) => [cx + R * x, cy - R * y];
    ctx.font = PLOT_FONT;
    ctx.strokeStyle = '#d5d9e3';
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(cx - R - 14, cy);
    ctx.lineTo(cx + R + 14, cy);
    ctx.moveTo(cx, cy - R - 14);
    ctx.lineTo(cx, cy + R + 14);
    ctx.stroke();
    ctx.strokeStyle = MUTED;
    ctx.beginPath();
    ctx.arc(cx, cy, R, 0, 2 * Math.PI);
    ctx.stroke();
    if (Math.abs(A - 1) > 1e-9) {
      ctx.setLineDash([4, 4]);
      ctx.beginPath();
      ctx.arc(cx, cy, R * A, 0, 2 * Math.PI);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = MUTED;
      ctx.textAlign = 'right';
      ctx.textBaseline = 'top';
      ctx.fillText(`dashed: radius ${A.toFixed(4)} (attention factor)`, w - 8, 8);
    }

    // the integer positions so far, older ones fainter
    const n = trail.points.length;
    const labelEvery = Math.max(1, Math.ceil(n / 12));
    trail.points.forEach((pt, k) => {
      const [px, py] = at(pt.x, pt.y);
      ctx.globalAlpha = 0.25 + (0.75 * (k + 1)) / n;
      ctx.fillStyle = SERIES_COLOURS[1];
      ctx.beginPath();
      ctx.arc(px, py, 3.5, 0, 2 * Math.PI);
      ctx.fill();
      if ((n - 1 - k) % labelEvery === 0) {
        ctx.fillStyle = INK;
        ctx.textAlign = 'center';
        ctx.textBaseline = 'middle';
        const len = Math.hypot(pt.x, pt.y) || 1;
        ctx.fillText(String(pt.p), cx + (R * len + 14) * (pt.x / len), cy - (R * len + 14) * (pt.y / len));
      }
    });
    ctx.globalAlpha = 1;
    // the angle, counter-clockwise from lane a's axis
    const turn = ((current.angles[current.i] % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
    ctx.strokeStyle = SERIES_COLOURS[2];
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.arc(cx, cy, R * 0.22, 0, -turn, true);
    ctx.stroke();
    // the vector
    const [tx, ty] = at(current.x, current.y);
    ctx.strokeStyle = SERIES_COLOURS[0];
    ctx.fillStyle = SERIES_COLOURS[0];
    ctx.lineWidth = 2.5;
    ctx.beginPath();
    ctx.moveTo(cx, cy);
    ctx.lineTo(tx, ty);
    ctx.stroke();
    const ang = Math.atan2(cy - ty, tx - cx);
    ctx.beginPath();
    ctx.moveTo(tx, ty);
    ctx.lineTo(tx - 11 * Math.cos(ang - 0.4), ty + 11 * Math.sin(ang - 0.4));
    ctx.lineTo(tx - 11 * Math.cos(ang + 0.4), ty + 11 * Math.sin(ang + 0.4));
    ctx.closePath();
    ctx.fill();
    ctx.fillStyle = INK;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    ctx.fillText(`m = ${current.m.toFixed(2)}`, 8, 8);
    ctx.fillStyle = MUTED;
    ctx.fillText(`→ lane ${current.a}`, 8, 26);
    ctx.fillText(`↑ lane ${current.b}`, 8, 42);
  }

  // Playing: the position grows in real time; a hidden section does not animate.
  let playing = false;
  let visible = true;
  let lastTime = 0;
  new IntersectionObserver(([entry]) => { visible = entry.isIntersecting; }).observe($('rope-circle'));
  function tick(time) {
    if (!playing) return;
    const dt = Math.min(0.1, (time - lastTime) / 1000);
    lastTime = time;
    if (visible) {
      const m = (Number.isFinite(pos.get()) ? pos.get() : 0) + Number(speed.value) * dt;
      const slider = $('rope-pos-range');
      if (m > Number(slider.max)) slider.max = String(Math.ceil(m / 64) * 64);
      pos.set(Math.round(m * 100) / 100);
      redraw();
    }
    requestAnimationFrame(tick);
  }
  play.addEventListener('click', () => {
    playing = !playing;
    play.setAttribute('aria-pressed', String(playing));
    play.textContent = playing ? '❚❚ Pause' : '▶ Play';
    if (playing) {
      requestAnimationFrame((t) => {
        lastTime = t;
        tick(t);
      });
    }
  });

  return {
    update(shared, frequencies) {
      spec = shared;
      freqs = frequencies;
      pair.setMax(spec.spec.rotaryDim / 2 - 1);
      trail.key = '';
      redraw();
      return [`pe.rope.apply(unit, null, { ...spec, dims: [1, ${spec.spec.headDim}], positionIds: [m], seqLen: ${spec.seqLen} });   // one pair turning`];
    },
  };
}
