// The lesson page: loads posenc once (the same call an app makes), starts the compute worker, then
// mounts each section present in the page. A section is a folder in ./sections/ whose index.js
// exports mount(section), plus one line here.
import { createPosEnc } from 'posenc';

import { ComputeClient } from './compute/client.js';
import { Bus } from './ui/bus.js';
import { labelCells } from './ui/reflow.js';
import { Section } from './ui/section.js';

/** @type {Array<[string, () => Promise<{ mount: (section: Section) => void }>]>} */
const SECTIONS = [
  ['why', () => import('./sections/why/index.js')],
  ['sinusoidal', () => import('./sections/sinusoidal/index.js')],
  ['learned', () => import('./sections/learned/index.js')],
  ['relative', () => import('./sections/relative/index.js')],
  ['rope', () => import('./sections/rope/index.js')],
  ['compare', () => import('./sections/compare/index.js')],
];

/** Whether the reader scrolled, clicked or typed since the page opened. */
let readerMoved = false;
for (const type of ['wheel', 'touchmove', 'keydown', 'mousedown']) {
  addEventListener(type, () => { readerMoved = true; }, { once: true, passive: true });
}

async function start() {
  const status = /** @type {HTMLElement} */ (document.getElementById('load-status'));
  for (const table of document.querySelectorAll('table.reflow')) labelCells(/** @type {HTMLTableElement} */ (table));
  let pe;
  try {
    pe = await createPosEnc();
  } catch (error) {
    status.textContent = `posenc could not start: ${error instanceof Error ? error.message : String(error)}`;
    status.classList.add('error');
    return;
  }
  const kernels = pe.kernels === 'relaxed' ? ', with relaxed-SIMD kernels' : '';
  status.textContent = `posenc ${pe.version} loaded: WebAssembly SIMD (${pe.simd}${kernels}).`;
  document.getElementById('posenc-version')?.replaceChildren(`${pe.version} (WebAssembly SIMD, ${pe.simd})`);
  // The worker imports the package from the URL the import map gives it (workers have no import map).
  const services = { pe, bus: new Bus(), compute: new ComputeClient(import.meta.resolve('posenc'), pe) };
  for (const [id, load] of SECTIONS) {
    const root = document.getElementById(id);
    if (!root) continue;
    try {
      const module = await load();
      module.mount(new Section(root, services));
      root.dataset.ready = 'true';
    } catch (error) {
      console.error(`section ${id} failed to start`, error);
      status.textContent = `The ${id} section failed to start: ${error instanceof Error ? error.message : String(error)}`;
      status.classList.add('error');
    }
  }
  // A deep link (#rope) scrolls as soon as the page parses, before the sections above have drawn
  // their figures, which then push the target down: land on it again unless the reader has moved.
  const target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (target && !readerMoved) target.scrollIntoView();
  document.body.dataset.ready = 'true';
}

start();
