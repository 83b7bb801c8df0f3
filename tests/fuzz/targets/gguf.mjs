// Fuzz target: pe.model.fromGguf and fromGgufFile over GGUF files: mutated seed files (tests/fuzz/
// corpus/gguf, written from real configs' plans by pe.model.toGguf), headers whose metadata values
// were replaced by hostile ones of the same GGUF type or deleted, and files built structure by
// structure (tests/js/gguf-bytes.mjs) whose keys, types, counts, alignment, tensor entries and
// offsets are edited, repeated or cut. Invariants besides the harness's: nothing is read outside
// the caller's view (the same bytes as a view inside a larger buffer of decoy bytes, and streamed
// from a Blob, give exactly the same plan or the same error code), and toGguf writes back any plan read.
import assert from 'node:assert/strict';

import fc from 'fast-check';

import { writeGgufHeader } from '../../../dist/model/gguf-header.js';
import { gguf } from '../../js/gguf-bytes.mjs';
import { InvariantError, contained, containedAsync, corpus, extremeNumber, mutatedBytes } from '../harness.mjs';

const seeds = corpus('gguf');

const FLOAT_TYPES = new Set(['float32', 'float64']);
const INT_LIMITS = { uint8: [0, 255], int8: [-128, 127], uint16: [0, 65535], int16: [-32768, 32767], uint32: [0, 2 ** 32 - 1],
  int32: [-(2 ** 31), 2 ** 31 - 1], uint64: [0, 2 ** 53], int64: [-(2 ** 53), 2 ** 53] };

/** A value the writer can store in `type`: any float for float types, any in-range integer for integer types. */
function valueFor(type, pick, n) {
  if (FLOAT_TYPES.has(type)) return n;
  const limits = INT_LIMITS[type];
  if (limits) return Number.isFinite(n) ? Math.min(limits[1], Math.max(limits[0], Math.trunc(n))) : pick % (limits[1] + 1);
  if (type === 'bool') return pick % 2 === 0;
  return ['', 'llama', 'yarn', 'linear', 'none', 'x'.repeat(pick % 300)][pick % 6];
}

/** Metadata of each seed's plan edited: a value replaced (same type) or a key deleted. */
function metadataEdits(pe) {
  const metadatas = seeds.map((s) => pe.model.toGguf(pe.model.fromGguf(s.bytes)));
  const edit = fc.record({ key: fc.nat(), op: fc.constantFrom('set', 'set', 'delete', 'truncateArray'), n: extremeNumber, pick: fc.nat() });
  return fc.tuple(fc.constantFrom(...metadatas), fc.array(edit, { minLength: 1, maxLength: 4 })).map(([metadata, edits]) => {
    const m = structuredClone(metadata);
    for (const e of edits) {
      const keys = Object.keys(m);
      if (keys.length === 0) break;
      const key = keys[e.key % keys.length];
      const entry = m[key];
      if (e.op === 'delete') delete m[key];
      else if (entry.type === 'array') entry.value = e.op === 'truncateArray' ? entry.value.slice(0, e.pick % (entry.value.length + 1)) : entry.value.map(() => valueFor(entry.itemType, e.pick, e.n));
      else entry.value = valueFor(entry.type, e.pick, e.n);
    }
    return writeGgufHeader(m);
  });
}

/** Valid files with factor tensors (Llama 3.1's rope_freqs, Phi-3's long/short lists), as [entries, tensors] to edit. */
const LLAMA = [['general.architecture', 'str', 'llama'], ['llama.block_count', 'u32', 4], ['llama.context_length', 'u32', 131072],
  ['llama.embedding_length', 'u32', 256], ['llama.attention.head_count', 'u32', 4], ['llama.attention.head_count_kv', 'u32', 2],
  ['llama.rope.dimension_count', 'u32', 64], ['llama.rope.freq_base', 'f32', 500000], ['tokenizer.ggml.tokens', 'strs', ['a', 'bc', '']]];
const PHI3 = [['general.architecture', 'str', 'phi3'], ['phi3.block_count', 'u32', 2], ['phi3.context_length', 'u32', 131072],
  ['phi3.embedding_length', 'u32', 256], ['phi3.attention.head_count', 'u32', 4], ['phi3.rope.dimension_count', 'u32', 32],
  ['phi3.rope.scaling.original_context_length', 'u32', 4096], ['phi3.rope.scaling.attn_factor', 'f32', 1.19]];
const GEMMA2 = [['general.architecture', 'str', 'gemma2'], ['gemma2.block_count', 'u32', 6], ['gemma2.embedding_length', 'u32', 512],
  ['gemma2.attention.head_count', 'u32', 4], ['gemma2.attention.sliding_window', 'u32', 128],
  ['gemma2.attention.sliding_window_pattern', 'bools', [true, false, true, false, true, false]]];
const ramp = (n, from) => Array.from({ length: n }, (_, i) => from + i / n);
const STRUCTURES = [
  { entries: LLAMA, tensors: [{ name: 'token_embd.weight', values: [1, 2, 3] }, { name: 'rope_freqs.weight', values: ramp(32, 1) }] },
  { entries: PHI3, tensors: [{ name: 'rope_factors_long.weight', values: ramp(16, 1) }, { name: 'rope_factors_short.weight', values: ramp(16, 0.5) }] },
  { entries: GEMMA2, tensors: [] },
];
const TYPES = ['u8', 'i32', 'u32', 'u64', 'f32', 'f64', 'bool', 'str', 'bools', 'u32s', 'strs'];
const hostileNumber = fc.oneof(extremeNumber, fc.constantFrom(0, -1, 1, 2, 3, 31, 32, 33, 64, 65536, 65537, 2 ** 31, 2 ** 32 - 1));
const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'general.alignment', 'llama.rope.freq_base', 'rope_freqs.weight',
  'llama.attention.head_count', 'phi3.rope.dimension_count', 'gemma2.attention.sliding_window'];

/** A value of GGUF type `type` the byte writer can store, from a fuzzed number. */
function storable(type, n, pick) {
  const int = (lo, hi) => (Number.isFinite(n) ? Math.min(hi, Math.max(lo, Math.trunc(n))) : pick % hi);
  switch (type) {
    case 'u8': return int(0, 255);
    case 'i32': return int(-(2 ** 31), 2 ** 31 - 1);
    case 'u32': return int(0, 2 ** 32 - 1);
    case 'u64': return int(0, 2 ** 53);
    case 'f32': case 'f64': return n;
    case 'bool': return pick % 2 === 0;
    case 'str': return NAMES[pick % NAMES.length];
    case 'bools': return Array.from({ length: pick % 9 }, (_, i) => (i + pick) % 2 === 0);
    case 'u32s': return Array.from({ length: pick % 9 }, () => int(0, 2 ** 32 - 1));
    default: return Array.from({ length: pick % 5 }, (_, i) => NAMES[(pick + i) % NAMES.length]);
  }
}

const structureEdit = fc.oneof(
  fc.record({ op: fc.constant('retype'), at: fc.nat(), type: fc.constantFrom(...TYPES), n: hostileNumber, pick: fc.nat() }),
  fc.record({ op: fc.constant('renumber'), at: fc.nat(), n: hostileNumber, pick: fc.nat() }),
  fc.record({ op: fc.constantFrom('duplicate', 'delete'), at: fc.nat() }),
  fc.record({ op: fc.constant('add'), name: fc.constantFrom(...NAMES), type: fc.constantFrom(...TYPES), n: hostileNumber, pick: fc.nat() }),
  fc.record({ op: fc.constant('alignment'), value: fc.constantFrom(0, 1, 2, 3, 8, 16, 31, 32, 64, 96, 65536, 131072, 2 ** 31), type: fc.constantFrom('u32', 'u32', 'u64', 'f32', 'i32') }),
  fc.record({ op: fc.constant('tensor'), at: fc.nat(), field: fc.constantFrom('name', 'type', 'dims', 'offset', 'duplicate', 'delete', 'values'), n: hostileNumber, pick: fc.nat() }),
  fc.record({ op: fc.constant('count'), which: fc.constantFrom('kvCount', 'tensorCount'), value: fc.constantFrom(0, 1, 2 ** 20, 2 ** 32, 2 ** 40, 2 ** 53 - 1), delta: fc.integer({ min: -2, max: 2 }) }),
  fc.record({ op: fc.constant('version'), value: fc.constantFrom(1, 2, 3, 4, 2 ** 32 - 1) }),
);

/** A file built from one of STRUCTURES with structure edits applied, then possibly cut. */
const structured = fc.tuple(fc.constantFrom(...STRUCTURES), fc.array(structureEdit, { minLength: 1, maxLength: 5 }), fc.option(fc.nat(), { freq: 6 }))
  .map(([base, edits, cut]) => {
    const entries = base.entries.map((e) => [...e]);
    const tensors = base.tensors.map((t) => ({ ...t, values: [...t.values] }));
    const options = { tensors };
    for (const e of edits) {
      const entry = entries.length ? entries[e.at % entries.length] : undefined;
      const tensor = tensors.length ? tensors[e.at % tensors.length] : undefined;
      switch (e.op) {
        case 'retype': if (entry) { entry[1] = e.type; entry[2] = storable(e.type, e.n, e.pick); } break;
        case 'renumber': if (entry && !['str', 'bools', 'u32s', 'strs', 'bool'].includes(entry[1])) entry[2] = storable(entry[1], e.n, e.pick); break;
        case 'duplicate': if (entry) entries.push([...entry]); break;
        case 'delete': if (entry) entries.splice(e.at % entries.length, 1); break;
        case 'add': entries.push([e.name, e.type, storable(e.type, e.n, e.pick)]); break;
        case 'alignment': {
          entries.push(['general.alignment', e.type, storable(e.type, e.value, 0)]);
          if (e.type === 'u32' && e.value > 0 && e.value <= 65536 && (e.value & (e.value - 1)) === 0) options.alignment = e.value;
          break;
        }
        case 'tensor': {
          if (!tensor) break;
          if (e.field === 'name') tensor.name = NAMES[e.pick % NAMES.length];
          if (e.field === 'type') tensor.type = storable('u32', e.n, e.pick) % 40;
          if (e.field === 'dims') tensor.dims = Array.from({ length: e.pick % 6 }, () => storable('u64', e.n, e.pick));
          if (e.field === 'offset') tensor.offset = storable('u64', e.n, e.pick);
          if (e.field === 'duplicate') tensors.push({ ...tensor });
          if (e.field === 'delete') tensors.splice(e.at % tensors.length, 1);
          if (e.field === 'values') tensor.values = tensor.values.map((v, i) => (i === e.pick % tensor.values.length ? e.n : v));
          break;
        }
        case 'count': options[e.which] = Math.max(0, e.value === 0 ? (e.which === 'kvCount' ? entries.length : tensors.length) + e.delta : e.value); break;
        case 'version': options.version = e.value; break;
        default: throw new Error(e.op);
      }
    }
    const bytes = gguf(entries, options);
    return cut === null ? bytes : bytes.subarray(0, cut % (bytes.length + 1));
  });

/** Decoy bytes around a view: a float32 pattern that looks like valid divisors, or copies of the file itself. */
const surround = fc.record({ before: fc.constantFrom(1, 4, 32, 100, 4096), after: fc.constantFrom(0, 1, 64, 4096), decoy: fc.constantFrom('floats', 'file', 'ones') });

function inside(bytes, { before, after, decoy }) {
  const big = new Uint8Array(before + bytes.length + after);
  if (decoy === 'floats') { const v = new DataView(big.buffer); for (let i = 0; i + 4 <= big.length; i += 4) v.setFloat32(i, 2, true); }
  if (decoy === 'ones') big.fill(1);
  if (decoy === 'file' && bytes.length) for (let i = 0; i < big.length; i += bytes.length) big.set(bytes.subarray(0, Math.min(bytes.length, big.length - i)), i);
  big.set(bytes, before);
  return big.subarray(before, before + bytes.length);
}

/** The outcome of a call as compared between two ways of giving the same bytes. */
const outcome = (r) => (r.ok ? { plan: r.value } : { code: r.code });

export const target = {
  name: 'gguf',
  async: true,
  quickRuns: 1000,
  arbitrary: (pe) => fc.tuple(fc.oneof({ weight: 2, arbitrary: mutatedBytes(seeds, 8) }, { weight: 1, arbitrary: metadataEdits(pe) }, { weight: 3, arbitrary: structured }),
    fc.constantFrom('u8', 'buffer', 'blob'), surround),
  async check(pe, [bytes, how, around]) {
    const plan = contained('model.fromGguf', () => pe.model.fromGguf(how === 'buffer' ? bytes.slice().buffer : bytes));
    // Nothing outside the caller's view: the same bytes as a view among decoys give the same plan or error.
    const view = contained('model.fromGguf (view)', () => pe.model.fromGguf(inside(bytes, around)));
    try {
      assert.deepEqual(outcome(view), outcome(plan));
    } catch {
      throw new InvariantError(`model.fromGguf of a view among decoy bytes (${JSON.stringify(around)}) differs from the bytes alone: ${JSON.stringify(outcome(view)).slice(0, 200)} vs ${JSON.stringify(outcome(plan)).slice(0, 200)}`);
    }
    if (how === 'blob') {
      const streamed = await containedAsync('model.fromGgufFile(Blob)', () => pe.model.fromGgufFile(new Blob([bytes])));
      try {
        assert.deepEqual(outcome(streamed), outcome(plan));
      } catch {
        throw new InvariantError(`model.fromGgufFile(Blob) differs from fromGguf of the bytes: ${JSON.stringify(outcome(streamed)).slice(0, 200)} vs ${JSON.stringify(outcome(plan)).slice(0, 200)}`);
      }
    }
    // A plan that was read writes its metadata back.
    if (plan.ok) contained('model.toGguf(fromGguf)', () => pe.model.toGguf(plan.value));
  },
};
