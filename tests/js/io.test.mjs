// pe.io: .npy and .safetensors readers (every dtype, byte order, version and order they accept),
// the .npy writer, and a specific INVALID_FILE error for every kind of malformed file.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, throwsPosEnc } from './helpers.mjs';
import { encodeFloats, npyBytes, safetensorsBytes } from './io-fixtures.mjs';

const pe = await createPosEnc();
const { io } = pe;

// Values exact in every format read here (small dyadic rationals), C order for shape [3, 4].
const VALUES = [0, 1, -2, 0.5, 0.25, -0.125, 3, 96, -1024, 1.5, 7, 0.75];
const f32 = (a) => Float32Array.from(a);

test('readNpy reads float32, float64, float16 and bfloat16 in both byte orders', () => {
  for (const [descr, enc, le] of [
    ['<f4', 'f4', true], ['>f4', 'f4', false], ['<f8', 'f8', true], ['>f8', 'f8', false],
    ['<f2', 'f2', true], ['>f2', 'f2', false], ['bfloat16', 'bf16', true],
  ]) {
    const t = io.readNpy(npyBytes({ descr, shape: [3, 4], data: encodeFloats(VALUES, enc, le) }));
    assert.deepEqual(t.dims, [3, 4], descr);
    assert.ok(t.data instanceof Float32Array, descr);
    assert.deepEqual(t.data, f32(VALUES), descr);
  }
});

test("readNpy reads np.save's raw '<V2' bfloat16 only when asked to", () => {
  const bytes = npyBytes({ descr: '<V2', shape: [12], data: encodeFloats(VALUES, 'bf16') });
  throwsPosEnc(() => io.readNpy(bytes), 'INVALID_FILE', /dtype '<V2' is not supported \(2-byte raw elements: how np\.save stores bfloat16; pass \{ voidAs: 'bfloat16' \}/);
  assert.deepEqual(io.readNpy(bytes, { voidAs: 'bfloat16' }).data, f32(VALUES));
  throwsPosEnc(() => io.readNpy(bytes, { voidAs: 'float16' }), 'INVALID_ARGUMENT', /voidAs must be 'bfloat16'/);
});

test('float16 special values: subnormals, signed zero, infinities, NaN', () => {
  const halfs = [2 ** -24, -(2 ** -24), 2 ** -14, 65504, -0, Infinity, -Infinity, NaN];
  const t = io.readNpy(npyBytes({ descr: '<f2', shape: [halfs.length], data: encodeFloats(halfs, 'f2') }));
  assert.deepEqual(Array.from(t.data), halfs);
  assert.ok(Object.is(t.data[4], -0));
});

test('readNpy: format versions 1.0, 2.0, 3.0, 16-byte padding, and every rank', () => {
  const data = encodeFloats(VALUES, 'f4');
  for (const version of [1, 2, 3]) {
    assert.deepEqual(io.readNpy(npyBytes({ version, shape: [3, 4], data })).data, f32(VALUES), `version ${version}`);
  }
  assert.deepEqual(io.readNpy(npyBytes({ shape: [3, 4], data, padTo: 16 })).data, f32(VALUES));
  assert.deepEqual(io.readNpy(npyBytes({ shape: [12], data })).dims, [12]);
  assert.deepEqual(io.readNpy(npyBytes({ shape: [2, 3, 2], data })).dims, [2, 3, 2]);
  const scalar = io.readNpy(npyBytes({ shape: [], data: encodeFloats([2.5], 'f4') }));
  assert.deepEqual([scalar.dims, Array.from(scalar.data)], [[], [2.5]]);
  const empty = io.readNpy(npyBytes({ shape: [0, 768], data: new Uint8Array(0) }));
  assert.deepEqual([empty.dims, empty.data.length], [[0, 768], 0]);
  // Python 2 era headers: 'L' suffixes, double quotes, no trailing comma
  const old = npyBytes({ shape: [3, 4], data, header: `{"descr": "<f4", "fortran_order": False, "shape": (3L, 4L)}` });
  assert.deepEqual(io.readNpy(old).dims, [3, 4]);
});

test('readNpy transposes Fortran-order arrays into C order', () => {
  // C array a[i][j][k] = 100 i + 10 j + k of shape [2, 3, 4]; Fortran order stores i fastest.
  const shape = [2, 3, 4];
  const c = [];
  const fortran = [];
  for (let i = 0; i < 2; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 4; k++) c.push(100 * i + 10 * j + k);
  for (let k = 0; k < 4; k++) for (let j = 0; j < 3; j++) for (let i = 0; i < 2; i++) fortran.push(100 * i + 10 * j + k);
  const t = io.readNpy(npyBytes({ fortran: true, shape, data: encodeFloats(fortran, 'f4') }));
  assert.deepEqual(t.dims, shape);
  assert.deepEqual(t.data, f32(c));
  const m = io.readNpy(npyBytes({ fortran: true, shape: [3, 4], data: encodeFloats([0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11], 'f4') }));
  assert.deepEqual(Array.from(m.data), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
});

test('readNpy accepts ArrayBuffers and unaligned Buffer slices', () => {
  const bytes = npyBytes({ descr: '<f8', shape: [3, 4], data: encodeFloats(VALUES, 'f8') });
  const shifted = Buffer.alloc(bytes.length + 3);
  shifted.set(bytes, 3);
  assert.deepEqual(io.readNpy(shifted.subarray(3)).data, f32(VALUES));
  assert.deepEqual(io.readNpy(bytes.slice().buffer).data, f32(VALUES));
  throwsPosEnc(() => io.readNpy('table.npy'), 'INVALID_TYPE', /bytes must be a Uint8Array, Buffer or ArrayBuffer, got 'table\.npy'/);
  throwsPosEnc(() => io.readNpy(bytes, { voidas: 'bfloat16' }), 'UNKNOWN_OPTION', /did you mean 'voidAs'/);
});

test('writeNpy writes a version 1.0 little-endian C-order file that readNpy reads back', () => {
  const table = { data: f32(VALUES), dims: [3, 4] };
  const bytes = io.writeNpy(table);
  assert.deepEqual(Array.from(bytes.subarray(0, 8)), [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  const headerLength = bytes[8] + 256 * bytes[9];
  assert.equal((10 + headerLength) % 64, 0, 'data aligned to 64 bytes');
  const header = new TextDecoder().decode(bytes.subarray(10, 10 + headerLength));
  assert.equal(header.trimEnd(), "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }");
  assert.ok(header.endsWith('\n'));
  assert.deepEqual(bytes.subarray(10 + headerLength), encodeFloats(VALUES, 'f4'));
  assert.deepEqual(io.readNpy(bytes), table);
  const vector = io.writeNpy(f32([1, 2, 3]), { dims: [3] });
  assert.match(new TextDecoder().decode(vector.subarray(10, 74)), /'shape': \(3,\), }/);
  throwsPosEnc(() => io.writeNpy(f32([1, 2, 3])), 'MISSING_OPTION', /'dims'/);
  throwsPosEnc(() => io.writeNpy(new Float64Array(3), { dims: [3] }), 'INVALID_TYPE', /tensor must be a Float32Array/);
});

test('a table read from .npy feeds pe.learned directly', () => {
  const table = io.readNpy(npyBytes({ descr: '<f2', shape: [3, 4], data: encodeFloats(VALUES, 'f2') }));
  assert.deepEqual(Array.from(pe.learned.lookup(table, { positionIds: [2] }).data), VALUES.slice(8));
});

test('every malformed .npy is an INVALID_FILE error that says what is wrong', () => {
  const data = encodeFloats(VALUES, 'f4');
  const good = npyBytes({ shape: [3, 4], data });
  const bad = (bytes, pattern) => throwsPosEnc(() => io.readNpy(bytes), 'INVALID_FILE', pattern);
  const header = (text) => npyBytes({ shape: [3, 4], data, header: text });
  bad(new Uint8Array(0), /io\.readNpy: the file is 0 bytes, too short for an \.npy header/);
  bad(new TextEncoder().encode('PK\x03\x04 this is a zip'), /not an \.npy file: it does not start with the magic bytes/);
  bad(npyBytes({ shape: [3, 4], data, magic: [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 4, 0] }), /format version 4\.0 is not supported/);
  // the file's own bytes are counted (40), not those after the preamble
  bad(good.subarray(0, 40), /the header says it is 118 bytes long \(the data starts at byte 128\), but the file ends after 40 bytes: it is truncated/);
  bad(good.subarray(0, 100), /but the file ends after 100 bytes: it is truncated/);
  bad(header("['descr', '<f4']"), /the header is not a dict/);
  bad(header("{'descr': '<f4', 'shape': (3, 4)}"), /the header has no 'fortran_order' key/);
  bad(header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), 'extra': 1}"), /unexpected key 'extra'/);
  bad(header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)"), /not a Python dict literal: expected ',' or '}'/);
  bad(header("{'descr': '<f4, 'fortran_order': False}"), /not a Python dict literal/);
  bad(header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)} junk"), /unexpected text after the literal/);
  bad(header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), '__proto__': 1}"), /unexpected key '__proto__'/);
  bad(npyBytes({ descr: '<i4', shape: [3, 4], data }), /dtype '<i4' is not supported; posenc reads float16 \('<f2'\), float32/);
  bad(header("{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (3,)}"), /descr is a list \(a structured dtype\)/);
  bad(npyBytes({ descr: '|f4', shape: [3, 4], data }), /dtype '\|f4' has no byte order/);
  bad(header("{'descr': '<f4', 'fortran_order': 'no', 'shape': (3, 4)}"), /fortran_order must be True or False/);
  bad(header("{'descr': '<f4', 'fortran_order': False, 'shape': 12}"), /shape must be a tuple of sizes/);
  bad(header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, -4)}"), /shape\[1\] is -4, not a size/);
  bad(npyBytes({ shape: [3, 5], data }), /shape \(3, 5\) of float32 needs 60 bytes of data, but the file has 48: it is truncated/);
  bad(npyBytes({ shape: [3, 3], data }), /12 unexpected bytes follow the 36 bytes of data/);
  bad(good.subarray(0, good.length - 1), /needs 48 bytes of data, but the file has 47/);
  throwsPosEnc(() => io.readNpy(npyBytes({ descr: '<f8', shape: [1], data: encodeFloats([1e300], 'f8') })),
    'OUT_OF_RANGE', /the array element 0 is 1e\+300, beyond the float32 range/);
});

const ENTRY = (dtype, shape, values, enc) => ({ dtype, shape, data: encodeFloats(values, enc) });

test('readSafetensors reads F32, F64, F16 and BF16 tensors; listSafetensors lists them with byte ranges', () => {
  const file = safetensorsBytes({
    'wpe.weight': ENTRY('F32', [3, 4], VALUES, 'f4'),
    'h.0.half': ENTRY('F16', [12], VALUES, 'f2'),
    'h.0.brain': ENTRY('BF16', [2, 6], VALUES, 'bf16'),
    'h.0.double': ENTRY('F64', [4, 3], VALUES, 'f8'),
  }, { metadata: { format: 'pt' }, headerPad: 5 });
  const all = io.readSafetensors(file);
  assert.deepEqual(Object.keys(all), ['wpe.weight', 'h.0.half', 'h.0.brain', 'h.0.double']);
  for (const [name, dims] of [['wpe.weight', [3, 4]], ['h.0.half', [12]], ['h.0.brain', [2, 6]], ['h.0.double', [4, 3]]]) {
    assert.deepEqual(all[name], { data: f32(VALUES), dims }, name);
  }
  const header = io.listSafetensors(file);
  assert.deepEqual(header.metadata, { format: 'pt' });
  assert.equal(header.dataOffset, file.length - 48 - 24 - 24 - 96);
  assert.deepEqual(header.tensors.map((t) => [t.name, t.dtype, t.dims, t.readable, t.end - t.begin]), [
    ['wpe.weight', 'F32', [3, 4], true, 48], ['h.0.half', 'F16', [12], true, 24],
    ['h.0.brain', 'BF16', [2, 6], true, 24], ['h.0.double', 'F64', [4, 3], true, 96],
  ]);
  const wpe = header.tensors[0];
  assert.deepEqual(new Float32Array(file.slice(wpe.begin, wpe.end).buffer), f32(VALUES), 'begin/end are file offsets');
  // the header alone is enough to list
  assert.deepEqual(io.listSafetensors(file.subarray(0, header.dataOffset)).tensors, header.tensors);
  const one = io.readSafetensors(file.buffer, { names: ['h.0.brain'] });
  assert.deepEqual(Object.keys(one), ['h.0.brain']);
});

test('readSafetensors: non-float tensors are listed, skipped by names, and refused by name', () => {
  const file = safetensorsBytes({
    'embeddings.position_ids': { dtype: 'I64', shape: [1, 3], data: new Uint8Array(24) },
    'embeddings.position_embeddings.weight': ENTRY('F32', [3, 4], VALUES, 'f4'),
    ['__proto__']: ENTRY('F32', [1], [5], 'f4'), // computed key: an own property, as JSON.parse makes it
  });
  assert.deepEqual(io.listSafetensors(file).tensors.map((t) => t.readable), [false, true, true]);
  throwsPosEnc(() => io.readSafetensors(file), 'INVALID_FILE',
    /tensor 'embeddings\.position_ids' has dtype I64; posenc reads F32, F64, F16 and BF16 \(choose the tensors to read with the 'names' option\)/);
  const picked = io.readSafetensors(file, { names: ['embeddings.position_embeddings.weight', '__proto__'] });
  assert.deepEqual(picked['embeddings.position_embeddings.weight'].data, f32(VALUES));
  assert.equal(Object.getPrototypeOf(picked), Object.prototype, 'a tensor named __proto__ is plain data');
  assert.deepEqual(Array.from(picked['__proto__'].data), [5]);
  throwsPosEnc(() => io.readSafetensors(file, { names: ['wpe.weight'] }), 'INVALID_ARGUMENT',
    /no tensor 'wpe\.weight'; it holds 3 tensor\(s\): 'embeddings\.position_ids', 'embeddings\.position_embeddings\.weight'/);
  throwsPosEnc(() => io.readSafetensors(file, { names: 'wpe.weight' }), 'INVALID_TYPE', /names must be an array of tensor names/);
});

test('every malformed .safetensors is an INVALID_FILE error that says what is wrong', () => {
  const tensors = { a: ENTRY('F32', [3, 4], VALUES, 'f4'), b: ENTRY('F16', [12], VALUES, 'f2') };
  const good = safetensorsBytes(tensors);
  const bad = (bytes, pattern) => throwsPosEnc(() => io.readSafetensors(bytes), 'INVALID_FILE', pattern);
  const json = (text) => safetensorsBytes(tensors, { headerJson: text });
  bad(new Uint8Array(5), /io\.readSafetensors: the file is 5 bytes, too short for a safetensors header/);
  bad(new TextEncoder().encode('{"hello": "this is JSON, not safetensors"}'), /the header size field is \d+, not a plausible JSON header size: is this a safetensors file\?/);
  bad(good.subarray(0, 20), /the header is \d+ bytes long \(the tensors start at byte \d+\), but the file ends after 20 bytes: it is truncated/);
  bad(json('\u00ff'.repeat(3)).map((b, i) => (i >= 8 && i < 14 ? 0xff : b)), /the header is not valid UTF-8/);
  bad(json('not json'), /does not start with '\{' \(a JSON object\)/);
  bad(json('{"a": '), /the header is not valid JSON/);
  bad(json('{"__metadata__": {"n": 1}}'), /__metadata__ value 'n' is not a string/);
  bad(json('{"a": [1, 2]}'), /tensor 'a' is not an object/);
  bad(json('{"a": {"shape": [3], "data_offsets": [0, 12]}}'), /tensor 'a' has no dtype string/);
  bad(json('{"a": {"dtype": "F32", "shape": [3, -1], "data_offsets": [0, 12]}}'), /tensor 'a' has no valid shape/);
  bad(json('{"a": {"dtype": "F32", "shape": [3], "data_offsets": [12, 0]}}'), /tensor 'a' has no valid data_offsets/);
  bad(json('{"a": {"dtype": "F32", "shape": [3, 4], "data_offsets": [0, 40]}}'), /tensor 'a': data_offsets \[0, 40\] span 40 bytes, but F32 of shape \[3, 4\] needs 48/);
  bad(json('{"a": {"dtype": "F32", "shape": [3, 4], "data_offsets": [0, 48]}, "b": {"dtype": "F16", "shape": [12], "data_offsets": [40, 64]}}'),
    /tensors 'a' and 'b' overlap/);
  bad(good.subarray(0, good.length - 2), /tensor 'b' ends at byte \d+, but the file has \d+ bytes: it is truncated/);
  throwsPosEnc(() => io.listSafetensors(new Float32Array(1)), 'INVALID_FILE', /io\.listSafetensors: the file is 4 bytes/);
  throwsPosEnc(() => io.readSafetensors(null), 'INVALID_TYPE', /bytes must be/);
});

test('listSafetensors gives the file order (data offsets), even for integer-like names and shuffled keys', () => {
  // the data holds 1, 2, 3 for b, 10, 2 (a JS object literal would put 2 and 10 first: write the JSON as text)
  const file = safetensorsBytes({ data: { dtype: 'U8', shape: [12], data: encodeFloats([1, 2, 3], 'f4') } }, {
    headerJson: '{"b": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "10": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}, "2": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}}',
  });
  assert.deepEqual(io.listSafetensors(file).tensors.map((t) => t.name), ['b', '10', '2']);
  const values = io.readSafetensors(file);
  assert.deepEqual([values.b.data[0], values['10'].data[0], values['2'].data[0]], [1, 2, 3]);
  // keys written in another order than the data: the data decides (as the reference reader sorts)
  const shuffled = safetensorsBytes({ x: ENTRY('F32', [2], [1, 2], 'f4'), y: ENTRY('F16', [2], [3, 4], 'f2'), z: ENTRY('F32', [1], [5], 'f4') }, {
    // the same data, its keys listed z, x, y
    headerJson: '{"z": {"dtype": "F32", "shape": [1], "data_offsets": [12, 16]}, "x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "y": {"dtype": "F16", "shape": [2], "data_offsets": [8, 12]}}',
  });
  const listed = io.listSafetensors(shuffled).tensors;
  assert.deepEqual(listed.map((t) => t.name), ['x', 'y', 'z']);
  assert.deepEqual(listed.map((t) => t.begin - listed[0].begin), [0, 8, 12]);
  const read = io.readSafetensors(shuffled);
  assert.deepEqual([Array.from(read.x.data), Array.from(read.y.data), Array.from(read.z.data)], [[1, 2], [3, 4], [5]]);
  // empty tensors take no bytes and may sit anywhere
  const empty = safetensorsBytes({ e: { dtype: 'F32', shape: [0], data: new Uint8Array(0) }, a: ENTRY('F32', [1], [7], 'f4') });
  assert.deepEqual(io.listSafetensors(empty).tensors.map((t) => t.name), ['e', 'a']);
  assert.deepEqual(Array.from(io.readSafetensors(empty).a.data), [7]);
});

test('safetensors: gaps, data not starting at 0, overlaps and bytes after the last tensor are INVALID_FILE', () => {
  // The reference reader (huggingface/safetensors, safetensors/src/tensor.rs) refuses each:
  // Metadata::validate (InvalidOffset) and SafeTensors::read_metadata (MetadataIncompleteBuffer).
  const withHeader = (json, dataBytes) => safetensorsBytes({ d: { dtype: 'U8', shape: [dataBytes], data: new Uint8Array(dataBytes) } }, { headerJson: json });
  const both = (bytes, pattern) => {
    throwsPosEnc(() => io.listSafetensors(bytes), 'INVALID_FILE', pattern);
    throwsPosEnc(() => io.readSafetensors(bytes), 'INVALID_FILE', pattern);
  };
  both(withHeader('{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}}', 12),
    /tensor 'b' starts at data byte 8, but 'a' ends at 4: the file has a gap between tensors/);
  both(withHeader('{"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}', 8),
    /tensor 'a' starts at data byte 4, but the data starts at 0/);
  both(withHeader('{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "b": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}', 8),
    /tensors 'a' and 'b' overlap/);
  both(withHeader('{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "b": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}', 4),
    /tensors 'a' and 'b' overlap/);
  const good = safetensorsBytes({ a: ENTRY('F32', [1], [1], 'f4') });
  const trailing = new Uint8Array(good.length + 3);
  trailing.set(good);
  throwsPosEnc(() => io.readSafetensors(trailing), 'INVALID_FILE', /the file has 3 bytes after the last tensor \('a', ending at byte \d+\)/);
  assert.deepEqual(io.listSafetensors(trailing).tensors.map((t) => t.name), ['a'], 'listing needs only the header');
  const onlyHeader = safetensorsBytes({}, { headerJson: '{}' });
  const extra = new Uint8Array(onlyHeader.length + 1);
  extra.set(onlyHeader);
  throwsPosEnc(() => io.readSafetensors(extra), 'INVALID_FILE', /1 bytes after the header/);
  assert.deepEqual(io.readSafetensors(onlyHeader), {});
  throwsPosEnc(() => io.readSafetensors(good.subarray(0, good.length - 1)), 'INVALID_FILE', /tensor 'a' ends at byte \d+, but the file has \d+ bytes: it is truncated/);
});

// --- Writing float16 and bfloat16: round to nearest, ties to even --------------------------------
// The expected values come from the formats' definitions, not from an encoder: every finite value
// of the format must encode to itself, and each midpoint between neighbours (exact in float32)
// to the neighbour with an even last bit, the float32 just below it down and just above it up.

/** The elements of an .npy file written by io.writeNpy, as raw uint16 bit patterns. */
function writtenBits(values, dtype) {
  const bytes = io.writeNpy(f32(values), { dims: [values.length], dtype });
  const header = 10 + new DataView(bytes.buffer).getUint16(8, true);
  assert.equal(bytes.length, header + 2 * values.length);
  return Array.from({ length: values.length }, (_, i) => bytes[header + 2 * i] | (bytes[header + 2 * i + 1] << 8));
}

/** The value of binary16 bits h (IEEE 754: 5 exponent bits, bias 15, 10 mantissa bits). */
function halfValue(h) {
  const e = (h >> 10) & 31;
  const m = h & 1023;
  const v = e === 0 ? m * 2 ** -24 : e === 31 ? (m ? NaN : Infinity) : (1024 + m) * 2 ** (e - 25);
  return h & 0x8000 ? -v : v;
}

/** The value of bfloat16 bits b: the upper half of a float32. */
function bfloatValue(b) {
  return new Float32Array(new Uint32Array([b << 16]).buffer)[0];
}

const f32bits = (x) => new Uint32Array(Float32Array.of(x).buffer)[0];
const fromBits = (u) => new Float32Array(new Uint32Array([u]).buffer)[0];
const nextUp = (x) => fromBits(f32bits(x) + (x >= 0 ? 1 : -1)); // for finite x != 0 of either sign: away from zero
const nextDown = (x) => fromBits(f32bits(x) + (x > 0 ? -1 : 1)); // toward zero

for (const [dtype, valueOf, maxFinite, infinity] of [['float16', halfValue, 0x7bff, 0x7c00], ['bfloat16', bfloatValue, 0x7f7f, 0x7f80]]) {
  test(`writeNpy dtype '${dtype}': every value exact, every tie to even, overflow to infinity`, () => {
    const values = [];
    const expected = [];
    const push = (v, bits) => { values.push(v); expected.push(bits); };
    for (let b = 0; b <= maxFinite; b++) {
      const v = valueOf(b);
      push(v, b);
      push(-v, b | 0x8000);
      const above = valueOf(b + 1); // b + 1 = infinity after the largest finite value
      const mid = b === maxFinite ? v + (v - valueOf(b - 1)) / 2 : (v + above) / 2;
      assert.equal(Math.fround(mid), mid, 'midpoints are float32 values');
      const even = b % 2 === 0 ? b : b + 1;
      push(mid, even);
      push(-mid, even | 0x8000);
      push(nextDown(mid), b); // just below the midpoint: down
      push(nextUp(mid), b + 1); // just above: up
    }
    push(Infinity, infinity);
    push(-Infinity, infinity | 0x8000);
    push(3.4028234663852886e38, infinity); // the largest float32 rounds up past the largest finite value
    push(-0, 0x8000);
    const bits = writtenBits(values, dtype);
    for (let i = 0; i < values.length; i++) {
      if (bits[i] !== expected[i]) assert.fail(`${dtype}: ${values[i]} (float32 bits 0x${f32bits(values[i]).toString(16)}) -> 0x${bits[i].toString(16)}, expected 0x${expected[i].toString(16)}`);
    }
    const nan = writtenBits([NaN, -NaN], dtype);
    for (const b of nan) assert.ok(Number.isNaN(valueOf(b)), `NaN stays NaN: 0x${b.toString(16)}`);
  });
}

test("writeNpy dtype: descr '<f2' and '<V2' (as np.save stores bfloat16); readNpy reads the rounded values back", () => {
  const values = f32([0.1, -2.5, 1 / 3, 70000, 1e-6]);
  const half = io.writeNpy(values, { dims: [5], dtype: 'float16' });
  assert.match(new TextDecoder().decode(half.subarray(10, 60)), /'descr': '<f2'/);
  assert.deepEqual(Array.from(io.readNpy(half).data), [0.0999755859375, -2.5, 0.333251953125, Infinity, 0.0000010132789611816406]);
  const bf = io.writeNpy(values, { dims: [5], dtype: 'bfloat16' });
  assert.match(new TextDecoder().decode(bf.subarray(10, 60)), /'descr': '<V2'/);
  assert.deepEqual(Array.from(io.readNpy(bf, { voidAs: 'bfloat16' }).data), [0.10009765625, -2.5, 0.333984375, 70144, 9.98377799987793e-7]);
  assert.deepEqual(io.writeNpy(values, { dims: [5], dtype: 'float32' }), io.writeNpy(values, { dims: [5] }));
  throwsPosEnc(() => io.writeNpy(values, { dims: [5], dtype: 'float64' }), 'INVALID_ARGUMENT', /dtype must be 'float32' or 'float16' or 'bfloat16', got 'float64'/);
});

test('writeSafetensors writes what the reference reader expects: 8-byte aligned header, offsets in order, metadata', () => {
  const a = { data: f32([1, 2, 3, 4, 5, 6]), dims: [2, 3] };
  const b = f32([0.5, -0.25]);
  for (const dtype of ['float32', 'float16', 'bfloat16']) {
    const bytes = io.writeSafetensors({ 'wpe.weight': a, bias: { data: b, dims: [2] } }, { dtype, metadata: { format: 'pt' } });
    const header = io.listSafetensors(bytes);
    // huggingface/safetensors, safetensors/src/tensor.rs, prepare(): the JSON is padded with spaces
    // to a multiple of 8 bytes, and read_metadata() wants the data to end exactly at the file's end.
    assert.equal(header.dataOffset % 8, 0, dtype);
    const size = dtype === 'float32' ? 4 : 2;
    assert.equal(bytes.length, header.dataOffset + 8 * size);
    assert.deepEqual(header.metadata, { format: 'pt' });
    const code = { float32: 'F32', float16: 'F16', bfloat16: 'BF16' }[dtype];
    assert.deepEqual(header.tensors.map((t) => [t.name, t.dtype, t.dims, t.begin - header.dataOffset, t.end - header.dataOffset]),
      [['wpe.weight', code, [2, 3], 0, 6 * size], ['bias', code, [2], 6 * size, 8 * size]]);
    const back = io.readSafetensors(bytes);
    assert.deepEqual(back['wpe.weight'], a); // small dyadic values: exact in every dtype
    assert.deepEqual(back.bias.data, b);
  }
  throwsPosEnc(() => io.writeSafetensors({ __metadata__: a }), 'INVALID_ARGUMENT', /tensor name '__metadata__' is reserved/);
  throwsPosEnc(() => io.writeSafetensors([a]), 'INVALID_TYPE', /tensors must be an object of named tensors/);
  // no option gives a bare array its shape here: the message must not ask for one
  throwsPosEnc(() => io.writeSafetensors({ b }), 'INVALID_TYPE', /tensors\['b'\] is a bare Float32Array; give it with its shape, as \{ data, dims \}/);
  throwsPosEnc(() => io.writeSafetensors({ a }, { metadata: { n: 1 } }), 'INVALID_TYPE', /metadata must be an object of string values/);
  throwsPosEnc(() => io.writeSafetensors({ a }, { dtype: 'int8' }), 'INVALID_ARGUMENT', /dtype must be 'float32' or 'float16' or 'bfloat16', got 'int8'/);
});
