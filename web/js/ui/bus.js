// A small publish/subscribe channel between sections, so they never import each other. A new
// subscriber receives the latest value at once (sections mount one after another).

export class Bus {
  constructor() {
    /** @type {Map<string, unknown>} */
    this.latest = new Map();
    this.target = new EventTarget();
  }

  /** @param {string} name @param {unknown} detail */
  publish(name, detail) {
    this.latest.set(name, detail);
    this.target.dispatchEvent(new CustomEvent(name, { detail }));
  }

  /** @param {string} name @param {(detail: unknown) => void} fn */
  subscribe(name, fn) {
    this.target.addEventListener(name, (event) => fn(/** @type {CustomEvent} */ (event).detail));
    if (this.latest.has(name)) fn(this.latest.get(name));
  }
}
