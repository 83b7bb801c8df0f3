// node:perf_hooks for the browser run: the page's own high-resolution clock.
export const { performance } = globalThis;
