// Arrows in a plane (vector addition drawn tip to tail): axes through the origin, each arrow from
// its start to its end, labels placed where they fit (labels.js). The scale fits every arrow.
import { MUTED, crossAxes } from '../../plot/canvas.js';
import { LabelLayout } from '../../plot/labels.js';

/** @typedef {{ from: [number, number], to: [number, number], label: string, color: string, bold?: boolean, dashed?: boolean }} Arrow */

/**
 * @param {CanvasRenderingContext2D} ctx @param {number} w @param {number} h
 * @param {{ axes: [string, string], arrows: Arrow[] }} scene
 */
export function drawArrows(ctx, w, h, { axes, arrows }) {
  const layout = new LabelLayout(w, h);
  let reach = 0.5;
  for (const a of arrows) for (const p of [a.from, a.to]) reach = Math.max(reach, Math.abs(p[0]), Math.abs(p[1]));
  const pad = 40;
  const R = Math.max(10, Math.min(w, h) / 2 - pad);
  const cx = w / 2;
  const cy = h / 2 + 8;
  const at = (/** @type {[number, number]} */ p) => /** @type {[number, number]} */ ([cx + (p[0] / reach) * R, cy - (p[1] / reach) * R]);
  crossAxes(ctx, cx, cy, R + 12);
  layout.segment(cx - R - 12, cy, cx + R + 12, cy);
  layout.segment(cx, cy - R - 12, cx, cy + R + 12);
  layout.draw(ctx, `→ ${axes[0]}`, [{ x: w - 6, y: cy + 4, align: 'right', baseline: 'top' }, { x: w - 6, y: cy - 4, align: 'right', baseline: 'bottom' }], { color: MUTED });
  layout.draw(ctx, `↑ ${axes[1]}`, [{ x: cx + 6, y: 24, align: 'left', baseline: 'top' }, { x: cx - 6, y: 24, align: 'right', baseline: 'top' }], { color: MUTED });
  // the legend, top left: the labels on the arrows are left out where they do not fit
  ctx.save();
  ctx.textBaseline = 'middle';
  let lx = 6;
  for (const a of arrows) {
    const tw = ctx.measureText(a.label).width;
    ctx.fillStyle = a.color;
    if (a.dashed) {
      ctx.fillRect(lx, 10, 5, 2);
      ctx.fillRect(lx + 9, 10, 5, 2);
    } else ctx.fillRect(lx, 9, 14, a.bold ? 4 : 3);
    ctx.fillStyle = MUTED;
    ctx.fillText(a.label, lx + 18, 11);
    layout.box({ x: lx, y: 2, w: tw + 20, h: 18 });
    lx += tw + 30;
  }
  ctx.restore();
  const ends = arrows.map((a) => ({ a, p0: at(a.from), p1: at(a.to) }));
  for (const { a, p0, p1 } of ends) {
    ctx.strokeStyle = a.color;
    ctx.fillStyle = a.color;
    ctx.lineWidth = a.bold ? 3 : 2;
    ctx.setLineDash(a.dashed ? [5, 4] : []);
    ctx.beginPath();
    ctx.moveTo(...p0);
    ctx.lineTo(...p1);
    ctx.stroke();
    ctx.setLineDash([]);
    const len = Math.hypot(p1[0] - p0[0], p1[1] - p0[1]);
    if (len > 4) {
      const ang = Math.atan2(p1[1] - p0[1], p1[0] - p0[0]);
      const head = Math.min(11, len / 2);
      ctx.beginPath();
      ctx.moveTo(...p1);
      ctx.lineTo(p1[0] - head * Math.cos(ang - 0.4), p1[1] - head * Math.sin(ang - 0.4));
      ctx.lineTo(p1[0] - head * Math.cos(ang + 0.4), p1[1] - head * Math.sin(ang + 0.4));
      ctx.closePath();
      ctx.fill();
    }
    layout.segment(...p0, ...p1);
    layout.box({ x: p1[0] - 6, y: p1[1] - 6, w: 12, h: 12 });
  }
  // each label beside the middle of its arrow, on either side, else near its tip
  for (const { a, p0, p1 } of ends) {
    const mx = (p0[0] + p1[0]) / 2;
    const my = (p0[1] + p1[1]) / 2;
    const len = Math.hypot(p1[0] - p0[0], p1[1] - p0[1]) || 1;
    const nx = -(p1[1] - p0[1]) / len;
    const ny = (p1[0] - p0[0]) / len;
    /** @type {import('../../plot/labels.js').Candidate[]} */
    const candidates = [];
    for (const d of [12, -12, 24, -24]) {
      const x = mx + nx * d;
      const y = my + ny * d;
      candidates.push({ x, y, align: nx * d >= 0 ? 'left' : 'right', baseline: 'middle' });
    }
    for (const t of [0.8, 0.25]) {
      candidates.push({ x: p0[0] + (p1[0] - p0[0]) * t + 10, y: p0[1] + (p1[1] - p0[1]) * t, align: 'left', baseline: 'middle' });
      candidates.push({ x: p0[0] + (p1[0] - p0[0]) * t - 10, y: p0[1] + (p1[1] - p0[1]) * t, align: 'right', baseline: 'middle' });
    }
    layout.draw(ctx, a.label, candidates, { color: a.color, optional: true });
  }
  return layout;
}
