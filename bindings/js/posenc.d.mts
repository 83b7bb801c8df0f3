// Types of the Emscripten-generated glue (build/wasm/posenc.mjs), which ships as dist/posenc.mjs.
declare function createPosEncModule(options?: Record<string, unknown>): Promise<unknown>;
export default createPosEncModule;
