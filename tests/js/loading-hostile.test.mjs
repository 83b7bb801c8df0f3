// Loading from bad bytes: anything that is not posenc.wasm is a LOAD_FAILED PosEncError (never the
// glue's RuntimeError or TypeError, never an unhandled rejection), nothing is printed, and a later
// load with the right bytes works. Each attempt runs in a child process, which shows what it prints.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const entry = new URL('../../dist/node.js', import.meta.url).href;
const wasm = fileURLToPath(new URL('../../dist/posenc.wasm', import.meta.url));

/** Runs `attempts` (JS expressions giving a wasmBinary) then a real load in a fresh process; returns its outcome. */
function load(attempts) {
  const script = `
    import { readFileSync } from 'node:fs';
    const { createPosEnc } = await import(${JSON.stringify(entry)});
    const results = [];
    for (const make of [${attempts.map((a) => `() => (${a})`).join(', ')}]) {
      try {
        await createPosEnc({ wasmBinary: make() });
        results.push('loaded');
      } catch (error) {
        results.push(error?.name + ' ' + error?.code + ' ' + error?.message);
      }
    }
    const pe = await createPosEnc({ wasmBinary: readFileSync(${JSON.stringify(wasm)}) });
    results.push('then ' + pe.sinusoidal.table({ length: 1, dim: 2, offset: 0 }).data[1]);
    console.log(JSON.stringify(results));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr, results: run.status === 0 ? JSON.parse(run.stdout) : run.stdout };
}

test('bytes that are not posenc.wasm: LOAD_FAILED, nothing printed, and the module still loads after', () => {
  const attempts = {
    garbage: 'new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])',
    'a truncated module': 'new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 99])',
    'an empty but valid module': 'new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0])',
    'an empty buffer': 'new ArrayBuffer(0)',
    'a detached buffer': '(() => { const b = new ArrayBuffer(8); structuredClone(b, { transfer: [b] }); return b; })()',
    'posenc.wasm cut in half': `readFileSync(${JSON.stringify(wasm)}).subarray(0, 40000)`,
  };
  const { status, stderr, results } = load(Object.values(attempts));
  assert.equal(status, 0, `the process failed: ${stderr}`);
  assert.equal(stderr, '', 'nothing is printed');
  Object.keys(attempts).forEach((what, i) => assert.match(results[i], /^PosEncError LOAD_FAILED createPosEnc: /, `${what}: ${results[i]}`));
  assert.equal(results.at(-1), 'then 1');
});

test('wasmBinary must be bytes: a string, a number or a plain array is INVALID_TYPE', () => {
  const { status, stderr, results } = load(["'AGFzbQEAAAA='", '42', '[0, 97, 115, 109]', '{ byteLength: 8 }']);
  assert.equal(status, 0, stderr);
  assert.equal(stderr, '');
  for (const r of results.slice(0, -1)) assert.match(r, /^PosEncError INVALID_TYPE createPosEnc: wasmBinary must be an ArrayBuffer/);
  assert.equal(results.at(-1), 'then 1');
});

test('a DataView or a Node Buffer over posenc.wasm loads', () => {
  const script = (make) => `
    import { readFileSync } from 'node:fs';
    const { createPosEnc } = await import(${JSON.stringify(entry)});
    const bytes = readFileSync(${JSON.stringify(wasm)});
    const pe = await createPosEnc({ wasmBinary: ${make} });
    console.log(pe.sinusoidal.table({ length: 1, dim: 2, offset: 0 }).data[1]);`;
  for (const make of ['new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)', 'bytes']) {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script(make)], { encoding: 'utf8' });
    assert.equal(run.stderr, '', make);
    assert.equal(run.stdout.trim(), '1', make);
  }
});
