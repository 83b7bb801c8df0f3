// Fuzz target: createPosEnc's options, from each entry ('posenc' and 'posenc/embedded', each import
// a fresh copy of the entry module so that every case really loads): getters and Proxy traps that
// throw, locateFile functions that throw or answer numbers, objects, missing paths, folders, FIFOs,
// devices and huge sparse files, wasmBinary of every kind, kernels of every value. Invariants besides
// the harness's: createPosEnc never throws synchronously, every call settles within a time limit
// (nothing waits for a FIFO's writer or reads a device forever), a resolved instance works, and the
// process's memory stays bounded.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import fc from 'fast-check';

import { CallerError, InvariantError, containedAsync } from '../harness.mjs';

const DIST = new URL('../../../dist/', import.meta.url);
const WASM = fileURLToPath(new URL('posenc.wasm', DIST));
const scratch = mkdtempSync(join(tmpdir(), 'posenc-fuzz-loading-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
const FIFO = join(scratch, 'posenc.wasm.fifo');
const haveFifo = spawnSync('mkfifo', [FIFO]).status === 0;
const HUGE = join(scratch, 'huge.wasm');
writeFileSync(HUGE, '');
truncateSync(HUGE, 2 ** 33); // 8 GiB of nothing
const GARBAGE = join(scratch, 'garbage.wasm');
writeFileSync(GARBAGE, 'not a module');
const BYTES = readFileSync(WASM);
const SETTLE_MS = 10000;
const MAX_RSS_GROWTH = 1024 * 2 ** 20;

const PATHS = [WASM, GARBAGE, HUGE, scratch, join(scratch, 'missing.wasm'), '/dev/zero', '/dev/null', '/dev/urandom', 'file:///dev/zero', 'file:' + WASM, '',
  ...(haveFifo ? [FIFO] : [])];

/** A recipe for an option's value. */
const value = fc.oneof(
  fc.constantFrom('undefined', 'null', 'number', 'string', 'object', 'symbol'),
  fc.record({ kind: fc.constant('locate'), answer: fc.oneof(fc.constantFrom(...PATHS), fc.constantFrom('throws', 'number', 'object', 'throwing toString', 'URL')) }),
  fc.record({ kind: fc.constant('bytes'), how: fc.constantFrom('real', 'Buffer', 'DataView', 'cut', 'garbage', 'empty', 'detached', 'shared', 'Float32Array') }),
  fc.constantFrom('auto', 'simd128', 'relaxed', 'fast'),
);

const locate = fc.record({ kind: fc.constant('locate'), answer: fc.oneof(fc.constantFrom(...PATHS), fc.constantFrom('throws', 'number', 'object', 'throwing toString', 'URL')) });
const bytes = fc.record({ kind: fc.constant('bytes'), how: fc.constantFrom('real', 'Buffer', 'DataView', 'cut', 'garbage', 'empty', 'detached', 'shared', 'Float32Array') });
const locateValue = fc.oneof({ weight: 6, arbitrary: locate }, { weight: 1, arbitrary: value });
const bytesValue = fc.oneof({ weight: 6, arbitrary: bytes }, { weight: 1, arbitrary: value });
const kernelsValue = fc.oneof({ weight: 6, arbitrary: fc.constantFrom('auto', 'simd128') }, { weight: 1, arbitrary: value });

function make(recipe) {
  if (typeof recipe === 'string') {
    switch (recipe) {
      case 'undefined': return undefined;
      case 'null': return null;
      case 'number': return 42;
      case 'string': return 'posenc.wasm';
      case 'object': return {};
      case 'symbol': return Symbol('x');
      default: return recipe; // a kernels value
    }
  }
  if (recipe.kind === 'locate') {
    const a = recipe.answer;
    if (a === 'throws') return () => { throw new CallerError('locateFile'); };
    if (a === 'number') return () => 7;
    if (a === 'object') return () => ({});
    if (a === 'throwing toString') return () => ({ toString() { throw new CallerError('toString'); } });
    if (a === 'URL') return () => new URL('file://' + WASM);
    return () => a;
  }
  switch (recipe.how) {
    case 'real': return BYTES.buffer.slice(BYTES.byteOffset, BYTES.byteOffset + BYTES.length);
    case 'Buffer': return Buffer.from(BYTES);
    case 'DataView': return new DataView(BYTES.buffer, BYTES.byteOffset, BYTES.length);
    case 'cut': return BYTES.subarray(0, 1000);
    case 'garbage': return new Uint8Array([0, 0x61, 0x73, 0x6d, 9, 9, 9, 9]);
    case 'empty': return new Uint8Array(0);
    case 'detached': { const b = new ArrayBuffer(8); structuredClone(b, { transfer: [b] }); return b; }
    case 'shared': { const s = new Uint8Array(new SharedArrayBuffer(BYTES.length)); s.set(BYTES); return s; }
    default: return new Float32Array(4);
  }
}

/** The options object: plain, with a throwing getter, or a Proxy whose traps throw. */
function optionsOf(c) {
  const o = {};
  for (const [key, recipe] of Object.entries(c.fields)) o[key] = make(recipe);
  switch (c.wrapper) {
    case 'getter': return Object.defineProperty(o, c.getterKey, { enumerable: true, get() { throw new CallerError('getter'); } });
    case 'ownKeys': return new Proxy(o, { ownKeys() { throw new CallerError('ownKeys'); } });
    case 'get': return new Proxy(o, { get() { throw new CallerError('get'); } });
    case 'not an object': return c.fields.kernels === 'auto' ? 'auto' : 5;
    default: return o;
  }
}

let copies = 0;
const startRss = process.memoryUsage().rss;

export const target = {
  name: 'loading',
  async: true,
  quickRuns: 150,
  arbitrary: fc.record({
    entry: fc.oneof({ weight: 3, arbitrary: fc.constant('node.js') }, { weight: 1, arbitrary: fc.constant('embedded.js') }),
    fields: fc.oneof(
      { weight: 4, arbitrary: fc.record({ locateFile: locateValue, kernels: kernelsValue }, { requiredKeys: ['locateFile'] }) },
      { weight: 2, arbitrary: fc.record({ wasmBinary: bytesValue, kernels: kernelsValue }, { requiredKeys: ['wasmBinary'] }) },
      { weight: 1, arbitrary: fc.record({ wasmBinary: value, locateFile: value, kernels: value, extra: value }, { requiredKeys: [] }) },
    ),
    wrapper: fc.oneof({ weight: 6, arbitrary: fc.constant('plain') }, { weight: 1, arbitrary: fc.constantFrom('getter', 'ownKeys', 'get', 'not an object') }),
    getterKey: fc.constantFrom('kernels', 'wasmBinary', 'locateFile'),
  }),
  async check(_pe, c) {
    const { createPosEnc } = await import(new URL(`${c.entry}?fuzz=${copies++}`, DIST).href);
    const options = optionsOf(c);
    let pending;
    try {
      pending = createPosEnc(options);
    } catch (error) {
      throw new InvariantError(`createPosEnc (${c.entry}) threw synchronously: ${error?.name}: ${error?.message}`);
    }
    let timer;
    const limit = new Promise((_, reject) => { timer = setTimeout(() => reject(new InvariantError(`createPosEnc (${c.entry}) did not settle in ${SETTLE_MS} ms`)), SETTLE_MS); });
    const r = await containedAsync(`createPosEnc (${c.entry})`, () => Promise.race([pending, limit])).finally(() => clearTimeout(timer));
    if (r.ok && r.value.sinusoidal.table({ length: 1, dim: 2 }).data[1] !== 1) throw new InvariantError('a loaded instance gives a wrong result');
    const growth = process.memoryUsage().rss - startRss;
    if (growth > MAX_RSS_GROWTH) throw new InvariantError(`the process grew by ${growth} bytes`);
  },
};
