// createPosEnc({ kernels }) in headless Chromium, which runs relaxed SIMD without a flag: the built
// dist/ served as is, pe.rope.apply and exact sinusoidal tables with the relaxed and the SIMD128
// kernels (one page each) against the float64 formulas (docs/encodings.md#82-precision's 1e-6 for RoPE, half
// an ulp for tables) and against each other; the default picks relaxed.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { embeddedRelaxedModule } from '../support/relaxed-module.mjs';
import { ROOT, launchBrowser, page } from './support.mjs';

const hasRelaxed = (await embeddedRelaxedModule()) !== undefined;
let browser;
const work = mkdtempSync(join(tmpdir(), 'posenc-relaxed-browser-'));
before(async () => {
  cpSync(join(ROOT, 'dist'), join(work, 'dist'), { recursive: true });
  writeFileSync(join(work, 'index.html'), page('./main.js'));
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

// Both pairings and layouts, GQA, a partial rotary block, positions near 10^6 and, at 512 tokens,
// the driver's memory-order walk; the float64 rotation in the page; the small outputs returned for comparison.
const APP = (kernels) => `import { createPosEnc } from './dist/index.js';
const rand = (n, seed) => { let s = seed; return Float32Array.from({ length: n }, () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 7 - 3.5); };
createPosEnc(${kernels === undefined ? '' : `{ kernels: '${kernels}' }`}).then((pe) => {
  let worst = 0;
  let worstTable = 0;
  for (const [length, dim, offset, layout] of [[300, 130, 0, 'interleaved'], [77, 66, 99999, 'half']]) {
    const t = pe.sinusoidal.table({ length, dim, offset, layout }).data;
    const pairs = Math.ceil(dim / 2);
    for (let p = 0; p < length; p++) for (let j = 0; j < dim; j++) {
      const i = layout === 'interleaved' ? j >> 1 : j < pairs ? j : j - pairs;
      const sine = layout === 'interleaved' ? j % 2 === 0 : j < pairs;
      const angle = (offset + p) * 10000 ** (-2 * i / dim);
      const want = sine ? Math.sin(angle) : Math.cos(angle);
      worstTable = Math.max(worstTable, Math.abs(t[p * dim + j] - want) / (2 ** -24 * Math.abs(want) + 1e-14));
    }
  }
  const outputs = [];
  for (const [layout, pairing, seq, heads, dim, rotaryDim] of [['bshd', 'half', 37, 4, 128, 128], ['bhsd', 'interleaved', 37, 4, 64, 64],
    ['bshd', 'interleaved', 37, 2, 80, 32], ['bshd', 'half', 512, 16, 128, 128], ['bshd', 'interleaved', 512, 16, 128, 128]]) {
    const x0 = rand(seq * heads * dim, seq + dim);
    const q = { data: x0.slice(), dims: layout === 'bshd' ? [1, seq, heads, dim] : [1, heads, seq, dim] };
    const offset = 1e6 - 20;
    pe.rope.apply(q, null, { layout, pairing, rotaryDim, offset });
    const pairs = rotaryDim / 2;
    for (let t = 0; t < seq; t++) for (let h = 0; h < heads; h++) {
      const at = (layout === 'bshd' ? t * heads + h : h * seq + t) * dim;
      for (let i = 0; i < pairs; i++) {
        const angle = (offset + t) * 10000 ** (-2 * i / rotaryDim);
        const [ia, ib] = pairing === 'half' ? [at + i, at + i + pairs] : [at + 2 * i, at + 2 * i + 1];
        const a = x0[ia], b = x0[ib], c = Math.cos(angle), s = Math.sin(angle);
        worst = Math.max(worst, Math.abs(q.data[ia] - (a * c - b * s)) / 3.5, Math.abs(q.data[ib] - (a * s + b * c)) / 3.5);
      }
    }
    if (seq * heads * dim < 1e5) outputs.push(Array.from(q.data)); // the large cases: against float64 only (a small result)
  }
  document.body.dataset.result = JSON.stringify({ kernels: pe.kernels, worst, worstTable, outputs });
}, (error) => { document.body.dataset.result = JSON.stringify({ code: error.code, message: error.message }); });
`;

async function run(kernels) {
  writeFileSync(join(work, 'main.js'), APP(kernels));
  const { result, problems } = await browser.open(work);
  assert.deepEqual(problems, [], kernels);
  assert.equal(result.code, undefined, `${kernels}: ${result.message}`);
  assert.ok(result.worstTable <= 1, `${kernels}: a table value beyond half an ulp (+1e-14): ${result.worstTable}`);
  return result;
}

test("Chromium: kernels 'relaxed' and 'simd128': RoPE within 1e-6 of the float64 rotation, tables within half an ulp; the default picks relaxed", { skip: !hasRelaxed }, async (t) => {
  const relaxed = await run('relaxed');
  const simd128 = await run('simd128');
  assert.equal(relaxed.kernels, 'relaxed');
  assert.equal(simd128.kernels, 'simd128');
  assert.ok(relaxed.worst <= 1e-6 && simd128.worst <= 1e-6, `worst: relaxed ${relaxed.worst}, simd128 ${simd128.worst}`);
  let apart = 0;
  let differing = 0;
  relaxed.outputs.forEach((out, k) => out.forEach((v, j) => {
    apart = Math.max(apart, Math.abs(v - simd128.outputs[k][j]) / 3.5);
    if (v !== simd128.outputs[k][j]) differing++;
  }));
  assert.ok(apart <= 2e-6, `relaxed - simd128: ${apart}`);
  t.diagnostic(`worst error: relaxed ${relaxed.worst.toExponential(2)}, simd128 ${simd128.worst.toExponential(2)}; ` +
    `${differing} lanes differ in the last bits (0 when this CPU's relaxed madd is unfused)`);
  assert.equal((await run('auto')).kernels, 'relaxed', "'auto' picks relaxed in Chromium");
  assert.equal((await run(undefined)).kernels, 'relaxed', 'the default is auto');
});
