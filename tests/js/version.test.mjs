// One version: package.json's. The package's VERSION export, pe.version and the version the
// WebAssembly module was built as (CMake reads package.json) all say the same.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import createModule from '../../dist/posenc.mjs';
import { VERSION, createPosEnc } from '../../dist/node.js';

const packageVersion = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

test('VERSION, pe.version and the module report package.json\'s version', async () => {
  const raw = await createModule({ wasmBinary: readFileSync(new URL('../../dist/posenc.wasm', import.meta.url)) });
  const pe = await createPosEnc();
  assert.match(packageVersion, /^\d+\.\d+\.\d+/);
  assert.equal(VERSION, packageVersion);
  assert.equal(pe.version, packageVersion);
  assert.equal(raw.version(), packageVersion);
});
