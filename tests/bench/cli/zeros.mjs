// The CLI's writer on zeros: `node tests/bench/cli/zeros.mjs ROWS DIM FILE` writes a [ROWS, DIM]
// float32 .npy of zeros with the same pieces, files and queue as `posenc sinusoidal` (dist/cli/
// jobs.js and output.js), computing nothing: the bound the CLI bench case sets a table against.
import { runRows, withOutputs } from '../../../dist/cli/jobs.js';
import { DEFAULT_CHUNK_BYTES } from '../../../dist/cli/jobs.js';

const [rows, dim] = process.argv.slice(2, 4).map(Number);
const path = process.argv[4];
const ctx = { pe: undefined, chunkBytes: Number(process.env.POSENC_CLI_CHUNK_BYTES || DEFAULT_CHUNK_BYTES), progressStream: process.stderr, progressDelayMs: 1000 };
const output = { path, flag: '--out', tensors: [{ name: 'table', dims: [rows, dim] }], dtype: 'float32' };
let zeros = new Float32Array(0);
await withOutputs([output], ([file]) => runRows(ctx, {
  label: 'zeros', rows, outer: 1, inner: dim, align: 32, minLast: 64, targets: [{ file, index: 0 }],
  compute(_start, count) {
    if (zeros.length < count * dim) zeros = new Float32Array(count * dim);
    return [zeros.subarray(0, count * dim)];
  },
}, [file]));
