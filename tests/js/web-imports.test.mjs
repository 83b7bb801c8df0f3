// The lesson page's modules depend in one direction: no module of web/js imports itself through
// others, and its folders form layers (ui, plot and compute below sections, main.js on top): a
// folder whose modules import another's is never imported back by it. Every reference counts:
// `import`/`export ... from`, dynamic and JSDoc `import('...')`, and `new URL('...', import.meta.url)`
// (workers).
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const WEB_JS = fileURLToPath(new URL('../../web/js/', import.meta.url));

const REFERENCE = /(?:^|[\s;])(?:import|export)\s[^'"`;]*?\sfrom\s*['"](\.[^'"]+)['"]|^\s*import\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)|new URL\(\s*['"](\.[^'"]+)['"]\s*,\s*import\.meta\.url\s*\)/gm;

/** The relative module references in a source text (paths as written). */
export function references(source) {
  return [...source.matchAll(REFERENCE)].map((m) => m[1] ?? m[2] ?? m[3] ?? m[4]);
}

/** The first cycle of a graph (Map node -> nodes), as a list of nodes ending where it began, or undefined. */
export function findCycle(graph) {
  const state = new Map(); // node -> 'open' while on the path, 'done' after
  const path = [];
  const visit = (node) => {
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') return [...path.slice(path.indexOf(next)), next];
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    path.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    if (!state.has(node)) {
      const found = visit(node);
      if (found) return found;
    }
  }
  return undefined;
}

/** web/js's module graph: file (relative to web/js) -> the files it references. */
function moduleGraph() {
  const files = readdirSync(WEB_JS, { recursive: true }).filter((f) => f.endsWith('.js')).map((f) => f.split(sep).join('/'));
  const graph = new Map();
  for (const file of files) {
    const targets = references(readFileSync(join(WEB_JS, file), 'utf8'))
      .map((r) => relative(WEB_JS, resolve(WEB_JS, dirname(file), r)).split(sep).join('/'));
    for (const t of targets) assert.ok(files.includes(t), `${file} references ${t}, which is not a module of web/js`);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The layer of a module: its top folder under web/js (`sections`, `ui`...), or the file itself at the top. */
const layer = (file) => file.split('/')[0];

test('the reference scanner and the cycle finder see what they must', () => {
  assert.deepEqual(references([
    "import { a } from './a.js';", "export { b } from '../b.js';", "import './c.js';", "/** @param {import('./d.js').D} d */",
    "const w = new Worker(new URL('./e.js', import.meta.url), { type: 'module' });", "import { x } from 'posenc';",
    'import {\n  f,\n  g,\n} from "./f.js";',
  ].join('\n')), ['./a.js', '../b.js', './c.js', './d.js', './e.js', './f.js']);
  assert.deepEqual(findCycle(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']]])), ['a', 'b', 'c', 'a']);
  assert.deepEqual(findCycle(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]])), undefined);
  assert.deepEqual(findCycle(new Map([['a', ['a']]])), ['a', 'a']);
});

test('web/js has no import cycle, between modules or between its folders', () => {
  const graph = moduleGraph();
  assert.ok(graph.size > 50, `web/js has ${graph.size} modules`);
  assert.equal(findCycle(graph)?.join(' -> '), undefined, 'a module imports itself through others');
  const layers = new Map();
  const via = new Map();
  for (const [file, targets] of graph) {
    for (const t of targets) {
      if (layer(t) === layer(file)) continue;
      layers.set(layer(file), new Set([...(layers.get(layer(file)) ?? []), layer(t)]));
      via.set(`${layer(file)} -> ${layer(t)}`, `${file} -> ${t}`);
    }
  }
  const cycle = findCycle(new Map([...layers].map(([k, v]) => [k, [...v]])));
  const edges = cycle?.slice(1).map((to, i) => via.get(`${cycle[i]} -> ${to}`));
  assert.equal(edges?.join('; '), undefined, 'folders of web/js import each other');
});
