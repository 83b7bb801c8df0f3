// The compute worker: imports posenc from the URL the page gives it (the page resolves the name
// through its import map, which workers do not see), then runs one job per message (jobs.js) and
// posts the result back, transferring its arrays. A posenc error travels back as { code, message }.
import { JOBS } from './jobs.js';

/** @type {Promise<import('posenc').PosEnc> | null} */
let ready = null;

self.onmessage = async (event) => {
  const { init, name, args } = event.data;
  if (init) {
    ready = import(init).then((/** @type {typeof import('posenc')} */ m) => m.createPosEnc());
    return;
  }
  try {
    const pe = await /** @type {Promise<import('posenc').PosEnc>} */ (ready);
    const job = JOBS[/** @type {import('./jobs.js').JobName} */ (name)];
    const { result, transfer } = job(pe, args);
    self.postMessage({ result }, { transfer });
  } catch (error) {
    const e = /** @type {{ code?: string, message?: string }} */ (error);
    self.postMessage({ error: { code: e.code, message: e.message ?? String(error) } });
  }
};
