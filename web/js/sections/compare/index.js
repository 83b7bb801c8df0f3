// Section "Comparison": every relative method's score or bias against the distance in one figure
// (one panel each, one shared distance axis and cursor), up to past the training length, so that
// what each does there shows: Shaw's index and T5's bucket stop changing, DeBERTa's buckets keep
// growing slowly, ALiBi's bias keeps falling in a straight line, RoPE's q·k meets new angles.
// Every value is a posenc call for one query looking back at keys 0..D (a causal query at D).
import { seriesColour } from '../../plot/colormap.js';
import { LinePlot } from '../../plot/lineplot.js';
import { choice, number } from '../../ui/control-specs.js';
import { int, signed } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { PageError } from '../../ui/section.js';

/** @typedef {import('../../ui/section.js').Section} Section */

export const SETTINGS = {
  trained: number({ label: 'training length', unit: 'tokens', value: 512, step: 1, min: 2, max: 16384 }),
  distance: number({ label: 'distance shown up to', unit: 'tokens', value: 2048, step: 1, min: 16, max: 16384, slider: [16, 16384] }),
  axis: choice({ label: 'distance axis', as: 'radio', value: 'log1p', options: [['log1p', 'logarithmic'], ['linear', 'linear']] }),
};

/** The fixed parameters of each method (their usual defaults). */
export const PARAMS = {
  shawK: 16,
  t5: { numBuckets: 32, maxDistance: 128, bidirectional: false },
  deberta: { bucketSize: 256, maxPosition: 512 },
  alibi: { numHeads: 8, head: 4 }, // slope 2^-4 = 1/16
  rope: { headDim: 64, base: 10000 },
};

/**
 * Each method's value for a query at D and every key j = D − r, r = 0..D (index r).
 * @param {import('posenc').PosEnc} pe @param {number} D
 */
export function methodValues(pe, D) {
  const kLen = D + 1;
  const back = (/** @type {ArrayLike<number>} */ row) => Float64Array.from({ length: kLen }, (_, r) => row[D - r]); // by distance r
  const shaw = pe.shaw.relativeIndices({ qLen: 1, kLen, queryOffset: D, maxRelativePosition: PARAMS.shawK }).data;
  const t5 = pe.t5.buckets({ qLen: 1, kLen, queryOffset: D, ...PARAMS.t5 }).data;
  const deberta = pe.deberta.relativePositions({ qLen: kLen, kLen: 1, ...PARAMS.deberta }).data; // i − 0 = r
  const { numHeads, head } = PARAMS.alibi;
  const alibi = pe.alibi.bias({ numHeads, qLen: 1, kLen, queryOffset: D }).data.subarray((head - 1) * kLen, head * kLen);
  const d = PARAMS.rope.headDim;
  const ones = (/** @type {number} */ n) => new Float32Array(n * d).fill(1);
  const rope = pe.attention.logits({ data: ones(1), dims: [1, d] }, { data: ones(kLen), dims: [kLen, d] },
    { rope: { base: PARAMS.rope.base }, queryOffset: D, scale: 1 }).data;
  return {
    shaw: back(Array.from(shaw, (v) => v - PARAMS.shawK)), t5: back(t5), deberta: Float64Array.from(deberta),
    alibi: back(alibi), rope: back(rope),
  };
}

/** @typedef {keyof ReturnType<typeof methodValues>} MethodId */

/** What each panel shows, and what happens past the training length. */
const METHODS = /** @type {Array<{ id: MethodId, name: string, y: string, past: (r: number, L: number, v: ReturnType<typeof methodValues>) => string }>} */ ([
  {
    id: 'shaw', name: `Shaw: clipped j − i (k = ${PARAMS.shawK})`, y: 'table row − k',
    past: (r) => (r > PARAMS.shawK ? `same row as distance ${PARAMS.shawK}: blind to how far` : 'its own row'),
  },
  {
    id: 't5', name: `T5: bucket (${PARAMS.t5.numBuckets} buckets, maxDistance ${PARAMS.t5.maxDistance}, decoder)`, y: 'bucket',
    past: (r) => (r >= PARAMS.t5.maxDistance ? 'the last bucket, shared by every farther key' : 'a bucket seen in training'),
  },
  {
    id: 'deberta', name: `DeBERTa: log bucket (${PARAMS.deberta.bucketSize}, ${PARAMS.deberta.maxPosition})`, y: 'bucket',
    past: (r, L, v) => (r >= L && v.deberta[r] > (v.deberta[L - 1] ?? 0) ? 'a bucket never seen in training' : 'a bucket seen in training'),
  },
  {
    id: 'alibi', name: `ALiBi: bias, head ${PARAMS.alibi.head} of ${PARAMS.alibi.numHeads} (slope 1/16)`, y: 'bias',
    past: (r, L) => (r >= L ? 'a larger penalty than in training, on the same straight line' : 'a penalty seen in training'),
  },
  {
    id: 'rope', name: `RoPE: q·k for q = k = (1, …, 1), d = ${PARAMS.rope.headDim}`, y: 'q·k',
    past: (r, L) => (r >= L ? 'angles of the slow pairs never seen in training' : 'angles seen in training'),
  },
]);

/** @param {Section} section */
export function mount(section) {
  const { pe } = section;
  const settings = section.panel('settings', SETTINGS);
  const figure = section.figure('by-distance');
  /** @type {ReturnType<typeof methodValues> | null} */
  let values = null;
  let L = 512;
  let cursor = 600;
  const plots = METHODS.map((m, k) => new LinePlot(figure.plot(m.id), {
    label: `${m.name}, against the distance`, xLabel: k === METHODS.length - 1 ? 'distance i − j (tokens back)' : '', yLabel: m.y, xScale: 'log1p',
    onCursor: (_, index) => {
      cursor = index;
      read();
    },
  }));

  function read() {
    if (!values) return;
    const v = values;
    const r = Math.min(cursor, v.shaw.length - 1);
    for (const plot of plots) plot.setCursorIndex(r);
    setReadout(figure.readout(),
      [field('distance', int(r)), r >= L ? `: past the training length (${int(L)})` : `: inside the training length (${int(L)})`],
      ...METHODS.map((m) => [`${m.id === 'rope' ? 'RoPE' : m.name.split(':')[0]}: `, valueSpan(m.id, m.id === 'alibi' || m.id === 'rope' ? signed(v[m.id][r], 4) : int(v[m.id][r])), `  ${m.past(r, L, v)}`]));
  }

  const update = section.updater({ status: section.status(settings), figures: [figure] }, () => {
    const problem = settings.problem();
    if (problem) throw new PageError(problem);
    const { trained, distance: D } = settings.values();
    if (!Number.isInteger(trained) || !Number.isInteger(D)) throw new PageError('the lengths are whole numbers of tokens');
    L = trained;
    values = methodValues(pe, D);
    const axis = settings.get('axis');
    for (const plot of plots) plot.o.xScale = axis;
    const x = Float64Array.from({ length: D + 1 }, (_, r) => r);
    METHODS.forEach((m, k) => {
      const plot = /** @type {LinePlot} */ (plots[k]);
      plot.setSeries([{ name: m.name, color: seriesColour(k), x, y: /** @type {ReturnType<typeof methodValues>} */ (values)[m.id], width: 1.5 }]);
      plot.setLines({ vlines: L <= D ? [{ at: L, label: 'training length', color: '#666' }] : [] });
    });
    read();
    section.calls('compare', [
      `pe.shaw.relativeIndices({ qLen: 1, kLen: ${D + 1}, queryOffset: ${D}, maxRelativePosition: ${PARAMS.shawK} });`,
      `pe.t5.buckets({ qLen: 1, kLen: ${D + 1}, queryOffset: ${D}, numBuckets: 32, maxDistance: 128, bidirectional: false });`,
      `pe.deberta.relativePositions({ qLen: ${D + 1}, kLen: 1, bucketSize: 256, maxPosition: 512 });   // i − j = 0..${D}`,
      `pe.alibi.bias({ numHeads: 8, qLen: 1, kLen: ${D + 1}, queryOffset: ${D} });   // head 4: −(1/16)·(i − j)`,
      `pe.attention.logits(ones[1, 64], ones[${D + 1}, 64], { rope: { base: 10000 }, queryOffset: ${D}, scale: 1 });   // q·k after RoPE`,
    ]);
    return true;
  });
  settings.onChange(() => update());
  update();
}
