// Forgotten objects do not keep their WebAssembly memory: HeapObject's FinalizationRegistry frees
// the blocks of caches a caller never disposed, once they are garbage-collected. Run in a child
// `node --expose-gc`, which can force collections. dispose() stays the documented way; this is the
// safety net.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

const DIST = new URL('../../dist/node.js', import.meta.url).href;

/** Creates `count` caches of 1 MiB (forgotten or disposed); returns WebAssembly memory before and after, in MiB. */
function run(count, dispose) {
  const script = `
    import { createPosEnc } from '${DIST}';
    const pe = await createPosEnc();
    const tick = () => new Promise((resolve) => setImmediate(resolve)); // finalizers run as tasks
    const before = pe.memory.bytes;
    let bytes = 0;
    for (let i = 0; i < ${count}; i++) {
      const cache = pe.rope.createCache({ rotaryDim: 128, maxPositions: 2048 }); // 2048 x 64 pairs x (cos, sin) x 4 bytes
      bytes = cache.bytes;
      if (${dispose}) cache.dispose();
      if (i % 25 === 24) { gc(); await tick(); }
    }
    console.log(JSON.stringify({ before: before / 2 ** 20, after: pe.memory.bytes / 2 ** 20, cacheMiB: bytes / 2 ** 20 }));
  `;
  return JSON.parse(execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' }));
}

test('1000 forgotten 1 MiB caches do not keep their memory', () => {
  const forgotten = run(1000, false);
  assert.equal(forgotten.cacheMiB, 1);
  // Without the registry this ends above 1000 MiB (every block kept); with it, a few batches' worth.
  assert.ok(forgotten.after - forgotten.before < 200, `WebAssembly memory grew from ${forgotten.before} to ${forgotten.after} MiB`);
});

test('disposed caches free their memory at once (the documented way)', () => {
  const disposed = run(1000, true);
  assert.ok(disposed.after - disposed.before <= 2, `WebAssembly memory grew from ${disposed.before} to ${disposed.after} MiB`);
});
