// posenc instantiated so that its WebAssembly.Memory is kept: the bounds module imports it
// (harness/bounds.mjs). The public API does not hand out the Memory object, so the bench runs the
// package's own instantiate() with Emscripten's instantiateWasm hook: same bytes, same imports.
// Shared by the Node run (posenc-instance.mjs) and the browser run (browser/main.mjs), which only
// differ in how they load the three built files.

/**
 * `factory` (dist/posenc.mjs), `instantiate` (dist/loading.js), the bytes of posenc.wasm and
 * createPosEnc's `kernels` option -> { pe, memory }. Each call is an instance of its own.
 */
export async function instantiateKeepingMemory(factory, instantiate, wasmBinary, kernels = 'auto') {
  let memory;
  const capture = (options) => factory({
    ...options,
    // the package's own hook (it compiles `wasmBinary` and keeps the exports for the kernels), seen on the way
    instantiateWasm: (imports, receive) => options.instantiateWasm(imports, (instance, module) => {
      memory = Object.values(instance.exports).find((e) => e instanceof WebAssembly.Memory);
      receive(instance, module);
    }),
  });
  const pe = await instantiate(capture, { kind: 'bytes', bytes: wasmBinary, from: 'the bench' }, kernels);
  if (!(memory instanceof WebAssembly.Memory)) throw new Error('bench: posenc exports no WebAssembly.Memory');
  return { pe, memory };
}
