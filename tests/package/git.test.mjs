// Installing posenc from git (`npm install git+file://<this repository>`), as `npm install
// git+https://github.com/posenc/posenc` does: npm clones the committed tree into its cache, installs
// the devDependencies, runs the `postprepare` script (scripts/prepare.mjs) and packs the result. With the toolchain
// present the installed package works; with Emscripten hidden (a mount namespace, as root) the
// install stops with a message naming what is missing and the tarball route.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { canHide, hiddenSpawnArgs } from '../support/hide-packages.mjs';
import { COMPUTE, ROOT, checkResult, sh } from './support.mjs';

const work = mkdtempSync(join(tmpdir(), 'posenc-git-'));
after(() => rmSync(work, { recursive: true, force: true }));

const spec = `git+${pathToFileURL(ROOT).href.replace(/\/$/, '')}`;
// npm_* variables of the `npm test` running this would leak into the nested npm processes.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('npm_')));

function emptyApp(name) {
  const app = join(work, name);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true }));
  return app;
}

test('npm install git+file://... builds posenc (scripts/prepare.mjs), and it works', () => {
  const app = emptyApp('with-toolchain');
  const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', spec], { cwd: app, env, encoding: 'utf8' });
  assert.equal(install.status, 0, `npm install from git failed:\n${install.stdout}\n${install.stderr}`);
  const installed = join(app, 'node_modules', 'posenc');
  for (const f of ['dist/node.js', 'dist/index.cjs', 'dist/posenc.wasm', 'dist/embedded.js']) assert.ok(existsSync(join(installed, f)), `${f} was built`);
  assert.ok(!existsSync(join(installed, 'build')) && !existsSync(join(installed, 'src')), 'only the packed files are installed');
  writeFileSync(join(app, 'check.mjs'), `
    import { createPosEnc } from 'posenc';
    const pe = await createPosEnc();
    console.log(JSON.stringify((() => {${COMPUTE}})()));
  `);
  checkResult(JSON.parse(sh(process.execPath, ['check.mjs'], app)));
});

test('without Emscripten, installing from git stops with what is missing and the tarball route', { skip: !canHide && 'needs root (mount namespaces)' }, () => {
  const app = emptyApp('without-toolchain');
  const [cmd, args] = hiddenSpawnArgs(work, ['emscripten'], `npm install --no-audit --no-fund --prefer-offline ${spec}`);
  const install = spawnSync(cmd, args, { cwd: app, env, encoding: 'utf8' });
  const output = install.stdout + install.stderr;
  assert.notEqual(install.status, 0, 'the install must fail');
  assert.match(output, /posenc: cannot build posenc from git on this machine: Emscripten is missing/);
  assert.match(output, /apt-get install --no-install-recommends emscripten/);
  assert.match(output, /npm run build && npm pack/);
  assert.match(output, /npm install \/path\/to\/posenc-<version>\.tgz/);
  assert.ok(!existsSync(join(app, 'node_modules', 'posenc')), 'nothing half-built is installed');
});
