// The relaxed-SIMD kernel module (build/relaxed/posenc-relaxed.wasm, built by clang-19 from
// src/kernels-relaxed/): safe to run on the main module's memory, the same wasm32 signatures as the
// SIMD128 kernels, and within the rotation bounds of docs/encodings.md 8.2 under Node's flag.
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

test('both pairings, both row orders, tails and partners: within both roundings\' bound and 8.2\'s', { skip: !existsSync(wasm) }, (t) => {
  const run = spawnSync(process.execPath, [FLAG, fileURLToPath(new URL('./relaxed-kernels-child.mjs', import.meta.url)), wasm],
    { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const { cases, rounding } = JSON.parse(run.stdout);
  assert.ok(cases >= 200, `${cases} calls checked`);
  t.diagnostic(`${cases} calls checked; this machine's relaxed madd rounds ${rounding}`);
});
