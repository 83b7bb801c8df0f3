// Drawing one RoPE pair as a point on the unit circle: the axes of its two lanes, the circle (and
// a dashed one of radius = the attention factor when a scaling lengthens the vector), the integer
// positions before the current one (older ones fainter), the angle and the vector. Position labels
// are placed where they fit (labels.js): at slow pairs, where the points crowd, some go unlabelled.
import { INK, MUTED, crossAxes } from '../../plot/canvas.js';
import { seriesColour } from '../../plot/colormap.js';
import { LabelLayout } from '../../plot/labels.js';
import { fixed, int } from '../../ui/format.js';

/**
 * @typedef {object} CircleState
 * @property {number} m  the position
 * @property {number} a  lane of the pair's x axis
 * @property {number} b  lane of its y axis
 * @property {number} x  the rotated unit vector's lanes
 * @property {number} y
 * @property {number} angle  its angle, wrapped to ±π
 * @property {Array<{ p: number, x: number, y: number }>} trail  integer positions before m
 * @property {number} attentionFactor
 */

/** @param {CanvasRenderingContext2D} ctx @param {number} w @param {number} h @param {CircleState} s */
export function drawCircle(ctx, w, h, s) {
  const layout = new LabelLayout(w, h);
  const A = s.attentionFactor;
  // the unit circle shrinks when the attention factor lengthens the vector, so both fit
  const R = Math.max(10, Math.min(w, h) / 2 - 34) / Math.max(1, A);
  const cx = w / 2;
  const cy = h / 2;
  const at = (/** @type {number} */ x, /** @type {number} */ y) => [cx + R * x, cy - R * y];
  crossAxes(ctx, cx, cy, R + 14);
  ctx.strokeStyle = MUTED;
  ctx.beginPath();
  ctx.arc(cx, cy, R, 0, 2 * Math.PI);
  ctx.stroke();
  for (let k = 0; k < 96; k++) {
    const t = (2 * Math.PI * k) / 96;
    layout.segment(cx + R * Math.cos(t), cy + R * Math.sin(t), cx + R * Math.cos(t + Math.PI / 48), cy + R * Math.sin(t + Math.PI / 48));
  }
  // the texts in the corners first: position labels must not cover them
  layout.draw(ctx, `m = ${fixed(s.m, 2)}`, [{ x: 8, y: 8, align: 'left', baseline: 'top' }]);
  layout.draw(ctx, `→ lane ${s.a}`, [{ x: 8, y: 26, align: 'left', baseline: 'top' }], { color: MUTED });
  layout.draw(ctx, `↑ lane ${s.b}`, [{ x: 8, y: 44, align: 'left', baseline: 'top' }], { color: MUTED });
  if (Math.abs(A - 1) > 1e-9) {
    ctx.setLineDash([4, 4]);
    ctx.beginPath();
    ctx.arc(cx, cy, R * A, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.setLineDash([]);
    layout.draw(ctx, `dashed: radius ${fixed(A, 4)} (attention factor)`, [
      { x: w - 8, y: 8, align: 'right', baseline: 'top' }, { x: w - 8, y: h - 8, align: 'right', baseline: 'bottom' },
    ], { color: MUTED });
  }
  // the vector and the angle, counter-clockwise from lane a's axis
  const [tx, ty] = at(s.x, s.y);
  const turn = ((s.angle % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
  ctx.strokeStyle = seriesColour(2);
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.arc(cx, cy, R * 0.22, 0, -turn, true);
  ctx.stroke();
  ctx.strokeStyle = seriesColour(0);
  ctx.fillStyle = seriesColour(0);
  ctx.lineWidth = 2.5;
  ctx.beginPath();
  ctx.moveTo(cx, cy);
  ctx.lineTo(tx, ty);
  ctx.stroke();
  layout.segment(cx, cy, tx, ty);
  const ang = Math.atan2(cy - ty, tx - cx);
  ctx.beginPath();
  ctx.moveTo(tx, ty);
  ctx.lineTo(tx - 11 * Math.cos(ang - 0.4), ty + 11 * Math.sin(ang - 0.4));
  ctx.lineTo(tx - 11 * Math.cos(ang + 0.4), ty + 11 * Math.sin(ang + 0.4));
  ctx.closePath();
  ctx.fill();
  layout.box({ x: tx - 8, y: ty - 8, w: 16, h: 16 });
  // the integer positions so far, older ones fainter; labels newest first, each only where it fits
  const n = s.trail.length;
  s.trail.forEach((pt, k) => {
    const [px, py] = at(pt.x, pt.y);
    ctx.globalAlpha = 0.25 + (0.75 * (k + 1)) / n;
    ctx.fillStyle = seriesColour(1);
    ctx.beginPath();
    ctx.arc(px, py, 3.5, 0, 2 * Math.PI);
    ctx.fill();
    layout.box({ x: px - 3.5, y: py - 3.5, w: 7, h: 7 });
  });
  ctx.globalAlpha = 1;
  for (let k = n - 1; k >= 0; k--) {
    const pt = s.trail[k];
    const len = Math.hypot(pt.x, pt.y) || 1;
    const angle = Math.atan2(pt.y, pt.x);
    // outside the circle first, straight out or a little to either side; then inside
    const candidates = [[20, 0], [20, 0.12], [20, -0.12], [32, 0], [-22, 0], [-22, 0.15], [-22, -0.15]].map(([d, turn]) => ({
      x: cx + (R * len + d) * Math.cos(angle + turn), y: cy - (R * len + d) * Math.sin(angle + turn),
      align: /** @type {CanvasTextAlign} */ ('center'), baseline: /** @type {'middle'} */ ('middle'),
    }));
    layout.draw(ctx, int(pt.p), candidates, { color: INK, optional: true });
  }
  return layout;
}
