// Headless Debian Chromium with WebGPU on SwiftShader (a CPU Vulkan: no GPU needed) serving the
// repository, with tests/webgpu/page.html loaded: the page's checks (checks.js) run posenc/webgpu
// against posenc's WebAssembly results in the same page. Only compute and buffer readback are used
// (a canvas capture of a headless compositor can come back blank).
import { resolve } from 'node:path';

import { chromium } from 'playwright-core';

import { startServer } from '../../scripts/lib/server.mjs';
import { ROOT } from '../../scripts/lib/run.mjs';

/** The flags that give headless Chromium a WebGPU adapter on SwiftShader (docs/install.md). */
export const WEBGPU_FLAGS = ['--enable-unsafe-webgpu', '--enable-unsafe-swiftshader', '--use-webgpu-adapter=swiftshader'];
const BASE_FLAGS = ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Starts the server and Chromium (`flags` added to the base ones; WebGPU's by default) and opens
 * the check page. `problems` collects console errors, page errors and failed requests.
 * `run(name, ...args)` calls `window.posencChecks[name](...args)` in the page and returns its result.
 */
export async function openChecks({ flags = WEBGPU_FLAGS } = {}) {
  const { server, url } = await startServer({ port: 0, root: resolve(ROOT) });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: [...BASE_FLAGS, ...flags] });
  const problems = [];
  const page = await browser.newPage();
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`console ${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`));
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
  });
  await page.goto(new URL('tests/webgpu/page.html', url).href);
  await page.waitForFunction(() => document.getElementById('status')?.textContent !== 'loading', null, { timeout: 60_000 });
  const status = await page.textContent('#status');
  const run = (name, ...rest) => page.evaluate(([n, a]) => window.posencChecks[n](...a), [name, rest]);
  async function close() {
    await browser.close();
    await new Promise((resolve) => server.close(resolve));
  }
  return { page, status, run, problems, close };
}
