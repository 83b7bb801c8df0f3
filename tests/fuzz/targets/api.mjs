// Fuzz target: hostile arguments to every public call (the list in tests/js/api-cases.mjs). Each
// case takes one valid call and replaces an argument, an option or a tensor's data/dims with a
// hostile value: NaN, infinities, -0, huge and tiny numbers, wrong types, getters and valueOf that
// return such values or throw, typed arrays of other kinds, views at offsets, shared and resizable
// buffers (and, once issue 15 items 3 and 5 are fixed, detached and shrinking ones).
import fc from 'fast-check';

import { apiCases } from '../../js/api-cases.mjs';
import { CallerError, InvariantError, contained, extremeNumber } from '../harness.mjs';
import { INCLUDE } from '../known-defects.mjs';

/** Whether `test(v)` holds, false when looking throws (a hostile proxy put there by an earlier edit). */
const safely = (test) => (v) => { try { return test(v); } catch { return false; } };
const isTensor = safely((v) => v !== null && typeof v === 'object' && ArrayBuffer.isView(v.data) && Array.isArray(v.dims));
const isOptions = safely((v) => v !== null && typeof v === 'object' && !ArrayBuffer.isView(v) && !Array.isArray(v) && !isTensor(v) && Object.getPrototypeOf(v) === Object.prototype);

/** Recipes for hostile values (built fresh per call, since some are consumed: a detached buffer). */
const hostileValue = fc.oneof(
  { weight: 6, arbitrary: extremeNumber.map((n) => ({ kind: 'number', make: () => n })) },
  { weight: 3, arbitrary: fc.constantFrom(
    ['undefined', () => undefined], ['null', () => null], ['empty string', () => ''], ['numeric string', () => '4'], ['true', () => true],
    ['{}', () => ({})], ['[]', () => []], ['[NaN]', () => [NaN]], ['symbol', () => Symbol('hostile')], ['bigint', () => 10n],
    ['function', () => () => 1], ['valueOf 4', () => ({ valueOf: () => 4 })], ['valueOf throws', () => ({ valueOf() { throw new CallerError('valueOf'); } })],
    ['throwing proxy', () => new Proxy({}, { get() { throw new CallerError('proxy get'); }, has() { throw new CallerError('proxy has'); }, getPrototypeOf() { throw new CallerError('proxy prototype'); }, ownKeys() { throw new CallerError('proxy keys'); } })],
    ['Float32Array(0)', () => new Float32Array(0)], ['Float64Array [1,2]', () => new Float64Array([1, 2])], ['Int32Array [1,2,3]', () => new Int32Array([1, 2, 3])],
    ['array of strings', () => ['a', 'b']], ['huge array-like', () => ({ length: 2 ** 32 })], ['negative array-like', () => ({ length: -1 })],
    ...(INCLUDE.configHoles ? [['array with a hole', () => [1, , 2]]] : []), // a sparse array: index 1 is a hole
    ...(INCLUDE.detachedBuffers ? [['detached Float64Array', () => detached(Float64Array, 3)], ['detached Float32Array', () => detached(Float32Array, 8)]] : []),
  ).map(([kind, make]) => ({ kind, make })) },
);

function detached(Type, n) {
  const a = new Type(n);
  structuredClone(a.buffer, { transfer: [a.buffer] });
  return a;
}

/** A tensor's data in another form: other element types, offsets, shared or resizable storage. */
const dataForm = fc.constantFrom('Float64Array', 'Int32Array', 'offset view', 'shared', 'resizable', 'length-tracking', 'too short', 'too long', 'plain array',
  ...(INCLUDE.detachedBuffers ? ['detached'] : []));

function reshapeData(data, form) {
  const n = data.length;
  switch (form) {
    case 'Float64Array': return Float64Array.from(data);
    case 'Int32Array': return Int32Array.from(data);
    case 'offset view': { const b = new Float32Array(n + 1); b.set(data, 1); return b.subarray(1); }
    case 'shared': { const b = new Float32Array(new SharedArrayBuffer(4 * n)); b.set(data); return b; }
    case 'resizable': { const b = new Float32Array(new ArrayBuffer(4 * n, { maxByteLength: 8 * n + 8 }), 0, n); b.set(data); return b; }
    case 'length-tracking': { const b = new Float32Array(new ArrayBuffer(4 * n, { maxByteLength: 8 * n + 8 })); b.set(data); return b; }
    case 'too short': return data.slice(0, Math.max(0, n - 1));
    case 'too long': { const b = new Float32Array(n + 3); b.set(data); return b; }
    case 'plain array': return Array.from(data);
    case 'detached': return detached(Float32Array, n);
    default: throw new Error(form);
  }
}

const edit = fc.record({
  kind: fc.constantFrom('argument', 'option', 'option', 'option getter', 'tensor data', 'tensor dims', 'delete option'),
  index: fc.nat(),
  key: fc.nat(),
  unknownKey: fc.nat(7).map((n) => n === 0),
  value: hostileValue,
  form: dataForm,
});

/** A tensor's data to reshape: a zero-filled stand-in when an earlier edit of the case detached it. */
function readable(t) {
  try {
    return Float32Array.from(t.data);
  } catch {
    const size = Array.isArray(t.dims) && t.dims.every(Number.isSafeInteger) ? t.dims.reduce((a, b) => a * b, 1) : 4;
    return new Float32Array(Math.min(Math.max(size, 0), 1 << 20));
  }
}

/** Applies `e` to fresh valid arguments; returns a description of what changed. */
function applyEdit(args, e) {
  const pick = (list) => list[e.index % list.length];
  const tensors = args.map((a, i) => i).filter((i) => isTensor(args[i]));
  const optionIdx = args.findLastIndex(isOptions);
  switch (e.kind) {
    case 'argument': {
      const i = e.index % args.length;
      args[i] = e.value.make();
      return `argument ${i} = ${e.value.kind}`;
    }
    case 'tensor data':
    case 'tensor dims': {
      if (!tensors.length) return applyEdit(args, { ...e, kind: 'argument' });
      const i = pick(tensors);
      const t = args[i];
      if (e.kind === 'tensor data') {
        args[i] = { data: reshapeData(readable(t), e.form), dims: t.dims };
        return `argument ${i}'s data as ${e.form}`;
      }
      const dims = t.dims.slice();
      dims[e.key % dims.length] = e.value.kind === 'symbol' && !INCLUDE.symbolInDims ? NaN : e.value.make();
      args[i] = { data: t.data, dims };
      return `argument ${i}'s dims[${e.key % dims.length}] = ${e.value.kind}`;
    }
    default: {
      if (optionIdx < 0) return applyEdit(args, { ...e, kind: 'argument' });
      const options = { ...args[optionIdx] };
      const keys = Object.keys(options);
      const key = e.unknownKey || !keys.length ? 'fuzzUnknownKey' : keys[e.key % keys.length];
      if (e.kind === 'delete option') delete options[key];
      else if (e.kind === 'option getter') Object.defineProperty(options, key, { enumerable: true, get: e.value.make });
      else options[key] = e.value.make();
      args[optionIdx] = options;
      return `options.${key} ${e.kind === 'delete option' ? 'deleted' : `= ${e.kind === 'option getter' ? 'getter of ' : ''}${e.value.kind}`}`;
    }
  }
}

/** Non-finite values other than -Infinity (a masked bias) in a result or an in-place tensor. */
function badNumbers(value) {
  const arrays = [];
  const visit = (v, depth) => {
    if (depth > 3 || v === null || typeof v !== 'object') return;
    if (v instanceof Float32Array || v instanceof Float64Array) arrays.push(v);
    else if (!ArrayBuffer.isView(v)) for (const x of Object.values(v)) visit(x, depth + 1);
  };
  visit(value, 0);
  return arrays.some((a) => a.some((x) => Number.isNaN(x) || x === Infinity));
}

export const target = {
  name: 'api',
  quickRuns: 5000,
  setup(pe) {
    return { cases: apiCases(pe) };
  },
  arbitrary: (pe, { cases }) => fc.tuple(fc.nat(cases.length - 1), fc.array(edit, { minLength: 1, maxLength: 2 })),
  check(pe, [caseIndex, edits], { cases }) {
    const [name, call, validArgs] = cases[caseIndex];
    const args = validArgs.map((a) => (isTensor(a) ? { data: a.data.slice(), dims: a.dims.slice() } : isOptions(a) ? { ...a } : a));
    const changes = edits.map((e) => {
      try {
        return applyEdit(args, e);
      } catch (error) { // an edit of a value an earlier edit made hostile (a throwing proxy)
        if (error instanceof CallerError) return 'an edit of a throwing proxy (skipped)';
        throw error;
      }
    });
    const r = contained(`${name} with ${changes.join(', ')}`, () => call(...args));
    // Finite results (issue 15 items 2 and 4): on once both classes are fixed.
    if (INCLUDE.extremeParameters && INCLUDE.largePositions && r.ok && badNumbers([r.value, ...args.filter(isTensor)])) {
      throw new InvariantError(`${name} with ${changes.join(', ')}: accepted, but gave NaN or +Infinity`);
    }
  },
};
