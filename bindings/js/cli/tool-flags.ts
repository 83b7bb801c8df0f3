// Flags the RoPE tool commands (shift, permute, doctor, precision) share: comma-separated position
// lists, and a RoPE spec from one layer of a model's config.json (through the per-layer plan, so
// models whose layers differ work too) or from explicit flags.
import type { PosEnc } from '../posenc.js';
import type { Flag, FlagValues } from './flags.js';
import { CliError } from './flags.js';
import { readJsonObject } from './files.js';
import { explicitSpec } from './rope-flags.js';

/** --config and --layer: one layer of a model. */
export const LAYER_FLAGS: Flag[] = [
  { name: 'config', kind: 'text', value: 'FILE', help: "a model's Hugging Face config.json: the RoPE of one of its layers" },
  { name: 'layer', kind: 'int', min: 0, default: '0', help: 'with --config: the layer whose RoPE to use' },
];

/** `--name 0,1,5` -> [0, 1, 5] (finite numbers); undefined when absent. */
export function numberList(values: FlagValues, name: string): number[] | undefined {
  const text = values[name];
  if (text === undefined) return undefined;
  return String(text).split(',').map((part, i) => {
    const v = Number(part);
    if (part.trim() === '' || !Number.isFinite(v)) throw new CliError(`--${name}: value ${i} ('${part}') is not a finite number`);
    return v;
  });
}

/** `--name 3` -> 3, `--name 3,-1,0` -> [3, -1, 0]; undefined when absent. */
export function numberOrList(values: FlagValues, name: string): number | number[] | undefined {
  const list = numberList(values, name);
  return list === undefined ? undefined : list.length === 1 && !String(values[name]).includes(',') ? list[0] : list;
}

/** The RoPE spec of layer --layer of --config, or of --rotary-dim/--base/--pairing. */
export async function layerSpec(pe: PosEnc, values: FlagValues): Promise<Record<string, unknown>> {
  const explicit = explicitSpec(values, 'layer');
  if (explicit !== undefined) return explicit;
  const config = values.config as string;
  const plan = pe.model.fromConfig(await readJsonObject(config));
  const layer = (values.layer as number | undefined) ?? 0;
  const l = plan.layers[layer];
  if (!l) throw new CliError(`--layer ${layer} is outside the model's ${plan.layers.length} layers`);
  if (!l.rope) throw new CliError(`layer ${layer} of ${config} has no RoPE (${l.attention}); choose another with --layer`);
  if (l.rope.form.kind !== 'standard') {
    throw new CliError(`layer ${layer} of ${config} uses ${l.rope.form.kind} RoPE, which this command does not take; use pe.model.apply from JavaScript`);
  }
  const { mropeSection: _sections, ...spec } = l.rope.spec;
  return spec as Record<string, unknown>;
}
