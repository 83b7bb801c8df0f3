// The shipped posenc.wasm really uses WebAssembly SIMD in its kernels: disassemble it with
// wasm-objdump (wabt) and look at the instructions of each kernel function.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const wasm = fileURLToPath(new URL('../../dist/posenc.wasm', import.meta.url));
const listing = execFileSync('wasm-objdump', ['-d', wasm], { encoding: 'utf8', maxBuffer: 1 << 28 });

/** Instruction names per function, keyed by the demangled name without arguments. */
const functions = new Map();
let current;
for (const line of listing.split('\n')) {
  const header = /^[0-9a-f]+ func\[\d+\] <(.*)>:$/.exec(line);
  if (header) {
    current = header[1].replace(/\(.*$/, '');
    functions.set(current, []);
  } else if (current) {
    const op = /\|\s+([a-z0-9_.]+)(?:\s+\d+\s+<([^>(]+))?/.exec(line);
    if (op) functions.get(current).push(op[1] === 'call' ? `call ${op[2]}` : op[1]);
  }
}

/** Instructions of `name`, or of the first of 'a|b|...' that is in the module (a kernel or the caller it was inlined into). */
function opsOf(name) {
  const found = name.split('|').find((n) => functions.has(n));
  assert.ok(found, `${name} is in the module (built with --profiling-funcs)`);
  return functions.get(found);
}

/** The functions `name` calls. */
function callsOf(name) {
  return opsOf(name).filter((op) => op.startsWith('call ')).map((op) => op.slice(5));
}

const expectations = {
  // The drivers call the token kernels (one call for a chunk of tokens). Each has at least one of
  // its two row orders inlined, so its own body must hold the SIMD rotation.
  'posenc::kernels::rotate_half_tokens': ['f32x4.mul', 'f32x4.sub', 'f32x4.add', 'v128.load', 'v128.store'],
  'posenc::kernels::rotate_interleaved_tokens': ['f32x4.mul', 'f32x4.add', 'i8x16.shuffle'],
  // wasm-opt inlines these small kernels into their one caller; the SIMD must be there then.
  'posenc::kernels::expand_interleaved|posenc::detail::expand_interleaved|posenc::detail::ChunkRows::point': ['i8x16.shuffle', 'v128.xor', 'v128.store'],
  'posenc::kernels::phasor_rows_narrow|posenc::detail::angle_rows_range': ['f64x2.mul', 'f64x2.sub', 'f64x2.add', 'f32x4.demote_f64x2_zero'],
  'posenc::kernels::phasor_rows_narrow_interleave|posenc::detail::angle_rows_range': ['f64x2.mul', 'f32x4.demote_f64x2_zero', 'i8x16.shuffle'],
  'posenc::kernels::sincos': ['f64x2.nearest', 'f64x2.mul', 'f64x2.add', 'v128.bitselect'],
  'posenc::kernels::narrow_interleave': ['f32x4.demote_f64x2_zero', 'f64x2.mul', 'v128.store'],
  'posenc::kernels::narrow': ['f32x4.demote_f64x2_zero'],
  'posenc::kernels::add': ['f32x4.add'],
};

for (const [name, wanted] of Object.entries(expectations)) {
  test(`${name} compiles to SIMD instructions`, () => {
    const ops = opsOf(name);
    for (const op of wanted) assert.ok(ops.includes(op), `${name} uses ${op}`);
  });
}

test('the trigonometry calls no float->int conversion, and scalar sin/cos only for angles beyond 3.29e6 rad', () => {
  for (const name of ['posenc::detail::angle_rows_range', 'posenc::detail::angle_rows_list']) {
    const callees = callsOf(name);
    for (const callee of callees) assert.doesNotMatch(callee, /^(sin|cos|sincos|lrintf?|__sin|__cos)$/, `${name} calls ${callee}`);
  }
  // sincos's SIMD loop calls nothing; after it, lanes beyond its exact reduction (flagged in the
  // loop) are redone with musl's sin and cos, whose reduction is exact for any double
  // (src/kernels/sincos-inl.hpp, docs/encodings.md#82-precision).
  const sincosCalls = callsOf('posenc::kernels::sincos').filter((c) => !/^__mem(cpy|set)$/.test(c));
  assert.deepEqual([...new Set(sincosCalls)].sort(), ['cos', 'sin'], 'sincos calls only memcpy (its padded tail) and the exact sin/cos');
});
