// Every JavaScript snippet of docs/reference.md runs against the built package, so the docs stay
// true. A snippet gets `pe` and must show a result with console.log.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { createPosEnc } from './helpers.mjs';

const pe = await createPosEnc();
const doc = readFileSync(new URL('../../docs/reference.md', import.meta.url), 'utf8');
const AsyncFunction = (async () => {}).constructor;

/** [section heading, code] for each ```js block, skipping the import preamble. */
const snippets = [];
let heading = '';
for (const part of doc.split(/^(?=#{2,3} )/m)) {
  heading = part.startsWith('#') ? part.slice(0, part.indexOf('\n')).replace(/^#+ /, '') : heading;
  for (const m of part.matchAll(/```js\n([\s\S]*?)```/g)) {
    if (!/^\s*import /m.test(m[1])) snippets.push([heading, m[1]]);
  }
}

test('docs/reference.md has runnable snippets for its sections', () => {
  assert.ok(snippets.length >= 20, `found ${snippets.length} snippets`);
});

snippets.forEach(([section, code], i) => {
  test(`docs snippet ${i + 1} (${section}) runs`, async () => {
    const logged = [];
    await new AsyncFunction('pe', 'console', code)(pe, { log: (...values) => logged.push(values) });
    assert.ok(logged.length > 0, 'the snippet shows a result');
    for (const values of logged) {
      for (const v of values) if (typeof v === 'number') assert.ok(Number.isFinite(v), `finite output in snippet ${i + 1}`);
    }
  });
});
