// Reading what a caller hands a public call, once: options objects and configs into private plain
// copies, and any other caller value through readingCallerValue(). Caller code (getters, Proxy
// traps, `valueOf`) runs here and only here; what it throws is a PosEncError naming what was read.
import { PosEncError, callerError, describe } from './errors.js';
import { nearestName } from './nearest.js';

/** An options object as a call reads it: the private copy options() returns. */
export type Options = Record<string, unknown>;

/** Whether `value` is a plain object (an object literal, `Object.create(null)`, or a Proxy of one). */
function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A private copy of a plain-data argument (an options object, a config): every plain object and
 * array in it is copied, reading each key and element exactly once (getters, Proxy traps); holes of
 * sparse arrays stay holes, for the list readers to refuse. The top-level object's own keys are
 * copied whatever its class; nested objects that are not plain (typed arrays, tensors, WasmTensors,
 * functions) are kept as they are. An error thrown by caller code while reading is a
 * PosEncError naming the key. Every key stays an own data key of the copy, `__proto__` included,
 * and the copy's prototype is Object.prototype. `depth` bounds self-referencing structures. The copy is not frozen
 * (freezing costs more than the rest of a small call's option handling): no caller code ever sees it.
 */
export function snapshot(fn: string, value: unknown, name = 'options', depth = 0): unknown {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  if (depth > 64) throw new PosEncError('INVALID_ARGUMENT', `${fn}: ${name} is nested too deeply (a cycle?)`);
  // One try for the whole object (this runs on every call): `at` names what was being read.
  let at: string | number = '';
  try {
    if (Array.isArray(value)) {
      const length = value.length;
      const copy = new Array<unknown>(length);
      for (let i = 0; i < length; i++) {
        at = i;
        if (!(i in value)) continue; // a hole stays a hole
        const v: unknown = value[i];
        copy[i] = v !== null && typeof v === 'object' ? snapshot(fn, v, `${name}[${i}]`, depth + 1) : v;
      }
      return copy;
    }
    if (depth > 0 && !isPlainObject(value)) return value;
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      at = key;
      const v: unknown = (value as Record<string, unknown>)[key];
      const read = v !== null && typeof v === 'object' ? snapshot(fn, v, `${name}.${key}`, depth + 1) : v;
      // JSON.parse makes `__proto__` an ordinary key, as Python's json does: so does the copy
      // (an assignment would set the copy's prototype instead).
      if (key === '__proto__') Object.defineProperty(copy, key, { value: read, enumerable: true, writable: true, configurable: true });
      else copy[key] = read;
    }
    return copy;
  } catch (error) {
    throw callerError(fn, at === '' ? name : typeof at === 'number' ? `${name}[${at}]` : `${name}.${at}`, error);
  }
}

/**
 * Validates an option object (a plain object whose keys are all in `known`; `undefined` values
 * count as absent) and returns its {@link snapshot}: the call reads its options from that, never
 * from the caller's object, so caller code runs here and only here.
 */
export function options(fn: string, value: unknown, known: readonly string[], optional = false): Options {
  if (value === undefined && optional) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value)) {
    throw new PosEncError('INVALID_TYPE', `${fn}: options must be an object, got ${describe(value)}`);
  }
  const given = value;
  value = snapshot(fn, value);
  if (!isPlainObject(given)) { // an instance of a class: its options may be getters of its prototype
    for (const key of known) {
      if (key in (value as object)) continue;
      try {
        if (key in given) (value as Options)[key] = snapshot(fn, (given as Options)[key], `options.${key}`, 1);
      } catch (error) {
        throw callerError(fn, `options.${key}`, error);
      }
    }
  }
  for (const key of Object.keys(value as object)) {
    if (!known.includes(key)) {
      const camel = camelCaseFor(key, known);
      const near = camel ? undefined : nearestName(key, known);
      const rope = fn.startsWith('rope.') || fn.startsWith('RopeCache') ? '; for a model\'s config.json, use pe.rope.fromConfig(config)' : '';
      throw new PosEncError(
        'UNKNOWN_OPTION',
        `${fn}: unknown option '${key}'` + (camel ? ` (posenc's options are camelCase: did you mean '${camel}'?${rope})`
          : near ? ` (did you mean '${near}'?${key.includes('_') ? rope : ''})`
            : `; known options: ${known.join(', ')}${key.includes('_') ? rope : ''}`),
      );
    }
  }
  return value as Options;
}

/** Hugging Face config.json keys whose posenc option is not just their camelCase spelling. */
const HF_KEY_NAMES: ReadonlyMap<string, readonly string[]> = new Map([
  ['rope_theta', ['base']],
  ['rope_scaling', ['scaling']],
  ['rope_parameters', ['scaling']],
  ['rope_type', ['type']],
  ['max_position_embeddings', ['maxPositionEmbeddings', 'maxPositions']],
]);

/**
 * The known option a snake_case key (a Hugging Face config.json habit) stands for: its camelCase
 * spelling (`rotary_dim` -> `rotaryDim`) or its posenc name (`rope_theta` -> `base`), if known.
 */
export function camelCaseFor(key: string, known: readonly string[]): string | undefined {
  if (!key.includes('_')) return undefined;
  const camel = key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return [camel, ...(HF_KEY_NAMES.get(key) ?? [])].find((k) => known.includes(k));
}

/**
 * Runs `read`, which reads a caller's value: an error that is not a PosEncError comes from the
 * caller's own code (a Proxy trap: get, has, getPrototypeOf for instanceof; a getter), and becomes
 * INVALID_ARGUMENT naming the argument, the original as `cause`.
 */
export function readingCallerValue<T>(fn: string, name: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw callerError(fn, name, error);
  }
}
