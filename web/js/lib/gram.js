// The main-thread side of the similarity worker: one job at a time, the newest wins. A job that
// is overtaken while running is abandoned by restarting the worker.

export class GramClient {
  constructor() {
    this.nextId = 1;
    this.busy = null;
    this.worker = null;
  }

  spawn() {
    this.worker = new Worker(new URL('../workers/gram-worker.js', import.meta.url), { type: 'module' });
    this.worker.onmessage = (event) => {
      const job = this.busy;
      this.busy = null;
      if (job && job.id === event.data.id) job.resolve(event.data.matrix);
    };
  }

  /** Resolves with the [rows, rows] similarity matrix, or with null if a newer request replaced this one. */
  compute(data, rows, dim, measure) {
    if (this.busy) {
      this.worker.terminate(); // drop the stale job rather than wait for it
      this.busy.resolve(null);
      this.busy = null;
      this.worker = null;
    }
    if (!this.worker) this.spawn();
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.busy = { id, resolve };
      const copy = data.slice();
      this.worker.postMessage({ id, data: copy, rows, dim, measure }, [copy.buffer]);
    });
  }
}
