// The one schema of a model plan (plan.ts), checked on entry by every function that takes a plan.
// A plan is read once into a checked plain copy (caller.ts's snapshot: getters and Proxy traps run
// there and only there), and every field is checked against its type and range. A field that is
// wrong is INVALID_ARGUMENT naming its path (`plan.layers[3].rope.form`), so that nothing later
// meets a `null` where an object was promised. Plans that pe.model returns are deep-frozen and
// remembered: passing one back costs a lookup, not a re-read.
import * as args from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { PAIRINGS, parseScaling } from '../families/rope/spec.js';
import type { RopeModelSpec, RopeScaling } from '../families/rope/spec.js';
import { MAX_HEAD_DIM, MAX_LAYERS } from './plan.js';
import type {
  AbsolutePositions, AttentionWindow, LayerAlibi, LayerPlan, LayerRope, LongRopeSwitch, ModelPlan, QueryScaling, RopeForm,
} from './plan.js';

type Obj = Record<string, unknown>;

class Reader {
  constructor(readonly fn: string) {}

  bad(path: string, what: string, value: unknown): PosEncError {
    return new PosEncError('INVALID_ARGUMENT', `${this.fn}: ${path} must be ${what}, got ${args.describe(value)} ` +
      '(a plan is what pe.model.fromConfig or fromGguf returns)');
  }

  /** An object with exactly these keys (`optional` may be absent or undefined). */
  object(path: string, value: unknown, required: readonly string[], optional: readonly string[] = []): Obj {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value)) {
      throw this.bad(path, `an object with ${required.join(', ')}`, value);
    }
    const o = value as Obj;
    for (const key of required) if (o[key] === undefined) throw this.bad(`${path}.${key}`, 'present', undefined);
    for (const key of Object.keys(o)) {
      if (!required.includes(key) && !optional.includes(key)) {
        throw new PosEncError('INVALID_ARGUMENT', `${this.fn}: ${path}.${key} is not a field of a plan (known: ${[...required, ...optional].join(', ')})`);
      }
    }
    return o;
  }

  integer(path: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw this.bad(path, `an integer in ${min}..${max}`, value);
    }
    return value;
  }

  finite(path: string, value: unknown, positive = false): number {
    if (typeof value !== 'number' || !Number.isFinite(value) || (positive && !(value > 0))) {
      throw this.bad(path, positive ? 'a finite number > 0' : 'a finite number', value);
    }
    return value;
  }

  string(path: string, value: unknown): string {
    if (typeof value !== 'string') throw this.bad(path, 'a string', value);
    return value;
  }

  boolean(path: string, value: unknown): boolean {
    if (typeof value !== 'boolean') throw this.bad(path, 'true or false', value);
    return value;
  }

  oneOf<T extends string>(path: string, value: unknown, allowed: readonly T[]): T {
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
      throw this.bad(path, `one of ${allowed.map((a) => `'${a}'`).join(', ')}`, value);
    }
    return value as T;
  }

  array(path: string, value: unknown, max: number): unknown[] {
    if (!Array.isArray(value)) throw this.bad(path, 'an array', value);
    if (value.length > max) throw new PosEncError('INVALID_ARGUMENT', `${this.fn}: ${path} has ${value.length} entries, more than ${max}`);
    for (let i = 0; i < value.length; i++) if (!(i in value)) throw this.bad(`${path}[${i}]`, 'present', undefined);
    return value;
  }
}

const SOURCES = ['hf-config', 'gguf'] as const;
const ALIBI_FORMS = ['bloom', 'causal'] as const;
const SWITCH_RULES = ['hf', 'vllm', 'llama.cpp'] as const;

function absoluteOf(r: Reader, path: string, value: unknown): AbsolutePositions | null {
  if (value === null) return null;
  const kind = r.oneOf(`${path}.kind`, r.object(path, value, ['kind'], ['size', 'offset', 'tensor', 'dim', 'base']).kind, ['learned', 'sinusoidal']);
  if (kind === 'learned') {
    const o = r.object(path, value, ['kind', 'size', 'offset'], ['tensor']);
    const out: AbsolutePositions = { kind, size: r.integer(`${path}.size`, o.size, 1), offset: r.integer(`${path}.offset`, o.offset, 0) };
    if (o.tensor !== undefined) out.tensor = r.string(`${path}.tensor`, o.tensor);
    return out;
  }
  const o = r.object(path, value, ['kind', 'dim', 'base']);
  return { kind, dim: r.integer(`${path}.dim`, o.dim, 1, MAX_HEAD_DIM), base: r.finite(`${path}.base`, o.base, true) };
}

function longRopeOf(r: Reader, path: string, value: unknown): LongRopeSwitch {
  const o = r.object(path, value, ['rule', 'originalMaxPositionEmbeddings'], ['length']);
  const rule = r.oneOf(`${path}.rule`, o.rule, SWITCH_RULES);
  const out: LongRopeSwitch = { rule, originalMaxPositionEmbeddings: r.integer(`${path}.originalMaxPositionEmbeddings`, o.originalMaxPositionEmbeddings, 1) };
  if (o.length !== undefined || rule !== 'hf') out.length = r.integer(`${path}.length`, o.length, 1);
  return out;
}

function windowOf(r: Reader, path: string, value: unknown): AttentionWindow | null {
  if (value === null) return null;
  const kind = r.oneOf(`${path}.kind`, r.object(path, value, ['kind'], ['size', 'bidirectional']).kind, ['sliding', 'chunked']);
  if (kind === 'chunked') return { kind, size: r.integer(`${path}.size`, r.object(path, value, ['kind', 'size']).size, 1) };
  const o = r.object(path, value, ['kind', 'size', 'bidirectional']);
  return { kind, size: r.integer(`${path}.size`, o.size, 1), bidirectional: r.boolean(`${path}.bidirectional`, o.bidirectional) };
}

function alibiOf(r: Reader, path: string, value: unknown): LayerAlibi | null {
  if (value === null) return null;
  const o = r.object(path, value, ['numHeads', 'maxBias', 'form']);
  return { numHeads: r.integer(`${path}.numHeads`, o.numHeads, 1, MAX_HEAD_DIM), maxBias: r.finite(`${path}.maxBias`, o.maxBias),
    form: r.oneOf(`${path}.form`, o.form, ALIBI_FORMS) };
}

function queryScalingOf(r: Reader, path: string, value: unknown): QueryScaling | null {
  if (value === null) return null;
  const o = r.object(path, value, ['kind', 'scale', 'floorScale', 'positionOffset', 'source']);
  return {
    kind: r.oneOf(`${path}.kind`, o.kind, ['log-floor']), scale: r.finite(`${path}.scale`, o.scale),
    floorScale: r.finite(`${path}.floorScale`, o.floorScale, true), positionOffset: r.finite(`${path}.positionOffset`, o.positionOffset),
    source: r.string(`${path}.source`, o.source),
  };
}

function integers(r: Reader, path: string, value: unknown, min: number, max: number): number[] {
  return r.array(path, value, max).map((v, i) => r.integer(`${path}[${i}]`, v, min, MAX_HEAD_DIM));
}

function formOf(r: Reader, path: string, value: unknown, spec: RopeModelSpec): RopeForm {
  const kinds = ['standard', 'proportional', 'mrope', 'decoupled', '2d'] as const;
  const kind = r.oneOf(`${path}.kind`, r.object(path, value, ['kind'], ['rotatedPairs', 'section', 'interleaved', 'nopeHeadDim',
    'ropeHeadDim', 'softmaxScaleFactor', 'deinterleave', 'maxPatchesPerSide']).kind, kinds);
  const pairs = spec.rotaryDim / 2;
  switch (kind) {
    case 'standard':
      r.object(path, value, ['kind']);
      return { kind };
    case 'proportional': {
      const o = r.object(path, value, ['kind', 'rotatedPairs']);
      return { kind, rotatedPairs: r.integer(`${path}.rotatedPairs`, o.rotatedPairs, 0, spec.headDim / 2) };
    }
    case 'mrope': {
      const o = r.object(path, value, ['kind', 'section', 'interleaved']);
      const section = integers(r, `${path}.section`, o.section, 0, pairs);
      const interleaved = r.boolean(`${path}.interleaved`, o.interleaved);
      const sum = section.reduce((a, b) => a + b, 0);
      if (section.length === 0 || sum !== pairs) {
        throw new PosEncError('INVALID_ARGUMENT', `${r.fn}: ${path}.section must be a non-empty list of pair counts summing to rotaryDim/2 = ${pairs}, got [${section.join(', ')}]`);
      }
      return { kind, section, interleaved };
    }
    case 'decoupled': {
      const o = r.object(path, value, ['kind', 'nopeHeadDim', 'ropeHeadDim', 'softmaxScaleFactor', 'deinterleave']);
      const ropeHeadDim = r.integer(`${path}.ropeHeadDim`, o.ropeHeadDim, 2, MAX_HEAD_DIM);
      if (ropeHeadDim !== spec.headDim) throw r.bad(`${path}.ropeHeadDim`, `the spec's headDim ${spec.headDim}`, ropeHeadDim);
      return {
        kind, nopeHeadDim: r.integer(`${path}.nopeHeadDim`, o.nopeHeadDim, 0, MAX_HEAD_DIM), ropeHeadDim,
        softmaxScaleFactor: r.finite(`${path}.softmaxScaleFactor`, o.softmaxScaleFactor, true), deinterleave: r.boolean(`${path}.deinterleave`, o.deinterleave),
      };
    }
    case '2d': {
      const o = r.object(path, value, ['kind', 'maxPatchesPerSide']);
      if (spec.headDim % 4 !== 0) throw r.bad(`${path.replace(/\.form$/, '.spec.headDim')}`, 'a multiple of 4 for a 2-D RoPE', spec.headDim);
      return { kind, maxPatchesPerSide: r.integer(`${path}.maxPatchesPerSide`, o.maxPatchesPerSide, 1) };
    }
  }
}

/** The plan's scaling objects checked by the one scaling parser, each distinct one once (a plan may hold 65536 layers). */
type ScalingMemo = Map<string, true>;

function scalingOf(r: Reader, path: string, value: unknown, memo: ScalingMemo): RopeScaling {
  const o = r.object(path, value, ['type'], ['factor', 'originalMaxPositionEmbeddings', 'maxPositionEmbeddings', 'betaFast', 'betaSlow',
    'mscale', 'mscaleAllDim', 'attentionFactor', 'truncate', 'ggmlAttnFactor', 'hfV4Factor', 'lowFreqFactor', 'highFreqFactor', 'alpha',
    'shortFactor', 'longFactor', 'llamaCppContextLength']);
  const copy: Obj = {};
  for (const [key, v] of Object.entries(o)) copy[key] = Array.isArray(v) || ArrayBuffer.isView(v) ? Array.from(v as ArrayLike<unknown>) : v;
  const key = JSON.stringify(copy);
  if (!memo.has(key)) {
    try {
      parseScaling(r.fn, copy);
    } catch (error) {
      if (!(error instanceof PosEncError)) throw error;
      const said = error.message.startsWith(`${r.fn}: `) ? error.message.slice(r.fn.length + 2) : error.message;
      throw new PosEncError('INVALID_ARGUMENT', `${r.fn}: ${path.replace(/\.scaling$/, '')}: ${said}`, { cause: error });
    }
    memo.set(key, true);
  }
  return copy as unknown as RopeScaling;
}

function specOf(r: Reader, path: string, value: unknown, memo: ScalingMemo): RopeModelSpec {
  const o = r.object(path, value, ['headDim', 'rotaryDim', 'base', 'pairing'], ['scaling', 'mropeSection']);
  const headDim = r.integer(`${path}.headDim`, o.headDim, 2, MAX_HEAD_DIM);
  const rotaryDim = r.integer(`${path}.rotaryDim`, o.rotaryDim, 2, headDim);
  if (rotaryDim % 2 !== 0) throw r.bad(`${path}.rotaryDim`, 'even', rotaryDim);
  const spec: RopeModelSpec = { headDim, rotaryDim, base: r.finite(`${path}.base`, o.base, true), pairing: r.oneOf(`${path}.pairing`, o.pairing, PAIRINGS) };
  if (o.scaling !== undefined) spec.scaling = scalingOf(r, `${path}.scaling`, o.scaling, memo);
  if (o.mropeSection !== undefined) spec.mropeSection = integers(r, `${path}.mropeSection`, o.mropeSection, 0, rotaryDim / 2);
  return spec;
}

function ropeOf(r: Reader, path: string, value: unknown, memo: ScalingMemo): LayerRope | null {
  if (value === null) return null;
  const o = r.object(path, value, ['spec', 'form', 'source']);
  const spec = specOf(r, `${path}.spec`, o.spec, memo);
  const form = formOf(r, `${path}.form`, o.form, spec);
  if (form.kind === 'mrope' && spec.mropeSection !== undefined && spec.mropeSection.join() !== form.section.join()) {
    throw r.bad(`${path}.spec.mropeSection`, `the form's section [${form.section.join(', ')}]`, spec.mropeSection);
  }
  return { spec, form, source: r.string(`${path}.source`, o.source) };
}

function layerOf(r: Reader, index: number, value: unknown, memo: ScalingMemo): LayerPlan {
  const path = `plan.layers[${index}]`;
  const o = r.object(path, value, ['index', 'attention', 'rope', 'alibi', 'window', 'queryScaling']);
  if (o.index !== index) throw r.bad(`${path}.index`, `${index} (its place in plan.layers)`, o.index);
  return {
    index, attention: r.string(`${path}.attention`, o.attention), rope: ropeOf(r, `${path}.rope`, o.rope, memo),
    alibi: alibiOf(r, `${path}.alibi`, o.alibi), window: windowOf(r, `${path}.window`, o.window),
    queryScaling: queryScalingOf(r, `${path}.queryScaling`, o.queryScaling),
  };
}

/** Plans pe.model returned (deep-frozen: nothing can change them), with their checked copies. */
const issued = new WeakMap<object, ModelPlan>();

/** Deep-freezes a plan that passed {@link readPlan} and remembers it, so that passing it back is not read again. */
export function issuePlan(plan: ModelPlan): ModelPlan {
  const freeze = (v: unknown): void => {
    if (v === null || typeof v !== 'object' || Object.isFrozen(v)) return;
    for (const x of Object.values(v)) freeze(x);
    Object.freeze(v);
  };
  freeze(plan);
  issued.set(plan, plan);
  return plan;
}

/**
 * `value` checked against the plan schema, as a plain copy (or the plan itself, when pe.model
 * returned it). Throws INVALID_TYPE when it is not an object, INVALID_ARGUMENT naming the first
 * wrong field's path.
 */
export function readPlan(fn: string, value: unknown): ModelPlan {
  if (value !== null && typeof value === 'object') {
    const known = issued.get(value);
    if (known) return known;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value)) {
    throw new PosEncError('INVALID_TYPE', `${fn}: plan must be a plan from pe.model.fromConfig or fromGguf, got ${args.describe(value)}`);
  }
  const copy = args.snapshot(fn, value, 'plan') as Obj;
  if (copy.layers === undefined) { // not a plan at all (a spec, a config): say what is expected
    throw new PosEncError('INVALID_TYPE', `${fn}: plan must be a plan from pe.model.fromConfig or fromGguf, got an object without layers`);
  }
  const r = new Reader(fn);
  const o = r.object('plan', copy, ['source', 'modelType', 'numLayers', 'numHeads', 'numKeyValueHeads', 'headDim', 'absolute', 'layers', 'notes'],
    ['maxPositionEmbeddings', 'longRope']);
  const numLayers = r.integer('plan.numLayers', o.numLayers, 1, MAX_LAYERS);
  const layers = r.array('plan.layers', o.layers, MAX_LAYERS);
  if (layers.length !== numLayers) throw r.bad('plan.layers', `a list of plan.numLayers = ${numLayers} layers`, `${layers.length} layers`);
  const memo: ScalingMemo = new Map();
  const plan: ModelPlan = {
    source: r.oneOf('plan.source', o.source, SOURCES),
    modelType: r.string('plan.modelType', o.modelType),
    numLayers,
    numHeads: r.integer('plan.numHeads', o.numHeads, 1, MAX_HEAD_DIM),
    numKeyValueHeads: r.integer('plan.numKeyValueHeads', o.numKeyValueHeads, 1, MAX_HEAD_DIM),
    headDim: r.integer('plan.headDim', o.headDim, 1, MAX_HEAD_DIM),
    absolute: absoluteOf(r, 'plan.absolute', o.absolute),
    layers: layers.map((l, i) => layerOf(r, i, l, memo)),
    notes: r.array('plan.notes', o.notes, Number.MAX_SAFE_INTEGER).map((n, i) => r.string(`plan.notes[${i}]`, n)),
  };
  if (o.maxPositionEmbeddings !== undefined) plan.maxPositionEmbeddings = r.integer('plan.maxPositionEmbeddings', o.maxPositionEmbeddings, 1);
  if (o.longRope !== undefined) plan.longRope = longRopeOf(r, 'plan.longRope', o.longRope);
  return plan;
}
