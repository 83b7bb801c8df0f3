// The code cites documentation by anchor, never by section number (numbers change when a section is
// added): every `<doc>.md#<anchor>` in the sources names a heading of that document, and no source
// cites `<doc>.md <number>`.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { headingAnchor } from './docs-blocks.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SOURCES = execFileSync('git', ['ls-files', 'bindings', 'src', 'scripts', 'tests', 'web', 'CMakeLists.txt', '.ci'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n').filter((f) => /\.(ts|mts|cts|cpp|hpp|h|c|mjs|js|txt|sh)$/.test(f) || f.startsWith('.ci/'))
  .filter((f) => !f.startsWith('tests/fixtures/') && !f.startsWith('tests/conformance/') && f !== 'tests/js/doc-citations.test.mjs');

function anchorsOf(doc) {
  const text = readFileSync(join(ROOT, 'docs', doc), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.*)$/gm)].map((m) => headingAnchor(m[1])));
}

test('every docs anchor the sources cite is a heading of that document', () => {
  const cache = new Map();
  const broken = [];
  let cited = 0;
  for (const file of SOURCES) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    // docs/x.md#a, and the '#b' of 'docs/x.md#a to #b' that continues the same citation
    for (const m of text.matchAll(/([a-z-]+\.md)(#[\p{L}\p{N}_-]+)((?:(?: to |, | and )#[\p{L}\p{N}_-]+)*)/gu)) {
      const doc = m[1];
      if (!existsSync(join(ROOT, 'docs', doc))) continue; // README.md and other files are not docs/
      if (!cache.has(doc)) cache.set(doc, anchorsOf(doc));
      for (const a of [m[2], ...m[3].match(/#[\p{L}\p{N}_-]+/gu) ?? []]) {
        cited++;
        if (!cache.get(doc).has(a.slice(1))) broken.push(`${file}: ${doc}${a}`);
      }
    }
  }
  assert.ok(cited > 20, `the sources cite ${cited} anchors: the pattern finds them`);
  assert.deepEqual(broken, [], 'anchors that name no heading');
});

test('no source cites a documentation section by its number', () => {
  const numbered = [];
  for (const file of SOURCES) {
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      for (const m of line.matchAll(/\b([a-z-]+\.md) §?[0-9]+(\.[0-9]+)*\b/g)) {
        if (existsSync(join(ROOT, 'docs', m[1]))) numbered.push(`${file}:${i + 1}: ${m[0]}`);
      }
    });
  }
  assert.deepEqual(numbered, [], 'cite the heading anchor (docs/x.md#...) instead');
});
