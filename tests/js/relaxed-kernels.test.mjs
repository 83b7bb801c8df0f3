// The relaxed-SIMD kernel module (build/relaxed/posenc-relaxed.wasm, built by clang-19 from
// src/kernels-relaxed/): safe to run on the main module's memory, the same wasm32 signatures as the
// SIMD128 kernels, within the rotation bounds of docs/encodings.md 8.2 under Node's flag; and
// createPosEnc's `kernels` option that loads it (bindings/js/relaxed.ts).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { RELAXED_EXPORTS, RELAXED_WASM } from '../../scripts/lib/builds.mjs';

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
  assert.ok(code.includes('f32x4.relaxed_madd') && code.includes('f32x4.relaxed_nmadd'), 'the fused multiply-adds are emitted');
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

// The smallest module holding one f32x4.relaxed_madd: what a loader validates to detect support.
const RELAXED_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, 0x03, 0x02, 0x01, 0x00,
  0x0a, 0x3d, 0x01, 0x3b, 0x00, ...[0, 1, 2].flatMap(() => [0xfd, 0x0c, ...new Array(16).fill(0)]), 0xfd, 0x85, 0x02, 0x0b,
]);

test('a one-instruction probe predicts whether the module compiles, with and without the flag', { skip: !existsSync(wasm) }, () => {
  const script = `const fs = require('fs');
    console.log(JSON.stringify([WebAssembly.validate(new Uint8Array(${JSON.stringify([...RELAXED_PROBE])})),
      WebAssembly.validate(fs.readFileSync(${JSON.stringify(wasm)}))]));`;
  for (const flags of [[], [FLAG]]) {
    const run = spawnSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const [probe, module] = JSON.parse(run.stdout);
    assert.equal(probe, module, `flags ${flags.join(' ') || '(none)'}: probe ${probe}, module ${module}`);
    if (flags.length) assert.equal(module, true, `Node ${process.version} runs relaxed SIMD with ${FLAG}`);
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

const dist = root + 'dist/posenc-relaxed.wasm';

test('npm run build ships posenc-relaxed.wasm beside posenc.wasm', () => {
  assert.ok(existsSync(dist), 'dist/posenc-relaxed.wasm (built when clang-19 is installed, as npm test installs it)');
});

test("createPosEnc({ kernels: 'relaxed' }) rotates with them: the float64 formula at 1e-6, SIMD128's roundings or a fused one", { skip: !existsSync(dist) }, (t) => {
  assert.ok(rounding, 'the kernel test above found the rounding');
  const run = spawnSync(process.execPath, [FLAG, fileURLToPath(new URL('./relaxed-api-child.mjs', import.meta.url)), rounding],
    { encoding: 'utf8', maxBuffer: 1 << 24 });
  assert.equal(run.status, 0, run.stderr);
  const { cases, worst, worstApart } = JSON.parse(run.stdout);
  t.diagnostic(`${cases} shapes; worst error ${worst.toExponential(2)} of the input's scale; worst relaxed - SIMD128 ${worstApart.toExponential(2)}`);
});

/** createPosEnc(options) in a fresh Node (with `flags`): its pe.kernels, or the error's code and message. */
function load(options, flags = []) {
  const script = `import(${JSON.stringify(root + 'dist/node.js')}).then((m) => m.createPosEnc(${options})).then(
    (pe) => console.log(JSON.stringify({ kernels: pe.kernels })), (e) => console.log(JSON.stringify({ code: e.code, message: e.message })));`;
  const run = spawnSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

test("kernels: 'simd128' by default; 'auto' falls back silently; 'relaxed' names why it cannot run", { skip: !existsSync(dist) }, () => {
  assert.deepEqual(load('{}'), { kernels: 'simd128' });
  assert.deepEqual(load('{}', [FLAG]), { kernels: 'simd128' });
  assert.deepEqual(load("{ kernels: 'auto' }", [FLAG]), { kernels: 'relaxed' });
  assert.deepEqual(load("{ kernels: 'auto' }"), { kernels: 'simd128' });
  const unsupported = load("{ kernels: 'relaxed' }");
  assert.equal(unsupported.code, 'UNSUPPORTED');
  assert.match(unsupported.message, /kernels 'relaxed'.*does not run relaxed SIMD.*--experimental-wasm-relaxed-simd/);
  // posenc-relaxed.wasm missing where locateFile points: auto falls back, relaxed says so.
  const missing = `locateFile: (f) => ${JSON.stringify(root + 'dist/')} + (f === 'posenc.wasm' ? f : 'absent-' + f)`;
  assert.deepEqual(load(`{ kernels: 'auto', ${missing} }`, [FLAG]), { kernels: 'simd128' });
  const absent = load(`{ kernels: 'relaxed', ${missing} }`, [FLAG]);
  assert.equal(absent.code, 'UNSUPPORTED');
  assert.match(absent.message, /posenc-relaxed\.wasm could not be loaded .*absent-posenc-relaxed\.wasm/);
});

const rejectsPosEnc = (promise, code, pattern) => assert.rejects(promise, (e) => e.name === 'PosEncError' && e.code === code && pattern.test(e.message));

test('a wrong kernels option is an error naming it, before anything loads', async () => {
  const { createPosEnc } = await import('../../dist/node.js');
  await rejectsPosEnc(createPosEnc({ kernels: 'fma' }), 'INVALID_ARGUMENT', /kernels must be 'auto', 'simd128' or 'relaxed', got 'fma'/);
  await rejectsPosEnc(createPosEnc({ kernels: 1 }), 'INVALID_TYPE', /kernels must be a string/);
  const pe = await createPosEnc();
  assert.equal(pe.kernels, 'simd128');
  assert.equal(await createPosEnc({ kernels: 'simd128' }), pe, 'the same choice: the loaded instance');
  await rejectsPosEnc(createPosEnc({ kernels: 'auto' }), 'INVALID_ARGUMENT', /already loaded.*kernels/);
});
