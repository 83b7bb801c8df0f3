// The bound module (bounds.wat) compiled by wabt's wat2wasm into build/bench/bounds.wasm, again
// whenever the .wat is newer. Node only: a browser run fetches the file this wrote.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const SOURCE = join(ROOT, 'tests', 'bench', 'harness', 'bounds.wat');

/** Where the compiled module is, relative to the repository (the browser run fetches it there). */
export const BOUNDS_WASM = 'build/bench/bounds.wasm';

/** The bytes of the compiled bound module, compiling it first if needed. */
export function boundsWasm() {
  const out = join(ROOT, BOUNDS_WASM);
  if (!existsSync(out) || statSync(out).mtimeMs < statSync(SOURCE).mtimeMs) {
    mkdirSync(dirname(out), { recursive: true });
    execFileSync('wat2wasm', [SOURCE, '-o', out], { stdio: 'inherit' });
  }
  return readFileSync(out);
}
