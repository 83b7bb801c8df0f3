// docs/reference.md is written beside the TSDoc of the typings; this test holds the two together:
// every method of every `pe.<namespace>` the typings declare is documented in docs/reference.md
// (as `pe.<namespace>.<method>`, `.<method>(` or `` `<method>` ``),
// and every `pe.<namespace>.<method>` the document names exists in the typings.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = new URL('../../', import.meta.url);
const read = (path) => readFileSync(fileURLToPath(new URL(path, ROOT)), 'utf8');
const stripComments = (text) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');

/** The members of `interface name` (or `type name = {`) in a .d.ts text. */
function membersOf(text, name) {
  const start = text.search(new RegExp(`(?:interface ${name}\\b[^{]*|type ${name} = )\\{`));
  if (start < 0) return undefined;
  let depth = 0;
  let i = text.indexOf('{', start);
  const body = [];
  for (; i < text.length; i++) {
    const ch = text[i];
    if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) break;
    else if (depth === 1) body.push(ch);
    else body.push(depth > 1 ? ' ' : ch);
  }
  return [...new Set([...body.join('').matchAll(/^\s*(?:readonly\s+)?([a-zA-Z_$][\w$]*)\??\s*[(:<]/gm)].map((m) => m[1]))];
}

/** { namespace: [methods] } of PosEnc, from the built typings. */
function namespaces() {
  const dts = ['posenc', 'families/sinusoidal', 'families/learned', 'families/rope/rope', 'families/shaw', 'families/transformer-xl',
    'families/t5', 'families/deberta', 'families/alibi', 'families/attention', 'model/model-api', 'io/io', 'tools/doctor',
    'tools/precision', 'runtime/memory', 'io/tensors'].map((f) => stripComments(read(`dist/${f}.d.ts`))).join('\n');
  const top = stripComments(read('dist/posenc.d.ts'));
  const result = {};
  for (const m of top.matchAll(/readonly (\w+): (\w+Api);/g)) {
    const members = membersOf(dts, m[2]);
    assert.ok(members, `the typings declare ${m[2]}`);
    result[m[1]] = members;
  }
  return result;
}

test('every method of every pe namespace is documented in docs/reference.md', () => {
  const doc = read('docs/reference.md');
  const spaces = namespaces();
  assert.ok(Object.keys(spaces).length >= 15, `PosEnc has ${Object.keys(spaces).length} namespaces`);
  const undocumented = [];
  for (const [ns, methods] of Object.entries(spaces)) {
    for (const method of methods) {
      const named = doc.includes(`pe.${ns}.${method}`) || doc.includes(`\`${method}\``) || doc.includes(`.${method}(`) || doc.includes(`\`${method}(`);
      if (!named) undocumented.push(`pe.${ns}.${method}`);
    }
  }
  assert.deepEqual(undocumented, [], 'methods the typings declare that docs/reference.md never names');
});

test('every pe.<namespace>.<method> docs/reference.md names exists in the typings', () => {
  const doc = read('docs/reference.md');
  const spaces = namespaces();
  const unknown = new Set();
  for (const m of doc.matchAll(/\bpe\.(\w+)\.(\w+)/g)) {
    if (!(m[1] in spaces)) unknown.add(`pe.${m[1]} (no such namespace)`);
    else if (!spaces[m[1]].includes(m[2])) unknown.add(`pe.${m[1]}.${m[2]}`);
  }
  assert.deepEqual([...unknown].sort(), [], 'names docs/reference.md uses that the typings do not declare');
});
