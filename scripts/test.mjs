// npm test: set up what is missing, build, then run every suite. `npm test -- <suite> ...` runs
// only the named suites: native, sanitize, wasm, js, fuzz, types, package, e2e, setup.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { buildNative, buildPackage, buildSanitize, buildWasm } from './lib/builds.mjs';
import { ROOT, relaxedSimdFlag, run } from './lib/run.mjs';
import { ensureSetup } from './lib/setup.mjs';

const TIMEOUT = 15 * 60 * 1000;
const node = process.execPath;
function testFiles(dir) {
  const files = readdirSync(join(ROOT, dir)).filter((f) => f.endsWith('.test.mjs')).sort().map((f) => join(dir, f));
  if (files.length === 0) throw new Error(`no *.test.mjs files in ${dir}`); // a suite that runs nothing must not pass
  return files;
}

// Reports go to stderr and end the run with a failing status; stack-use-after-return is checked too.
const SANITIZER_ENV = {
  ASAN_OPTIONS: 'detect_stack_use_after_return=1:detect_leaks=1:abort_on_error=0:halt_on_error=1',
  UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1',
};

const SUITES = {
  native: () => {
    buildNative();
    run(join(ROOT, 'build/native/posenc_tests'), ['--use-colour', 'no'], { timeoutMs: TIMEOUT });
  },
  // The same Catch2 suite under AddressSanitizer + UndefinedBehaviorSanitizer (clang, build/sanitize).
  sanitize: () => {
    buildSanitize();
    run(join(ROOT, 'build/sanitize/posenc_tests'), ['--use-colour', 'no'], { timeoutMs: TIMEOUT, env: SANITIZER_ENV });
  },
  wasm: () => {
    buildWasm({ tests: true });
    run(node, ['--no-experimental-fetch', 'build/wasm/posenc_tests.js', '--use-colour', 'no'], { timeoutMs: TIMEOUT });
  },
  js: () => run(node, ['--test', '--test-reporter=spec', ...testFiles('tests/js')], { timeoutMs: TIMEOUT }),
  // The fuzzers' short deterministic run (fixed seed, bounded runs): every parser and public call.
  fuzz: () => run(node, ['scripts/fuzz.mjs'], { timeoutMs: TIMEOUT }),
  types: () => {
    run(node, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tests/types/tsconfig.json'], { timeoutMs: TIMEOUT });
    // a Node-only project: lib ES2022 and @types/node, no DOM, no skipLibCheck
    run(node, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tests/types/tsconfig.node.json'], { timeoutMs: TIMEOUT });
    // the lesson page's JavaScript, checked against the built package's typings (web/tsconfig.json)
    run(node, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'web/tsconfig.json'], { timeoutMs: TIMEOUT });
  },
  package: () => run(node, ['--test', '--test-reporter=spec', ...testFiles('tests/package')], { timeoutMs: TIMEOUT }),
  // The lesson page in headless Chromium: one test file, so one browser launch.
  // The page runs posenc's relaxed kernels in Chromium, and the suite compares its readouts with
  // posenc in Node to the last printed digit: Node runs the same kernels.
  e2e: () => run(node, [...relaxedSimdFlag(), '--test', '--test-reporter=spec', ...testFiles('tests/e2e')], { timeoutMs: TIMEOUT }),
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
if (suites.some((s) => ['js', 'fuzz', 'types', 'package', 'e2e'].includes(s))) buildPackage();
for (const name of suites) {
  console.log(`\n=== posenc test suite: ${name} ===`);
  const started = Date.now();
  SUITES[name]();
  console.log(`=== ${name}: passed in ${((Date.now() - started) / 1000).toFixed(1)} s ===`);
}
console.log(`\nposenc: all ${suites.length} suite(s) passed: ${suites.join(', ')}`);
