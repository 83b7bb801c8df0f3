// Loading from bad bytes and hostile options: anything that is not posenc.wasm is a LOAD_FAILED
// PosEncError (never the glue's RuntimeError or TypeError, never an unhandled rejection), options whose
// getters, traps or locateFile throw reject (never synchronously), a locateFile naming a FIFO, a device
// or a huge file is refused without reading it, nothing is printed, and a later load with the right
// bytes works. Each attempt runs in a child process (with a time limit), which shows what it prints.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/**
 * Runs `body` (statements that may `await`, with createPosEnc, wasm and dir in scope) in a fresh
 * process with a heap cap and a time limit; returns its status, what it printed, and whether it was killed.
 */
function child(body, { entryUrl = entry, timeout = 20000 } = {}) {
  const script = `
    const { createPosEnc } = await import(${JSON.stringify(entryUrl)});
    const wasm = ${JSON.stringify(wasm)};
    const outcome = async (call) => {
      let p;
      try {
        p = call();
      } catch (error) {
        return 'threw synchronously: ' + error?.name + ' ' + error?.message;
      }
      try {
        await p;
        return 'loaded';
      } catch (error) {
        return [error?.name, error?.code, error?.message, error?.cause?.message ?? ''].join(' | ');
      }
    };
    ${body}`;
  const run = spawnSync(process.execPath, ['--max-old-space-size=128', '--input-type=module', '-e', script], { encoding: 'utf8', timeout });
  return { status: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr, results: run.status === 0 ? JSON.parse(run.stdout) : undefined };
}

const embeddedEntry = new URL('../../dist/embedded.js', import.meta.url).href;

test('options whose getters or Proxy traps throw reject with INVALID_ARGUMENT (their error the cause), never synchronously; the module loads after', () => {
  for (const url of [entry, embeddedEntry]) {
    const r = child(`
      const results = [];
      results.push(await outcome(() => createPosEnc({ get kernels() { throw new Error('kernels getter'); } })));
      results.push(await outcome(() => createPosEnc(new Proxy({}, { ownKeys() { throw new Error('ownKeys trap'); } }))));
      results.push(await outcome(() => createPosEnc(new Proxy({}, { getOwnPropertyDescriptor() { throw new Error('descriptor trap'); }, ownKeys: () => ['kernels'] }))));
      results.push(await outcome(() => createPosEnc({ get wasmBinary() { throw new Error('wasmBinary getter'); } })));
      results.push(await outcome(() => createPosEnc(null)));
      const pe = await createPosEnc();
      results.push('then ' + pe.sinusoidal.table({ length: 1, dim: 2 }).data[1]);
      console.log(JSON.stringify(results));`, { entryUrl: url });
    assert.equal(r.status, 0, r.stderr);
    const [getter, ownKeys, descriptor, wasmGetter, nul, then] = r.results;
    assert.match(getter, /^PosEncError \| INVALID_ARGUMENT \| createPosEnc: reading options.kernels threw Error: kernels getter \| kernels getter$/, url);
    assert.match(ownKeys, /^PosEncError \| INVALID_ARGUMENT \| createPosEnc: reading options threw Error: ownKeys trap/, url);
    assert.match(descriptor, /^PosEncError \| INVALID_ARGUMENT \| .*descriptor trap/, url);
    assert.match(wasmGetter, url === entry ? /^PosEncError \| INVALID_ARGUMENT \| createPosEnc: reading options.wasmBinary threw/ : /^PosEncError \| (INVALID_ARGUMENT|UNKNOWN_OPTION) \|/, url);
    assert.match(nul, /^PosEncError \| INVALID_TYPE \| createPosEnc: options must be an object/);
    assert.equal(then, 'then 1');
  }
});

test('a locateFile that throws, or answers something that is not a path, rejects with a PosEncError', () => {
  const r = child(`
    const results = [];
    results.push(await outcome(() => createPosEnc({ locateFile() { throw new Error('no idea'); } })));
    results.push(await outcome(() => createPosEnc({ locateFile: () => 42 })));
    results.push(await outcome(() => createPosEnc({ locateFile: () => ({ toString() { throw new Error('toString'); } }) })));
    results.push(await outcome(() => createPosEnc({ locateFile: 'posenc.wasm' })));
    results.push(await outcome(() => createPosEnc({ locateFile: () => wasm })));
    console.log(JSON.stringify(results));`);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.match(r.results[0], /^PosEncError \| INVALID_ARGUMENT \| createPosEnc: reading locateFile\('posenc.wasm'\) threw Error: no idea \| no idea$/);
  assert.match(r.results[1], /^PosEncError \| INVALID_TYPE \| createPosEnc: locateFile must return a string \(or URL\), got 42/);
  assert.match(r.results[2], /^PosEncError \| INVALID_TYPE \| createPosEnc: locateFile must return a string/);
  assert.match(r.results[3], /^PosEncError \| INVALID_TYPE \| createPosEnc: locateFile must be a function/);
  assert.equal(r.results[4], 'loaded');
});

test('a locateFile naming a FIFO, a device, a folder or a huge file is refused at once: nothing hangs, memory stays small', () => {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-load-'));
  const fifo = join(dir, 'posenc.wasm.fifo');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  const huge = join(dir, 'huge.wasm');
  writeFileSync(huge, '');
  truncateSync(huge, 4 * 2 ** 30); // a sparse 4 GiB file
  const paths = [fifo, '/dev/zero', '/dev/urandom', dir, huge];
  const r = child(`
    const results = [];
    for (const path of ${JSON.stringify(paths)}) results.push(await outcome(() => createPosEnc({ locateFile: () => path })));
    const pe = await createPosEnc({ locateFile: () => wasm });
    results.push('then ' + pe.sinusoidal.table({ length: 1, dim: 2 }).data[1]);
    console.log(JSON.stringify(results));`);
  assert.equal(r.signal, null, `the child was killed (${r.signal}): a read hung or memory grew`);
  assert.equal(r.status, 0, r.stderr);
  const [f, zero, urandom, folder, big, then] = r.results;
  for (const [what, result] of [['FIFO', f], ['/dev/zero', zero], ['/dev/urandom', urandom]]) {
    assert.match(result, /^PosEncError \| LOAD_FAILED \| createPosEnc: could not read posenc.wasm at .*not a regular file/, what);
  }
  assert.match(folder, /^PosEncError \| LOAD_FAILED \| .*it is a directory/);
  assert.match(big, /^PosEncError \| LOAD_FAILED \| .*huge\.wasm is 4294967296 bytes; posenc\.wasm is far smaller \(at most 16777216 bytes are read\)/);
  assert.equal(then, 'then 1');
  // The cap leaves room: the real module is far below it.
  assert.ok(statSync(wasm).size * 8 < 16 * 2 ** 20, `posenc.wasm is ${statSync(wasm).size} bytes`);
});
