// The invariant every fuzz target checks, and the pieces the targets share (seed corpus, byte mutations).
//
// Invariant (docs/reliability.md): a call either returns or throws a PosEncError whose code is one of
// the documented codes (never INTERNAL); never another error type, never a WebAssembly trap. After
// any input the module still gives a known result, and WebAssembly memory stays bounded.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import fc from 'fast-check';

import { PosEncError } from '../../dist/node.js';

export const FUZZ_DIR = dirname(fileURLToPath(import.meta.url));
export const ROOT = join(FUZZ_DIR, '..', '..');

/**
 * Every PosEncError code a caller may see, read from their one definition (the PosEncErrorCode union
 * of bindings/js/runtime/errors.ts, as the docs test reads it), INTERNAL excepted: that one is a bug.
 */
export const KNOWN_CODES = new Set(
  [...(/export type PosEncErrorCode =([^;]+);/.exec(readFileSync(join(ROOT, 'bindings/js/runtime/errors.ts'), 'utf8'))?.[1] ?? '')
    .matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]).filter((code) => code !== 'INTERNAL'),
);
if (KNOWN_CODES.size < 10) throw new Error('tests/fuzz/harness.mjs: could not read the PosEncErrorCode union from errors.ts');

/** The error a fuzz case's own hostile code throws (a getter that throws): it may propagate unchanged. */
export class CallerError extends Error {}

/** A broken invariant, with the call that broke it. */
export class InvariantError extends Error {}

function describeError(error) {
  if (error instanceof Error) return `${error.constructor?.name ?? 'Error'}: ${error.message}`;
  return `a thrown ${typeof error} (${String(error)})`;
}

/** How the contained calls of the current target ended: 'returned' or the error code, with counts. */
export const outcomes = new Map();
function count(key) {
  outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
}

/**
 * Runs `call()`; returns { ok: true, value } or { ok: false, code }. Throws an InvariantError for
 * anything else than a PosEncError of a known code. The caller's own error (a getter or trap that
 * throws a CallerError) must come back as INVALID_ARGUMENT with it as the cause, not bare.
 */
export function contained(what, call) {
  try {
    const value = call();
    count('returned');
    return { ok: true, value };
  } catch (error) {
    return refused(what, error);
  }
}

/** How a failing call ended: a documented refusal, or an InvariantError for anything else. */
function refused(what, error) {
  if (error instanceof PosEncError && error.cause instanceof CallerError && error.code === 'INVALID_ARGUMENT') { count('CALLER'); return { ok: false, code: 'CALLER' }; }
  if (error instanceof PosEncError && KNOWN_CODES.has(error.code)) { count(error.code); return { ok: false, code: error.code }; }
  throw new InvariantError(`${what}: threw ${describeError(error)}${error?.code ? ` [${error.code}]` : ''}`, { cause: error });
}

/** The async form of contained(). */
export async function containedAsync(what, call) {
  try {
    const value = await call();
    count('returned');
    return { ok: true, value };
  } catch (error) {
    return refused(what, error);
  }
}

/** Whether every number of a typed array (or nested tensors' data) is finite. */
export function allFinite(values) {
  for (const v of values) if (!Number.isFinite(v)) return false;
  return true;
}

/**
 * A check that the module still works: the same small call gives the same numbers as before the
 * fuzzing started, and memory has not grown past `limitBytes` above where it was.
 */
export function healthCheck(pe, limitBytes = 512 << 20) {
  const known = () => Array.from(pe.sinusoidal.table({ length: 3, dim: 4, offset: 5 }).data);
  const expected = known();
  const startBytes = pe.memory.bytes;
  return () => {
    let now;
    try {
      now = known();
    } catch (error) {
      throw new InvariantError(`the module stopped working: the known call threw ${describeError(error)}`);
    }
    if (now.some((v, i) => !Object.is(v, expected[i]))) {
      throw new InvariantError(`the module's known call changed: [${now}] instead of [${expected}]`);
    }
    if (pe.memory.bytes > startBytes + limitBytes) {
      throw new InvariantError(`WebAssembly memory grew from ${startBytes} to ${pe.memory.bytes} bytes`);
    }
  };
}

/** The seed corpus of a target: tests/fuzz/corpus/<target>/*, as Uint8Arrays sorted by name. */
export function corpus(target) {
  const dir = join(FUZZ_DIR, 'corpus', target);
  return readdirSync(dir).sort().map((name) => ({ name, bytes: new Uint8Array(readFileSync(join(dir, name))) }));
}

/** Values that break parsers: boundaries of integer widths, and bytes of syntax. */
const INTERESTING_BYTES = [0, 1, 0x7f, 0x80, 0xff, 0x20, 0x22, 0x27, 0x2c, 0x3a, 0x7b, 0x7d, 0x5b, 0x5d, 0x0a, 0x28, 0x29];
const INTERESTING_U32 = [0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 8, 16, 64, 1024];

/** One edit of a byte string: flip, set, insert, delete, truncate, duplicate a slice, or write a u32/u64. */
const mutation = fc.oneof(
  fc.record({ op: fc.constant('flip'), at: fc.nat(), bit: fc.nat(7) }),
  fc.record({ op: fc.constant('set'), at: fc.nat(), value: fc.oneof(fc.constantFrom(...INTERESTING_BYTES), fc.nat(255)) }),
  fc.record({ op: fc.constant('insert'), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 8 }) }),
  fc.record({ op: fc.constant('delete'), at: fc.nat(), length: fc.integer({ min: 1, max: 16 }) }),
  fc.record({ op: fc.constant('truncate'), at: fc.nat() }),
  fc.record({ op: fc.constant('duplicate'), at: fc.nat(), length: fc.integer({ min: 1, max: 32 }) }),
  fc.record({ op: fc.constant('u32'), at: fc.nat(), value: fc.oneof(fc.constantFrom(...INTERESTING_U32), fc.nat()) }),
  fc.record({ op: fc.constant('u64'), at: fc.nat(), hi: fc.constantFrom(0, 1, 0xffffffff, 0x7fffffff) }),
);

/** Applies `edits` to a copy of `bytes` (positions taken modulo the current length). */
export function mutate(bytes, edits) {
  let b = bytes.slice();
  for (const e of edits) {
    const n = b.length;
    const at = n === 0 ? 0 : e.at % n;
    switch (e.op) {
      case 'flip': if (n) b[at] ^= 1 << e.bit; break;
      case 'set': if (n) b[at] = e.value; break;
      case 'insert': b = concat(b.subarray(0, at), e.bytes, b.subarray(at)); break;
      case 'delete': b = concat(b.subarray(0, at), b.subarray(Math.min(n, at + e.length))); break;
      case 'truncate': b = b.slice(0, at); break;
      case 'duplicate': b = concat(b.subarray(0, at), b.subarray(at, at + e.length), b.subarray(at)); break;
      case 'u32': if (at + 4 <= n) new DataView(b.buffer, b.byteOffset).setUint32(at, e.value, true); break;
      case 'u64': if (at + 8 <= n) new DataView(b.buffer, b.byteOffset).setUint32(at + 4, e.hi, true); break;
      default: throw new Error(`unknown mutation ${e.op}`);
    }
  }
  return b;
}

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** A seed of `seeds` with 0..maxEdits edits applied, or random bytes. */
export function mutatedBytes(seeds, maxEdits = 6) {
  return fc.oneof(
    { weight: 8, arbitrary: fc.tuple(fc.constantFrom(...seeds), fc.array(mutation, { maxLength: maxEdits })).map(([s, edits]) => mutate(s.bytes, edits)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 256 }) },
  );
}

/** Numbers at the edges: NaN, infinities, signed zero, subnormals, huge, and integer boundaries. */
export const extremeNumber = fc.oneof(
  fc.constantFrom(NaN, Infinity, -Infinity, -0, 0, 5e-324, 1e-300, 1e-40, 1e300, Number.MAX_VALUE, -Number.MAX_VALUE,
    2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53, 2 ** 53 + 2, -1, 0.5, 1.5, 1e20),
  fc.double(),
  fc.integer({ min: -5, max: 100 }),
);

/** JSON-ish values of any type, for a config key or a JSON tensor's field. */
export const jsonValue = fc.oneof(
  { weight: 4, arbitrary: extremeNumber.map((v) => (Number.isFinite(v) ? v : String(v))) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, '', 'default', 'linear', 'yarn', 'llama3', 'longrope', 'dynamic', '1e308', 'NaN') },
  { weight: 1, arbitrary: fc.array(fc.oneof(extremeNumber.filter(Number.isFinite), fc.constant(null), fc.string({ maxLength: 3 })), { maxLength: 6 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.integer(), fc.string({ maxLength: 4 })), { maxKeys: 3 }) },
);
