// The architecture holds: dependencies run one way, with no import cycle, in the TypeScript API
// (generated ← runtime ← io ← families ← model ← tools ← the assembly and entries ← cli), and in
// C++ only bindings/embind includes Emscripten headers and only src/kernels includes xsimd.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const JS = join(ROOT, 'bindings', 'js');

function files(dir, keep) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path, keep));
    else if (keep(path)) out.push(path);
  }
  return out;
}

/** Each module's layer, lowest first; a module may import its own layer and those below. */
const LAYERS = ['generated', 'runtime', 'io', 'families', 'model', 'tools', '(top)', 'cli'];
const layerOf = (path) => {
  const first = relative(JS, path).split('/')[0];
  return LAYERS.includes(first) ? LAYERS.indexOf(first) : LAYERS.indexOf('(top)');
};

/** The relative imports of every TypeScript module, resolved to .ts paths. */
function importGraph() {
  const modules = files(JS, (p) => p.endsWith('.ts') && !p.endsWith('.d.ts') && !p.includes(`${JS}/generated/`));
  const graph = new Map();
  for (const m of modules) {
    const deps = [...readFileSync(m, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)\.js'/g)]
      .map((x) => resolve(dirname(m), `${x[1]}.ts`))
      .filter((d) => d !== m);
    graph.set(m, deps);
  }
  return graph;
}

test('the TypeScript API has no import cycle (type-only imports included)', () => {
  const graph = importGraph();
  const state = new Map();
  const stack = [];
  const cycles = [];
  const visit = (n) => {
    state.set(n, 1);
    stack.push(n);
    for (const d of graph.get(n) ?? []) {
      if (!graph.has(d)) continue;
      if (state.get(d) === 1) cycles.push(stack.slice(stack.indexOf(d)).concat(d).map((p) => relative(JS, p)).join(' -> '));
      else if (!state.get(d)) visit(d);
    }
    stack.pop();
    state.set(n, 2);
  };
  for (const n of graph.keys()) if (!state.get(n)) visit(n);
  assert.deepEqual(cycles, []);
});

test('dependencies run one way: no module imports from a layer above its own', () => {
  const upward = [];
  for (const [m, deps] of importGraph()) {
    for (const d of deps) {
      if (layerOf(d) > layerOf(m)) upward.push(`${relative(JS, m)} (${LAYERS[layerOf(m)]}) imports ${relative(JS, d)} (${LAYERS[layerOf(d)]})`);
    }
  }
  assert.deepEqual(upward, []);
});

test('only bindings/embind includes Emscripten headers, only src/kernels includes xsimd', () => {
  const sources = [...files(join(ROOT, 'src'), (p) => /\.(cpp|hpp)$/.test(p)), ...files(join(ROOT, 'bindings', 'embind'), (p) => /\.(cpp|hpp)$/.test(p))];
  const wrong = [];
  for (const f of sources) {
    const text = readFileSync(f, 'utf8');
    const rel = relative(ROOT, f);
    if (/#include\s*[<"]emscripten\//.test(text) && !rel.startsWith('bindings/embind/')) wrong.push(`${rel} includes Emscripten`);
    if (/#include\s*[<"]xsimd\//.test(text) && !rel.startsWith('src/kernels/')) wrong.push(`${rel} includes xsimd`);
    if (rel.startsWith('bindings/embind/') && /#include\s*"(encodings|kernels)\//.test(text)) wrong.push(`${rel} reaches past the public headers`);
  }
  assert.deepEqual(wrong, []);
});
