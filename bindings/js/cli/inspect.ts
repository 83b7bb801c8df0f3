// Commands that print rather than write: `info` (the build) and `rope-config` (the RoPE a model's
// config.json defines, as a short table or, with --json, in full).
import type { RopeFrequencies } from '../families/rope/spec.js';
import type { Command, Report } from './command.js';
import { JSON_FLAG } from './command.js';
import { CliError } from './flags.js';
import { readJsonObject } from './files.js';
import { PLAN_COMMAND } from './plan-command.js';
import { CONFIG_API_NAMES, ropeSpec } from './rope-flags.js';

const info: Command = {
  name: 'info',
  summary: 'print the version and the SIMD architecture of the module',
  flags: [JSON_FLAG],
  examples: ['posenc info'],
  async run(ctx) {
    const { pe } = ctx;
    return {
      lines: [`posenc ${pe.version} (WebAssembly SIMD kernels: ${pe.simd}; Node.js ${process.versions.node})`],
      json: { version: pe.version, simd: pe.simd, node: process.versions.node },
    };
  },
};

/** A number in few characters: 500000, 0.0123, 2.45e-7. */
function num(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (v !== 0 && (Math.abs(v) >= 1e7 || Math.abs(v) < 1e-3)) return v.toExponential(2);
  return String(+v.toPrecision(6));
}

function countOf<T>(list: readonly T[], value: T): number {
  return list.filter((x) => x === value).length;
}

/** What the scaling variant changed, in one line (undefined without scaling). */
function diagnostics(f: RopeFrequencies): string | undefined {
  switch (f.scalingType) {
    case 'linear':
      return `every frequency divided by ${num(f.factor)}`;
    case 'ntk':
    case 'dynamic':
      return `effective base ${num(f.effectiveBase)}${f.seqLen !== undefined ? ` at length ${f.seqLen}` : ''}`;
    case 'yarn': {
      const ramp = Array.from(f.yarn!.ramp);
      return `correction range pairs ${num(f.yarn!.low)}..${num(f.yarn!.high)}: ${ramp.filter((r) => r <= 0).length} pairs kept, ` +
        `${ramp.filter((r) => r > 0 && r < 1).length} blended, ${ramp.filter((r) => r >= 1).length} divided by ${num(f.factor)}`;
    }
    case 'llama3': {
      const b = f.llama3!.band;
      return `${countOf(b, 'unchanged')} pairs kept (short wavelengths), ${countOf(b, 'blended')} blended, ` +
        `${countOf(b, 'divided')} divided by ${num(f.factor)} (long wavelengths)`;
    }
    case 'longrope': {
      const l = Array.from(f.longrope!.factors);
      return `${f.longrope!.list} factor list in use${f.seqLen !== undefined ? ` at length ${f.seqLen}` : ''}: ${num(Math.min(...l))}..${num(Math.max(...l))}`;
    }
    default:
      return undefined;
  }
}

const ropeConfig: Command = {
  name: 'rope-config',
  summary: "print the RoPE a model's config.json defines: spec, frequencies, attention factor, scaling diagnostics",
  about: ['A short table by default; --json prints the whole spec and every frequency and diagnostic.'],
  positional: { name: 'CONFIG', help: "the model's config.json" },
  flags: [
    { name: 'seq-len', kind: 'int', min: 1, help: 'the current length, for dynamic and LongRoPE scaling' },
    { name: 'layer-type', kind: 'text', value: 'TYPE', help: "the layer type, for configs that give a RoPE per type (e.g. 'sliding_attention')" },
    JSON_FLAG,
  ],
  examples: ['posenc rope-config config.json', 'posenc rope-config config.json --seq-len 32768 --json'],
  apiNames: { ...CONFIG_API_NAMES, seqLen: '--seq-len' },
  async run(ctx, values, positionals): Promise<Report> {
    const path = positionals[0];
    if (path === undefined) throw new CliError("the path of a model's config.json is required: posenc rope-config config.json");
    const spec = await ropeSpec(ctx.pe, { config: path, 'layer-type': values['layer-type'] });
    const seqLen = values['seq-len'] as number | undefined;
    const f = ctx.pe.rope.frequencies(spec, seqLen === undefined ? undefined : { seqLen });
    const config = await readJsonObject(path);
    const inv = Array.from(f.invFreq);
    const [hi, lo] = [Math.max(...inv), Math.min(...inv)];
    const rotaryDim = spec.rotaryDim as number;
    const scaling = spec.scaling as Record<string, unknown> | undefined;
    const scalingText = scaling === undefined
      ? 'none'
      : `${scaling.type as string}${Object.entries(scaling).filter(([k]) => k !== 'type').map(([k, v]) => `, ${k} ${Array.isArray(v) || ArrayBuffer.isView(v) ? `[${(v as ArrayLike<number>).length} values]` : String(v)}`).join('')}`;
    const rows: [string, string][] = [
      ['model type', typeof config.model_type === 'string' ? config.model_type : '(not given)'],
      ['head dim', String(spec.headDim)],
      ['rotary dim', `${rotaryDim} (${rotaryDim / 2} pairs${rotaryDim < (spec.headDim as number) ? `, the other ${(spec.headDim as number) - rotaryDim} lanes pass through` : ''})`],
      ['base', num(spec.base as number)],
      ['pairing', spec.pairing === 'half' ? 'half (lane i with lane i + rotaryDim/2: GPT-NeoX, HF Llama)' : 'interleaved (lanes 2i and 2i+1: GPT-J, Meta Llama)'],
      ['scaling', scalingText],
      ['frequencies', `${num(hi)} .. ${num(lo)} rad/position (wavelengths ${num((2 * Math.PI) / hi)} .. ${num((2 * Math.PI) / lo)} positions)`],
      ['attention factor', num(f.attentionFactor)],
    ];
    const d = diagnostics(f);
    if (d !== undefined) rows.push(['diagnostics', d]);
    const width = Math.max(...rows.map(([k]) => k.length));
    return {
      lines: [`${path}: RoPE`, ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`)],
      json: JSON.parse(JSON.stringify({ spec, frequencies: f }, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v))),
    };
  },
};

export const INSPECT_COMMANDS: Command[] = [info, ropeConfig, PLAN_COMMAND];
