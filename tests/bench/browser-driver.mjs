// Runs the benchmark page (browser/index.html) in headless Chromium and returns what it measured.
// The package's static server serves the repository, so the page imports the built package from
// /dist/ and the harness and kernels from /tests/bench/, exactly the files the Node run uses.
import { chromium } from 'playwright-core';

import { startServer } from '../../scripts/lib/server.mjs';

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];

/**
 * `kernels`: module names in tests/bench/kernels/; `filter`: a regular expression source or undefined.
 * Resolves to { userAgent, posenc, cases, targets }; rejects with the page's error.
 */
export async function runBenchInBrowser({ root, kernels, filter, quick, budget }) {
  const { server, url } = await startServer({ port: 0, root });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ARGS });
  try {
    const page = await browser.newPage();
    const problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (msg) => { if (msg.type() === 'error') problems.push(msg.text()); });
    const query = new URLSearchParams({ kernels: kernels.join(','), quick: quick ? '1' : '0', budget: String(budget) });
    if (filter) query.set('filter', filter);
    await page.goto(`${url}tests/bench/browser/index.html?${query}`);
    let shown = 0;
    for (;;) { // poll, and echo the page's progress lines
      const state = await page.evaluate(() => ({ bench: window.__bench, log: document.getElementById('log')?.textContent ?? '' }));
      const lines = state.log.split('\n');
      for (; shown < lines.length; shown++) process.stderr.write(`  [browser] ${lines[shown]}\n`);
      if (state.bench?.error || problems.length) throw new Error(`bench: the browser run failed:\n${state.bench?.error ?? problems.join('\n')}`);
      if (state.bench?.result) return state.bench.result;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await browser.close();
    await new Promise((resolve) => server.close(resolve));
  }
}
