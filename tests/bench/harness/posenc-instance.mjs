// The posenc instance the Node benchmark measures, plus its WebAssembly.Memory for the bounds
// (harness/keep-memory.mjs), from the package built in dist/.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { instantiateKeepingMemory } from './keep-memory.mjs';

/** Returns { pe, memory } for the package built in `root`/dist, with createPosEnc's `kernels` option. */
export async function createMeasuredPosEnc(root, kernels = 'auto') {
  const dist = (f) => pathToFileURL(join(root, 'dist', f)).href;
  const [{ default: factory }, { instantiate }] = await Promise.all([import(dist('posenc.mjs')), import(dist('loading.js'))]);
  return instantiateKeepingMemory(factory, instantiate, readFileSync(join(root, 'dist', 'posenc.wasm')), kernels);
}
