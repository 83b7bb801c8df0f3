// Type test: posenc with other libraries' tensors and TypeScript habits, as an ESM consumer writes it.
// - a real onnxruntime-web `Tensor` (as a session returns it: the generic type) is a TensorInput;
// - results come back as the caller's tensor class through pe.tensors.wrap;
// - `using` disposes posenc objects, although this project's lib setting (es2022) lacks
//   esnext.disposable: posenc's typings bring Symbol.dispose with them.
// Each @ts-expect-error line must be a type error.
import * as ort from 'onnxruntime-web';
import { createPosEnc } from 'posenc';
import type { PosEnc, Tensor, TensorInput, TensorLike } from 'posenc';

const pe: PosEnc = await createPosEnc();

declare const session: ort.InferenceSession;
const outputs = await session.run({});
const q: ort.Tensor = outputs['query']!;
pe.rope.apply(q, outputs['key'], { layout: 'bhsd' });
const asInput: TensorInput = q;
const typed: TensorInput = new ort.Tensor('float32', new Float32Array(8), [2, 4]);

// transformers.js's Tensor, as declared there: (type, data, dims) and a data/dims/type surface.
declare class HfTensor {
  constructor(type: string, data: Float32Array | Uint16Array | BigInt64Array, dims: number[]);
  get data(): Float32Array | Uint16Array | BigInt64Array;
  dims: number[];
  type: string;
}
const hf = new HfTensor('float32', new Float32Array(8), [1, 2, 4]);
pe.rope.apply(hf, null, { layout: 'bshd', numHeads: 1 });

// Conversions: float32 copies in, the caller's class out (T inferred from the class).
const fromOrt: Tensor = pe.tensors.from(q);
const back: ort.Tensor = pe.tensors.wrap(ort.Tensor, fromOrt);
const hfBack: HfTensor = pe.tensors.wrap(HfTensor, pe.sinusoidal.table({ length: 2, dim: 4 }));
const tfLike = { shape: [2, 4], dtype: 'float32', dataSync: () => new Float32Array(8) };
pe.tensors.from(tfLike);
// @ts-expect-error a plain Float64Array carries no dims: not a tensor
pe.tensors.from(new Float64Array(8));
// @ts-expect-error tensors need dims
pe.rope.apply({ data: new Float32Array(8) }, null, { layout: 'bshd' });

{
  using cache = pe.rope.createCache({ rotaryDim: 4, maxPositions: 16 });
  using scratch = pe.memory.tensor([1, 4]);
  cache.apply(scratch, null, { dims: [1, 4], offset: 3 });
  const disposer: Disposable = cache;
  console.log(disposer);
}

const like: TensorLike = q;
console.log(asInput, typed, back, hfBack, like);
