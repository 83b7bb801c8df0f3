// A tiny publish/subscribe channel between sections, so they never import each other. A new
// subscriber receives the latest value at once (sections mount one after another).

export class Bus {
  constructor() {
    this.latest = new Map();
    this.target = new EventTarget();
  }

  publish(name, detail) {
    this.latest.set(name, detail);
    this.target.dispatchEvent(new CustomEvent(name, { detail }));
  }

  subscribe(name, fn) {
    this.target.addEventListener(name, (event) => fn(event.detail));
    if (this.latest.has(name)) fn(this.latest.get(name));
  }
}
