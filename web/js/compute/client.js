// The page's compute worker, seen from the page: jobs that would hold the main thread for too long
// (a table of millions of values, a matrix of dot products) run there, one at a time. Requests
// with the same key replace each other while they wait, so a slider dragged across its range
// computes the latest setting, not every one it passed. posenc errors come back as PosEncErrors.

/** @typedef {import('posenc').PosEnc} PosEnc */
/** @typedef {import('./jobs.js').JobName} JobName */

/**
 * @template {JobName} N
 * @typedef {Parameters<import('./jobs.js').Jobs[N]>[1]} JobArgs
 */
/**
 * @template {JobName} N
 * @typedef {ReturnType<import('./jobs.js').Jobs[N]>['result']} JobResult
 */

/**
 * @typedef {object} Request
 * @property {string} name
 * @property {unknown} args
 * @property {Transferable[]} transfer
 * @property {(value: unknown) => void} resolve
 * @property {(error: unknown) => void} reject
 */

export class ComputeClient {
  /** @param {string} packageUrl  the URL the page imports posenc from (the worker imports it too) @param {PosEnc} pe */
  constructor(packageUrl, pe) {
    this.packageUrl = packageUrl;
    this.pe = pe;
    /** @type {Worker | null} */
    this.worker = null;
    /** @type {Map<string, Request>} */
    this.waiting = new Map();
    /** @type {Request | null} */
    this.running = null;
  }

  #spawn() {
    const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    worker.postMessage({ init: this.packageUrl });
    worker.onmessage = (event) => {
      const job = this.running;
      this.running = null;
      const { result, error } = event.data;
      if (job && error) job.reject(error.code ? new this.pe.PosEncError(error.code, error.message) : new Error(error.message));
      else if (job) job.resolve(result);
      this.#next();
    };
    worker.onerror = (event) => {
      this.running?.reject(new Error(`the compute worker failed: ${event.message}`));
      this.running = null;
      this.worker = null; // a new one starts with the next job
      this.#next();
    };
    return worker;
  }

  #next() {
    if (this.running) return;
    const first = this.waiting.entries().next();
    if (first.done) return;
    const [key, job] = first.value;
    this.waiting.delete(key);
    this.running = job;
    this.worker ??= this.#spawn();
    this.worker.postMessage({ name: job.name, args: job.args }, job.transfer);
  }

  /**
   * Runs job `name` in the worker. Resolves with its result, or with null when a newer request
   * with the same `key` replaced it before it started; rejects with posenc's error.
   * @template {JobName} N
   * @param {string} key @param {N} name @param {JobArgs<N>} args @param {Transferable[]} [transfer]
   * @returns {Promise<JobResult<N> | null>}
   */
  run(key, name, args, transfer = []) {
    this.waiting.get(key)?.resolve(null);
    return new Promise((resolve, reject) => {
      this.waiting.set(key, { name, args, transfer, resolve: /** @type {(value: unknown) => void} */ (resolve), reject });
      this.#next();
    });
  }
}
