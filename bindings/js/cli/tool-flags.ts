// Flags the tool commands (shift, permute, doctor, precision) share: numbers, comma-separated lists,
// and a RoPE spec from a model's config.json layer or from explicit flags.
import { PosEncError } from '../runtime/errors.js';
import type { PosEnc } from '../posenc.js';
import type { Flags } from './commands.js';
import { readJsonFile } from './files.js';

/** A numeric flag (undefined when absent); `integer` also requires an integer >= min. */
export function numberFlag(flags: Flags, name: string, integer = false, min = -Infinity): number | undefined {
  const text = flags.values[name];
  if (text === undefined) return undefined;
  const v = Number(text);
  if (text.trim() === '' || !Number.isFinite(v) || (integer && !Number.isInteger(v)) || v < min) {
    const what = integer ? `an integer${min > -Infinity ? ` >= ${min}` : ''}` : 'a finite number';
    throw new PosEncError('INVALID_ARGUMENT', `--${name} must be ${what}, got '${text}'`);
  }
  return v;
}

/** A required flag's text. */
export function requiredFlag(flags: Flags, name: string): string {
  const v = flags.values[name];
  if (v === undefined) throw new PosEncError('MISSING_OPTION', `--${name} is required`);
  return v;
}

/** `--name 3` -> 3, `--name 0,1,5` -> [0, 1, 5] (finite numbers); undefined when absent. */
export function numberOrList(flags: Flags, name: string): number | number[] | undefined {
  const text = flags.values[name];
  if (text === undefined) return undefined;
  if (!text.includes(',')) return numberFlag(flags, name);
  return text.split(',').map((part, i) => {
    const v = Number(part);
    if (part.trim() === '' || !Number.isFinite(v)) throw new PosEncError('INVALID_ARGUMENT', `--${name}: value ${i} ('${part}') is not a finite number`);
    return v;
  });
}

/** `--json true|false` (default false). */
export function jsonFlag(flags: Flags): boolean {
  const v = flags.values.json;
  if (v !== undefined && v !== 'true' && v !== 'false') throw new PosEncError('INVALID_ARGUMENT', `--json must be true or false, got '${v}'`);
  return v === 'true';
}

/** The flags of specFromFlags. */
export const SPEC_FLAGS = ['config', 'layer', 'rotary-dim', 'base', 'pairing'];

/**
 * A RoPE spec: layer --layer (default 0) of the model --config (through pe.model.fromConfig, so
 * models whose layers differ work too), or --rotary-dim/--base/--pairing.
 */
export async function specFromFlags(pe: PosEnc, flags: Flags): Promise<Record<string, unknown>> {
  const config = flags.values.config;
  const explicit = ['rotary-dim', 'base', 'pairing'].filter((f) => flags.values[f] !== undefined);
  if (config === undefined) {
    if (flags.values.layer !== undefined) throw new PosEncError('INVALID_ARGUMENT', '--layer needs --config');
    const spec: Record<string, unknown> = {};
    if (flags.values['rotary-dim'] !== undefined) spec.rotaryDim = numberFlag(flags, 'rotary-dim', true, 2);
    if (flags.values.base !== undefined) spec.base = numberFlag(flags, 'base');
    if (flags.values.pairing !== undefined) spec.pairing = flags.values.pairing;
    return spec;
  }
  if (explicit.length) throw new PosEncError('INVALID_ARGUMENT', `--config defines the RoPE; do not combine it with --${explicit.join(', --')}`);
  const plan = pe.model.fromConfig((await readJsonFile(config)) as object);
  const layer = numberFlag(flags, 'layer', true, 0) ?? 0;
  const l = plan.layers[layer];
  if (!l) throw new PosEncError('OUT_OF_RANGE', `--layer ${layer} is outside the model's ${plan.layers.length} layers`);
  if (!l.rope) throw new PosEncError('INVALID_ARGUMENT', `layer ${layer} of ${config} has no RoPE (${l.attention}); choose another with --layer`);
  if (l.rope.form.kind !== 'standard') {
    throw new PosEncError('INVALID_ARGUMENT', `layer ${layer} of ${config} uses ${l.rope.form.kind} RoPE, which this command does not take; use the JavaScript API`);
  }
  const { mropeSection: _sections, ...spec } = l.rope.spec;
  return spec as Record<string, unknown>;
}
