// Every snippet of docs/models.md runs against the built package and prints what the text states.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const doc = readFileSync(new URL('../../docs/models.md', import.meta.url), 'utf8');
const entry = fileURLToPath(new URL('../../dist/node.js', import.meta.url));
const snippets = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

function run(code) {
  const dir = mkdtempSync(join(fileURLToPath(new URL('../../build/', import.meta.url)), 'docs-'));
  const file = join(dir, 'snippet.mjs');
  writeFileSync(file, code.replace("from 'posenc'", `from ${JSON.stringify(entry)}`));
  const r = spawnSync(process.execPath, [file], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

test('docs/models.md: the Gemma 3 example prints the stated summary and frequencies', () => {
  const out = run(snippets[0]);
  const stated = doc.match(/prints\n\n```\n([\s\S]*?)```/)[1];
  assert.equal(out, stated);
});

test('docs/models.md: the Llama 4 and GGUF examples print the stated values', () => {
  assert.equal(run(snippets[1]), "null { kind: 'chunked', size: 8192 }\n1.000000 1.069315 1.256495\n");
  assert.ok(doc.includes("prints `null { kind: 'chunked', size: 8192 }` and `1.000000 1.069315 1.256495`"));
  assert.equal(run(snippets[2]), "{ type: 'float32', value: 500000 } { type: 'uint32', value: 128 }\n");
  assert.ok(doc.includes("prints `{ type: 'float32', value: 500000 } { type: 'uint32', value: 128 }`"));
  assert.equal(snippets.length, 3);
});
