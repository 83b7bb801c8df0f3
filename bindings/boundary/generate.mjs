// Writes the two sides of the C++/JavaScript boundary from its one description (enums.mjs,
// blocks.mjs, functions.mjs) and the version in package.json. A file is only rewritten when its
// text changes, so that incremental builds stay incremental.
//
//   node bindings/boundary/generate.mjs --cpp DIR   posenc_boundary.hpp and boundary_registry.cpp (CMake runs this)
//   node bindings/boundary/generate.mjs --ts FILE   the TypeScript module (scripts/lib/builds.mjs runs this before tsc)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { emitHeader, emitRegistry } from './emit-cpp.mjs';
import { emitTs } from './emit-ts.mjs';

const packageJson = new URL('../../package.json', import.meta.url);

/** Writes `text` at `path` unless it is already there; returns whether it wrote. */
function update(path, text) {
  if (existsSync(path) && readFileSync(path, 'utf8') === text) return false;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return true;
}

/** The generated files: { path: text } for the requested sides. */
export function generated({ cpp, ts }) {
  const out = {};
  if (cpp) {
    out[join(cpp, 'posenc_boundary.hpp')] = emitHeader();
    out[join(cpp, 'boundary_registry.cpp')] = emitRegistry();
  }
  if (ts) out[ts] = emitTs({ version: JSON.parse(readFileSync(packageJson, 'utf8')).version });
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { cpp: { type: 'string' }, ts: { type: 'string' } } });
  if (!values.cpp && !values.ts) {
    console.error('usage: node bindings/boundary/generate.mjs [--cpp DIR] [--ts FILE]');
    process.exit(2);
  }
  for (const [path, text] of Object.entries(generated(values))) {
    if (update(path, text)) console.log(`boundary: wrote ${path}`);
  }
}
