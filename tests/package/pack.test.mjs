// The package as users get it: `npm pack`, installed into an empty folder, imported from Node ESM
// and CommonJS, type-checked from a strict TypeScript consumer, and bundled into a browser app by
// esbuild and by Vite (run in headless Chromium).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

import { startServer } from '../../scripts/lib/server.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'posenc-pack-'));
const app = join(work, 'app');
let files = [];

const sh = (cmd, args, cwd = app) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

before(() => {
  const packed = JSON.parse(sh('npm', ['pack', '--json', '--pack-destination', work], ROOT));
  files = packed[0].files.map((f) => f.path);
  const tarball = join(work, readdirSync(work).find((f) => f.endsWith('.tgz')));
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
  sh('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball]);
});

after(() => rmSync(work, { recursive: true, force: true }));

test('the tarball holds the built package and nothing else', () => {
  for (const f of ['package.json', 'README.md', 'dist/posenc.wasm', 'dist/posenc.mjs', 'dist/index.js', 'dist/node.js',
    'dist/index.d.ts', 'dist/node.d.ts', 'dist/index.cjs', 'dist/index.d.cts']) {
    assert.ok(files.includes(f), `${f} is packed`);
  }
  for (const f of files) assert.match(f, /^(dist\/|package\.json$|README\.md$|LICENSE$)/, `${f} should not be packed`);
});

test('Node ESM: import { createPosEnc } from "posenc"', () => {
  writeFileSync(join(app, 'esm.mjs'), `
    import { createPosEnc, PosEncError } from 'posenc';
    const pe = await createPosEnc();
    const again = await createPosEnc();
    const t = pe.sinusoidal.table({ length: 2, dim: 4 });
    let code = '';
    try { pe.rope.frequencies({ rotaryDim: 3 }); } catch (e) { code = e instanceof PosEncError ? e.code : 'wrong class'; }
    console.log(JSON.stringify({ same: pe === again, row1: Array.from(t.data.slice(4)), code, simd: pe.simd }));
  `);
  const out = JSON.parse(sh(process.execPath, ['esm.mjs']));
  assert.equal(out.same, true, 'one instance per process');
  assert.ok(Math.abs(out.row1[0] - Math.sin(1)) < 1e-7);
  assert.equal(out.code, 'INVALID_ARGUMENT');
  assert.equal(out.simd, 'sse4.1');
});

test('Node CommonJS: require("posenc")', () => {
  writeFileSync(join(app, 'cjs.cjs'), `
    const { createPosEnc } = require('posenc');
    createPosEnc().then((pe) => {
      const q = new Float32Array([1, 0]);
      pe.rope.apply(q, null, { dims: [1, 2], offset: 1 });
      let name = '';
      try { pe.learned.lookup({ data: new Float32Array(2), dims: [1, 2] }, { positionIds: [1] }); } catch (e) { name = e instanceof pe.PosEncError ? e.code : 'wrong'; }
      console.log(JSON.stringify({ q: Array.from(q), name }));
    });
  `);
  const out = JSON.parse(sh(process.execPath, ['cjs.cjs']));
  assert.ok(Math.abs(out.q[0] - Math.cos(1)) < 1e-7 && Math.abs(out.q[1] - Math.sin(1)) < 1e-7);
  assert.equal(out.name, 'OUT_OF_RANGE');
});

test('the posenc command is installed as a bin and runs', () => {
  const out = sh(join(app, 'node_modules', '.bin', 'posenc'), ['sinusoidal', '--length', '3', '--dim', '4', '--out', join(app, 't.json')]);
  assert.match(out, /wrote .*t\.json: sinusoidal table \[3, 4\]/);
  assert.match(sh(join(app, 'node_modules', '.bin', 'posenc'), ['info']), /^posenc \d/);
});

test('TypeScript consumers (ESM and CJS, strict) type-check against the shipped typings', () => {
  writeFileSync(join(app, 'use.mts'), `
    import { createPosEnc, type Tensor } from 'posenc';
    const pe = await createPosEnc();
    const t: Tensor = pe.sinusoidal.table({ length: 2, dim: 4 });
    // @ts-expect-error unknown layout
    pe.sinusoidal.table({ length: 2, dim: 4, layout: 'wrong' });
    console.log(t);
  `);
  writeFileSync(join(app, 'use.cts'), `
    import posenc = require('posenc');
    posenc.createPosEnc().then((pe) => pe.rope.frequencies({ rotaryDim: 4 }));
  `);
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [], skipLibCheck: false },
    files: ['use.mts', 'use.cts'],
  }));
  sh(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
});

// A browser app as a user writes it: import posenc by name, compute, show the result.
const BROWSER_APP = `
import { createPosEnc } from 'posenc';
createPosEnc().then((pe) => {
  const t = pe.sinusoidal.table({ length: 2, dim: 4 });
  const q = new Float32Array([1, 0]);
  pe.rope.apply(q, null, { dims: [1, 2], offset: 1 });
  document.body.dataset.result = JSON.stringify({ simd: pe.simd, row1: Array.from(t.data.slice(4)), q: Array.from(q) });
}, (error) => { document.body.dataset.result = JSON.stringify({ error: String(error) }); });
`;

/** Serves `dir`, opens it in headless Chromium, returns the app's result and what went wrong. */
async function runInBrowser(dir) {
  const { server, url } = await startServer({ port: 0, root: dir });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  const problems = [];
  let wasmType = '';
  try {
    const page = await browser.newPage();
    page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
      if (r.url().endsWith('.wasm')) wasmType = r.headers()['content-type'];
    });
    await page.goto(url);
    await page.waitForSelector('body[data-result]', { state: 'attached', timeout: 20_000 });
    return { result: JSON.parse(await page.getAttribute('body', 'data-result')), problems, wasmType };
  } finally {
    await browser.close();
    await new Promise((resolve) => server.close(resolve));
  }
}

function checkBrowserResult({ result, problems, wasmType }) {
  assert.deepEqual(problems, []);
  assert.equal(result.error, undefined);
  assert.equal(result.simd, 'sse4.1');
  assert.ok(Math.abs(result.row1[0] - Math.sin(1)) < 1e-7);
  assert.ok(Math.abs(result.q[0] - Math.cos(1)) < 1e-7 && Math.abs(result.q[1] - Math.sin(1)) < 1e-7);
  assert.equal(wasmType, 'application/wasm', 'the page fetched posenc.wasm');
}

test('esbuild (--bundle --format=esm) with posenc.wasm copied beside the bundle runs in Chromium', async () => {
  mkdirSync(join(app, 'src'), { recursive: true });
  writeFileSync(join(app, 'src', 'main.js'), BROWSER_APP);
  const out = join(app, 'dist-esbuild');
  sh(join(ROOT, 'node_modules', '.bin', 'esbuild'), ['src/main.js', '--bundle', '--format=esm', `--outdir=${out}`, '--log-level=warning']);
  copyFileSync(join(app, 'node_modules', 'posenc', 'dist', 'posenc.wasm'), join(out, 'posenc.wasm')); // as the README says
  writeFileSync(join(out, 'index.html'), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module" src="./main.js"></script>');
  checkBrowserResult(await runInBrowser(out));
});

test('Vite (vite build, no configuration) emits posenc.wasm as an asset and the app runs in Chromium', async () => {
  mkdirSync(join(app, 'src'), { recursive: true });
  writeFileSync(join(app, 'src', 'main.js'), BROWSER_APP);
  writeFileSync(join(app, 'index.html'), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module" src="/src/main.js"></script>');
  sh(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--outDir', 'dist-vite', '--logLevel', 'warn']);
  const assets = readdirSync(join(app, 'dist-vite', 'assets'));
  assert.ok(assets.some((f) => /^posenc-.*\.wasm$/.test(f)), `posenc.wasm among the assets: ${assets.join(', ')}`);
  checkBrowserResult(await runInBrowser(join(app, 'dist-vite')));
});
