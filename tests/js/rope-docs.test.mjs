// The RoPE snippets of docs/reference.md run against the built package (so the docs stay true).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { createPosEnc } from './helpers.mjs';

const pe = await createPosEnc();
const doc = readFileSync(new URL('../../docs/reference.md', import.meta.url), 'utf8');
const start = doc.indexOf('## Rotary position embedding (RoPE)');
const end = doc.indexOf('\n## ', start + 1);
const section = doc.slice(start, end < 0 ? undefined : end);
const snippets = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
const AsyncFunction = (async () => {}).constructor;

test('the RoPE section of docs/reference.md has runnable snippets', () => {
  assert.ok(start >= 0, 'section heading present');
  assert.ok(snippets.length >= 10, `found ${snippets.length} snippets`);
});

snippets.forEach((code, i) => {
  test(`docs/reference.md RoPE snippet ${i + 1} runs`, async () => {
    const logged = [];
    await new AsyncFunction('pe', 'console', code)(pe, { log: (...values) => logged.push(values) });
    assert.ok(logged.length > 0, 'the snippet shows a result');
    for (const values of logged) {
      for (const v of values) if (typeof v === 'number') assert.ok(Number.isFinite(v), `finite output in snippet ${i + 1}`);
    }
  });
});
