// Type test: a Node-only project (lib ES2022 and @types/node, no DOM lib, no skipLibCheck) type-checks
// against the published typings: nothing in them may need the DOM or the WebAssembly namespace,
// which such a project does not have. `npm test -- types` checks this with tsconfig.node.json.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createPosEnc, PosEncError, type Tensor, type WasmTensor } from 'posenc';
import { createPosEnc as createEmbedded } from 'posenc/embedded';

const require = createRequire(import.meta.url);
const wasmBinary: Buffer = readFileSync(require.resolve('posenc/posenc.wasm'));
const pe = await createPosEnc({ wasmBinary, kernels: 'auto' });
const table: Tensor = pe.sinusoidal.table({ length: 4, dim: 8 });
const w: WasmTensor = pe.memory.tensor([2, 8]);
pe.rope.apply(w, null, { dims: [2, 8], offset: 3 });
w.dispose();
const npy: Uint8Array = pe.io.writeNpy(table);
const back: Tensor = pe.io.readNpy(readFileSync('t.npy'));
// @ts-expect-error the embedded entry takes no loading options
await createEmbedded({ wasmBinary });
const embedded = await createEmbedded();
try {
  embedded.sinusoidal.table({ length: 0, dim: 2 });
} catch (e) {
  if (e instanceof PosEncError) console.log(e.code, npy.length, back.dims);
}
