// Commands that apply an encoding to a tensor file, positions at a time: add the sinusoidal
// encoding or a learned table's rows to embeddings, rotate q or k with RoPE.
import type { PosEnc } from '../posenc.js';
import type { Command } from './command.js';
import { dimsText, outputFlags, outputOf, writeReport } from './command.js';
import type { Flag, FlagValues } from './flags.js';
import { CliError } from './flags.js';
import { openTensor, readTensor, tensorFileFlags } from './input.js';
import type { TensorSource } from './input.js';
import { runTransform, withOutputs } from './jobs.js';
import type { JobContext, TransformJob } from './jobs.js';
import { CONFIG_API_NAMES, CONFIG_FLAGS, ropeSpec, SPEC_API_NAMES, SPEC_FLAGS } from './rope-flags.js';
import { SINUSOIDAL_FLAGS, sinusoidalPositions } from './sinusoidal-flags.js';

export const IN_FLAGS: Flag[] = tensorFileFlags('in', 'the input tensor');

/** Opens --in, runs `job(source)` over it into --out (same dims), and reports. */
export async function transformFile(ctx: JobContext, values: FlagValues, command: string, what: string,
  job: (source: TensorSource) => TransformJob | Promise<TransformJob>) {
  const t0 = performance.now();
  const source = await openTensor(ctx.pe, values, 'in');
  let plan: TransformJob | undefined;
  try {
    plan = await job(source);
    const { files } = await withOutputs([outputOf(values, 'x', source.dims)], async ([file]) => runTransform(ctx, plan!, source, file!));
    return writeReport(command, what, files, (performance.now() - t0) / 1000);
  } finally {
    plan?.dispose?.();
    await source.close();
  }
}

/** [seq, dim] or [batch, seq, dim] as [groups, seq, width]. */
function embeddingShape(source: TensorSource) {
  const d = source.dims;
  if (d.length !== 2 && d.length !== 3) throw new CliError(`--in ${source.path} must be [seq, dim] or [batch, seq, dim], got ${dimsText(d)}`);
  return d.length === 2 ? { groups: 1, seq: d[0]!, width: d[1]! } : { groups: d[0]!, seq: d[1]!, width: d[2]! };
}

const addSinusoidal: Command = {
  name: 'add-sinusoidal',
  summary: 'add the sinusoidal encoding to embeddings [seq, dim] or [batch, seq, dim]',
  about: ['Token s of every batch row gets the table row of position offset + s.'],
  flags: [...IN_FLAGS, ...SINUSOIDAL_FLAGS, ...outputFlags('x')],
  examples: ['posenc add-sinusoidal --in embeddings.npy --offset 128 --out embedded.npy'],
  apiNames: { base: '--base', layout: '--layout', precision: '--precision', offset: '--offset', x: '--in' },
  run: (ctx, values) => transformFile(ctx, values, 'add-sinusoidal', 'embeddings plus the sinusoidal encoding', (source) => {
    const shape = embeddingShape(source);
    const positions = sinusoidalPositions(values, shape.seq);
    const options = { base: values.base, layout: values.layout, precision: values.precision };
    return {
      label: 'add-sinusoidal', ...shape, ...positions.pieces,
      dimsOf: (n) => [1, n, shape.width],
      apply: (t, start, n) => { ctx.pe.sinusoidal.addTo(t, { ...options, ...positions.of(start, n) } as Parameters<PosEnc['sinusoidal']['addTo']>[1]); },
    };
  }),
};

const addLearned: Command = {
  name: 'add-learned',
  summary: "add a learned position table's rows to embeddings (e.g. GPT-2's wpe)",
  about: ['Token s of every batch row gets row offset + s of the table.'],
  flags: [
    ...IN_FLAGS,
    ...tensorFileFlags('table', 'the [positions, dim] table'),
    { name: 'offset', kind: 'int', min: 0, default: '0', help: 'the table row of the first token' },
    ...outputFlags('x'),
  ],
  examples: ['posenc add-learned --in embeddings.npy --table wpe.npy --out embedded.npy'],
  apiNames: { offset: '--offset', x: '--in', table: '--table' },
  run: (ctx, values) => transformFile(ctx, values, 'add-learned', 'embeddings plus learned positions', async (source) => {
    const shape = embeddingShape(source);
    const tablePath = values.table as string;
    const rows = await readTensor(ctx.pe, values, 'table');
    if (rows.dims.length !== 2) throw new CliError(`--table ${tablePath} must be [positions, dim], got ${dimsText(rows.dims)}`);
    if (rows.dims[1] !== shape.width) throw new CliError(`--table ${tablePath} rows have width ${rows.dims[1]}, but --in ${source.path} has dim ${shape.width}`);
    const offset = (values.offset as number | undefined) ?? 0;
    if (offset + shape.seq > rows.dims[0]!) {
      throw new CliError(`--offset ${offset} with ${shape.seq} tokens needs table rows up to ${offset + shape.seq - 1}, but --table ${tablePath} has rows 0..${rows.dims[0]! - 1}`);
    }
    const table = ctx.pe.learned.createTable(rows);
    return {
      label: 'add-learned', ...shape,
      dimsOf: (n) => [1, n, shape.width],
      apply: (t, start) => { table.addTo(t, { offset: offset + start }); },
      dispose: () => table.dispose(),
    };
  }),
};

/** --layout and --num-heads: how a q/k tensor file splits into heads. */
export const HEAD_FLAGS: Flag[] = [
  { name: 'layout', kind: 'choice', choices: ['bshd', 'bhsd'], help: 'memory order of a 4-D tensor (required for one)' },
  { name: 'num-heads', kind: 'int', min: 1, help: 'heads of a 3-D tensor (required for one)' },
];

const rope: Command = {
  name: 'rope',
  summary: 'rotate a q or k tensor with RoPE (from a config.json or explicit parameters)',
  about: [
    'Shapes: 4-D [batch, seq, heads, headDim] (--layout bshd) or [batch, heads, seq, headDim] (--layout bhsd),',
    '3-D [batch, seq, heads * headDim] (with --num-heads), or 2-D [seq, headDim]. Token s is at position offset + s.',
  ],
  flags: [
    ...IN_FLAGS,
    ...HEAD_FLAGS,
    ...CONFIG_FLAGS,
    ...SPEC_FLAGS,
    { name: 'offset', kind: 'number', default: '0', help: 'position of the first token (e.g. the past length when decoding)' },
    { name: 'seq-len', kind: 'int', min: 1, help: 'the current length for dynamic and LongRoPE scaling (default offset + seq)' },
    ...outputFlags('x'),
  ],
  examples: ['posenc rope --in q.npy --layout bhsd --rotary-dim 64 --offset 128 --out q_rot.npy'],
  apiNames: { ...SPEC_API_NAMES, ...CONFIG_API_NAMES, layout: '--layout', numHeads: '--num-heads', offset: '--offset', q: '--in' },
  run: (ctx, values) => transformFile(ctx, values, 'rope', 'tensor rotated by RoPE', async (source) => {
    const spec = await ropeSpec(ctx.pe, values);
    const offset = (values.offset as number | undefined) ?? 0;
    const shape = headShape(source, values);
    const seqLen = (values['seq-len'] as number | undefined) ?? offset + shape.seq; // rope.apply's default for a whole tensor
    const extra = { layout: shape.layout, numHeads: shape.numHeads };
    return {
      label: 'rope', groups: shape.groups, seq: shape.seq, width: shape.width,
      dimsOf: shape.dimsOf,
      apply: (t, start) => { ctx.pe.rope.apply(t, null, { ...spec, ...extra, offset: offset + start, seqLen } as Parameters<PosEnc['rope']['apply']>[2]); },
    };
  }),
};

/** A q/k tensor as [groups, seq, width] with the dims of a piece of n tokens of one group. */
export function headShape(source: TensorSource, values: FlagValues) {
  const d = source.dims;
  const layout = values.layout as 'bshd' | 'bhsd' | undefined;
  const numHeads = values['num-heads'] as number | undefined;
  const where = `--in ${source.path} ${dimsText(d)}`;
  if (d.length === 4) {
    if (layout === undefined) throw new CliError(`${where} is 4-D: give --layout bshd ([batch, seq, heads, headDim]) or bhsd ([batch, heads, seq, headDim])`);
    const heads = layout === 'bshd' ? d[2]! : d[1]!;
    if (numHeads !== undefined && numHeads !== heads) throw new CliError(`--num-heads ${numHeads} disagrees with ${where} (layout ${layout}: ${heads} heads)`);
    return layout === 'bshd'
      ? { groups: d[0]!, seq: d[1]!, width: d[2]! * d[3]!, layout, numHeads: undefined, dimsOf: (n: number) => [1, n, d[2]!, d[3]!] }
      : { groups: d[0]! * d[1]!, seq: d[2]!, width: d[3]!, layout, numHeads: undefined, dimsOf: (n: number) => [1, 1, n, d[3]!] };
  }
  if (layout !== undefined) throw new CliError(`--layout is for 4-D tensors; ${where} is ${d.length}-D`);
  if (d.length === 3) {
    if (numHeads === undefined) throw new CliError(`${where} is [batch, seq, hidden]: give --num-heads`);
    if (d[2]! % numHeads !== 0) throw new CliError(`--num-heads ${numHeads} does not divide the last dim of ${where}`);
    return { groups: d[0]!, seq: d[1]!, width: d[2]!, layout: undefined, numHeads, dimsOf: (n: number) => [1, n, d[2]!] };
  }
  if (d.length === 2) {
    if (numHeads !== undefined && numHeads !== 1) throw new CliError(`${where} is [seq, headDim], one head; --num-heads must be 1 or left out`);
    return { groups: 1, seq: d[0]!, width: d[1]!, layout: undefined, numHeads: undefined, dimsOf: (n: number) => [n, d[1]!] };
  }
  throw new CliError(`${where} must have 2, 3 or 4 dims`);
}

export const TRANSFORM_COMMANDS: Command[] = [addSinusoidal, addLearned, rope];
