// The lesson page in headless Chromium: one browser for the whole suite. Page-wide checks live
// here; each section's checks are in ./sections/<name>.mjs (a new section adds a file and a line).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { createPosEnc } from '../../dist/node.js';
import { encodeFloats, npyBytes } from '../js/io-fixtures.mjs';
import { ARTIFACTS, openBrowser } from './harness.mjs';
import { canvasStats, choose, frames, heatmapCursor, matrixReady, select, setValue } from './page-helpers.mjs';
import { learnedTests } from './sections/learned.mjs';
import { relativeTests } from './sections/relative.mjs';
import { ropeScalingTests } from './sections/rope-scaling.mjs';
import { ropeTests } from './sections/rope.mjs';
import { sinusoidalTests } from './sections/sinusoidal.mjs';
import { whyTests } from './sections/why.mjs';

const SECTIONS = ['why', 'sinusoidal', 'learned', 'relative', 'rope', 'compare'];
const ctx = {};

before(async () => {
  ctx.pe = await createPosEnc();
  ctx.browser = await openBrowser();
  ctx.page = await ctx.browser.newPage();
  await ctx.page.goto(ctx.browser.url);
  await ctx.page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  await matrixReady(ctx.page, 'sin-sim-matrix');
});

after(async () => {
  await ctx.browser?.close();
});

test('the page loads posenc by name and every section starts, with no console messages or failed requests', async () => {
  const { page, browser } = ctx;
  assert.match(await page.textContent('#load-status'), /^posenc \d+\.\d+\.\d+ loaded: WebAssembly SIMD/);
  for (const id of SECTIONS.slice(0, -1)) assert.equal(await page.getAttribute(`#${id}`, 'data-ready'), 'true', id);
  const toc = await page.$$eval('.toc a', (links) => links.map((a) => a.getAttribute('href')));
  assert.deepEqual(toc, SECTIONS.map((id) => `#${id}`), 'the table of contents lists every section, in order');
  const order = await page.$$eval('main > section', (sections) => sections.map((s) => s.id));
  assert.deepEqual(order, SECTIONS);
  const map = JSON.parse(await page.textContent('script[type="importmap"]'));
  assert.equal(map.imports.posenc, './dist/index.js'); // relative: the page works under any base path
  assert.deepEqual(browser.problems, []);
});

test('every in-page link leads to a section that exists (no dead links); every compared method links to its section', async () => {
  const targets = await ctx.page.$$eval('a[href^="#"]', (links) => links.map((a) => [a.getAttribute('href'), !!document.getElementById(a.getAttribute('href').slice(1))]));
  assert.ok(targets.length >= 20);
  for (const [href, exists] of targets) assert.ok(exists, `dead link ${href}`);
  const methods = await ctx.page.$$eval('table.compare:not(.summary) tbody tr', (rows) => rows.map((r) => [r.querySelector('th').textContent.trim(), r.querySelector('th a')?.getAttribute('href') ?? null]));
  assert.deepEqual(methods.map(([, href]) => href), ['#why', '#sinusoidal', '#learned', '#rel-shaw', '#rel-txl', '#rel-t5', '#rel-deberta', '#rel-alibi', '#rope', '#rope-scaling']);
  assert.equal(await ctx.page.locator('table.compare .soon').count(), 0, 'no method is still "to come"');
});

test('screenshots of every section at the default settings', async () => {
  const { page } = ctx;
  for (const id of SECTIONS) await page.locator(`#${id}`).screenshot({ path: `${ARTIFACTS}desktop-${id}.png` });
});

whyTests(ctx);
sinusoidalTests(ctx);
learnedTests(ctx);
relativeTests(ctx);
ropeTests(ctx);
ropeScalingTests(ctx);

test('controls are reachable with Tab and show a visible focus ring', async () => {
  const { page } = ctx;
  await page.focus('#why-sentence');
  const reached = new Set(['why-sentence']);
  for (let i = 0; i < 300; i++) {
    await page.keyboard.press('Tab');
    const info = await page.evaluate(() => {
      const el = document.activeElement;
      if (el === document.body) return null; // past the last control
      const style = getComputedStyle(el);
      return { id: el.id || el.closest('[id]')?.id, outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2 };
    });
    if (info === null) break;
    assert.ok(info.outline, `no visible focus on ${info.id}`);
    reached.add(info.id);
  }
  const expected = ['why-perm', 'why-controls', 'why-a', 'why-b',
    'sin-length', 'sin-dim-range', 'sin-base', 'sin-heatmap', 'sin-waves-cols', 'sin-sim-measure', 'sin-sim-matrix',
    'sin-download', 'learned-pick', 'learned-sample', 'learned-heatmap',
    'rel-qlen', 'rel-klen-range', 'rel-offset', 'rel-dist', 'rel-shaw-k', 'rel-shaw-map', 'rel-t5-buckets', 'rel-t5-maxdist', 'rel-t5-map',
    'rel-t5-curve', 'rel-t5-list', 'rel-deb-bucket', 'rel-deb-maxpos', 'rel-deberta-plot', 'rel-alibi-heads', 'rel-alibi-maxbias',
    'rel-alibi-head', 'rel-alibi-slopes', 'rel-alibi-bias', 'rel-txl-mem', 'rel-txl-dmodel', 'rel-txl-clamp', 'rel-txl-mask', 'rel-txl-r',
    'rel-txl-bd', 'rel-txl-shifted',
    'rope-headdim', 'rope-rotarydim', 'rope-context', 'rope-scaling', 'rope-pair', 'rope-pos', 'rope-play',
    'rope-angles', 'rope-qk', 'rope-qk-new', 'rope-wave', 'rope-stretch', 'rope-config-llama31', 'rope-config-neox', 'rope-config',
    'rope-config-use'];
  for (const id of expected) {
    assert.ok(reached.has(id), `Tab never reached ${id}: ${[...reached].join(', ')}`);
  }
});

test('nothing moves when values change (fixed plot and readout boxes)', async () => {
  const { page } = ctx;
  const boxes = () => page.$$eval('.fig, .readout, .plot-area, .controls, .api-call, .file-info, .bucket-list, .summary', (els) => els.map((e) => {
    const r = e.getBoundingClientRect();
    return `${e.id || e.className}:${Math.round(r.x)},${Math.round(r.y + window.scrollY)},${Math.round(r.width)}x${Math.round(r.height)}`;
  }));
  const start = await boxes();
  await setValue(page, 'sin-length', 300);
  await setValue(page, 'sin-base', 123.456);
  await heatmapCursor(page, '#sin-heatmap', 255, 100);
  await setValue(page, 'rope-pos', 1234.5);
  await setValue(page, 'rope-headdim', 128);
  await heatmapCursor(page, '#rope-qk', 33, 2);
  // new sections: another sentence and encoding, relative settings, every scaling type, a config and a bad one
  await setValue(page, 'why-sentence', 'a much longer sentence than before with many words');
  await choose(page, 'why-encoding', 't5');
  await setValue(page, 'rel-qlen', 100);
  await setValue(page, 'rel-t5-buckets', 8);
  await setValue(page, 'rel-alibi-heads', 3);
  await setValue(page, 'rel-txl-mem', 0);
  for (const type of ['linear', 'ntk', 'dynamic', 'yarn', 'llama3', 'longrope', 'default']) await select(page, 'rope-scaling', type);
  await page.click('#rope-config-phi35');
  await page.fill('#rope-config', '{');
  await page.click('#rope-config-use');
  await frames(page, 3);
  assert.deepEqual(await boxes(), start);
  await setValue(page, 'sin-length', 256);
  await setValue(page, 'sin-base', 10000);
  await setValue(page, 'rope-headdim', 64);
  await setValue(page, 'rope-pos', 3);
});

test('a phone-sized viewport: one column, no sideways scrolling, plots drawn', async () => {
  const { browser } = ctx;
  const phone = await browser.newPage({ width: 390, height: 844 });
  await phone.goto(browser.url);
  await phone.waitForSelector('body[data-ready="true"]');
  await matrixReady(phone, 'sin-sim-matrix');
  assert.ok(await phone.evaluate(() => document.documentElement.scrollWidth <= 390), 'the page scrolls sideways');
  await setValue(phone, 'sin-waves-cols', '0, 1, 24, 50, 100, 127');
  // Every readout shows its text: lines wrap on a phone, in boxes tall enough for the defaults.
  const clipped = await phone.$$eval('.readout', (all) => all.filter((r) => r.scrollWidth > r.clientWidth + 1 || r.scrollHeight > r.clientHeight + 1)
    .map((r) => `${r.id}: ${r.scrollWidth}x${r.scrollHeight} in ${r.clientWidth}x${r.clientHeight}`));
  assert.deepEqual(clipped, [], 'readouts that scroll on a phone');
  const [a, b] = await Promise.all(['#sin-heatmap', '#sin-waves'].map((s) => phone.locator(s).boundingBox()));
  assert.ok(b.y > a.y + a.height, 'figures stack in one column');
  const wave = Array.from({ length: 96 * 48 }, (_, i) => Math.round(32 * Math.sin(Math.floor(i / 48) * (1 + (i % 48)) * 0.02)) / 32);
  await phone.setInputFiles('#learned-file', { name: 'waves.npy', mimeType: 'application/octet-stream', buffer: Buffer.from(npyBytes({ shape: [96, 48], data: encodeFloats(wave, 'f4') })) });
  await matrixReady(phone, 'learned-sim-matrix');
  for (const id of ['why-a', 'sin-heatmap', 'rel-t5-map', 'rel-alibi-bias', 'rope-qk', 'learned-heatmap']) assert.ok((await canvasStats(phone, `#${id}`)).inked > 0.1, id);
  await phone.screenshot({ path: `${ARTIFACTS}phone-top.png` });
  await phone.click('#rope-config-llama31'); // the phone screenshot of the RoPE section shows a model's config
  await frames(phone, 3);
  assert.ok(await phone.evaluate(() => document.documentElement.scrollWidth <= 390), 'the page scrolls sideways after a config');
  for (const id of SECTIONS) await phone.locator(`#${id}`).screenshot({ path: `${ARTIFACTS}phone-${id}.png` });
  await phone.close();
});

test('served under a sub-path (/lessons/posenc/), the page loads the package and computes its figures', async () => {
  const sub = await openBrowser({ base: '/lessons/posenc/' });
  try {
    const page = await sub.newPage();
    await page.goto(`${sub.url}#rope`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
    assert.match(sub.url, /\/lessons\/posenc\/$/);
    assert.match(await page.textContent('#load-status'), /^posenc \d+\.\d+\.\d+ loaded/);
    for (const id of SECTIONS.slice(0, -1)) assert.equal(await page.getAttribute(`#${id}`, 'data-ready'), 'true', id);
    await matrixReady(page, 'sin-sim-matrix');
    const top = await page.locator('#rope').evaluate((el) => el.getBoundingClientRect().top);
    assert.ok(Math.abs(top - 16) <= 2, `the deep link lands on its section, 1rem below the top (scroll-padding-top): top at ${top} px`);
    assert.deepEqual(sub.problems, []);
  } finally {
    await sub.close();
  }
});

test('after everything: no console errors or warnings, no failed requests', async () => {
  await frames(ctx.page, 2);
  assert.deepEqual(ctx.browser.problems, []);
});
