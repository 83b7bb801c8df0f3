// Runs the benchmark page (browser/index.html) in headless Chromium and returns what it measured.
// The e2e suite's browser (tests/e2e/harness.mjs) serves the whole repository, so the page imports
// the built package from /dist/ and the harness and kernels from /tests/bench/, exactly the files
// the Node run uses. The page reports progress on its console; the driver waits on its one promise,
// so nothing runs in the page while it measures.
import { openBrowser } from '../e2e/harness.mjs';

/**
 * `kernels`: module names in tests/bench/kernels/; `filter`: a regular expression source or undefined.
 * Resolves to { userAgent, posenc, cases }; rejects with the page's error.
 */
export async function runBenchInBrowser({ root, kernels, filter, quick, budget, posencKernels = 'auto' }) {
  const { url, newPage, problems, close } = await openBrowser({ root });
  try {
    const page = await newPage();
    page.on('console', (msg) => { if (msg.type() === 'log') process.stderr.write(`  [browser] ${msg.text()}\n`); });
    const query = new URLSearchParams({ kernels: kernels.join(','), quick: quick ? '1' : '0', budget: String(budget), posencKernels });
    if (filter) query.set('filter', filter);
    await page.goto(`${url}tests/bench/browser/index.html?${query}`);
    try {
      await page.waitForFunction(() => window.__bench !== undefined);
    } catch (error) {
      throw new Error(`bench: the page did not start:\n${problems.join('\n') || error.message}`);
    }
    const result = await page.evaluate(() => window.__bench);
    if (problems.length) throw new Error(`bench: the browser run failed:\n${problems.join('\n')}`);
    return result;
  } finally {
    await close();
  }
}
