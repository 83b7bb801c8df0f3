// The browser end of the e2e suite: the package's static server on a free port, one headless
// Debian Chromium (docs/building.md section 11) with a desktop (1366 × 900) and a phone (390 × 844,
// touch, 3 device pixels per CSS pixel) context, and a record of everything a page complains
// about: console errors and warnings, page errors, failed requests, HTTP errors, and any request
// that leaves the page's own server.
import { mkdirSync } from 'node:fs';

import { chromium } from 'playwright-core';

import { startServer } from '../../scripts/lib/server.mjs';

export const ARTIFACTS = new URL('../artifacts/', import.meta.url).pathname;

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];

export const DESKTOP = { viewport: { width: 1366, height: 900 } };
export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 3 };

/**
 * Starts the server (the site under `base`, from `root`: the lesson by default) and the browser.
 * `problems` collects what pages complain about, each as a string; a clean page leaves it empty.
 */
export async function openBrowser({ base = '/', root = undefined } = {}) {
  const { server, url } = await startServer({ port: 0, base, root });
  const origin = new URL(url).origin;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ARGS });
  mkdirSync(ARTIFACTS, { recursive: true });
  const problems = [];
  /**
   * A new page in a fresh context (DESKTOP or PHONE), watched for problems; its requests may go to
   * `origin` (another server the test started) as well as to the suite's server.
   */
  async function newPage(device = DESKTOP, { origin: also = origin } = {}) {
    const context = await browser.newContext({ ...device, acceptDownloads: true });
    const page = await context.newPage();
    page.on('console', (msg) => {
      if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`console ${msg.type()}: ${msg.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('request', (req) => {
      const u = req.url();
      const from = u.startsWith('blob:') || u.startsWith('data:') ? origin : new URL(u).origin;
      if (from !== origin && from !== also) problems.push(`request outside the page's server: ${u}`);
    });
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
    await browser.close();
    await new Promise((resolve) => server.close(resolve));
  }
  return { url, origin, browser, newPage, problems, close };
}
