// Relative positions, part 1: the distance between query i and key j in both sign conventions,
// and the row of Shaw et al.'s relative table each pair reads (pe.shaw.relativeIndices). The
// distance itself is page arithmetic (j − (offset + i)); the clipped indices come from posenc.
import { choiceControl, numberControl, perFrame, showStatus } from '../lib/controls.js';
import { int } from '../lib/format.js';
import { Heatmap } from '../lib/heatmap.js';
import { field, setReadout, valueSpan } from '../lib/readout.js';

/** 'the key is 3 tokens before the query' for a key-minus-query distance. */
export function describeDistance(keyMinusQuery) {
  if (keyMinusQuery === 0) return 'the key is the query’s own position';
  const n = Math.abs(keyMinusQuery);
  return `the key is ${int(n)} token${n === 1 ? '' : 's'} ${keyMinusQuery < 0 ? 'before' : 'after'} the query`;
}

export function mountDistance(pe, showCalls, status) {
  const $ = (id) => document.getElementById(id);
  let shared = null;
  let indices = null; // pe.shaw.relativeIndices result
  let k = 4;
  let cell = { row: 9, col: 3 };
  const sign = choiceControl('rel-sign', () => drawDistance(), $('relative'));
  const clip = numberControl('rel-shaw-k', perFrame(() => {
    try {
      computeShaw();
      showStatus(status, null);
    } catch (error) {
      showStatus(status, error.message);
    }
  }));
  const onCursor = (c) => {
    cell = c;
    distance.setCursor(c.row, c.col);
    shaw.setCursor(c.row, c.col);
    showReadouts();
  };
  const distance = new Heatmap($('rel-dist'), {
    label: 'Distance between every query and key', xLabel: 'key j', yLabel: 'query i', legendLabel: 'distance (tokens)', onCursor,
  });
  const shaw = new Heatmap($('rel-shaw-map'), {
    label: 'The row of the Shaw relative table each query and key pair reads', xLabel: 'key j', yLabel: 'query i',
    legendLabel: 'table row', onCursor,
  });

  const keyMinusQuery = (i, j) => j - (shared.queryOffset + i);
  const signOf = () => (sign.get() === 'key-minus-query' ? 1 : -1);

  function computeShaw() {
    const { qLen, kLen, queryOffset } = shared;
    k = clip.get();
    indices = pe.shaw.relativeIndices({ qLen, kLen, maxRelativePosition: k, queryOffset });
    shaw.setData({ values: Float32Array.from(indices.data), rows: qLen, cols: kLen, range: [0, 2 * k], colormap: 'sequential' });
    cell = { row: Math.min(cell.row, qLen - 1), col: Math.min(cell.col, kLen - 1) };
    shaw.setCursor(cell.row, cell.col);
    showCalls('shaw', [
      `pe.shaw.relativeIndices({ qLen: ${qLen}, kLen: ${kLen}, maxRelativePosition: ${k}, queryOffset: ${queryOffset} });   // rows of a [${2 * k + 1}, d] table`,
    ]);
    showReadouts();
  }

  function drawDistance() {
    if (!shared) return;
    const { qLen, kLen } = shared;
    const s = signOf();
    const values = new Float32Array(qLen * kLen);
    let max = 1;
    for (let i = 0; i < qLen; i++) {
      for (let j = 0; j < kLen; j++) {
        values[i * kLen + j] = s * keyMinusQuery(i, j);
        max = Math.max(max, Math.abs(values[i * kLen + j]));
      }
    }
    distance.o.legendLabel = s > 0 ? 'j − i (tokens)' : 'i − j (tokens)';
    distance.setData({ values, rows: qLen, cols: kLen, range: [-max, max] });
    distance.setCursor(cell.row, cell.col);
    showReadouts();
  }

  function showReadouts() {
    if (!shared || !indices) return;
    const { row: i, col: j } = cell;
    const d = keyMinusQuery(i, j);
    const s = signOf();
    setReadout($('rel-dist-readout'),
      field('query i', String(i), 'i'), ` (position ${int(shared.queryOffset + i)})   `, field('key j', String(j), 'j'), '\n',
      s > 0 ? 'j − i = ' : 'i − j = ', valueSpan('distance', int(s * d)), `: ${describeDistance(d)}`,
    );
    const index = indices.data[i * shared.kLen + j];
    setReadout($('rel-shaw-readout'),
      field('j − i', int(d), 'distance'), `   clipped to ±${k}: `, valueSpan('clipped', int(index - k)), '\n',
      'table row = ', valueSpan('index', String(index)), ` of ${2 * k + 1}   (row ${k} is distance 0)`,
    );
  }

  return {
    /** New lengths; throws posenc's error if they are not valid. */
    update(s) {
      const previous = shared;
      shared = s;
      try {
        computeShaw();
      } catch (error) {
        shared = previous; // keep drawing the last valid lengths
        throw error;
      }
      drawDistance();
    },
  };
}
