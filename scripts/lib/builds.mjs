// The builds: the WebAssembly module (+ its Catch2 tests), the native Catch2 tests, and the npm
// package in dist/. CMake and tsc are incremental, so rebuilding what is fresh costs seconds.
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { ROOT, run } from './run.mjs';

const JOBS = '2';

function cmakeBuild(dir, configure, targets) {
  if (!existsSync(join(ROOT, dir, 'CMakeCache.txt'))) run(configure[0], configure.slice(1));
  run('cmake', ['--build', dir, '-j', JOBS, ...targets.flatMap((t) => ['--target', t])]);
}

/** build/wasm: the module (posenc.mjs + posenc.wasm) and, with `tests`, the Catch2 suite for Node. */
export function buildWasm({ tests = false } = {}) {
  cmakeBuild('build/wasm', ['emcmake', 'cmake', '-S', '.', '-B', 'build/wasm', '-DCMAKE_BUILD_TYPE=Release'],
    tests ? ['posenc_wasm', 'posenc_tests'] : ['posenc_wasm']);
}

/** build/native: the Catch2 suite (and the native benchmark) for this CPU. */
export function buildNative(targets = ['posenc_tests']) {
  cmakeBuild('build/native', ['cmake', '-S', '.', '-B', 'build/native', '-DCMAKE_BUILD_TYPE=Release'], targets);
}

/** dist/: the npm package (the module, the compiled TypeScript API, its typings and the CJS entry). */
export function buildPackage() {
  buildWasm();
  rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
  mkdirSync(join(ROOT, 'dist'));
  run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
  const copy = (from, to) => copyFileSync(join(ROOT, from), join(ROOT, 'dist', to));
  copy('build/wasm/posenc.mjs', 'posenc.mjs');
  copy('build/wasm/posenc.wasm', 'posenc.wasm');
  copy('bindings/js/posenc.d.mts', 'posenc.d.mts');
  copy('bindings/js/index.cjs', 'index.cjs');
  copy('bindings/js/index.d.cts', 'index.d.cts');
}
