// The packed tarball in browser apps, as users build them: esbuild (esm, iife), Vite (main thread
// and a module worker, built in Vite's default worker format and run in Vite's dev server), webpack 5, Rollup, a module worker with no bundler
// and a classic worker; each run in headless Chromium with a RoPE call checked. Where an app cannot
// find posenc.wasm, the failure must be a LOAD_FAILED PosEncError naming the URL and the fixes.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import nodeResolve from '@rollup/plugin-node-resolve';
import { rollup } from 'rollup';
import webpack from 'webpack';

import {
  BIN, ROOT, browserApp, checkResult, launchBrowser, packAndInstall, page, removeWork, sh, startViteDev, workerApp, workerHost,
} from './support.mjs';

let ctx, browser;
before(async () => {
  ctx = packAndInstall('posenc-bundlers-');
  mkdirSync(join(ctx.app, 'src'));
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  removeWork(ctx.work);
});

const src = (name, text) => writeFileSync(join(ctx.app, 'src', name), text);
const out = (dir) => { mkdirSync(join(ctx.app, dir), { recursive: true }); return join(ctx.app, dir); };
const installedWasm = () => join(ctx.app, 'node_modules', 'posenc', 'dist', 'posenc.wasm');
const esbuild = (entry, args) => sh(join(BIN, 'esbuild'), [join('src', entry), '--bundle', '--log-level=error', ...args], ctx.app);

// Float16Array exists in Chromium 135 and later: float16 data converts, and is refused with a how-to.
const FLOAT16_CHECK = `
  if (typeof Float16Array === 'undefined') return 'no Float16Array';
  let refused = '';
  try { pe.rope.apply({ data: new Float16Array(4), dims: [1, 4] }, null, {}); } catch (e) { refused = e.code + ': ' + e.message; }
  return { converted: Array.from(pe.tensors.from({ data: new Float16Array([0.5, -2, 65504]), dims: [3] }).data), refused };
`;

test('esbuild --format=esm with posenc.wasm copied beside the bundle (streaming compile, float16 data)', async () => {
  const dir = out('esbuild-esm');
  src('esm.js', browserApp('posenc', FLOAT16_CHECK));
  esbuild('esm.js', ['--format=esm', `--outfile=${join(dir, 'main.js')}`]);
  copyFileSync(installedWasm(), join(dir, 'posenc.wasm'));
  writeFileSync(join(dir, 'index.html'), page('./main.js'));
  const { result, problems, wasmResponses } = await browser.open(dir);
  assert.deepEqual(problems, []);
  checkResult(result);
  assert.deepEqual(wasmResponses, [{ status: 200, type: 'application/wasm' }]);
  assert.deepEqual(result.extra.converted, [0.5, -2, 65504]);
  assert.match(result.extra.refused, /^INVALID_TYPE: .*float16.*pe\.tensors\.from\(q\)/);
});

test('esbuild --format=esm without posenc.wasm: LOAD_FAILED naming the URL and the fixes', async () => {
  const dir = out('esbuild-esm-nowasm');
  esbuild('esm.js', ['--format=esm', `--outfile=${join(dir, 'main.js')}`]);
  writeFileSync(join(dir, 'index.html'), page('./main.js'));
  const { result, problems } = await browser.open(dir);
  assert.deepEqual(problems.filter((p) => !/Failed to load resource: .* 404/.test(p)), ['HTTP 404: /posenc.wasm'], 'only the missing module fails');
  assert.equal(result.code, 'LOAD_FAILED');
  assert.match(result.message, /from http:\/\/127\.0\.0\.1:\d+\/posenc\.wasm: HTTP 404/);
  assert.match(result.message, /locateFile/);
  assert.match(result.message, /wasmBinary/);
  assert.match(result.message, /posenc\/embedded/);
});

test('esbuild --format=iife: the default entry says why it cannot load; posenc/embedded runs', async () => {
  const dir = out('esbuild-iife');
  src('iife-default.js', browserApp('posenc'));
  src('iife-embedded.js', browserApp('posenc/embedded'));
  esbuild('iife-default.js', ['--format=iife', `--outfile=${join(dir, 'default.js')}`]);
  esbuild('iife-embedded.js', ['--format=iife', `--outfile=${join(dir, 'embedded.js')}`]);
  writeFileSync(join(dir, 'default.html'), page('./default.js', { module: false }));
  writeFileSync(join(dir, 'embedded.html'), page('./embedded.js', { module: false }));
  const failed = await browser.open(dir, 'default.html');
  assert.deepEqual(failed.problems, []);
  assert.equal(failed.result.code, 'LOAD_FAILED');
  assert.match(failed.result.message, /no import\.meta\.url/);
  assert.match(failed.result.message, /posenc\/embedded/);
  const embedded = await browser.open(dir, 'embedded.html');
  assert.deepEqual(embedded.problems, []);
  checkResult(embedded.result);
  assert.deepEqual(embedded.wasmResponses, [], 'nothing fetched: the module is inside the bundle');
});

/**
 * A Vite app as docs/install.md section 4 writes one: the main thread imports posenc and starts a
 * module worker (`{ type: 'module' }`, which the dev server needs) that imports it too, with no
 * top-level await (vite build bundles workers as iife by default).
 */
function viteApp() {
  src('vite-main.js', `${browserApp('posenc').replace('document.body.dataset.result = JSON.stringify(', 'main(')}
function main(value) {
  const worker = new Worker(new URL('./vite-worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = (event) => { document.body.dataset.result = JSON.stringify({ main: value, worker: event.data }); };
  worker.onerror = (event) => { document.body.dataset.result = JSON.stringify({ main: value, worker: { error: event.message } }); };
}
`);
  src('vite-worker.js', workerApp('posenc'));
  writeFileSync(join(ctx.app, 'index.html'), page('/src/vite-main.js'));
}

test('Vite (vite build, no configuration): main thread and a module worker, bundled in the default (iife) worker format', async () => {
  viteApp();
  sh(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--outDir', 'dist-vite', '--logLevel', 'warn'], ctx.app);
  const assets = readdirSync(join(ctx.app, 'dist-vite', 'assets'));
  assert.ok(assets.some((f) => /^posenc-.*\.wasm$/.test(f)), `posenc.wasm among the assets: ${assets.join(', ')}`);
  const workerFile = assets.find((f) => /^vite-worker-.*\.js$/.test(f));
  assert.ok(workerFile, `the worker bundle among the assets: ${assets.join(', ')}`);
  assert.doesNotMatch(readFileSync(join(ctx.app, 'dist-vite', 'assets', workerFile), 'utf8'), /^\s*(import|export)[\s{*]/m, 'an iife worker');
  const { result, problems, wasmResponses } = await browser.open(join(ctx.app, 'dist-vite'));
  assert.deepEqual(problems, []);
  checkResult(result.main);
  checkResult(result.worker);
  assert.ok(wasmResponses.length >= 1 && wasmResponses.every((r) => r.status === 200 && r.type === 'application/wasm'));
});

test('Vite dev server (vite, no configuration): the same app, main thread and module worker', async () => {
  viteApp();
  const vite = await startViteDev(ctx.app);
  let opened;
  try {
    opened = await browser.openUrl(vite.url);
  } finally {
    await vite.stop();
  }
  const { result, problems, wasmResponses } = opened;
  assert.deepEqual(problems, [], vite.output());
  checkResult(result.main);
  checkResult(result.worker);
  // the dev server serves the module from the installed package, unbundled
  assert.ok(wasmResponses.length >= 1 && wasmResponses.every((r) => r.status === 200), JSON.stringify(wasmResponses));
});

test('webpack 5 (no configuration beyond entry and output) emits posenc.wasm as an asset and runs', async () => {
  const dir = out('dist-webpack');
  src('webpack-main.js', browserApp('posenc'));
  const stats = await new Promise((resolve, reject) => {
    webpack({
      mode: 'production', context: ctx.app, entry: './src/webpack-main.js', target: 'web',
      output: { path: dir, filename: 'main.js' }, performance: { hints: false },
    }, (error, result) => (error ? reject(error) : resolve(result)));
  });
  assert.ok(!stats.hasErrors(), stats.toString('errors-only'));
  assert.ok(readdirSync(dir).some((f) => f.endsWith('.wasm')), `a .wasm asset in ${readdirSync(dir).join(', ')}`);
  writeFileSync(join(dir, 'index.html'), page('./main.js', { module: false }));
  const { result, problems } = await browser.open(dir);
  assert.deepEqual(problems, []);
  checkResult(result);
});

test('Rollup (node-resolve, ES output) with posenc.wasm copied beside the bundle', async () => {
  const dir = out('dist-rollup');
  src('rollup-main.js', browserApp('posenc'));
  const warnings = [];
  const bundle = await rollup({
    input: join(ctx.app, 'src', 'rollup-main.js'),
    plugins: [nodeResolve({ browser: true })],
    onwarn: (warning) => warnings.push(warning.message),
  });
  await bundle.write({ dir, format: 'es' });
  await bundle.close();
  assert.deepEqual(warnings, []);
  copyFileSync(installedWasm(), join(dir, 'posenc.wasm'));
  writeFileSync(join(dir, 'index.html'), page('./rollup-main.js'));
  const { result, problems } = await browser.open(dir);
  assert.deepEqual(problems, []);
  checkResult(result);
});

test('a module Web Worker importing the installed package directly (no bundler)', async () => {
  writeFileSync(join(ctx.app, 'module-worker.js'), workerApp('./node_modules/posenc/dist/index.js'));
  writeFileSync(join(ctx.app, 'module-worker-host.js'), workerHost("new Worker('./module-worker.js', { type: 'module' })"));
  writeFileSync(join(ctx.app, 'module-worker.html'), page('./module-worker-host.js'));
  const { result, problems, wasmResponses } = await browser.open(ctx.app, 'module-worker.html');
  assert.deepEqual(problems, []);
  checkResult(result);
  assert.deepEqual(wasmResponses, [{ status: 200, type: 'application/wasm' }]);
});

test('a classic Web Worker running an esbuild iife bundle of posenc/embedded', async () => {
  const dir = out('classic-worker');
  src('classic-worker.js', workerApp('posenc/embedded'));
  esbuild('classic-worker.js', ['--format=iife', `--outfile=${join(dir, 'worker.js')}`]);
  writeFileSync(join(dir, 'host.js'), workerHost("new Worker('./worker.js')"));
  writeFileSync(join(dir, 'index.html'), page('./host.js'));
  const { result, problems } = await browser.open(dir);
  assert.deepEqual(problems, []);
  checkResult(result);
});
