// npm run bench: build what the benchmark needs (the npm package in dist/, the native benchmark),
// then run the JavaScript/WebAssembly benchmark in one Node process (tests/bench/run.mjs; with
// --browser in headless Chromium instead) and the same kernels natively
// (tests/bench/native_bench.cpp, x86 SIMD) for comparison.
//
//   npm run bench                         everything: tables on stdout, JSON in build/bench/
//   npm run bench -- --quick              fewer RoPE shapes (1 and 128 tokens)
//   npm run bench -- --filter rope-half   only cases whose id matches the regular expression
//   npm run bench -- --json out.json      write the JSON there (the native results go to out.native.json)
//   npm run bench -- --no-native          skip the native benchmark
//   npm run bench -- --browser            the wasm cases in headless Chromium (no native run)
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { buildNative, buildPackage } from './lib/builds.mjs';
import { ROOT, run } from './lib/run.mjs';
import { ensureSetup } from './lib/setup.mjs';

const args = process.argv.slice(2);
const native = !args.includes('--no-native') && !args.includes('--browser'); // the browser run is the wasm build only
const jsArgs = args.filter((a) => a !== '--no-native');
const jsonAt = jsArgs.indexOf('--json');
const nativeJson = jsonAt >= 0 && jsArgs[jsonAt + 1]
  ? jsArgs[jsonAt + 1].replace(/(\.json)?$/, '.native.json')
  : join(ROOT, 'build', 'bench', 'native.json');
const filterAt = jsArgs.indexOf('--filter');

ensureSetup('bench');
buildPackage();
const hasNative = native && existsSync(join(ROOT, 'tests', 'bench', 'native_bench.cpp'));
if (hasNative) buildNative(['posenc_native_bench']);

// --expose-gc: the harness collects garbage between cases, so one case's arrays do not slow the next.
run(process.execPath, ['--expose-gc', join(ROOT, 'tests', 'bench', 'run.mjs'), ...jsArgs]);
if (hasNative) {
  const nativeArgs = ['--json', nativeJson];
  if (jsArgs.includes('--quick')) nativeArgs.push('--quick');
  if (filterAt >= 0) nativeArgs.push('--filter', jsArgs[filterAt + 1]);
  run(join(ROOT, 'build', 'native', 'posenc_native_bench'), nativeArgs);
}
