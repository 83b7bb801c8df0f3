// Typed reads of config.json fields that name the field (with its path) in every error.
import * as args from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { aliasesOf, storedName } from './family-table.js';
import type { FamilyFacts } from './family-table.js';

export type Obj = Record<string, unknown>;

/** The largest integer a config may give for a size or count: what a WebAssembly size can hold (2^31 - 1). */
export const MAX_CONFIG_INTEGER = 2 ** 31 - 1;

export function isObject(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v);
}

/** An INVALID_CONFIG error from `fn`. */
export function invalidConfig(fn: string, message: string): PosEncError {
  return new PosEncError('INVALID_CONFIG', `${fn}: ${message}`);
}

/** Reads the fields of one config object (`path` is its place in the file, '' for the top). */
export class Fields {
  /**
   * `family`: the config class the object is read as, whose `attribute_map` aliases are resolved
   * (reading `num_attention_heads` of a GPT-J config reads its `n_head`) and whose default-instance
   * values {@link from} falls back to.
   */
  constructor(readonly obj: Obj, readonly path: string, readonly fn: string, readonly family?: FamilyFacts) {}

  /** The key under which `key` is given: itself, or an attribute_map alias of the same field. */
  keyOf(key: string): string {
    if (Object.hasOwn(this.obj, key) || !this.family) return key;
    for (const name of [storedName(this.family, key), ...aliasesOf(this.family, key)]) if (Object.hasOwn(this.obj, name)) return name;
    return key;
  }

  /** The value of own key `key` or its alias (undefined when absent: inherited properties are never read). */
  get(key: string): unknown {
    const k = this.keyOf(key);
    return Object.hasOwn(this.obj, k) ? this.obj[k] : undefined;
  }

  /**
   * Where `key` is read: here when given, else the class's default instance (a Fields over its
   * values, named `(ClassName default)`), else here (absent).
   */
  from(key: string): Fields {
    if (this.has(key) || !this.family) return this;
    const d = this.family.defaults;
    if (Object.hasOwn(d, key) && d[key] !== null && d[key] !== undefined) return new Fields(d as Obj, `(${this.family.configClass} default)`, this.fn);
    return this;
  }

  name(key: string): string {
    const k = this.keyOf(key);
    return this.path ? `${this.path}.${k}` : k;
  }

  invalid(message: string): PosEncError {
    return invalidConfig(this.fn, message);
  }

  /** Present and not null. */
  has(key: string): boolean {
    return this.get(key) !== undefined && this.get(key) !== null;
  }

  /** A nested object (absent or null: undefined). */
  child(key: string): Fields | undefined {
    const v = this.get(key);
    if (v === undefined || v === null) return undefined;
    if (!isObject(v)) throw this.invalid(`${this.name(key)} must be an object, got ${args.describe(v)}`);
    return new Fields(v, this.name(key), this.fn);
  }

  /** This object read as the config class `family`. */
  as(family: FamilyFacts | undefined): Fields {
    return new Fields(this.obj, this.path, this.fn, family);
  }

  /** A number field (absent or null: undefined), finite and, by default, > 0. */
  number(key: string, kind: 'positive' | 'nonnegative' | 'any' = 'positive'): number | undefined {
    const v = this.get(key);
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw this.invalid(`${this.name(key)} must be a number, got ${args.describe(v)}`);
    }
    if ((kind === 'positive' && !(v > 0)) || (kind === 'nonnegative' && v < 0)) {
      throw this.invalid(`${this.name(key)} must be ${kind === 'positive' ? '> 0' : '>= 0'}, got ${v}`);
    }
    return v;
  }

  required(key: string, why: string): number {
    const v = this.number(key);
    if (v === undefined) throw this.invalid(`${this.name(key)} is required ${why}`);
    return v;
  }

  /** An integer field (absent or null: undefined), at most {@link MAX_CONFIG_INTEGER}: a size or a count. */
  integer(key: string, kind: 'positive' | 'nonnegative' = 'positive'): number | undefined {
    const v = this.number(key, kind);
    if (v !== undefined && !Number.isInteger(v)) throw this.invalid(`${this.name(key)} must be an integer, got ${v}`);
    if (v !== undefined && v > MAX_CONFIG_INTEGER) {
      throw this.invalid(`${this.name(key)} is ${v}, more than any size posenc can address (at most ${MAX_CONFIG_INTEGER})`);
    }
    return v;
  }

  boolean(key: string): boolean | undefined {
    const v = this.get(key);
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') throw this.invalid(`${this.name(key)} must be true or false, got ${args.describe(v)}`);
    return v;
  }

  string(key: string): string | undefined {
    const v = this.get(key);
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw this.invalid(`${this.name(key)} must be a string, got ${args.describe(v)}`);
    return v;
  }

  /** The elements of list `key` (dense: a hole is an error naming it), each checked by `check`. */
  #list<T>(key: string, check: (v: unknown, name: string) => T): T[] {
    return args.listOf(this.fn, this.name(key), this.get(key), check, { code: 'INVALID_CONFIG' });
  }

  /** A list of numbers > 0 of the given length. */
  list(key: string, length: number, what: string): number[] {
    const v = this.get(key);
    if (v === undefined || v === null) throw this.invalid(`${this.name(key)} is required ${what}`);
    const list = this.#list(key, (x, name) => {
      if (typeof x !== 'number' || !Number.isFinite(x) || !(x > 0)) throw this.invalid(`${name} must be a number > 0, got ${args.describe(x)}`);
      return x;
    });
    if (list.length !== length) throw this.invalid(`${this.name(key)} must have rotary_dim/2 = ${length} entries, got ${list.length}`);
    return list;
  }

  /** A list of integers >= `min` (at most {@link MAX_CONFIG_INTEGER}), or undefined when absent. */
  integers(key: string, min: number): number[] | undefined {
    const v = this.get(key);
    if (v === undefined || v === null) return undefined;
    return this.#list(key, (x, name) => {
      if (typeof x !== 'number' || !Number.isInteger(x) || x < min || x > MAX_CONFIG_INTEGER) {
        throw this.invalid(`${name} must be an integer from ${min} to ${MAX_CONFIG_INTEGER}, got ${args.describe(x)}`);
      }
      return x;
    });
  }

  /** A list of strings, or undefined when absent. */
  strings(key: string): string[] | undefined {
    const v = this.get(key);
    if (v === undefined || v === null) return undefined;
    return this.#list(key, (x, name) => {
      if (typeof x !== 'string') throw this.invalid(`${name} must be a string, got ${args.describe(x)}`);
      return x;
    });
  }
}
