// The RoPE tools on files: `shift` (KV-cache context shift, pe.rope.shift), `permute` (q/k
// projection rows for the other pairing, pe.rope.permuteWeights), `doctor` (pe.doctor.config and
// pe.doctor.identify) and `precision` (the precision oracle, pe.precision.oracle).

import type { PosEnc } from '../posenc.js';
import { PRECISION_PIPELINES } from '../tools/precision.js';
import type { PrecisionPipeline } from '../tools/precision.js';
import type { Command, Report } from './command.js';
import { JSON_FLAG, outputFlags, outputOf, writeReport } from './command.js';
import type { FlagValues } from './flags.js';
import { CliError } from './flags.js';
import { readJsonObject } from './files.js';
import { readTensor, tensorFileFlags } from './input.js';
import { withOutputs } from './jobs.js';
import { SPEC_API_NAMES, SPEC_FLAGS } from './rope-flags.js';
import { LAYER_FLAGS, layerSpec, numberList, numberOrList } from './tool-flags.js';
import { HEAD_FLAGS, headShape, IN_FLAGS, transformFile } from './transform.js';

/** A per-token list for tokens [start, start + n), checked once to hold one value per token. */
function perToken(values: FlagValues, name: string, seq: number): number[] | undefined {
  const list = numberList(values, name);
  if (list !== undefined && list.length !== seq) {
    throw new CliError(`--${name} holds ${list.length} values; the tensor has ${seq} tokens, one value each (or use --${name === 'positions' ? 'offset' : name === 'new-positions' ? 'new-offset' : 'delta with one value'})`);
  }
  return list;
}

const shift: Command = {
  name: 'shift',
  summary: 'move rotated keys (a KV cache) to new positions: re-rotate them by the position difference',
  about: [
    'The keys of --in were rotated for their positions (--offset, or one per token with --positions); they move',
    'by --delta (one value, or one per token), or to --new-offset / --new-positions. The rotation by the difference',
    'is formed in float64 from both positions, so repeated shifts do not drift. Dynamic NTK and a LongRoPE list',
    'that would switch are refused (their frequencies depend on the length).',
  ],
  flags: [
    ...IN_FLAGS,
    ...HEAD_FLAGS,
    ...LAYER_FLAGS,
    ...SPEC_FLAGS,
    { name: 'offset', kind: 'number', default: '0', help: 'position of the first key (the keys are at offset, offset + 1, ...)' },
    { name: 'positions', kind: 'text', value: 'P0,P1,...', help: 'the position of every key, comma-separated (instead of --offset)' },
    { name: 'delta', kind: 'text', value: 'D|D0,D1,...', help: 'how far every key moves: one number, or one per key' },
    { name: 'new-offset', kind: 'number', help: 'the new position of the first key (keys stay consecutive)' },
    { name: 'new-positions', kind: 'text', value: 'P0,P1,...', help: 'the new position of every key' },
    { name: 'seq-len', kind: 'int', min: 1, help: 'LongRoPE: a length that fixes the factor list for old and new positions' },
    ...outputFlags('k'),
  ],
  examples: [
    'posenc shift --in k.npy --layout bhsd --rotary-dim 64 --offset 100 --delta -40 --out k_shifted.npy',
    'posenc shift --in k.npy --config config.json --positions 0,5,6 --new-offset 1 --out k_moved.npy',
  ],
  apiNames: { ...SPEC_API_NAMES, layout: '--layout', numHeads: '--num-heads', offset: '--offset', positionIds: '--positions',
    delta: '--delta', newOffset: '--new-offset', newPositionIds: '--new-positions', k: '--in' },
  run: (ctx, values) => transformFile(ctx, values, 'shift', 'keys moved to their new positions', async (source) => {
    const spec = await layerSpec(ctx.pe, values);
    const shape = headShape(source, values);
    if (values.positions !== undefined && values.offset !== undefined) throw new CliError('give --offset or --positions, not both');
    const positions = perToken(values, 'positions', shape.seq);
    const newPositions = perToken(values, 'new-positions', shape.seq);
    const delta = numberOrList(values, 'delta');
    if (Array.isArray(delta)) perToken(values, 'delta', shape.seq);
    const offset = (values.offset as number | undefined) ?? 0;
    const newOffset = values['new-offset'] as number | undefined;
    const extra = { layout: shape.layout, numHeads: shape.numHeads, seqLen: values['seq-len'] };
    return {
      label: 'shift', groups: shape.groups, seq: shape.seq, width: shape.width,
      dimsOf: shape.dimsOf,
      apply: (t, start, n) => {
        const slice = (list: number[] | undefined) => list?.slice(start, start + n);
        ctx.pe.rope.shift(t, {
          ...spec, ...extra,
          ...(positions ? { positionIds: slice(positions) } : { offset: offset + start }),
          ...(delta !== undefined ? { delta: Array.isArray(delta) ? slice(delta) : delta } : {}),
          ...(newOffset !== undefined ? { newOffset: newOffset + start } : {}),
          ...(newPositions ? { newPositionIds: slice(newPositions) } : {}),
        } as Parameters<PosEnc['rope']['shift']>[1]);
      },
    };
  }),
};

const permute: Command = {
  name: 'permute',
  summary: "reorder a q/k projection's rows for the other RoPE pairing (Meta/GGUF interleaved <-> Hugging Face half)",
  about: [
    '--to half turns Meta-style rows (adjacent lanes pair) into Hugging Face\'s (lane i pairs with i + rotaryDim/2),',
    'as transformers\' convert_llama_weights_to_hf.py does; --to interleaved undoes it, as llama.cpp\'s',
    'convert_hf_to_gguf.py does. --in is a weight [numHeads * headDim, inputs] or a bias [numHeads * headDim].',
  ],
  flags: [
    ...tensorFileFlags('in', 'the weight or bias'),
    { name: 'to', kind: 'choice', choices: ['half', 'interleaved'], required: true, help: 'the pairing the rows should have afterwards' },
    { name: 'num-heads', kind: 'int', min: 1, required: true, help: 'heads of the projection (num_attention_heads for q_proj, num_key_value_heads for k_proj)' },
    { name: 'head-dim', kind: 'int', min: 2, help: 'lanes per head (default: rows / num-heads)' },
    { name: 'rotary-dim', kind: 'int', min: 2, help: 'rotated lanes per head; the others keep their rows (default: the whole head)' },
    ...outputFlags('weight'),
  ],
  examples: ['posenc permute --in q_proj.npy --to half --num-heads 32 --out q_proj_hf.npy'],
  apiNames: { to: '--to', numHeads: '--num-heads', headDim: '--head-dim', rotaryDim: '--rotary-dim', weight: '--in' },
  async run(ctx, values): Promise<Report> {
    const t0 = performance.now();
    const w = await readTensor(ctx.pe, values, 'in');
    const permuted = ctx.pe.rope.permuteWeights(w, {
      to: values.to as 'half' | 'interleaved',
      numHeads: values['num-heads'] as number,
      headDim: values['head-dim'] as number | undefined,
      rotaryDim: values['rotary-dim'] as number | undefined,
    });
    const { files } = await withOutputs([outputOf(values, 'weight', permuted.dims)], async ([file]) => file!.write(0, 0, permuted.data));
    return writeReport('permute', `rows reordered for the ${String(values.to)} pairing:`, files, (performance.now() - t0) / 1000);
  },
};

/** JSON with typed arrays as plain arrays. */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v)));
}

const doctor: Command = {
  name: 'doctor',
  summary: "list a config.json's ambiguities and the choices made, or identify the RoPE that turned --before into --after",
  about: [
    'With a config.json: its per-layer plan, then every place where the config leaves room and what posenc chose.',
    'With --before and --after (head rows before and after a model rotated them, at --offset or --positions): the',
    'pairing, rotary dim, base, scaling and offset that explain the rotation, with a residual and a confidence.',
  ],
  positional: { name: 'CONFIG', help: "a model's config.json (or give --before and --after)" },
  flags: [
    ...tensorFileFlags('before', 'q or k before the rotation', false),
    ...tensorFileFlags('after', 'the same tensor after the rotation', false),
    ...HEAD_FLAGS,
    { name: 'offset', kind: 'number', help: 'position of the first token (default 0)' },
    { name: 'positions', kind: 'text', value: 'P0,P1,...', help: 'the position of every token, comma-separated' },
    JSON_FLAG,
  ],
  examples: ['posenc doctor config.json', 'posenc doctor --before q.npy --after q_rot.npy --layout bhsd --offset 20'],
  apiNames: { layout: '--layout', numHeads: '--num-heads', offset: '--offset', positionIds: '--positions', before: '--before', after: '--after' },
  async run(ctx, values, positionals): Promise<Report> {
    const { pe } = ctx;
    const path = positionals[0];
    if (path !== undefined) {
      const tensorFlags = ['before', 'before-tensor', 'after', 'after-tensor', 'layout', 'num-heads', 'offset', 'positions'].filter((f) => values[f] !== undefined);
      if (tensorFlags.length) throw new CliError(`a config.json and --${tensorFlags.join(', --')} do not go together: give one or the other`);
      const report = pe.doctor.config(await readJsonObject(path));
      return {
        lines: [
          ...pe.model.summarize(report.plan).filter((l) => !l.startsWith('note: ')),
          report.findings.length ? `${report.findings.length} findings:` : 'no ambiguities found',
          ...report.findings.map((f) => `- ${f.key ? `${f.key}: ` : ''}${f.text}`),
        ],
        json: plain(report),
      };
    }
    if (values.before === undefined || values.after === undefined) throw new CliError('give a config.json, or --before and --after tensor files');
    if (values.positions !== undefined && values.offset !== undefined) throw new CliError('give --offset or --positions, not both');
    const before = await readTensor(pe, values, 'before');
    const after = await readTensor(pe, values, 'after');
    const r = pe.doctor.identify(before, after, {
      layout: values.layout as 'bshd' | 'bhsd' | undefined,
      numHeads: values['num-heads'] as number | undefined,
      offset: values.offset as number | undefined,
      positionIds: numberList(values, 'positions'),
    });
    const s = r.spec;
    const sc = s.scaling as Record<string, unknown> | undefined;
    const scaling = sc ? `${String(sc.type)} (${Object.entries(sc).filter(([k]) => k !== 'type').map(([k, v]) => `${k} ${Array.isArray(v) ? `[${v.length} values]` : String(v)}`).join(', ')})` : 'none';
    const rows: [string, string][] = [
      ['pairing', s.pairing], ['rotary dim', `${s.rotaryDim} of ${s.headDim} lanes`], ['base', String(s.base)], ['scaling', scaling],
      ['attention factor', String(Number(r.attentionFactor.toPrecision(7)))],
      ['offset', r.offset === 0 ? '0 (the positions given)' : `${r.offset} (the rotation used the positions given + ${r.offset})`],
      ['residual', `${r.residual.toExponential(1)} (free per-pair fit ${r.fitResidual.toExponential(1)})`], ['confidence', r.confidence],
    ];
    return {
      lines: [...rows.map(([k, v]) => `${k.padEnd(16)}  ${v}`), ...r.notes.map((n) => `note: ${n}`), `spec: ${JSON.stringify(s)}`],
      json: plain(r),
    };
  },
};


/** Position ranges [0, b), [b, 2b), [2b, 4b), ...: one table row each. */
function ranges(length: number, bucket: number): [number, number][] {
  const out: [number, number][] = [[0, Math.min(bucket, length)]];
  for (let start = bucket; start < length; start *= 2) out.push([start, Math.min(2 * start, length)]);
  return out;
}

const precision: Command = {
  name: 'precision',
  summary: 'how far float32/float16/bfloat16 pipelines (Hugging Face, ggml) compute RoPE from float64, by position',
  about: [
    'The largest error of a rotated unit vector against float64, for ranges of positions [0, b), [b, 2b), [2b, 4b)...;',
    '--steps says which step of each pipeline runs in which precision. The time it took goes to stderr.',
  ],
  positional: { name: 'CONFIG', help: "a model's config.json (or give --rotary-dim and --base)" },
  flags: [
    { name: 'layer', kind: 'int', min: 0, help: 'with a config.json: the layer (default: the first with RoPE)' },
    { name: 'rotary-dim', kind: 'int', min: 2, help: 'rotated lanes per head, without a config.json' },
    { name: 'base', kind: 'number', positive: true, default: '10000', help: 'frequency base, without a config.json' },
    { name: 'context', kind: 'int', min: 1, required: true, help: 'the number of positions to evaluate (0 .. context - 1)' },
    { name: 'pipelines', kind: 'text', value: 'NAME,...', help: `which pipelines (default all: ${PRECISION_PIPELINES.join(', ')})` },
    { name: 'steps', kind: 'switch', help: 'also list the steps of each pipeline and their precision' },
    JSON_FLAG,
  ],
  examples: ['posenc precision config.json --context 131072', 'posenc precision --rotary-dim 128 --base 500000 --context 8192 --pipelines hf-bfloat16'],
  apiNames: { contextLength: '--context', pipelines: '--pipelines', layer: '--layer', rotaryDim: '--rotary-dim', base: '--base' },
  async run(ctx, values, positionals): Promise<Report> {
    const { pe } = ctx;
    const path = positionals[0];
    const contextLength = values.context as number;
    const layer = values.layer as number | undefined;
    let target: Parameters<typeof pe.precision.oracle>[0];
    let what: string;
    if (path !== undefined) {
      if (values['rotary-dim'] !== undefined || values.base !== undefined) throw new CliError('a config.json defines the RoPE; leave out --rotary-dim and --base');
      target = pe.model.fromConfig(await readJsonObject(path));
      what = path;
    } else {
      if (layer !== undefined) throw new CliError('--layer needs a config.json');
      if (values['rotary-dim'] === undefined) throw new CliError('give a config.json or --rotary-dim');
      target = { rotaryDim: values['rotary-dim'] as number, base: values.base as number | undefined };
      what = 'the RoPE given';
    }
    const pipelines = values.pipelines === undefined ? undefined : String(values.pipelines).split(',') as PrecisionPipeline[];
    const bucket = 2 ** Math.max(0, Math.floor(Math.log2(contextLength / 128)));
    const started = performance.now();
    const report = pe.precision.oracle(target, { contextLength, bucket, pipelines, layer });
    const seconds = (performance.now() - started) / 1000;
    const s = report.spec;
    const width = Math.max(...report.pipelines.map((p) => p.name.length), 8);
    const lines = [
      `${what}: RoPE rotary dim ${s.rotaryDim}, base ${s.base}, ${s.scalingType}${s.attentionFactor !== 1 ? `, attention factor ${Number(s.attentionFactor.toPrecision(6))}` : ''}; positions 0-${contextLength - 1}`,
      ...report.notes.map((n) => `note: ${n}`),
      'largest error of a rotated unit vector against float64, by positions:',
      `${'positions'.padEnd(16)}${report.pipelines.map((p) => p.name.padStart(width + 2)).join('')}`,
      ...ranges(contextLength, bucket).map(([from, to]) => `${`${from}-${to - 1}`.padEnd(16)}${report.pipelines
        .map((p) => Math.max(...p.rotationError.slice(from / bucket, Math.ceil(to / bucket))).toExponential(1).padStart(width + 2)).join('')}`),
      `${'cos/sin rows'.padEnd(16)}${report.pipelines.map((p) => p.maxCosSinError.toExponential(1).padStart(width + 2)).join('')}`,
    ];
    if (values.steps) for (const p of report.pipelines) lines.push(`${p.name}:`, ...p.steps.map((step) => `  ${step}`));
    // The time goes to stderr: stdout stays the same from run to run.
    process.stderr.write(`${report.pipelines.length} pipelines x ${contextLength} positions x ${s.rotaryDim / 2} pairs in ${seconds.toFixed(2)} s\n`);
    return { lines, json: plain(report) };
  },
};

export const TOOL_COMMANDS: Command[] = [shift, permute, doctor, precision];
