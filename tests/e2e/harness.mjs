// The browser end of the e2e suite: the package's static server on a free port, one headless
// Debian Chromium (docs/building.md section 11), and a record of everything the page complains about.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { chromium } from 'playwright-core';

import { startServer } from '../../scripts/lib/server.mjs';

export const ARTIFACTS = new URL('../artifacts/', import.meta.url).pathname;

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];

/**
 * Starts the server (the site under `base`, from `root`: the site's folder by default) and the browser. `problems` collects console errors/warnings, page errors,
 * failed requests and HTTP errors, each as a string; a clean page leaves it empty.
 */
export async function openBrowser({ base = '/', root = undefined } = {}) {
  const { server, url } = await startServer({ port: 0, base, root });
  const profile = mkdtempSync(join(tmpdir(), 'posenc-e2e-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
  });
  mkdirSync(ARTIFACTS, { recursive: true });
  const problems = [];
  async function newPage(viewport) {
    const page = await context.newPage();
    if (viewport) await page.setViewportSize(viewport);
    page.on('console', (msg) => {
      if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`console ${msg.type()}: ${msg.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (req) => {
      // a download the test does not save is aborted by the browser, not a failure of the page
      if (!req.url().startsWith('blob:')) problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`);
    });
    page.on('response', (res) => {
      if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
    });
    return page;
  }
  async function close() {
    await context.close();
    await new Promise((resolve) => server.close(resolve));
    rmSync(profile, { recursive: true, force: true });
  }
  return { url, context, newPage, problems, close };
}
