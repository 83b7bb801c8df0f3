// The `posenc` command's subcommands: each parses its flags, calls the public API, writes files.
import type { Tensor } from '../runtime/args.js';
import { readJsonFile, readTensorFile, writeTensorFile } from './files.js';
import { PosEncError } from '../runtime/errors.js';
import type { PosEnc } from '../posenc.js';
import { PLAN_COMMAND } from './plan-command.js';
import { SHIFT_COMMAND } from './shift-command.js';
import { PERMUTE_COMMAND } from './permute-command.js';
import { DOCTOR_COMMAND } from './doctor-command.js';
import { PRECISION_COMMAND } from './precision-command.js';

/** Parsed flags: --name value pairs (values are strings) and positional arguments. */
export interface Flags {
  values: Record<string, string | undefined>;
  positionals: string[];
}

export interface Command {
  summary: string;
  usage: string;
  flags: readonly string[];
  run(pe: PosEnc, flags: Flags, print: (line: string) => void): Promise<void>;
}

function need(flags: Flags, name: string): string {
  const v = flags.values[name];
  if (v === undefined) throw new PosEncError('MISSING_OPTION', `--${name} is required`);
  return v;
}

/** A numeric flag (undefined when absent); a non-number is an error naming the flag. */
function num(flags: Flags, name: string): number | undefined {
  const v = flags.values[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || Number.isNaN(n)) throw new PosEncError('INVALID_ARGUMENT', `--${name} must be a number, got '${v}'`);
  return n;
}

/** A required numeric flag. */
function needNum(flags: Flags, name: string): number {
  need(flags, name);
  return num(flags, name)!;
}

function dimsText(t: Tensor): string {
  return `[${t.dims.join(', ')}]`;
}

/** The RoPE spec from --config (a model's config.json) or from --rotary-dim/--base/--pairing. */
async function ropeSpec(pe: PosEnc, flags: Flags): Promise<Record<string, unknown>> {
  const config = flags.values.config;
  if (config !== undefined) {
    if (flags.values['rotary-dim'] !== undefined || flags.values.base !== undefined || flags.values.pairing !== undefined) {
      throw new PosEncError('INVALID_ARGUMENT', '--config already defines the RoPE; do not combine it with --rotary-dim, --base or --pairing');
    }
    const spec: Record<string, unknown> = { ...pe.rope.fromConfig((await readJsonFile(config)) as object) };
    if (spec.mropeSection !== undefined) {
      throw new PosEncError('INVALID_ARGUMENT', `${config} describes a multimodal (M-RoPE) model; use pe.rope.applyMultimodal from JavaScript`);
    }
    return spec;
  }
  const spec: Record<string, unknown> = {};
  if (flags.values['rotary-dim'] !== undefined) spec.rotaryDim = num(flags, 'rotary-dim');
  if (flags.values.base !== undefined) spec.base = num(flags, 'base');
  if (flags.values.pairing !== undefined) spec.pairing = flags.values.pairing;
  return spec;
}

export const COMMANDS: Record<string, Command> = {
  info: {
    summary: 'print the version and the SIMD architecture of the module',
    usage: 'posenc info',
    flags: [],
    async run(pe, _flags, print) {
      print(`posenc ${pe.version} (WebAssembly SIMD kernels: ${pe.simd})`);
    },
  },

  sinusoidal: {
    summary: 'write a sinusoidal table [length, dim]',
    usage: 'posenc sinusoidal --length N --dim D [--base 10000] [--layout interleaved|half] [--precision exact|fast] [--offset 0] --out table.npy',
    flags: ['length', 'dim', 'base', 'layout', 'precision', 'offset', 'out'],
    async run(pe, flags, print) {
      const out = need(flags, 'out');
      const t = pe.sinusoidal.table({
        length: needNum(flags, 'length'),
        dim: needNum(flags, 'dim'),
        base: num(flags, 'base'),
        layout: flags.values.layout as 'interleaved' | 'half' | undefined,
        precision: flags.values.precision as 'exact' | 'fast' | undefined,
        offset: num(flags, 'offset'),
      });
      await writeTensorFile(pe, out, t);
      print(`wrote ${out}: sinusoidal table ${dimsText(t)}`);
    },
  },

  'add-sinusoidal': {
    summary: 'add the sinusoidal encoding to embeddings [seq, dim] or [batch, seq, dim]',
    usage: 'posenc add-sinusoidal --in embeddings.npy [--offset 0] [--base 10000] [--layout interleaved|half] --out out.npy',
    flags: ['in', 'offset', 'base', 'layout', 'out'],
    async run(pe, flags, print) {
      const x = await readTensorFile(pe, need(flags, 'in'));
      const out = need(flags, 'out');
      pe.sinusoidal.addTo(x, { offset: num(flags, 'offset'), base: num(flags, 'base'), layout: flags.values.layout as 'half' | undefined });
      await writeTensorFile(pe, out, x);
      print(`wrote ${out}: ${dimsText(x)} with the sinusoidal encoding added`);
    },
  },

  'add-learned': {
    summary: "add a learned position table's rows to embeddings (e.g. GPT-2 wpe)",
    usage: 'posenc add-learned --in embeddings.npy --table wpe.npy|model.safetensors [--tensor name] [--offset 0] --out out.npy',
    flags: ['in', 'table', 'tensor', 'offset', 'out'],
    async run(pe, flags, print) {
      const x = await readTensorFile(pe, need(flags, 'in'));
      const table = await readTensorFile(pe, need(flags, 'table'), flags.values.tensor);
      const out = need(flags, 'out');
      pe.learned.addTo(x, table, { offset: num(flags, 'offset') });
      await writeTensorFile(pe, out, x);
      print(`wrote ${out}: ${dimsText(x)} plus rows of the ${dimsText(table)} table`);
    },
  },

  rope: {
    summary: 'rotate a q or k tensor with RoPE (from a config.json or explicit parameters)',
    usage: 'posenc rope --in q.npy --layout bshd|bhsd [--num-heads H] (--config config.json | [--rotary-dim R] [--base B] [--pairing half|interleaved]) [--offset 0] [--seq-len L] --out q_rot.npy',
    flags: ['in', 'layout', 'num-heads', 'config', 'rotary-dim', 'base', 'pairing', 'offset', 'seq-len', 'out'],
    async run(pe, flags, print) {
      const x = await readTensorFile(pe, need(flags, 'in'));
      const spec = await ropeSpec(pe, flags);
      const out = need(flags, 'out');
      pe.rope.apply(x, null, {
        ...spec,
        layout: flags.values.layout as 'bshd' | 'bhsd' | undefined,
        numHeads: num(flags, 'num-heads'),
        offset: num(flags, 'offset'),
        seqLen: num(flags, 'seq-len'),
      });
      await writeTensorFile(pe, out, x);
      print(`wrote ${out}: ${dimsText(x)} rotated`);
    },
  },

  'rope-cache': {
    summary: 'write the cos/sin caches [maxPositions, rotaryDim/2] (ONNX RotaryEmbedding cos_cache/sin_cache)',
    usage: 'posenc rope-cache (--config config.json | --rotary-dim R [--base B]) --max-positions N [--seq-len L] --cos cos.npy --sin sin.npy',
    flags: ['config', 'rotary-dim', 'base', 'pairing', 'max-positions', 'seq-len', 'cos', 'sin'],
    async run(pe, flags, print) {
      const spec = await ropeSpec(pe, flags);
      const cosPath = need(flags, 'cos');
      const sinPath = need(flags, 'sin');
      const cache = pe.rope.createCache({ ...spec, maxPositions: needNum(flags, 'max-positions'), seqLen: num(flags, 'seq-len') });
      try {
        const { cos, sin } = cache.toTensors();
        await writeTensorFile(pe, cosPath, cos);
        await writeTensorFile(pe, sinPath, sin);
        print(`wrote ${cosPath} and ${sinPath}: ${dimsText(cos)} each`);
      } finally {
        cache.dispose();
      }
    },
  },

  'rope-config': {
    summary: "print the RoPE a model's config.json defines: spec, frequencies, attention factor, diagnostics (JSON)",
    usage: 'posenc rope-config config.json [--seq-len L] [--layer-type T]',
    flags: ['seq-len', 'layer-type'],
    async run(pe, flags, print) {
      const path = flags.positionals[0];
      if (path === undefined) throw new PosEncError('MISSING_OPTION', 'the path of a config.json is required');
      const config = (await readJsonFile(path)) as object;
      const layerType = flags.values['layer-type'];
      const spec = pe.rope.fromConfig(config, layerType === undefined ? undefined : { layerType });
      const seqLen = num(flags, 'seq-len');
      const freq = pe.rope.frequencies(spec, seqLen === undefined ? undefined : { seqLen });
      const plain = JSON.parse(JSON.stringify(freq, (_k, v) => (ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v)));
      print(JSON.stringify({ spec, frequencies: plain }, null, 2));
    },
  },

  plan: PLAN_COMMAND,
  shift: SHIFT_COMMAND,
  permute: PERMUTE_COMMAND,
  doctor: DOCTOR_COMMAND,
  precision: PRECISION_COMMAND,

  alibi: {
    summary: 'write an ALiBi bias [heads, qLen, kLen]',
    usage: 'posenc alibi --heads H --q-len Q --k-len K [--form causal|symmetric|bloom] [--max-bias 8] [--query-offset 0] --out bias.npy',
    flags: ['heads', 'q-len', 'k-len', 'form', 'max-bias', 'query-offset', 'out'],
    async run(pe, flags, print) {
      const out = need(flags, 'out');
      const t = pe.alibi.bias({
        numHeads: needNum(flags, 'heads'),
        qLen: needNum(flags, 'q-len'),
        kLen: needNum(flags, 'k-len'),
        form: flags.values.form as 'causal' | undefined,
        maxBias: num(flags, 'max-bias'),
        queryOffset: num(flags, 'query-offset'),
      });
      await writeTensorFile(pe, out, t);
      print(`wrote ${out}: ALiBi bias ${dimsText(t)}`);
    },
  },
};
