// A new machine's first `npm start`, simulated: a fresh `git clone` of this repository, run as root
// in a private mount namespace (unshare -m) where the Debian packages that only `npm test` needs
// (Catch2, wabt, Chromium, clang-19, g++: TEST_ONLY_PACKAGES in scripts/lib/setup.mjs) are hidden. Nothing outside
// the namespace sees the change (docs/building.md section 15).
//
// node_modules is hard-linked from this checkout instead of `npm ci` in the clone: it is the same
// lock file's content (setup.mjs compares node_modules with package-lock.json by content and would
// run `npm ci` on any difference), and CI's own `npm ci` on its fresh clone already exercises the
// download. What this suite is about, the system packages and CMake's build folders, is untouched
// by that shortcut.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { TEST_ONLY_PACKAGES } from '../../scripts/lib/setup.mjs';
import { canHide, hiddenSpawnArgs } from '../support/hide-packages.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'posenc-first-run-'));
const clone = join(work, 'clone');
const copy = join(work, 'copy');
const START_TIMEOUT_MS = 15 * 60 * 1000; // two full builds on a busy 2-core machine

// A fresh shell's environment: no npm_* variables and no node_modules/.bin of this checkout on PATH.
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('npm_')));
cleanEnv.PATH = (process.env.PATH ?? '').split(':').filter((p) => !p.includes('node_modules')).join(':');
cleanEnv.PORT = '0'; // any free port: the test must not collide with a running lesson server

/** Runs `command` in `cwd` with the test-only packages (and `extraDirs`) hidden. */
function hiddenRun(command, cwd, extraDirs = []) {
  const [cmd, args] = hiddenSpawnArgs(work, TEST_ONLY_PACKAGES, command, extraDirs);
  return spawnSync(cmd, args, { cwd, env: cleanEnv, encoding: 'utf8', maxBuffer: 1 << 26 });
}

/**
 * `npm start` in `cwd`, test-only packages hidden; `npm` itself is the spawned process (the shell
 * execs it), so `child.pid` is npm's PID. Resolves with the URL it prints and its output so far.
 */
function startNpm(cwd) {
  const [cmd, args] = hiddenSpawnArgs(work, TEST_ONLY_PACKAGES, 'npm start');
  const child = spawn(cmd, args, { cwd, env: cleanEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const started = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start printed no URL in time:\n${output}`)), START_TIMEOUT_MS);
    const onData = (chunk) => {
      output += chunk;
      const m = /posenc lesson page: (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code ?? signal}) before serving:\n${output.slice(-4000)}`));
    });
  });
  return { child, exited, started, output: () => output };
}

/** Whether something accepts connections on host:port. */
function listening(url) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/** PIDs of processes whose working directory is inside `dir`. */
function processesIn(dir) {
  const pids = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (cwd === dir || cwd.startsWith(dir + '/')) pids.push(`${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')}`);
    } catch { /* gone, or not ours to read */ }
  }
  return pids;
}

/** Checks the served lesson page and module, stops npm with `signal`, checks everything stopped. */
async function serveThenStop(run, signal) {
  const url = await run.started;
  const page = await fetch(url);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<title>[^<]*posenc/);
  const wasm = await fetch(new URL('dist/posenc.wasm', url));
  assert.equal(wasm.headers.get('content-type'), 'application/wasm');
  assert.deepEqual([...new Uint8Array(await wasm.arrayBuffer()).subarray(0, 4)], [0, 0x61, 0x73, 0x6d]);
  assert.equal((await fetch(new URL('dist/index.js', url))).status, 200);

  process.kill(run.child.pid, signal); // npm's PID, as a user's `kill` or a process manager would
  const timeout = new Promise((resolve) => setTimeout(resolve, 15_000, 'still running'));
  assert.notEqual(await Promise.race([run.exited, timeout]), 'still running', `npm did not exit within 15 s of ${signal}`);
  let free = false;
  for (let i = 0; i < 40 && !free; i++) { // up to 10 s
    free = !(await listening(url));
    if (!free) await new Promise((r) => setTimeout(r, 250));
  }
  assert.ok(free, `the port of ${url} is still served after ${signal} to npm`);
  return url;
}

const mtime = (f) => statSync(f).mtimeMs;

before(() => {
  if (!canHide) return;
  execFileSync('git', ['clone', '--quiet', ROOT, clone]);
  execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(clone, 'node_modules')]);
});

after(() => rmSync(work, { recursive: true, force: true }));

test('first run: a fresh clone without the test-only packages serves the page with npm start', { skip: !canHide && 'needs root (mount namespaces)' }, async () => {
  // The namespace really hides them: setup.mjs finds every test-only tool missing, none of the others.
  const probe = hiddenRun(`node -e "import('./scripts/lib/setup.mjs').then((m) => console.log(JSON.stringify([m.missingTools('build'), m.missingTools('test')])))"`, clone);
  assert.equal(probe.status, 0, probe.stderr);
  const [buildMissing, testMissing] = JSON.parse(probe.stdout);
  assert.deepEqual(buildMissing, []);
  assert.deepEqual([...new Set(testMissing.map((t) => t.pkg))].sort(), [...TEST_ONLY_PACKAGES].sort());

  // A configure that failed (xsimd hidden as well) leaves a cache without a Makefile behind, as an
  // interrupted one does; `npm start` must notice and configure again.
  const failed = hiddenRun('emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release', clone, ['/usr/include/xsimd']);
  assert.notEqual(failed.status, 0, 'configure without xsimd must fail');
  assert.ok(existsSync(join(clone, 'build/wasm/CMakeCache.txt')) && !existsSync(join(clone, 'build/wasm/Makefile')));

  const run = startNpm(clone);
  await serveThenStop(run, 'SIGTERM');
  const out = run.output();
  assert.match(out, /reconfiguring build\/wasm: its last configure failed or was interrupted/);
  assert.match(out, /Catch2 \(catch2\/catch\.hpp\) not found: the test targets are left out/);
  assert.doesNotMatch(out, /installing Debian packages|\$ npm ci/, 'nothing to install for the package build');
  assert.deepEqual(processesIn(clone), [], 'no process left running in the checkout');
});

test('a copied checkout builds into its own build folder, not the original one', { skip: !canHide && 'needs root (mount namespaces)' }, async () => {
  assert.ok(existsSync(join(clone, 'build/wasm/Makefile')), 'the first test built the clone');
  const originals = ['build/wasm/CMakeCache.txt', 'build/wasm/posenc.wasm', 'dist/posenc.wasm'].map((f) => join(clone, f));
  const before = originals.map(mtime);
  execFileSync('sh', ['-c', `mkdir ${copy} && cd ${clone} && tar --exclude=./node_modules -cf - . | tar -xf - -C ${copy}`]);
  execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(copy, 'node_modules')]);

  const run = startNpm(copy);
  await serveThenStop(run, 'SIGINT');
  assert.match(run.output(), /reconfiguring build\/wasm: configured for another checkout/);
  const cache = readFileSync(join(copy, 'build/wasm/CMakeCache.txt'), 'utf8');
  assert.match(cache, new RegExp(`^CMAKE_HOME_DIRECTORY:INTERNAL=${copy}$`, 'm'));
  assert.deepEqual(originals.map(mtime), before, 'the original checkout was not touched');
  assert.ok(existsSync(join(copy, 'dist/posenc.wasm')));
  assert.deepEqual(processesIn(copy), []);
});

test('a link cut short (a truncated posenc.mjs or posenc.wasm newer than its inputs) is linked again', { skip: !canHide && 'needs root (mount namespaces)' }, () => {
  const out = join(clone, 'build/wasm');
  assert.ok(existsSync(join(out, 'posenc.mjs')), 'the first test built the clone');
  const builds = join(clone, 'scripts/lib/builds.mjs');
  const whole = () => JSON.parse(execFileSync(process.execPath, ['-e',
    `import(${JSON.stringify(builds)}).then((m) => console.log(JSON.stringify(m.linkedModuleIsWhole(${JSON.stringify(out)}))))`], { encoding: 'utf8' }));
  assert.equal(whole(), true);
  for (const file of ['posenc.mjs', 'posenc.wasm']) {
    const path = join(out, file);
    const bytes = readFileSync(path);
    writeFileSync(path, bytes.subarray(0, bytes.length >> 1)); // half a file, written last: make sees it as fresh
    assert.equal(whole(), false, `a truncated ${file} is noticed`);
    const run = spawnSync(process.execPath, ['-e', `import(${JSON.stringify(builds)}).then((m) => m.buildWasm())`],
      { cwd: clone, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /build\/wasm\/posenc\.mjs or posenc\.wasm is cut short .*linking again/);
    assert.equal(whole(), true, `${file} linked again`);
  }
});
