// Small process helpers for the npm scripts: run a command with inherited output, or capture it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The clang of the sanitizer and fuzz builds: the one emscripten brings (Debian's clang-14). */
export const CLANG = 'clang++-14';

/** Runs a command in the repository root, echoing it; exits the script if it fails. */
export function run(cmd, args, { env, cwd = ROOT, allowFail = false, timeoutMs } = {}) {
  console.log(`$ ${[cmd, ...args].join(' ')}`);
  const result = spawnSync(cmd, args, {
    cwd, stdio: 'inherit', env: { ...process.env, ...env }, timeout: timeoutMs,
  });
  if (result.error) {
    if (allowFail) return 1;
    console.error(`posenc: could not run ${cmd}: ${result.error.message}`);
    process.exit(1);
  }
  const status = result.status ?? 1;
  if (status !== 0 && !allowFail) {
    console.error(`posenc: '${[cmd, ...args].join(' ')}' failed (exit ${status}${result.signal ? `, ${result.signal}` : ''})`);
    process.exit(status);
  }
  return status;
}

/** Runs a command and returns its stdout ('' if it cannot run). */
export function capture(cmd, args, { cwd = ROOT } = {}) {
  const result = spawnSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 });
  return result.status === 0 ? result.stdout : '';
}

/**
 * The Node option that turns relaxed SIMD on, for a child `node` that should run posenc's relaxed
 * kernels as Chromium does: ['--experimental-wasm-relaxed-simd'] where this Node takes it, [] where
 * it does not (a Node that shipped the feature may have dropped the flag).
 */
export function relaxedSimdFlag() {
  const flag = '--experimental-wasm-relaxed-simd';
  return spawnSync(process.execPath, [flag, '-e', '0'], { stdio: 'ignore' }).status === 0 ? [flag] : [];
}

/** Whether an executable is on PATH. */
export function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}
