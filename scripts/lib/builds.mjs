// The builds: the WebAssembly module (+ its Catch2 tests), the native Catch2 tests, and the npm
// package in dist/. CMake and tsc are incremental, so rebuilding what is fresh costs seconds.
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { fusedKernels } from '../../bindings/boundary/functions.mjs';
import { snake } from '../../bindings/boundary/layout.mjs';
import { CLANG, ROOT, hasCommand, run } from './run.mjs';

const JOBS = '2';

/** The entries of a CMakeCache.txt (`NAME:TYPE=value`) as a Map of name to value. */
function readCache(file) {
  const entries = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([^#/][^:=]*):[A-Z]+=(.*)$/.exec(line);
    if (m) entries.set(m[1], m[2]);
  }
  return entries;
}

/**
 * Why the build folder `dir` cannot be built as it is, or '' if it can. CMake writes CMakeCache.txt
 * early and the generator's files (the Makefile) last, so a configure that failed or was interrupted
 * leaves a cache without a Makefile; and a cache holds absolute paths, so a folder copied or moved
 * with its checkout still points at the original one (building it would compile the original's
 * sources into the original's tree).
 */
export function staleReason(dir) {
  const binary = join(ROOT, dir);
  const cacheFile = join(binary, 'CMakeCache.txt');
  if (!existsSync(cacheFile)) return 'not configured yet';
  const cache = readCache(cacheFile);
  const source = cache.get('CMAKE_HOME_DIRECTORY');
  const cacheDir = cache.get('CMAKE_CACHEFILE_DIR');
  if (!source || resolve(source) !== resolve(ROOT) || !cacheDir || resolve(cacheDir) !== resolve(binary)) {
    return `configured for another checkout (${cacheDir ?? 'unknown folder'})`;
  }
  const generated = cache.get('CMAKE_GENERATOR') === 'Ninja' ? 'build.ninja' : 'Makefile';
  if (!existsSync(join(binary, generated))) return 'its last configure failed or was interrupted';
  return '';
}

function cmakeBuild(dir, configure, targets, { tests = false } = {}) {
  const reason = staleReason(dir);
  if (reason) {
    if (reason !== 'not configured yet') console.log(`posenc: reconfiguring ${dir}: ${reason}`);
    rmSync(join(ROOT, dir), { recursive: true, force: true }); // nothing in a stale folder can be reused safely
    run(configure[0], configure.slice(1));
  }
  if (tests && readCache(join(ROOT, dir, 'CMakeCache.txt')).get('POSENC_TESTS_CONFIGURED') !== 'ON') {
    // Configured before Catch2 was installed (by `npm start` or `npm run build`): look again.
    run(configure[0], configure.slice(1));
    if (readCache(join(ROOT, dir, 'CMakeCache.txt')).get('POSENC_TESTS_CONFIGURED') !== 'ON') {
      console.error('posenc: the C++ tests need Catch2 (/usr/include/catch2/catch.hpp, Debian package catch2)');
      process.exit(1);
    }
  }
  run('cmake', ['--build', dir, '-j', JOBS, ...targets.flatMap((t) => ['--target', t])]);
}

/**
 * Whether the module linked in `dir` is whole: the glue ends with its export and the wasm validates.
 * A link cut short (a build killed mid-write) can leave either file truncated but newer than its
 * inputs, which make would never redo; the package would then fail to load. Missing files count as
 * whole: the build reports those itself.
 */
export function linkedModuleIsWhole(dir) {
  const glue = join(dir, 'posenc.mjs');
  const wasm = join(dir, 'posenc.wasm');
  if (!existsSync(glue) || !existsSync(wasm)) return true;
  return readFileSync(glue, 'utf8').trimEnd().endsWith('export default createPosEncModule;') && WebAssembly.validate(readFileSync(wasm));
}

/** build/wasm: the module (posenc.mjs + posenc.wasm) and, with `tests`, the Catch2 suite for Node. */
export function buildWasm({ tests = false } = {}) {
  const build = () => cmakeBuild('build/wasm', ['emcmake', 'cmake', '-S', '.', '-B', 'build/wasm', '-DCMAKE_BUILD_TYPE=Release'],
    tests ? ['posenc_wasm', 'posenc_tests'] : ['posenc_wasm'], { tests });
  build();
  const out = join(ROOT, 'build/wasm');
  if (linkedModuleIsWhole(out)) return;
  console.log('posenc: build/wasm/posenc.mjs or posenc.wasm is cut short (an interrupted link?); linking again');
  rmSync(join(out, 'posenc.mjs'), { force: true });
  rmSync(join(out, 'posenc.wasm'), { force: true });
  build();
  if (!linkedModuleIsWhole(out)) throw new Error('posenc: linking build/wasm/posenc.mjs again still gave an incomplete module');
}

/** build/native: the Catch2 suite (and the native benchmark) for this CPU. */
export function buildNative(targets = ['posenc_tests']) {
  cmakeBuild('build/native', ['cmake', '-S', '.', '-B', 'build/native', '-DCMAKE_BUILD_TYPE=Release'], targets,
    { tests: targets.includes('posenc_tests') });
}

/** The sanitizers every instrumented native build uses; any report ends the program (no recovery). */
export const SANITIZE_FLAGS = '-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer';

/**
 * build/sanitize: the Catch2 suite built by clang with AddressSanitizer and UndefinedBehaviorSanitizer
 * at -O1 (docs/building.md#10-tests: clang, because GCC's fake stack misaligns xsimd's over-aligned locals).
 */
export function buildSanitize() {
  cmakeBuild('build/sanitize', ['cmake', '-S', '.', '-B', 'build/sanitize', '-DCMAKE_BUILD_TYPE=Debug',
    `-DCMAKE_CXX_COMPILER=${CLANG}`, `-DCMAKE_CXX_FLAGS=-O1 ${SANITIZE_FLAGS}`, '-DPOSENC_BUILD_BENCH=OFF'],
  ['posenc_tests'], { tests: true });
}

/**
 * build/fuzz-native: the libFuzzer target over the public C++ API (tests/fuzz/native/), built by
 * clang with ASan and UBSan; the core library is instrumented for coverage (-fsanitize=fuzzer-no-link).
 */
export function buildFuzzNative() {
  cmakeBuild('build/fuzz-native', ['cmake', '-S', '.', '-B', 'build/fuzz-native', '-DCMAKE_BUILD_TYPE=Debug',
    `-DCMAKE_CXX_COMPILER=${CLANG}`, `-DCMAKE_CXX_FLAGS=-O1 ${SANITIZE_FLAGS} -fsanitize=fuzzer-no-link`,
    '-DPOSENC_BUILD_TESTS=OFF', '-DPOSENC_BUILD_BENCH=OFF', '-DPOSENC_BUILD_FUZZ=ON'], ['posenc_fuzz']);
}

/**
 * The relaxed-SIMD kernels' exports (src/kernels-relaxed/), each the wasm32 twin of a kernels.hpp
 * function: the arguments of the boundary's useFusedKernels, in snake_case (one list for the build,
 * the loader and the C++ side).
 */
export const RELAXED_EXPORTS = fusedKernels.map(snake);

/** Where buildRelaxed writes the relaxed-SIMD kernel module. */
export const RELAXED_WASM = 'build/relaxed/posenc-relaxed.wasm';

/**
 * build/relaxed/posenc-relaxed.wasm: the kernels of src/kernels-relaxed/ with relaxed SIMD's fused
 * multiply-adds, compiled by Debian's clang-19 and linked by wasm-ld-19 without Emscripten
 * (docs/building.md#14-relaxed-simd): no libc, the main module's memory imported; buildPackage embeds it as
 * base64 and bindings/js/relaxed.ts plugs it in. No wasm-opt: Binaryen 108 rejects the relaxed
 * opcodes, so compile with -c (clang's driver would run wasm-opt at link) and link separately.
 * Returns whether the module exists; without clang-19 (a test-only package) it skips quietly and
 * the package ships without relaxed kernels.
 */
export function buildRelaxed() {
  const out = join(ROOT, RELAXED_WASM);
  const files = readdirSync(join(ROOT, 'src/kernels-relaxed')).sort();
  const sources = files.filter((f) => f.endsWith('.c'));
  if (!hasCommand('clang-19') || !hasCommand('wasm-ld-19')) return existsSync(out);
  const newest = Math.max(...files.map((f) => statSync(join(ROOT, 'src/kernels-relaxed', f)).mtimeMs),
    statSync(join(ROOT, 'src/kernels-relaxed')).mtimeMs, // a file added or removed
    statSync(join(ROOT, 'bindings/boundary/functions.mjs')).mtimeMs,
    statSync(fileURLToPath(import.meta.url)).mtimeMs);
  if (existsSync(out) && statSync(out).mtimeMs >= newest) return true;
  mkdirSync(join(ROOT, 'build/relaxed'), { recursive: true });
  const objects = sources.map((f) => {
    const object = join('build/relaxed', f.replace(/\.c$/, '.o'));
    run('clang-19', ['--target=wasm32', '-O3', '-msimd128', '-mrelaxed-simd', '-ffp-contract=off', '-nostdlib', '-ffreestanding',
      '-Wall', '-Wextra', '-Werror', '-c', join('src/kernels-relaxed', f), '-o', object]);
    return object;
  });
  run('wasm-ld-19', ['--no-entry', '--import-memory', '--strip-debug', ...RELAXED_EXPORTS.map((e) => `--export=${e}`),
    '-o', RELAXED_WASM, ...objects]);
  return true;
}

/**
 * The TypeScript side of the JS boundary, generated from bindings/boundary/ (the C++ side is
 * generated by CMake from the same description): bindings/js/generated/, ignored by git.
 */
export function generateBoundary() {
  run(process.execPath, [join(ROOT, 'bindings', 'boundary', 'generate.mjs'), '--ts', join(ROOT, 'bindings', 'js', 'generated', 'boundary.ts')]);
}

/**
 * Typings for the CommonJS entry: a .d.cts twin of every declaration file (imports rewritten to
 * .cjs), with index.d.cts the twin of node.d.ts. TypeScript consumers with `module: node16` (or
 * any CommonJS setting) may not import ES-module declarations from a CommonJS file, so the CJS
 * entry needs declarations of its own; they describe the same API because dist/index.cjs is
 * bundled from the same code.
 */
function writeCommonJsTypes() {
  const dist = join(ROOT, 'dist');
  for (const rel of readdirSync(dist, { recursive: true })) {
    if (!rel.endsWith('.d.ts') || rel.startsWith('cli') || rel === 'index.d.ts') continue; // index.d.cts is node.d.ts's twin
    const text = readFileSync(join(dist, rel), 'utf8')
      .replace(/((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]+)\.js\2/g, '$1$2$3.cjs$2');
    writeFileSync(join(dist, rel === 'node.d.ts' ? 'index.d.cts' : rel.replace(/\.d\.ts$/, '.d.cts')), text);
  }
}

/**
 * dist/: the npm package: the module, the compiled TypeScript API and its typings, the embedded
 * module (posenc.wasm as base64, for 'posenc/embedded') and the CommonJS entry (one CommonJS file
 * bundled by esbuild from the Node entry, so require('posenc') has every named export at once).
 */
export function buildPackage() {
  buildWasm();
  const relaxed = buildRelaxed();
  generateBoundary();
  rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
  mkdirSync(join(ROOT, 'dist'));
  run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
  const copy = (from, to) => copyFileSync(join(ROOT, from), join(ROOT, 'dist', to));
  copy('build/wasm/posenc.mjs', 'posenc.mjs');
  copy('build/wasm/posenc.wasm', 'posenc.wasm');
  copy('bindings/js/posenc.d.mts', 'posenc.d.mts');
  copy('bindings/js/wasm-base64.d.ts', 'wasm-base64.d.ts');
  copy('bindings/js/relaxed-base64.d.ts', 'relaxed-base64.d.ts');
  // The relaxed-SIMD kernels travel inside the JS of every entry (a few KiB): no second file for
  // apps and bundlers to serve. Without clang-19 the string is empty and 'auto' keeps SIMD128.
  const relaxedText = relaxed ? readFileSync(join(ROOT, RELAXED_WASM)).toString('base64') : '';
  writeFileSync(join(ROOT, 'dist', 'relaxed-base64.js'),
    `// The relaxed-SIMD kernels (src/kernels-relaxed/${relaxed ? `, ${statSync(join(ROOT, RELAXED_WASM)).size} bytes` : ', not built: no clang-19'}) as base64. Generated by npm run build.\n` +
    `export default '${relaxedText}';\n`);
  writeCommonJsTypes();
  const base64 = readFileSync(join(ROOT, 'build/wasm/posenc.wasm')).toString('base64');
  writeFileSync(join(ROOT, 'dist', 'wasm-base64.js'),
    `// posenc.wasm (${statSync(join(ROOT, 'build/wasm/posenc.wasm')).size} bytes) as base64, for posenc/embedded. Generated by npm run build.\n` +
    `export default '${base64}';\n`);
  // The CommonJS entry: node.js and everything it imports in one CommonJS file; import.meta.url
  // (which locates posenc.wasm) becomes this file's own URL.
  run(join(ROOT, 'node_modules', 'esbuild', 'bin', 'esbuild'), [join('dist', 'node.js'),
    '--bundle', '--platform=node', '--format=cjs', '--target=node18', '--log-level=warning',
    '--define:import.meta.url=__posencModuleUrl',
    "--banner:js=// posenc's CommonJS entry, bundled from dist/node.js by npm run build.\n" +
    "const __posencModuleUrl = require('node:url').pathToFileURL(__filename).href;",
    `--outfile=${join('dist', 'index.cjs')}`]);
}
