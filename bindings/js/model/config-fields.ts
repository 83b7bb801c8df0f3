// Typed reads of config.json fields that name the field (with its path) in every error.
import * as args from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';

export type Obj = Record<string, unknown>;

export function isObject(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v);
}

/** An INVALID_CONFIG error from `fn`. */
export function invalidConfig(fn: string, message: string): PosEncError {
  return new PosEncError('INVALID_CONFIG', `${fn}: ${message}`);
}

/** Reads the fields of one config object (`path` is its place in the file, '' for the top). */
export class Fields {
  constructor(readonly obj: Obj, readonly path: string, readonly fn: string) {}

  name(key: string): string {
    return this.path ? `${this.path}.${key}` : key;
  }

  invalid(message: string): PosEncError {
    return invalidConfig(this.fn, message);
  }

  /** Present and not null. */
  has(key: string): boolean {
    return this.obj[key] !== undefined && this.obj[key] !== null;
  }

  /** A nested object (absent or null: undefined). */
  child(key: string): Fields | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (!isObject(v)) throw this.invalid(`${this.name(key)} must be an object, got ${args.describe(v)}`);
    return new Fields(v, this.name(key), this.fn);
  }

  /** A number field (absent or null: undefined), finite and, by default, > 0. */
  number(key: string, kind: 'positive' | 'nonnegative' | 'any' = 'positive'): number | undefined {
    const v = this.obj[key];
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

  integer(key: string, kind: 'positive' | 'nonnegative' = 'positive'): number | undefined {
    const v = this.number(key, kind);
    if (v !== undefined && !Number.isInteger(v)) throw this.invalid(`${this.name(key)} must be an integer, got ${v}`);
    return v;
  }

  boolean(key: string): boolean | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') throw this.invalid(`${this.name(key)} must be true or false, got ${args.describe(v)}`);
    return v;
  }

  string(key: string): string | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw this.invalid(`${this.name(key)} must be a string, got ${args.describe(v)}`);
    return v;
  }

  /** A list of numbers > 0 of the given length. */
  list(key: string, length: number, what: string): number[] {
    const v = this.obj[key];
    if (v === undefined || v === null) throw this.invalid(`${this.name(key)} is required ${what}`);
    if (!Array.isArray(v)) throw this.invalid(`${this.name(key)} must be a list of numbers, got ${args.describe(v)}`);
    v.forEach((x, i) => {
      if (typeof x !== 'number' || !Number.isFinite(x) || !(x > 0)) {
        throw this.invalid(`${this.name(key)}[${i}] must be a number > 0, got ${args.describe(x)}`);
      }
    });
    if (v.length !== length) throw this.invalid(`${this.name(key)} must have rotary_dim/2 = ${length} entries, got ${v.length}`);
    return v.slice() as number[];
  }

  /** A list of integers (each checked with `check`), or undefined when absent. */
  integers(key: string, min: number): number[] | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'number' || !Number.isInteger(x) || x < min)) {
      throw this.invalid(`${this.name(key)} must be a list of integers >= ${min}, got ${args.describe(v)}`);
    }
    return v.slice() as number[];
  }

  /** A list of strings, or undefined when absent. */
  strings(key: string): string[] | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
      throw this.invalid(`${this.name(key)} must be a list of strings, got ${args.describe(v)}`);
    }
    return v.slice() as string[];
  }
}
