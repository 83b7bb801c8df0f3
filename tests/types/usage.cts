// Type test: the CommonJS entry's typings (require('posenc')).
import posenc = require('posenc');

async function main(): Promise<void> {
  const pe = await posenc.createPosEnc();
  const t: posenc.Tensor = pe.sinusoidal.table({ length: 4, dim: 4 });
  const E: typeof posenc.PosEncError = pe.PosEncError;
  console.log(t.dims, E.name);
}
void main();
