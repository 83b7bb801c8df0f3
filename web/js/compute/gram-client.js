// The main-thread side of the similarity worker: one job at a time; of the jobs asked for while
// one runs, only the newest is kept.

/** @typedef {'dot' | 'cosine'} Measure */

export class GramClient {
  constructor() {
    this.nextId = 1;
    /** @type {Worker | null} */
    this.worker = null;
    /** The job the worker is computing. @type {{ id: number, resolve: (m: Float32Array | null) => void } | null} */
    this.running = null;
    /** The newest job waiting for it. @type {{ id: number, resolve: (m: Float32Array | null) => void, message: object, transfer: Transferable[] } | null} */
    this.waiting = null;
  }

  #spawn() {
    const worker = new Worker(new URL('./gram-worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = (event) => {
      const job = this.running;
      this.running = null;
      if (job && job.id === event.data.id) job.resolve(event.data.matrix);
      this.#next();
    };
    return worker;
  }

  #next() {
    if (this.running || !this.waiting) return;
    const { id, resolve, message, transfer } = this.waiting;
    this.waiting = null;
    this.running = { id, resolve };
    this.worker ??= this.#spawn();
    this.worker.postMessage(message, transfer);
  }

  /**
   * Resolves with the [rows, rows] similarity matrix of a [rows, dim] table's first rows, or with
   * null if a newer request replaced this one before it started (a running one finishes: stopping
   * a worker blocks the page for longer than the rest of most jobs).
   * @param {Float32Array} data @param {number} rows @param {number} dim @param {Measure} measure
   * @returns {Promise<Float32Array | null>}
   */
  compute(data, rows, dim, measure) {
    this.waiting?.resolve(null);
    const id = this.nextId++;
    const copy = data.slice(0, rows * dim);
    return new Promise((resolve) => {
      this.waiting = { id, resolve, message: { id, data: copy, rows, dim, measure }, transfer: [copy.buffer] };
      this.#next();
    });
  }
}
