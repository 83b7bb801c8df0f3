// The lesson page in headless Chromium, one browser for the suite: at 1366 × 900, page-wide checks
// here and each section's in ./sections/<name>.mjs (a new section adds a file and a line); then
// the phone (phone.mjs) and the timings at the top of every range (timings.mjs). Controls are
// found by role and accessible name, sections by their headings, figures by their captions.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { createPosEnc } from '../../dist/node.js';
import { startServer } from '../../scripts/lib/server.mjs';
import { ARTIFACTS, DESKTOP, openBrowser } from './harness.mjs';
import { HEADINGS, canvasStats, fill, figure, frames, heatmapCursor, numberField, photograph, section, select, settled } from './page-helpers.mjs';
import { compareTests } from './sections/compare.mjs';
import { learnedTests } from './sections/learned.mjs';
import { relativeTests } from './sections/relative.mjs';
import { ropeLessonTests } from './sections/rope-lesson.mjs';
import { ropeScalingTests } from './sections/rope-scaling.mjs';
import { ropeParts, ropeTests } from './sections/rope.mjs';
import { sinusoidalTests } from './sections/sinusoidal.mjs';
import { whyTests } from './sections/why.mjs';
import { phoneTests } from './phone.mjs';
import { timingTests } from './timings.mjs';

const ctx = {};

before(async () => {
  ctx.pe = await createPosEnc();
  ctx.browser = await openBrowser();
  ctx.page = await ctx.browser.newPage();
  await ctx.page.goto(ctx.browser.url);
  await ctx.page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  await settled(ctx.page);
});

after(async () => {
  await ctx.browser?.close();
});

test('the page loads posenc by name; six sections, found by their headings, all start', async () => {
  const { page, browser } = ctx;
  assert.match(await page.getByRole('status').first().textContent(), /^posenc \d+\.\d+\.\d+ loaded: WebAssembly SIMD/);
  // The readouts are compared with posenc in this process to the last printed digit, and a fused
  // multiply-add may round differently: both must run the same kernels (npm test gives Node the flag).
  const pageKernels = await page.evaluate(async () => (await (await import('/dist/index.js')).createPosEnc()).kernels);
  assert.equal(pageKernels, ctx.pe.kernels, `the page runs ${pageKernels} kernels, this Node ${ctx.pe.kernels}: run the suite through npm test`);
  assert.match(await page.getByRole('status').first().textContent(), pageKernels === 'relaxed' ? /with relaxed-SIMD kernels/ : /\(sse4\.1\)\.$/);
  assert.deepEqual(await page.getByRole('heading', { level: 2 }).allTextContents(), HEADINGS);
  for (const heading of HEADINGS) {
    const s = section(page, heading);
    assert.equal(await s.count(), 1, `one section is named "${heading}" by its heading`);
    assert.equal(await s.getAttribute('data-ready'), 'true', heading);
  }
  const toc = page.getByRole('navigation', { name: 'Sections' }).getByRole('link');
  assert.deepEqual(await toc.allTextContents(), ['Why order matters', 'Sinusoidal', 'Learned tables', 'Relative', 'Rotary (RoPE)', 'Comparison']);
  for (const [k, link] of (await toc.all()).entries()) {
    const target = await link.getAttribute('href');
    assert.equal(await page.locator(`${target} h2`).textContent(), HEADINGS[k], `the table of contents leads to ${HEADINGS[k]}`);
  }
  const map = JSON.parse(await page.locator('script[type="importmap"]').textContent());
  assert.equal(map.imports.posenc, './dist/index.js'); // relative: the page works under any base path
  // served compressed: the browser received fewer bytes than it decoded
  const sizes = await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => /posenc\.wasm$|main\.js$/.test(e.name))
    .map((e) => [e.name.split('/').pop(), e.encodedBodySize, e.decodedBodySize]));
  assert.equal(sizes.length, 2);
  for (const [name, sent, decoded] of sizes) assert.ok(sent > 0 && sent < decoded * 0.6, `${name}: ${sent} bytes sent for ${decoded}`);
  assert.deepEqual(browser.problems, []);
});

test('every in-page link leads somewhere; ids are unique; every compared method links to its section', async () => {
  const { page } = ctx;
  const targets = await page.$$eval('a[href^="#"]', (links) => links.map((a) => [a.getAttribute('href'), !!document.getElementById(a.getAttribute('href').slice(1))]));
  assert.ok(targets.length >= 20);
  for (const [href, exists] of targets) assert.ok(exists, `dead link ${href}`);
  const ids = await page.$$eval('[id]', (els) => els.map((e) => e.id));
  assert.deepEqual(ids.filter((id, k) => ids.indexOf(id) !== k), [], 'ids used twice');
  const compare = section(page, 'Comparison').getByRole('table', { name: /^Every method at a glance/ });
  const methods = await compare.getByRole('row').evaluateAll((rows) => rows.slice(1).map((r) => r.querySelector('th a')?.getAttribute('href') ?? null));
  assert.deepEqual(methods, ['#why', '#sinusoidal', '#learned', '#rel-shaw', '#rel-txl', '#rel-t5', '#rel-deberta', '#rel-alibi', '#rope', '#rope-scaling']);
  assert.equal(await page.locator('#rope-scaling').evaluate((el) => el.tagName), 'H3', '"what is this?" lands on the explanation');
});

test('every figure is drawn on first load (the learned section too), and each section is photographed', async () => {
  const { page } = ctx;
  for (const heading of HEADINGS) {
    const s = section(page, heading);
    for (const fig of await s.getByRole('figure').all()) {
      const caption = (await fig.locator('figcaption').textContent()).slice(0, 40);
      for (const area of await fig.locator('.plot-area').all()) {
        const st = await canvasStats(area);
        assert.ok(st.inked > 0.01 && st.colours > 5, `"${caption}" looks blank: ${JSON.stringify(st)}`);
      }
    }
    await photograph(s, `${ARTIFACTS}desktop-${heading.split(' ')[0].toLowerCase()}.png`);
  }
});

test('every control has an accessible name, and Tab reaches every one with a visible focus ring', async () => {
  const { page } = ctx;
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  const roles = new Set(['spinbutton', 'slider', 'combobox', 'textbox', 'radio', 'checkbox', 'button', 'application', 'link']);
  const unnamed = nodes.filter((n) => !n.ignored && roles.has(n.role?.value) && !(n.name?.value ?? '').trim()).map((n) => n.role.value);
  assert.deepEqual(unnamed, [], 'controls without a name');
  await cdp.detach();
  // every focusable control, tagged; then Tab from the top until focus leaves the page
  const expected = await page.evaluate(() => {
    const all = [...document.querySelectorAll('a[href], button, input, select, textarea, [tabindex="0"]')]
      .filter((el) => !el.disabled && !el.closest('[hidden]') && el.getAttribute('tabindex') !== '-1' && el.getClientRects().length > 0);
    const groups = new Set();
    return all.filter((el) => {
      if (el.type !== 'radio') return true;
      if (groups.has(el.name)) return false; // Tab enters a radio group once
      groups.add(el.name);
      return true;
    }).map((el, k) => {
      el.dataset.e2e = String(k);
      return el.type === 'radio' ? `radio:${el.name}` : String(k);
    });
  });
  await page.evaluate(() => document.activeElement?.blur());
  await page.locator('body').focus();
  const reached = new Set();
  for (let i = 0; i < expected.length + 40; i++) {
    await page.keyboard.press('Tab');
    const info = await page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      const style = getComputedStyle(el);
      return { key: el.type === 'radio' ? `radio:${el.name}` : el.dataset.e2e, what: el.outerHTML.slice(0, 80), outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2 };
    });
    if (info === null) break;
    assert.ok(info.outline, `no visible focus on ${info.what}`);
    reached.add(info.key);
  }
  const missed = expected.filter((key) => !reached.has(key));
  assert.deepEqual(missed, [], 'controls Tab never reached');
  assert.ok(expected.length > 80, `${expected.length} controls`);
});

whyTests(ctx);
sinusoidalTests(ctx);
learnedTests(ctx);
relativeTests(ctx);
ropeTests(ctx);
ropeLessonTests(ctx);
ropeScalingTests(ctx);
compareTests(ctx);

test('plots keep their sizes and readouts never scroll sideways when values change', async () => {
  const { page } = ctx;
  const measure = () => page.$$eval('.plot-area, .readout', (els) => els.map((e) => {
    const r = e.getBoundingClientRect();
    return { what: e.className, size: e.classList.contains('plot-area') ? `${Math.round(r.width)}x${Math.round(r.height)}` : '', scrolls: e.scrollWidth > e.clientWidth + 1 };
  }));
  const start = await measure();
  const sin = section(page, 'Sinusoidal encoding');
  await fill(numberField(sin, 'length'), 300);
  await fill(numberField(sin, 'base'), 123.456);
  await heatmapCursor(figure(sin, 'The table'), 255, 100);
  const rope = ropeParts(page);
  await fill(rope.position, 1234.5);
  await fill(rope.headDim, 128);
  for (const type of ['linear', 'ntk', 'dynamic', 'yarn', 'llama3', 'longrope', 'default']) await select(rope.s, 'scaling type', type);
  await fill(numberField(section(page, 'Relative positions'), 'queries'), 100);
  const end = await measure();
  assert.deepEqual(end.map((e) => e.size), start.map((e) => e.size));
  assert.deepEqual(end.filter((e) => e.scrolls), []);
  await fill(numberField(sin, 'length'), 256);
  await fill(numberField(sin, 'base'), 10000);
  await fill(rope.headDim, 64);
  await fill(rope.position, 3);
  await fill(numberField(section(page, 'Relative positions'), 'queries'), 32);
});

test('served under a sub-path (/lessons/posenc/), the page loads the package and its worker', async () => {
  const sub = await startServer({ port: 0, base: '/lessons/posenc/' });
  const page = await ctx.browser.newPage(DESKTOP, { origin: new URL(sub.url).origin });
  try {
    await page.goto(`${sub.url}#rope`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
    // every section but the learned one, which may still be training (its figures keep their size)
    await page.waitForFunction(() => !document.querySelector('section:not(#learned)[data-busy]'), null, { timeout: 30_000 });
    await frames(page, 2);
    for (const heading of HEADINGS) assert.equal(await section(page, heading).getAttribute('data-ready'), 'true', heading);
    const st = await canvasStats(figure(section(page, 'Sinusoidal encoding'), 'The table'));
    assert.ok(st.inked > 0.5, 'the table came back from the worker');
    const top = await page.locator('#rope').evaluate((el) => el.getBoundingClientRect().top);
    assert.ok(Math.abs(top - 16) <= 2, `the deep link lands on its section, 1rem below the top: top at ${top} px`);
  } finally {
    await page.close();
    await new Promise((resolve) => sub.server.close(resolve));
  }
});

phoneTests(ctx);
timingTests(ctx);

test('after everything: no console errors or warnings, no failed requests, nothing fetched from elsewhere', async () => {
  await settled(ctx.page);
  assert.deepEqual(ctx.browser.problems, []);
});
