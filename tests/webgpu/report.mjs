// node tests/webgpu/report.mjs: the table of docs/webgpu.md, measured live in headless Chromium on
// SwiftShader WebGPU: the largest error of cos/sin over a head's 64 pairs (headDim 128, base
// 10000) at a few positions, from the float32 WGSL pipeline engines use (pow, multiply, cos, sin
// per element) and from posenc's table (float64 rounded once), both against float64.
import { openChecks } from './browser.mjs';

const positions = [10, 1000, 10_000, 100_000, 999_999];
const page = await openChecks();
try {
  if (page.status !== 'ready') throw new Error(`no WebGPU in the page: ${page.status}`);
  const rows = await page.run('naive', { headDim: 128, positions });
  const e = (v) => v.toExponential(1);
  console.log('| position | float32 WGSL pow/sin/cos | posenc table |');
  console.log('| ---: | ---: | ---: |');
  for (const r of rows) console.log(`| ${r.position} | ${e(r.naive)} | ${e(r.posenc)} |`);
  if (page.problems.length) console.error(page.problems.join('\n'));
} finally {
  await page.close();
}
