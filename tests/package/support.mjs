// What the package suites share: the packed tarball installed into an empty app folder, one headless
// Chromium for every browser check, and the RoPE check each app runs and reports.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

import { startServer, stopServer } from '../../scripts/lib/server.mjs';
import { embeddedRelaxedModule } from '../support/relaxed-module.mjs';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'node_modules', '.bin');

/** Runs a command, returns its stdout; throws with its stderr on failure. */
export function sh(cmd, args, cwd, env = {}) {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env }, maxBuffer: 1 << 26 });
}

/**
 * `npm pack` of this checkout (dist/ must be built), installed with npm into a new empty app
 * folder. Returns { work, app, tarball, files, installOutput } (files: the paths the tarball holds;
 * installOutput: what `npm install` printed, stdout and stderr).
 */
export function packAndInstall(prefix) {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const app = join(work, 'app');
  const packed = JSON.parse(sh('npm', ['pack', '--json', '--pack-destination', work, '--ignore-scripts'], ROOT));
  const tarball = join(work, readdirSync(work).find((f) => f.endsWith('.tgz')));
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
  const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], { cwd: app, encoding: 'utf8' });
  if (install.status !== 0) throw new Error(`npm install ${tarball} failed:\n${install.stdout}\n${install.stderr}`);
  return { work, app, tarball, files: packed[0].files.map((f) => f.path), packed: packed[0], installOutput: install.stdout + install.stderr };
}

export function removeWork(work) {
  rmSync(work, { recursive: true, force: true });
}

/**
 * The check every app runs, as the source of a function body that returns the result object:
 * a sinusoidal row and a RoPE rotation, both with known values, the SIMD arch, the kernels the
 * default createPosEnc() chose and where it ran.
 */
export const COMPUTE = `
  const t = pe.sinusoidal.table({ length: 2, dim: 4 });
  const q = new Float32Array([1, 0, 0, 1]);
  pe.rope.apply(q, null, { dims: [1, 4], offset: 1, pairing: 'interleaved' });
  const node = typeof process === 'object' && process !== null && typeof process.versions === 'object' && !!process.versions.node;
  return { simd: pe.simd, kernels: pe.kernels, engine: node ? 'node' : 'browser', row1: Array.from(t.data.slice(4)), q: Array.from(q) };
`;

/** Whether this Node runs the embedded relaxed kernels (the module validates): what a Node app's 'auto' picks. */
const RELAXED = await embeddedRelaxedModule();
const nodeRunsRelaxed = RELAXED !== undefined && WebAssembly.validate(RELAXED);

/**
 * Asserts an app's result: the values COMPUTE produces (float32 of the float64 formulas), and the
 * default kernels: relaxed in Chromium (every bundle carries them), in Node what this Node runs.
 */
export function checkResult(result) {
  assert.equal(result.error, undefined, `the app failed: ${result.error}`);
  assert.equal(result.simd, 'sse4.1');
  assert.equal(result.kernels, result.engine === 'browser' || nodeRunsRelaxed ? 'relaxed' : 'simd128', `kernels in ${result.engine}`);
  const close = (a, b) => Math.abs(a - b) < 1e-7;
  assert.ok(close(result.row1[0], Math.sin(1)) && close(result.row1[1], Math.cos(1)), `row 1: ${result.row1}`);
  // interleaved pairs (1, 0) and (0, 1) at position 1, frequencies 1 and 10000^(-2/4) = 0.01:
  // (cos 1, sin 1) and (-sin 0.01, cos 0.01)
  const want = [Math.cos(1), Math.sin(1), -Math.sin(0.01), Math.cos(0.01)];
  assert.ok(result.q.every((v, i) => close(v, want[i])), `RoPE: ${result.q}`);
}

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];

/** One headless Chromium for a test file; `open(dir, page)` serves `dir` and reports what the page reports. */
export async function launchBrowser() {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ARGS });
  /**
   * Serves `dir`, opens `page` (index.html by default) and waits until the app sets
   * body[data-result] (JSON). Returns { result, problems, wasmResponses }.
   */
  async function open(dir, page = 'index.html') {
    const { server, url } = await startServer({ port: 0, root: dir });
    try {
      return await openUrl(url + page);
    } finally {
      await stopServer(server);
    }
  }
  /** Opens `url` (served by someone else) and waits for body[data-result], as `open` does. */
  async function openUrl(url) {
    const context = await browser.newContext();
    const problems = [];
    const wasmResponses = [];
    try {
      const tab = await context.newPage();
      tab.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console: ${m.text()}`); });
      tab.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      context.on('response', (r) => {
        if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${new URL(r.url()).pathname}`);
        if (new URL(r.url()).pathname.endsWith('.wasm')) wasmResponses.push({ status: r.status(), type: r.headers()['content-type'] });
      });
      await tab.goto(url);
      await tab.waitForSelector('body[data-result]', { state: 'attached', timeout: 30_000 });
      return { result: JSON.parse(await tab.getAttribute('body', 'data-result')), problems, wasmResponses };
    } finally {
      await context.close();
    }
  }
  return { open, openUrl, close: () => browser.close() };
}

/**
 * Vite's dev server (`vite`, as `npm run dev` starts it) on `root`, on a free port of 127.0.0.1:
 * resolves to { url, stop } once it listens; `stop()` ends it and waits until it has exited.
 */
export function startViteDev(root) {
  const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), '--host', '127.0.0.1', '--port', '0', '--strictPort', '--clearScreen', 'false'],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  let printed = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { stop(); reject(new Error(`vite did not start in 60 s:\n${printed}`)); }, 60_000);
    const read = (chunk) => {
      printed += chunk;
      const local = /Local:\s+(http:\/\/127\.0\.0\.1:\d+\/)/.exec(printed.replace(/\x1b\[[0-9;]*m/g, ''));
      if (local) {
        clearTimeout(timer);
        resolve({ url: local[1], stop, output: () => printed });
      }
    };
    child.stdout.setEncoding('utf8').on('data', read);
    child.stderr.setEncoding('utf8').on('data', read);
    exited.then((code) => { clearTimeout(timer); reject(new Error(`vite exited (${code}) before listening:\n${printed}`)); });
  });
}

/** An HTML page that runs `script` (a module by default; a classic script is deferred, so the body exists). */
export function page(script, { module = true } = {}) {
  return `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script${module ? ' type="module"' : ' defer'} src="${script}"></script>`;
}

/**
 * Source of a main-thread app: imports createPosEnc from `specifier`, writes the result into the
 * page (with `extra`, the source of a function body given `pe` whose result joins it as `extra`).
 */
export function browserApp(specifier, extra = 'return undefined;') {
  return `import { createPosEnc } from '${specifier}';
createPosEnc().then((pe) => {
  document.body.dataset.result = JSON.stringify({ ...(() => {${COMPUTE}})(), extra: ((pe) => {${extra}})(pe) });
}, (error) => { document.body.dataset.result = JSON.stringify({ error: String(error), code: error.code, message: error.message }); });
`;
}

/** Source of a worker: computes and posts the result (a promise chain: no top-level await, so any worker format builds). */
export function workerApp(specifier) {
  return `import { createPosEnc } from '${specifier}';
createPosEnc().then((pe) => {
  postMessage((() => {${COMPUTE}})());
}, (error) => postMessage({ error: String(error), code: error.code }));
`;
}

/** Source of a page script that starts `workerExpr` and writes what the worker posts into the page. */
export function workerHost(workerExpr) {
  return `const worker = ${workerExpr};
worker.onmessage = (event) => { document.body.dataset.result = JSON.stringify(event.data); };
worker.onerror = (event) => { document.body.dataset.result = JSON.stringify({ error: 'worker error: ' + event.message }); };
`;
}
