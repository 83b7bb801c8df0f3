// Writes the seed corpus (tests/fuzz/corpus/) with posenc's own writers: small valid files and a few
// interesting variants. Run after `npm run build`: node tests/fuzz/make-corpus.mjs
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { createPosEnc } from '../../dist/node.js';
import { writeGgufHeader } from '../../dist/model/gguf-header.js';
import { FUZZ_DIR, ROOT } from './harness.mjs';

const pe = await createPosEnc();
const floats = (n) => Float32Array.from({ length: n }, (_, i) => Math.sin(i + 1) * (i + 1));
const ascii = (bytes) => new TextDecoder('latin1').decode(bytes);
const bytesOf = (text) => Uint8Array.from(text, (c) => c.charCodeAt(0));

function writeTarget(target, files) {
  const dir = join(FUZZ_DIR, 'corpus', target);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), typeof bytes === 'string' ? bytes : bytes);
}

// .npy: each dtype the writer has, a scalar, an empty tensor, a Fortran-order and a big-endian header
// (the last three edited from a written file: the header text keeps its length).
const npy23 = pe.io.writeNpy({ data: floats(6), dims: [2, 3] });
writeTarget('npy', {
  'f4-2x3.npy': npy23,
  'f2-4.npy': pe.io.writeNpy({ data: floats(4), dims: [4] }, { dtype: 'float16' }),
  'bf16-2x2.npy': pe.io.writeNpy({ data: floats(4), dims: [2, 2] }, { dtype: 'bfloat16' }),
  'f4-scalar.npy': pe.io.writeNpy({ data: floats(1), dims: [] }),
  'f4-0x3.npy': bytesOf(ascii(npy23.subarray(0, npy23.length - 24)).replace('(2, 3)', '(0, 3)')), // no data: the writer refuses zero sizes
  'f4-fortran-2x3.npy': bytesOf(ascii(npy23).replace("'fortran_order': False", "'fortran_order': True ")),
  'f4-big-endian-2x3.npy': bytesOf(ascii(npy23).replace("'<f4'", "'>f4'")),
});

// .safetensors: one tensor, several with metadata, each dtype.
writeTarget('safetensors', {
  'one-f32.safetensors': pe.io.writeSafetensors({ w: { data: floats(6), dims: [2, 3] } }),
  'two-meta.safetensors': pe.io.writeSafetensors({ a: { data: floats(4), dims: [4] }, b: { data: floats(2), dims: [1, 2] } },
    { metadata: { format: 'pt', note: 'posenc fuzz seed' } }),
  'f16.safetensors': pe.io.writeSafetensors({ h: { data: floats(3), dims: [3] } }, { dtype: 'float16' }),
  'bf16.safetensors': pe.io.writeSafetensors({ h: { data: floats(4), dims: [2, 2] } }, { dtype: 'bfloat16' }),
});

// GGUF: the metadata of plans from real configs (docs/encodings.md#83-configuration-keys), as pe.model.toGguf gives it.
// (Llama 3 and LongRoPE scaling live in GGUF tensors, which toGguf does not write: those configs are not here.)
const fixtures = ['tinyllama-1.1b-chat-v1.0.json', 'qwen2.5-7b.json', 'gemma-2-2b.json', 'mistral-7b-v0.3.json', 'stablelm-3b-4e1t.json', 'qwen3-8b.json', 'smollm3-3b.json'];
const gguf = {};
for (const f of fixtures) {
  const config = JSON.parse(readFileSync(join(ROOT, 'tests', 'fixtures', 'models', f), 'utf8'));
  gguf[f.replace(/\.json$/, '.gguf')] = writeGgufHeader(pe.model.toGguf(pe.model.fromConfig(config)));
}
writeTarget('gguf', gguf);

// JSON tensors for the command line's .json inputs.
writeTarget('json-tensor', {
  'two-by-two.json': JSON.stringify({ dims: [2, 2], data: [1, -2.5, 'Infinity', 'NaN'] }),
  'scalar.json': JSON.stringify({ dims: [], data: [3] }),
  'empty.json': JSON.stringify({ dims: [0, 3], data: [] }),
});

console.log(`corpus written: ${readdirSync(join(FUZZ_DIR, 'corpus')).join(', ')}`);
