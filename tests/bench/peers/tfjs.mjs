// @tensorflow/tfjs-core on @tensorflow/tfjs-backend-wasm, configured as a web page would use it
// on one thread: the SIMD build, no threads, the .wasm files read from node_modules (no network).
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

const require = createRequire(import.meta.url);

/** Loads tfjs with the wasm backend; returns { tf, info } or { error } when the packages are missing. */
export async function loadTf() {
  let tf, wasm;
  try {
    tf = await import('@tensorflow/tfjs-core');
    wasm = await import('@tensorflow/tfjs-backend-wasm');
  } catch (error) {
    return { error: `tfjs not installed (${error.code ?? error.message})` };
  }
  const dir = dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm'));
  wasm.setWasmPaths(`${dir}/`);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false); // one thread, like posenc
  tf.env().set('WASM_HAS_SIMD_SUPPORT', true);          // -> tfjs-backend-wasm-simd.wasm
  if (!(await tf.setBackend('wasm'))) return { error: 'tfjs: the wasm backend did not initialise' };
  await tf.ready();
  const version = require('@tensorflow/tfjs-core/package.json').version;
  return { tf, info: `tfjs-core ${version}, backend ${tf.getBackend()} (SIMD, 1 thread)` };
}
