// node tests/webgpu/bench.mjs: docs/performance.md's WebGPU table. In headless Chromium on
// SwiftShader WebGPU (a CPU Vulkan) only ratios mean anything: posenc's gpu.rope against posenc's
// WebAssembly RopeCache.apply (zero-copy WasmTensor) and onnxruntime-web's WebGPU RotaryEmbedding
// (com.microsoft, GPU tensors in and out) on the shapes of npm run bench's RoPE cases (half pairing).
import { oneNodeModel } from '../bench/onnx-writer.mjs';
import { openChecks } from './browser.mjs';

const shapes = [];
for (const tokens of [1, 128, 2048]) {
  for (const heads of [8, 32]) for (const dim of [64, 128]) shapes.push({ tokens, heads, dim, offset: tokens === 1 ? 1000 : 0 });
}
const io = (name, type, dims) => ({ name, type, dims });
const models = await Promise.all(shapes.map(async ({ tokens, heads, dim, offset }) => Array.from(await oneNodeModel({
  opType: 'RotaryEmbedding', domain: 'com.microsoft', opset: 1,
  inputs: [io('X', 'FLOAT', ['batch', 'seq', heads * dim]), io('pos', 'INT64', ['batch', 'seq']), io('cos', 'FLOAT', [offset + tokens, dim / 2]),
    io('sin', 'FLOAT', [offset + tokens, dim / 2])],
  outputs: [io('Y', 'FLOAT', ['batch', 'seq', heads * dim])], attributes: { num_heads: heads, interleaved: 0 },
}))));
const page = await openChecks();
try {
  if (page.status !== 'ready') throw new Error(`no WebGPU in the page: ${page.status}`);
  const rows = await page.run('bench', shapes, models, 40);
  const f = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
  console.log('| q (bshd), one dispatch per call | bytes moved | posenc WebGPU ÷ posenc WASM | posenc WebGPU ÷ ORT WebGPU |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const r of rows) {
    const label = `${r.tokens} token${r.tokens > 1 ? 's' : ''} × ${r.heads} heads × ${r.dim}${r.tokens === 1 ? ' (decode at 1000)' : ''}`;
    console.log(`| ${label} | ${r.bytes} | ${f(r.gpuMs / r.wasmMs)} | ${f(r.gpuMs / r.ortMs)} |`);
  }
  if (page.problems.length) console.error(page.problems.join('\n'));
} finally {
  await page.close();
}
