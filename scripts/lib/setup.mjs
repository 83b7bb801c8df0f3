// Set-up that `npm start`, `npm test`, `npm run build` and `npm run bench` share: install whatever
// system packages and npm packages are missing, and nothing else. Safe to run every time.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { CLANG, ROOT, capture, hasCommand, run } from './run.mjs';

/** Whether clang's sanitizer and libFuzzer runtimes are installed (the sanitize suite, npm run fuzz -- native). */
function clangRuntimesPresent() {
  const dir = capture(CLANG, ['-print-runtime-dir']).trim();
  return dir !== '' && ['asan', 'ubsan_standalone', 'fuzzer'].every((lib) => existsSync(join(dir, `libclang_rt.${lib}-x86_64.a`)));
}

// What each piece of the toolchain is, how to tell it is there, and its Debian package.
const TOOLS = [
  { need: 'test', what: 'a C++ compiler (native tests)', present: () => hasCommand('g++'), pkg: 'g++' },
  { need: 'build', what: 'CMake', present: () => hasCommand('cmake'), pkg: 'cmake' },
  { need: 'build', what: 'make', present: () => hasCommand('make'), pkg: 'make' },
  { need: 'build', what: 'Emscripten', present: () => hasCommand('emcc'), pkg: 'emscripten' },
  { need: 'build', what: 'Binaryen', present: () => hasCommand('wasm-opt'), pkg: 'binaryen' },
  { need: 'build', what: 'xsimd headers', present: () => existsSync('/usr/include/xsimd/xsimd.hpp'), pkg: 'libxsimd-dev' },
  // clang++-14 itself comes with emscripten (Debian's emscripten depends on clang-14); its runtimes do not.
  { need: 'test', what: "clang's sanitizer and libFuzzer runtimes", present: clangRuntimesPresent, pkg: 'libclang-rt-14-dev' },
  { need: 'test', what: 'Catch2 headers', present: () => existsSync('/usr/include/catch2/catch.hpp'), pkg: 'catch2' },
  { need: 'test', what: 'wabt (wasm-objdump)', present: () => hasCommand('wasm-objdump'), pkg: 'wabt' },
  // The relaxed-SIMD kernels (docs/building.md#14-relaxed-simd): Emscripten 3.1.6's clang-14 cannot emit them.
  { need: 'test', what: 'clang-19 (relaxed-SIMD kernels)', present: () => hasCommand('clang-19'), pkg: 'clang-19' },
  { need: 'test', what: 'wasm-ld-19 (relaxed-SIMD kernels)', present: () => hasCommand('wasm-ld-19'), pkg: 'lld-19' },
  { need: 'test', what: 'Chromium', present: () => existsSync('/usr/bin/chromium'), pkg: 'chromium' },
];

const NEEDS = { build: ['build'], test: ['build', 'test'], bench: ['build', 'test'] };

/** The Debian packages that only `npm test` (and the benchmark) need, never the package build. */
export const TEST_ONLY_PACKAGES = [...new Set(TOOLS.filter((t) => t.need === 'test').map((t) => t.pkg))];

/** What `profile` needs and this machine lacks: [{ what, pkg }]. */
export function missingTools(profile) {
  const wanted = NEEDS[profile];
  return TOOLS.filter((t) => wanted.includes(t.need) && !t.present()).map(({ what, pkg }) => ({ what, pkg }));
}

function ensureSystemPackages(profile) {
  const missing = missingTools(profile);
  if (missing.length === 0) return;
  const pkgs = [...new Set(missing.map((t) => t.pkg))];
  console.log(`posenc: missing ${missing.map((t) => t.what).join(', ')}; installing Debian packages: ${pkgs.join(' ')}`);
  if (!hasCommand('apt-get')) {
    console.error(`posenc: apt-get is not available. Install these packages (or their equivalents) and retry: ${pkgs.join(' ')}`);
    process.exit(1);
  }
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const sudo = isRoot ? [] : hasCommand('sudo') ? ['sudo'] : null;
  if (sudo === null) {
    console.error(`posenc: installing system packages needs root. Run as root:\n  apt-get update && apt-get install -y --no-install-recommends ${pkgs.join(' ')}`);
    process.exit(1);
  }
  const apt = (args) => (sudo.length ? run('sudo', ['apt-get', ...args], { env: { DEBIAN_FRONTEND: 'noninteractive' } })
    : run('apt-get', args, { env: { DEBIAN_FRONTEND: 'noninteractive' } }));
  apt(['update', '-qq']);
  // No recommends: chromium would pull ~90 unneeded packages and emscripten python3-numpy (docs/building.md#1-installing).
  apt(['install', '-y', '-qq', '--no-install-recommends', ...pkgs]);
}

/**
 * Whether node_modules holds exactly what package-lock.json asks for: npm records what it installed
 * in node_modules/.package-lock.json. Compared by content, not by date: a fresh clone's lock file
 * is always newer than anything, and an unchanged lock must not trigger a reinstall. Optional
 * packages (other platforms' binaries) may be absent.
 */
function nodeModulesMatchLock() {
  const read = (file) => {
    try {
      return JSON.parse(readFileSync(file, 'utf8')).packages ?? {};
    } catch {
      return undefined;
    }
  };
  const wanted = read(join(ROOT, 'package-lock.json'));
  const installed = read(join(ROOT, 'node_modules', '.package-lock.json'));
  if (!wanted || !installed) return false;
  return Object.entries(wanted).every(([path, entry]) => path === ''
    || (installed[path] ? installed[path].version === entry.version : entry.optional === true));
}

function ensureNodeModules() {
  if (nodeModulesMatchLock()) return;
  run('npm', ['ci', '--no-audit', '--no-fund']);
}

function checkNode() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 18) {
    console.error(`posenc: Node.js 18 or newer is required, this is ${process.versions.node}`);
    process.exit(1);
  }
}

/** Installs what `profile` ('build' | 'test' | 'bench') needs and is missing. */
export function ensureSetup(profile = 'build') {
  checkNode();
  ensureSystemPackages(profile);
  ensureNodeModules();
}
