// Timing helpers for updates: at most one run per animation frame, and a way for long updates to
// give the browser a turn (so that no single task blocks input or painting for long).

/**
 * Calls `fn` at most once per animation frame, with the latest arguments.
 * @template {unknown[]} A
 * @param {(...args: A) => void} fn
 * @returns {(...args: A) => void}
 */
export function perFrame(fn) {
  /** @type {A | null} */
  let pending = null;
  return (...args) => {
    const first = pending === null;
    pending = args;
    if (!first) return;
    requestAnimationFrame(() => {
      const latest = /** @type {A} */ (pending);
      pending = null;
      fn(...latest);
    });
  };
}

/** Resolves in a new task, after the browser has had a chance to handle input and paint. */
export function nextTask() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve(undefined);
    channel.port2.postMessage(null);
  });
}
