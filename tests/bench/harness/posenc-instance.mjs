// The posenc instance the benchmark measures, plus its WebAssembly.Memory, so the bounds module can
// work on buffers in the same memory as posenc's own tensors (harness/bounds.mjs). The public API
// does not hand out the Memory object; the bench instantiates the built module itself, exactly as
// the Node entry does, and keeps the instance's exported memory on the way.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Returns { pe, memory } for the package built in `root`/dist. */
export async function createMeasuredPosEnc(root) {
  const dist = (f) => pathToFileURL(join(root, 'dist', f)).href;
  const { default: factory } = await import(dist('posenc.mjs'));
  const { instantiate } = await import(dist('posenc.js'));
  const wasmBinary = readFileSync(join(root, 'dist', 'posenc.wasm'));
  let memory;
  const capture = (options) => factory({
    ...options,
    // Emscripten's hook for instantiating the module ourselves: same bytes, same imports.
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(wasmBinary, imports).then(({ instance, module }) => {
        memory = Object.values(instance.exports).find((e) => e instanceof WebAssembly.Memory);
        receive(instance, module);
      });
      return {};
    },
  });
  const pe = await instantiate(capture, { wasmBinary });
  if (!(memory instanceof WebAssembly.Memory)) throw new Error('bench: posenc exports no WebAssembly.Memory');
  return { pe, memory };
}
