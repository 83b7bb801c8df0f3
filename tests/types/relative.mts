// Type test of the relative-position families and attention helpers, used as an ESM consumer would.
// Each @ts-expect-error line must be a type error.
import { createPosEnc } from 'posenc';
import type {
  AlibiBiasOptions, AlibiForm, AttentionOptions, IndexTensor, PosEnc, ShawAttentionOptions, T5BiasOptions, Tensor,
  TxlScoreOptions,
} from 'posenc';

const pe: PosEnc = await createPosEnc();

const idx: IndexTensor = pe.shaw.relativeIndices({ qLen: 4, kLen: 4, maxRelativePosition: 2, queryOffset: 1 });
const ints: Int32Array = idx.data;
const gathered: Tensor = pe.shaw.gather({ data: new Float32Array(20), dims: [5, 4] }, { qLen: 2, kLen: 2 });
const shawOpts: ShawAttentionOptions = { causal: true, scale: 0.5, queryOffset: 3 };
const q = { data: new Float32Array(2 * 3 * 4), dims: [2, 3, 4] };
pe.shaw.logits(q, q, gathered, shawOpts);
pe.shaw.attention(q, q, q, { data: new Float32Array(20), dims: [5, 4] }, null, shawOpts);

const r: Tensor = pe.transformerXL.relativeSinusoid({ qLen: 3, memLen: 2, dModel: 8, clampLen: 0 });
pe.transformerXL.relShift(r, { maskFuture: true });
const txlOpts: TxlScoreOptions = { maskFuture: false };
pe.transformerXL.score(q, q, q, new Float32Array(8), new Float32Array(8), txlOpts);

const bucket: number = pe.t5.bucket(-16, { numBuckets: 32, maxDistance: 128, bidirectional: true });
const t5Opts: T5BiasOptions = { qLen: 4, kLen: 4, queryOffset: 0 };
const t5Bias: Tensor = pe.t5.bias(new Float32Array(64), t5Opts);
pe.t5.buckets({ qLen: 2, kLen: 2, bidirectional: false });
// @ts-expect-error qLen is required
pe.t5.buckets({ kLen: 2 });

const deb: number = pe.deberta.bucket(1000, { bucketSize: 256, maxPosition: 512 });
const span: number = pe.deberta.attentionSpan();
pe.deberta.c2pIndices({ qLen: 2, kLen: 3 });
pe.deberta.p2cIndices({ qLen: 2, kLen: 3, bucketSize: 0 });

const slopes: Float64Array = pe.alibi.slopes({ numHeads: 12, maxBias: 8 });
const form: AlibiForm = 'bloom';
const alibiOpts: AlibiBiasOptions = { numHeads: 4, qLen: 2, kLen: 3, form, attentionMask: new BigInt64Array([0n, 1n, 1n]) };
pe.alibi.bias(alibiOpts);
// @ts-expect-error form is 'causal' | 'symmetric' | 'bloom'
pe.alibi.bias({ numHeads: 4, qLen: 2, kLen: 2, form: 'paper' });

const attOpts: AttentionOptions = { causal: true, bias: t5Bias, rope: { rotaryDim: 4, pairing: 'interleaved' } };
const scores: Tensor = pe.attention.scores(q, q, attOpts);
pe.attention.output(q, q, q, { rope: true, queryOffset: 2 });
// @ts-expect-error pairing names are 'half' | 'interleaved'
pe.attention.logits(q, q, { rope: { pairing: 'neox' } });

console.log(ints, bucket, deb, span, slopes, scores);
