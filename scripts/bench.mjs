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
//   npm run bench -- --posenc-kernels simd128   the measured instance's createPosEnc({ kernels }) (default
//                                         'auto'; with relaxed kernels, the SIMD128 ones run beside them)
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { buildNative, buildPackage } from './lib/builds.mjs';
import { ROOT, relaxedSimdFlag, run } from './lib/run.mjs';
import { ensureSetup } from './lib/setup.mjs';
import { parseBenchArgs, USAGE } from '../tests/bench/options.mjs';

const args = process.argv.slice(2);
const options = parseBenchArgs(args); // validated here, before anything is built
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}
const native = !options['no-native'] && !options.browser; // the browser run is the wasm build only
const nativeJson = options.json
  ? options.json.replace(/(\.json)?$/, '.native.json')
  : join(ROOT, 'build', 'bench', 'native.json');

ensureSetup('bench');
buildPackage();
const hasNative = native && existsSync(join(ROOT, 'tests', 'bench', 'native_bench.cpp'));
if (hasNative) buildNative(['posenc_native_bench']);

// --expose-gc: the harness collects garbage between cases, so one case's arrays do not slow the next.
// Node 20 runs relaxed SIMD behind a flag (Chromium 114+ and Node 22+ without): on, so that 'auto'
// picks the relaxed kernels as it does in a current browser.
const relaxedFlag = relaxedSimdFlag();
run(process.execPath, ['--expose-gc', ...relaxedFlag, join(ROOT, 'tests', 'bench', 'run.mjs'), ...args]);
if (hasNative) {
  const nativeArgs = ['--json', nativeJson];
  if (options.quick) nativeArgs.push('--quick');
  if (options.filter !== undefined) nativeArgs.push('--filter', options.filter);
  run(join(ROOT, 'build', 'native', 'posenc_native_bench'), nativeArgs);
}
