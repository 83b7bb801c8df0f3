// Type test: the CommonJS entry's typings (require('posenc')): the same named exports as the ES
// module entry, values included.
import posenc = require('posenc');
import { PosEncError, RopeCache, VERSION, WasmTensor, createPosEnc } from 'posenc';

async function main(): Promise<void> {
  const pe = await createPosEnc();
  const t: posenc.Tensor = pe.sinusoidal.table({ length: 4, dim: 4 });
  const E: typeof PosEncError = pe.PosEncError;
  const cache = pe.rope.createCache({ rotaryDim: 4, maxPositions: 4 });
  const isCache: boolean = cache instanceof RopeCache;
  const w: WasmTensor = pe.memory.tensor([2, 2]);
  const version: string = VERSION;
  try {
    await posenc.createPosEnc({ wasmBinary: new Uint8Array(8) });
  } catch (error) {
    if (error instanceof posenc.PosEncError) {
      const code: posenc.PosEncErrorCode = error.code;
      console.log(code);
    }
  }
  console.log(t.dims, E.name, isCache, w.size, version);
}
void main();
