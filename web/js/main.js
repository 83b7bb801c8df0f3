// The lesson page: loads posenc once (the same call an app makes), then mounts each section
// present in the page. A new section is a module in ./sections/ plus one line here.
import { createPosEnc } from 'posenc';

import { Bus } from './lib/bus.js';

const SECTIONS = [
  ['why', () => import('./sections/why.js')],
  ['sinusoidal', () => import('./sections/sinusoidal.js')],
  ['learned', () => import('./sections/learned.js')],
  ['relative', () => import('./sections/relative.js')],
  ['rope', () => import('./sections/rope.js')],
];

/** Lets sections talk without importing each other (e.g. "use the sinusoidal table"). */
const bus = new Bus();

/** Whether the reader scrolled, clicked or typed since the page opened. */
let readerMoved = false;
for (const type of ['wheel', 'touchmove', 'keydown', 'mousedown']) {
  addEventListener(type, () => { readerMoved = true; }, { once: true, passive: true });
}

async function start() {
  const status = document.getElementById('load-status');
  let pe;
  try {
    pe = await createPosEnc();
  } catch (error) {
    status.textContent = `posenc could not start: ${error.message}`;
    status.classList.add('error');
    return;
  }
  status.textContent = `posenc ${pe.version} loaded: WebAssembly SIMD (${pe.simd}).`;
  document.getElementById('posenc-version').textContent = `${pe.version} (WebAssembly SIMD, ${pe.simd})`;
  for (const [id, load] of SECTIONS) {
    const root = document.getElementById(id);
    if (!root) continue;
    try {
      const module = await load();
      module.mount(root, pe, bus);
      root.dataset.ready = 'true';
    } catch (error) {
      console.error(`section ${id} failed to start`, error);
      status.textContent = `The ${id} section failed to start: ${error.message}`;
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
