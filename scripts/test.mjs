// npm test: set up what is missing, build, then run every suite. `npm test -- <suite> ...` runs
// only the named suites: native, wasm, js, types, package, e2e, setup.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { buildNative, buildPackage, buildWasm } from './lib/builds.mjs';
import { ROOT, run } from './lib/run.mjs';
import { ensureSetup } from './lib/setup.mjs';

const TIMEOUT = 15 * 60 * 1000;
const node = process.execPath;
function testFiles(dir) {
  const files = readdirSync(join(ROOT, dir)).filter((f) => f.endsWith('.test.mjs')).sort().map((f) => join(dir, f));
  if (files.length === 0) throw new Error(`no *.test.mjs files in ${dir}`); // a suite that runs nothing must not pass
  return files;
}

const SUITES = {
  native: () => {
    buildNative();
    run(join(ROOT, 'build/native/posenc_tests'), ['--use-colour', 'no'], { timeoutMs: TIMEOUT });
  },
  wasm: () => {
    buildWasm({ tests: true });
    run(node, ['--no-experimental-fetch', 'build/wasm/posenc_tests.js', '--use-colour', 'no'], { timeoutMs: TIMEOUT });
  },
  js: () => run(node, ['--test', '--test-reporter=spec', ...testFiles('tests/js')], { timeoutMs: TIMEOUT }),
  types: () => {
    run(node, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tests/types/tsconfig.json'], { timeoutMs: TIMEOUT });
    // the lesson page's JavaScript, checked against the built package's typings (web/tsconfig.json)
    run(node, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'web/tsconfig.json'], { timeoutMs: TIMEOUT });
  },
  package: () => run(node, ['--test', '--test-reporter=spec', ...testFiles('tests/package')], { timeoutMs: TIMEOUT }),
  // The lesson page in headless Chromium: one test file, so one browser launch.
  e2e: () => run(node, ['--test', '--test-reporter=spec', ...testFiles('tests/e2e')], { timeoutMs: TIMEOUT }),
  // A fresh clone's first `npm start` with the test-only packages hidden (as a new machine sees it).
  setup: () => run(node, ['--test', '--test-reporter=spec', ...testFiles('tests/setup')], { timeoutMs: TIMEOUT }),
};

let requested;
try {
  requested = parseArgs({ allowPositionals: true, options: {} }).positionals;
} catch (error) {
  console.error(`posenc: ${error.message}; npm test -- [suite ...], suites: ${Object.keys(SUITES).join(', ')}`);
  process.exit(2);
}
const unknown = requested.filter((s) => !(s in SUITES));
if (unknown.length) {
  console.error(`posenc: unknown suite(s) ${unknown.join(', ')}; choose from ${Object.keys(SUITES).join(', ')}`);
  process.exit(2);
}
const suites = requested.length ? requested : Object.keys(SUITES);

ensureSetup('test');
if (suites.some((s) => ['js', 'types', 'package', 'e2e'].includes(s))) buildPackage();
for (const name of suites) {
  console.log(`\n=== posenc test suite: ${name} ===`);
  const started = Date.now();
  SUITES[name]();
  console.log(`=== ${name}: passed in ${((Date.now() - started) / 1000).toFixed(1)} s ===`);
}
console.log(`\nposenc: all ${suites.length} suite(s) passed: ${suites.join(', ')}`);
