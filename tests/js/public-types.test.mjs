// The package's public types are re-exported by hand from bindings/js/public-types.ts. This test
// keeps that list whole: every type a public declaration mentions (a parameter, an option, a
// result, a field) is itself exported, so a user can name what they hold or pass.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const files = new Map();

/** The declarations and imports of one .d.ts file of dist/. */
function parse(file) {
  if (files.has(file)) return files.get(file);
  const text = readFileSync(join(DIST, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  const decls = new Map();
  // every top-level statement starts a line; an exported declaration runs to the next one
  const statements = [...text.matchAll(/^(?:export |import |declare |interface |type |class |function |const |enum )/gm)].map((m) => m.index);
  for (const m of text.matchAll(/^export (?:declare )?(?:abstract )?(?:interface|type|class|const|function|enum) ([A-Za-z_$][\w$]*)/gm)) {
    const end = statements.find((at) => at > m.index) ?? text.length;
    decls.set(m[1], (decls.get(m[1]) ?? '') + text.slice(m.index, end));
  }
  const imports = new Map(); // local name -> { file, name }
  for (const m of text.matchAll(/^(?:import|export) (?:type )?\{([^}]*)\} from '(\.[^']+)'/gm)) {
    const from = normalize(join(dirname(file), m[2].replace(/\.js$/, '.d.ts')));
    for (const part of m[1].split(',').map((p) => p.trim().replace(/^type /, '')).filter(Boolean)) {
      const [name, local = name] = part.split(/\s+as\s+/);
      imports.set(local, { file: from, name });
    }
  }
  const stars = [...text.matchAll(/^export (?:type )?\* from '(\.[^']+)'/gm)].map((m) => normalize(join(dirname(file), m[1].replace(/\.js$/, '.d.ts'))));
  const parsed = { decls, imports, stars };
  files.set(file, parsed);
  return parsed;
}

/** Where `name`, seen in `file`, is declared: { file, name }, or undefined for a global or built-in type. */
function resolve(file, name, seen = new Set()) {
  const key = `${file}:${name}`;
  if (seen.has(key) || !existsSync(join(DIST, file))) return undefined;
  seen.add(key);
  const { decls, imports, stars } = parse(file);
  if (decls.has(name)) return { file, name };
  const imported = imports.get(name);
  if (imported) return resolve(imported.file, imported.name, seen);
  for (const star of stars) {
    const found = resolve(star, name, seen);
    if (found) return found;
  }
  return undefined;
}

test('every type a public declaration mentions is exported by the package', () => {
  const entry = 'public-types.d.ts';
  const { imports } = parse(entry);
  const exported = new Set([...imports.keys()].map((local) => {
    const at = resolve(entry, local);
    assert.ok(at, `public-types exports ${local}, which no file of dist/ declares`);
    return `${at.file}:${at.name}`;
  }));
  for (const extra of ['posenc.d.ts:createPosEnc']) exported.add(extra); // the entries' own export
  const queue = [...exported];
  const missing = new Map();
  const done = new Set();
  let followed = 0;
  while (queue.length) {
    const key = queue.pop();
    if (done.has(key)) continue;
    done.add(key);
    const [file, name] = key.split(':');
    const text = parse(file).decls.get(name) ?? '';
    for (const m of text.matchAll(/(typeof\s+)?\b([A-Z][\w$]*)\b/g)) {
      const word = m[2];
      if (word === name || m[1]) continue; // `typeof LIST[number]`: a value the type is derived from
      const at = resolve(file, word);
      if (!at) continue;
      followed++;
      const target = `${at.file}:${at.name}`;
      if (!exported.has(target)) {
        if (!missing.has(target)) missing.set(target, key);
        continue;
      }
      queue.push(target);
    }
  }
  assert.ok(followed > 300, `the walk followed ${followed} mentions of declared types: it reads the declarations`);
  assert.deepEqual([...missing].map(([t, by]) => `${t} (mentioned by ${by})`).sort(), [],
    'types public declarations mention that bindings/js/public-types.ts does not export');
});
