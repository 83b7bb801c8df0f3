// The main-thread side of the similarity worker: one job at a time, the newest wins. A job that
// is overtaken while running is abandoned by restarting the worker (it holds no state).

/** @typedef {'dot' | 'cosine'} Measure */

export class GramClient {
  constructor() {
    this.nextId = 1;
    /** @type {{ id: number, resolve: (m: Float32Array | null) => void } | null} */
    this.busy = null;
    /** @type {Worker | null} */
    this.worker = null;
  }

  #spawn() {
    const worker = new Worker(new URL('./gram-worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = (event) => {
      const job = this.busy;
      this.busy = null;
      if (job && job.id === event.data.id) job.resolve(event.data.matrix);
    };
    return worker;
  }

  /**
   * Resolves with the [rows, rows] similarity matrix of a [rows, dim] table's first rows, or with
   * null if a newer request replaced this one.
   * @param {Float32Array} data @param {number} rows @param {number} dim @param {Measure} measure
   * @returns {Promise<Float32Array | null>}
   */
  compute(data, rows, dim, measure) {
    if (this.busy) {
      this.worker?.terminate(); // drop the stale job rather than wait for it
      this.busy.resolve(null);
      this.busy = null;
      this.worker = null;
    }
    this.worker ??= this.#spawn();
    const id = this.nextId++;
    const worker = this.worker;
    return new Promise((resolve) => {
      this.busy = { id, resolve };
      const copy = data.slice(0, rows * dim);
      worker.postMessage({ id, data: copy, rows, dim, measure }, [copy.buffer]);
    });
  }
}
