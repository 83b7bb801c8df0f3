// The RoPE a command uses: a model's config.json (--config, --layer-type) or explicit
// --rotary-dim/--base/--pairing, never both.
import type { PosEnc } from '../posenc.js';
import { PosEncError } from '../runtime/errors.js';
import type { RopeModelSpec } from '../families/rope/spec.js';
import type { Flag, FlagValues } from './flags.js';
import { CliError } from './flags.js';
import { readJsonObject } from './files.js';

export const CONFIG_FLAGS: Flag[] = [
  { name: 'config', kind: 'text', value: 'FILE', help: "a model's Hugging Face config.json: its RoPE (head dim, rotary dim, rope_theta, pairing, rope_scaling)" },
  { name: 'layer-type', kind: 'text', value: 'TYPE', help: "with --config: the layer type whose RoPE to use, for configs that give one per type (e.g. 'sliding_attention')" },
];

export const SPEC_FLAGS: Flag[] = [
  { name: 'rotary-dim', kind: 'int', min: 2, help: 'rotated lanes per head (even; default the whole head)' },
  { name: 'base', kind: 'number', positive: true, default: '10000', help: 'frequency base theta' },
  { name: 'pairing', kind: 'choice', choices: ['half', 'interleaved'], default: 'half', help: 'half: lane i with i + rotaryDim/2 (GPT-NeoX, HF Llama); interleaved: lanes 2i, 2i+1 (GPT-J, Meta Llama)' },
];

/** API names of the RoPE spec and the flags that set them. */
export const SPEC_API_NAMES = { rotaryDim: '--rotary-dim', base: '--base', pairing: '--pairing', seqLen: '--seq-len' };

/**
 * What API messages about a config name, in a command's terms: the layer-type option is
 * --layer-type, and the per-layer plan that rope.fromConfig points to is `posenc plan`.
 */
export const CONFIG_API_NAMES = { layerType: '--layer-type', 'pe.model.fromConfig': "'posenc plan'" };

/**
 * The spec of the explicit flags (--rotary-dim, --base, --pairing; those given) when there is no
 * --config, or undefined when there is one; they never go together. `layerFlag` (--layer-type,
 * --layer) chooses a layer of the config, so it needs --config.
 */
export function explicitSpec(values: FlagValues, layerFlag: string): Record<string, unknown> | undefined {
  if (values.config !== undefined) {
    const explicit = SPEC_FLAGS.map((f) => f.name).filter((n) => values[n] !== undefined);
    if (explicit.length > 0) throw new CliError(`--config defines the RoPE already; leave out ${explicit.map((n) => `--${n}`).join(', ')}`);
    return undefined;
  }
  if (values[layerFlag] !== undefined) throw new CliError(`--${layerFlag} needs --config`);
  const spec: Record<string, unknown> = {};
  if (values['rotary-dim'] !== undefined) spec.rotaryDim = values['rotary-dim'];
  if (values.base !== undefined) spec.base = values.base;
  if (values.pairing !== undefined) spec.pairing = values.pairing;
  return spec;
}

/** The RoPE spec (as rope.apply takes it) from --config (and --layer-type) or the explicit flags. */
export async function ropeSpec(pe: PosEnc, values: FlagValues): Promise<Record<string, unknown>> {
  const explicit = explicitSpec(values, 'layer-type');
  if (explicit !== undefined) return explicit;
  const config = values.config as string;
  const layerType = values['layer-type'] as string | undefined;
  const json = await readJsonObject(config);
  let spec: RopeModelSpec;
  try {
    spec = pe.rope.fromConfig(json, layerType === undefined ? undefined : { layerType });
  } catch (error) {
    if (error instanceof PosEncError) throw new PosEncError(error.code, `${config}: ${error.message.replace(/^rope\.fromConfig: /, '')}`);
    throw error;
  }
  if (spec.mropeSection !== undefined) {
    throw new CliError(`${config} describes a multimodal (M-RoPE) model; posenc's CLI does not apply it (use pe.rope.applyMultimodal from JavaScript)`);
  }
  return { ...spec };
}
