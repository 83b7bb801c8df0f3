// The relaxed-SIMD kernel module (build/relaxed/posenc-relaxed.wasm, built by clang-19 from
// src/kernels-relaxed/, embedded in every entry as dist/relaxed-base64.js): safe to run on the main
// module's memory, the same wasm32 signatures as the SIMD128 kernels, within the bounds of
// docs/encodings.md#82-precision under Node's flag; and createPosEnc's `kernels` option (bindings/js/relaxed.ts).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { RELAXED_EXPORTS, RELAXED_WASM } from '../../scripts/lib/builds.mjs';
import { embeddedRelaxedModule } from '../support/relaxed-module.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const wasm = root + RELAXED_WASM;
const FLAG = '--experimental-wasm-relaxed-simd';

test('npm run build built the relaxed kernels (clang-19 and lld-19 are test packages)', () => {
  assert.ok(existsSync(wasm), `${RELAXED_WASM} is missing: install clang-19 lld-19 (npm test does) and run npm run build`);
});

const objdump = (args, file) => execFileSync('wasm-objdump', [...args, file], { encoding: 'utf8', maxBuffer: 1 << 28 });

test('the module cannot write memory the main module owns: no data, no stack, no globals touched', { skip: !existsSync(wasm) }, () => {
  const details = objdump(['-x'], wasm);
  const sections = [...details.matchAll(/^(\w+)\[\d+\]:$/gm)].map((m) => m[1]);
  assert.deepEqual(sections.filter((s) => !['Type', 'Import', 'Function', 'Global', 'Export', 'Code'].includes(s)), [],
    'no Data, DataCount, Start, Table or Elem section');
  assert.deepEqual([...details.matchAll(/^ - (\w+)\[\d+\].* <- (\S+)$/gm)].map((m) => `${m[1]} ${m[2]}`), ['memory env.memory'],
    'its only import is the main module\'s memory');
  const memory = /memory\[0\] pages: initial=(\d+)(?: max=(\d+))?/.exec(details);
  assert.ok(memory && Number(memory[1]) <= 16 && memory[2] === undefined, 'a small minimum (the main module starts larger) and no maximum');
  assert.deepEqual([...details.matchAll(/^ - func\[\d+\] <\w+> -> "(\w+)"$/gm)].map((m) => m[1]).sort(), [...RELAXED_EXPORTS].sort());
  const code = objdump(['-d'], wasm);
  // wasm-ld defines __stack_pointer; the kernels must never read or move it (their locals live in
  // wasm locals), nor store through anything but the pointers they are given.
  for (const op of ['global.get', 'global.set', 'memory.grow', 'memory.fill', 'memory.copy', 'call_indirect']) {
    assert.ok(!code.includes(` ${op}`), `no ${op} in the kernels`);
  }
  for (const op of ['f32x4.relaxed_madd', 'f32x4.relaxed_nmadd', 'f64x2.relaxed_madd', 'f64x2.relaxed_nmadd']) {
    assert.ok(code.includes(op), `${op} is emitted`);
  }
});

test('each export has the wasm32 signature of the SIMD128 kernel it replaces in dist/posenc.wasm', { skip: !existsSync(wasm) }, () => {
  const signatures = (file, name) => {
    const details = objdump(['-x'], file);
    const types = new Map([...details.matchAll(/^ - type\[(\d+)\] (.*)$/gm)].map((m) => [m[1], m[2]]));
    const fn = new RegExp(`^ - func\\[\\d+\\] sig=(\\d+) <${name.replace(/[:()]/g, '\\$&')}(?:\\(.*)?>$`, 'm').exec(details);
    assert.ok(fn, `${name} is in ${file}`);
    return types.get(fn[1]);
  };
  const main = root + 'dist/posenc.wasm';
  for (const name of RELAXED_EXPORTS) {
    assert.equal(signatures(wasm, name), signatures(main, `posenc::kernels::${name}`), name);
  }
});

test('the loader detects support by validating the module itself: invalid without the flag, valid with it', { skip: !existsSync(wasm) }, () => {
  const script = `console.log(WebAssembly.validate(require('fs').readFileSync(${JSON.stringify(wasm)})))`;
  for (const [flags, valid] of [[[], 'false'], [[FLAG], 'true']]) {
    const run = spawnSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), valid, `Node ${process.version} ${flags.join(' ') || '(no flag)'}`);
  }
});

let rounding; // how this machine's relaxed madd rounds: 'fused' or 'unfused'

test('both pairings, both row orders, tails and partners: within both roundings\' bound and 8.2\'s', { skip: !existsSync(wasm) }, (t) => {
  const run = spawnSync(process.execPath, [FLAG, fileURLToPath(new URL('./relaxed-kernels-child.mjs', import.meta.url)), wasm],
    { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const result = JSON.parse(run.stdout);
  assert.ok(result.cases >= 200, `${result.cases} calls checked`);
  rounding = result.rounding;
  t.diagnostic(`${result.cases} calls checked; this machine's relaxed madd is ${rounding}`);
});

test('phasor rows, narrowed: tails, strides, scales, null outputs, within both roundings\' bound', { skip: !existsSync(wasm) }, (t) => {
  const run = spawnSync(process.execPath, [FLAG, fileURLToPath(new URL('./relaxed-rows-child.mjs', import.meta.url)), wasm],
    { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const { cases } = JSON.parse(run.stdout);
  assert.ok(cases >= 200, `${cases} calls checked`);
  t.diagnostic(`${cases} calls checked`);
});

const embedded = await embeddedRelaxedModule();
const shipped = embedded !== undefined;

test('npm run build embeds the relaxed kernels in the package (dist/relaxed-base64.js), byte for byte', () => {
  assert.ok(shipped, 'dist/relaxed-base64.js carries the module (built when clang-19 is installed, as npm test installs it)');
  assert.deepEqual(embedded, readFileSync(wasm));
});

test("createPosEnc({ kernels: 'relaxed' }): RoPE and sinusoidal tables within their bounds, beside SIMD128", { skip: !shipped }, (t) => {
  assert.ok(rounding, 'the kernel test above found the rounding');
  const run = spawnSync(process.execPath, [FLAG, fileURLToPath(new URL('./relaxed-api-child.mjs', import.meta.url)), rounding],
    { encoding: 'utf8', maxBuffer: 1 << 24 });
  assert.equal(run.status, 0, run.stderr);
  const { cases, worst, worstApart, tables } = JSON.parse(run.stdout);
  t.diagnostic(`${cases} RoPE shapes; worst error ${worst.toExponential(2)} of the input's scale; worst relaxed - SIMD128 ${worstApart.toExponential(2)}; ${tables} tables`);
});

/** createPosEnc(options) in a fresh Node (with `flags`) from `dir` (dist/ by default): its pe.kernels, or the error's code and message. */
function load(options, flags = [], dir = root + 'dist/', entry = 'node.js') {
  const script = `import(${JSON.stringify(dir + entry)}).then((m) => m.createPosEnc(${options})).then(
    (pe) => console.log(JSON.stringify({ kernels: pe.kernels })), (e) => console.log(JSON.stringify({ code: e.code, message: e.message })));`;
  const run = spawnSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

test("kernels: 'auto' by default, relaxed where the engine runs them, SIMD128 silently elsewhere; 'relaxed' names why it cannot run", { skip: !shipped }, () => {
  assert.deepEqual(load('{}'), { kernels: 'simd128' });
  assert.deepEqual(load('{}', [FLAG]), { kernels: 'relaxed' });
  assert.deepEqual(load("{ kernels: 'auto' }", [FLAG]), { kernels: 'relaxed' });
  assert.deepEqual(load("{ kernels: 'simd128' }", [FLAG]), { kernels: 'simd128' });
  const unsupported = load("{ kernels: 'relaxed' }");
  assert.equal(unsupported.code, 'UNSUPPORTED');
  assert.match(unsupported.message, /kernels 'relaxed'.*does not run relaxed SIMD.*--experimental-wasm-relaxed-simd/);
});

test('posenc/embedded carries the relaxed kernels too and takes the kernels option, and only that', { skip: !shipped }, () => {
  const embeddedLoad = (options, flags) => load(options, flags, root + 'dist/', 'embedded.js');
  assert.deepEqual(embeddedLoad('{}', [FLAG]), { kernels: 'relaxed' });
  assert.deepEqual(embeddedLoad("{ kernels: 'simd128' }", [FLAG]), { kernels: 'simd128' });
  assert.deepEqual(embeddedLoad('{}', []), { kernels: 'simd128' });
  const other = embeddedLoad('{ wasmBinary: new Uint8Array(8) }', []);
  assert.equal(other.code, 'UNKNOWN_OPTION');
  assert.match(other.message, /posenc\/embedded takes only the kernels option.*got 'wasmBinary'/);
  assert.equal(embeddedLoad("{ kernels: 'fast' }", []).code, 'INVALID_ARGUMENT');
});

test('a build without clang-19 (no relaxed kernels in it): auto keeps SIMD128, relaxed says so', () => {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-no-relaxed-'));
  try {
    cpSync(root + 'dist', dir, { recursive: true });
    writeFileSync(join(dir, 'relaxed-base64.js'), "export default '';\n");
    assert.deepEqual(load('{}', [FLAG], `${dir}/`), { kernels: 'simd128' });
    const missing = load("{ kernels: 'relaxed' }", [FLAG], `${dir}/`);
    assert.equal(missing.code, 'UNSUPPORTED');
    assert.match(missing.message, /carries no relaxed-SIMD kernels.*clang-19/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const rejectsPosEnc = (promise, code, pattern) => assert.rejects(promise, (e) => e.name === 'PosEncError' && e.code === code && pattern.test(e.message));

test('a wrong kernels option is an error naming it, before anything loads', async () => {
  const { createPosEnc } = await import('../../dist/node.js');
  await rejectsPosEnc(createPosEnc({ kernels: 'fma' }), 'INVALID_ARGUMENT', /kernels must be 'auto', 'simd128' or 'relaxed', got 'fma'/);
  await rejectsPosEnc(createPosEnc({ kernels: 1 }), 'INVALID_TYPE', /kernels must be a string/);
  const pe = await createPosEnc();
  assert.equal(pe.kernels, 'simd128', 'Node 20 without the flag: auto falls back');
  assert.equal(await createPosEnc({ kernels: 'auto' }), pe, 'the same choice: the loaded instance');
  await rejectsPosEnc(createPosEnc({ kernels: 'relaxed' }), 'INVALID_ARGUMENT', /already loaded.*kernels/);
});
