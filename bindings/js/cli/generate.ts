// Commands that generate tensors into files, rows at a time: sinusoidal tables, ALiBi and T5
// biases, and RoPE cos/sin caches (the ONNX RotaryEmbedding cos_cache/sin_cache inputs).
import type { OutputDtype } from '../io/dtypes.js';
import type { PosEnc } from '../posenc.js';
import type { Command } from './command.js';
import { dimsText, outputFlags, outputOf, writeReport } from './command.js';
import type { FlagValues } from './flags.js';
import { CliError } from './flags.js';
import { readTensor, tensorFileFlags } from './input.js';
import { runRows, withOutputs } from './jobs.js';
import type { JobContext, OutputSpec } from './jobs.js';
import { CONFIG_API_NAMES, CONFIG_FLAGS, ropeSpec, SPEC_API_NAMES, SPEC_FLAGS } from './rope-flags.js';
import { SINUSOIDAL_FLAGS, sinusoidalPositions } from './sinusoidal-flags.js';

const seconds = (t0: number) => (performance.now() - t0) / 1000;

const sinusoidal: Command = {
  name: 'sinusoidal',
  summary: 'write a sinusoidal position table [length, dim]',
  about: ['Row p holds position offset + p: sin(p w_i) in column 2i, cos(p w_i) in column 2i+1, w_i = base^(-2i/dim) (interleaved layout).'],
  flags: [
    { name: 'length', kind: 'int', min: 1, required: true, help: 'number of rows (positions offset .. offset + length - 1)' },
    { name: 'dim', kind: 'int', min: 1, required: true, help: 'width of a row' },
    ...SINUSOIDAL_FLAGS,
    ...outputFlags('table'),
  ],
  examples: [
    'posenc sinusoidal --length 2048 --dim 1024 --out table.npy',
    'posenc sinusoidal --length 512 --dim 768 --layout half --precision fast --dtype float16 --out table.safetensors',
  ],
  apiNames: { length: '--length', dim: '--dim', base: '--base', layout: '--layout', precision: '--precision', offset: '--offset' },
  async run(ctx, values) {
    const t0 = performance.now();
    const length = values.length as number;
    const dim = values.dim as number;
    const positions = sinusoidalPositions(values, length);
    const { files } = await withOutputs([outputOf(values, 'table', [length, dim])], async ([file]) => {
      const options = { dim, base: values.base, layout: values.layout, precision: values.precision } as const;
      await runRows(ctx, {
        label: 'sinusoidal', rows: length, outer: 1, inner: dim, ...positions.pieces, targets: [{ file: file!, index: 0 }],
        compute(start, count, pool) {
          const out = pool.get([count, dim]);
          const at = positions.of(start, count);
          ctx.pe.sinusoidal.table({ ...options, ...at, ...('offset' in at ? { length: count } : {}), out } as Parameters<PosEnc['sinusoidal']['table']>[0]);
          return [out.view()];
        },
      }, [file!]);
    });
    return writeReport('sinusoidal', 'sinusoidal table', files, seconds(t0));
  },
};

const alibi: Command = {
  name: 'alibi',
  summary: 'write an ALiBi bias [heads, qLen, kLen]',
  about: ["Query i sits at position query-offset + i and key j at j; form 'causal' holds -m_h (i - j), and -inf for future keys unless --no-mask-future."],
  flags: [
    { name: 'num-heads', kind: 'int', min: 1, required: true, help: 'number of heads (slopes 2^(-max-bias h / num-heads))' },
    { name: 'q-len', kind: 'int', min: 1, required: true, help: 'number of queries (rows)' },
    { name: 'k-len', kind: 'int', min: 1, required: true, help: 'number of keys (columns)' },
    { name: 'form', kind: 'choice', choices: ['causal', 'symmetric', 'bloom'], default: 'causal', help: 'causal: -m (i - j); symmetric: -m |i - j|; bloom: m j' },
    { name: 'max-bias', kind: 'number', positive: true, default: '8', help: 'the 8 of the slopes 2^(-8h/heads)' },
    { name: 'query-offset', kind: 'int', min: 0, default: '0', help: 'position of query 0 (e.g. the cache length when decoding)' },
    { name: 'mask-future', kind: 'switch', default: 'on for causal', help: 'future keys hold -inf (--no-mask-future: the formula)' },
    ...outputFlags('bias'),
  ],
  examples: ['posenc alibi --num-heads 12 --q-len 1024 --k-len 1024 --out bias.npy'],
  apiNames: { numHeads: '--num-heads', qLen: '--q-len', kLen: '--k-len', form: '--form', maxBias: '--max-bias', queryOffset: '--query-offset', maskFuture: '--mask-future' },
  async run(ctx, values) {
    const t0 = performance.now();
    const heads = values['num-heads'] as number;
    const qLen = values['q-len'] as number;
    const kLen = values['k-len'] as number;
    const queryOffset = (values['query-offset'] as number | undefined) ?? 0;
    const options = { numHeads: heads, kLen, form: values.form, maxBias: values['max-bias'], maskFuture: values['mask-future'] } as const;
    const { files } = await withOutputs([outputOf(values, 'bias', [heads, qLen, kLen])], async ([file]) => {
      await runRows(ctx, {
        label: 'alibi', rows: qLen, outer: heads, inner: kLen, targets: [{ file: file!, index: 0 }],
        compute(start, count, pool) {
          const out = pool.get([heads, count, kLen]);
          ctx.pe.alibi.bias({ ...options, qLen: count, queryOffset: queryOffset + start, out } as Parameters<PosEnc['alibi']['bias']>[0]);
          return [out.view()];
        },
      }, [file!]);
    });
    return writeReport('alibi', 'ALiBi bias', files, seconds(t0));
  },
};

const t5Bias: Command = {
  name: 't5-bias',
  summary: "write a T5 relative position bias [heads, qLen, kLen] from a model's bucket table",
  about: ["bias[h, i, j] = table[bucket(j - (query-offset + i)), h], with the [numBuckets, heads] table of Hugging Face's relative_attention_bias."],
  flags: [
    ...tensorFileFlags('table', 'the [numBuckets, heads] table'),
    { name: 'q-len', kind: 'int', min: 1, required: true, help: 'number of queries (rows)' },
    { name: 'k-len', kind: 'int', min: 1, required: true, help: 'number of keys (columns)' },
    { name: 'num-buckets', kind: 'int', min: 1, default: '32', help: 'relative_attention_num_buckets' },
    { name: 'max-distance', kind: 'int', min: 1, default: '128', help: 'relative_attention_max_distance' },
    { name: 'bidirectional', kind: 'switch', default: 'on', help: 'separate buckets for both directions (encoder); --no-bidirectional for decoder self-attention' },
    { name: 'query-offset', kind: 'int', min: 0, default: '0', help: 'position of query 0' },
    ...outputFlags('bias'),
  ],
  examples: ['posenc t5-bias --table rel_bias.npy --q-len 512 --k-len 512 --out t5_bias.npy'],
  apiNames: { table: '--table', tableDims: '--table', qLen: '--q-len', kLen: '--k-len', numBuckets: '--num-buckets', maxDistance: '--max-distance', bidirectional: '--bidirectional', queryOffset: '--query-offset' },
  async run(ctx, values) {
    const t0 = performance.now();
    const table = await readTensor(ctx.pe, values, 'table');
    if (table.dims.length !== 2) throw new CliError(`--table ${values.table as string} must be [numBuckets, heads], got ${dimsText(table.dims)}`);
    const heads = table.dims[1]!;
    const qLen = values['q-len'] as number;
    const kLen = values['k-len'] as number;
    const queryOffset = (values['query-offset'] as number | undefined) ?? 0;
    const resident = ctx.pe.memory.tensor(table.dims, table.data);
    const options = { kLen, numBuckets: values['num-buckets'], maxDistance: values['max-distance'], bidirectional: values.bidirectional } as const;
    try {
      const { files } = await withOutputs([outputOf(values, 'bias', [heads, qLen, kLen])], async ([file]) => {
        await runRows(ctx, {
          label: 't5-bias', rows: qLen, outer: heads, inner: kLen, targets: [{ file: file!, index: 0 }],
          compute(start, count, pool) {
            const out = pool.get([heads, count, kLen]);
            ctx.pe.t5.bias(resident, { ...options, qLen: count, queryOffset: queryOffset + start, out } as Parameters<PosEnc['t5']['bias']>[1]);
            return [out.view()];
          },
        }, [file!]);
      });
      return writeReport('t5-bias', 'T5 bias', files, seconds(t0));
    } finally {
      resident.dispose();
    }
  },
};

const ropeCache: Command = {
  name: 'rope-cache',
  summary: 'write RoPE cos/sin caches [maxPositions, rotaryDim/2] (the ONNX RotaryEmbedding cos_cache and sin_cache)',
  about: [
    'Row p holds cos(p w_i) and sin(p w_i) times the attention factor, exactly as pe.rope.createCache(...).toTensors() gives them.',
    'Write them to two files (--cos, --sin) or to one .safetensors file (--out) as cos_cache and sin_cache.',
  ],
  flags: [
    ...CONFIG_FLAGS,
    ...SPEC_FLAGS.filter((f) => f.name !== 'pairing'),
    { name: 'max-positions', kind: 'int', min: 1, required: true, help: 'positions 0 .. N-1' },
    { name: 'seq-len', kind: 'int', min: 1, help: 'the current length for dynamic and LongRoPE scaling (default --max-positions)' },
    { name: 'cos', kind: 'text', value: 'FILE', help: 'the cos cache file (.npy, .safetensors or .json)' },
    { name: 'sin', kind: 'text', value: 'FILE', help: 'the sin cache file' },
    { name: 'out', kind: 'text', value: 'FILE', help: 'instead of --cos and --sin: one .safetensors file holding cos_cache and sin_cache' },
    ...outputFlags('').filter((f) => f.name === 'dtype' || f.name === 'json'),
  ],
  examples: [
    'posenc rope-cache --rotary-dim 64 --base 10000 --max-positions 4096 --cos cos.npy --sin sin.npy',
    'posenc rope-cache --config config.json --max-positions 8192 --out rope_cache.safetensors',
  ],
  apiNames: { ...SPEC_API_NAMES, ...CONFIG_API_NAMES, maxPositions: '--max-positions' },
  async run(ctx, values) {
    const t0 = performance.now();
    const outputs = cacheOutputs(values);
    const spec = await ropeSpec(ctx.pe, values);
    const headDim = (spec.headDim as number | undefined) ?? (spec.rotaryDim as number | undefined);
    if (headDim === undefined) throw new CliError('--rotary-dim is required (or --config)');
    const rotaryDim = (spec.rotaryDim as number | undefined) ?? headDim;
    if (rotaryDim % 2 !== 0) throw new CliError(`--rotary-dim must be even, got ${rotaryDim}`);
    const pairs = rotaryDim / 2;
    const rows = values['max-positions'] as number;
    const seqLen = (values['seq-len'] as number | undefined) ?? rows; // as createCache: the cache's length
    const dims = [rows, pairs];
    const specs: OutputSpec[] = outputs.map((o) => ({ ...o, tensors: o.names.map((name) => ({ name, dims })) }));
    const { files } = await withOutputs(specs, async (opened) => {
      const targets = opened.length === 1 ? [{ file: opened[0]!, index: 0 }, { file: opened[0]!, index: 1 }] : opened.map((file) => ({ file, index: 0 }));
      await runRows(ctx, {
        label: 'rope-cache', rows, outer: 1, inner: pairs, targets,
        compute(start, count, pool) {
          // RoPE of a probe row (1 in the first half of the rotated lanes, 0 in the second) is
          // (cos, sin) times the attention factor: the rotation multiplies by 1 and adds 0, which
          // is exact, so these are the cache's own values for positions start .. start + count - 1.
          const probe = pool.get([count, headDim]);
          const v = probe.view();
          v.fill(0);
          for (let r = 0; r < count; r++) v.fill(1, r * headDim, r * headDim + pairs);
          ctx.pe.rope.apply(probe, null, { ...spec, pairing: 'half', offset: start, seqLen });
          const w = probe.view();
          const cos = new Float32Array(count * pairs);
          const sin = new Float32Array(count * pairs);
          for (let r = 0; r < count; r++) {
            cos.set(w.subarray(r * headDim, r * headDim + pairs), r * pairs);
            sin.set(w.subarray(r * headDim + pairs, r * headDim + rotaryDim), r * pairs);
          }
          return [cos, sin];
        },
      }, opened);
    });
    return writeReport('rope-cache', 'RoPE cache', files, seconds(t0));
  },
};

/** --cos and --sin, or --out (one .safetensors file): the files and the tensor names in each. */
function cacheOutputs(values: FlagValues): { path: string; flag: string; dtype: OutputDtype; names: string[] }[] {
  const dtype = (values.dtype as OutputDtype | undefined) ?? 'float32';
  if (values.out !== undefined) {
    if (values.cos !== undefined || values.sin !== undefined) throw new CliError('give either --out (one .safetensors file) or --cos and --sin, not both');
    if (!/\.safetensors$/i.test(values.out as string)) throw new CliError(`--out ${values.out as string}: the two caches go in one .safetensors file; for .npy files use --cos and --sin`);
    return [{ path: values.out as string, flag: '--out', dtype, names: ['cos_cache', 'sin_cache'] }];
  }
  if (values.cos === undefined || values.sin === undefined) throw new CliError('--cos and --sin are required (or --out cache.safetensors)');
  return [
    { path: values.cos as string, flag: '--cos', dtype, names: ['cos_cache'] },
    { path: values.sin as string, flag: '--sin', dtype, names: ['sin_cache'] },
  ];
}

export const GENERATE_COMMANDS: Command[] = [sinusoidal, alibi, t5Bias, ropeCache];
