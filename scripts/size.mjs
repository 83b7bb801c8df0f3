// npm run size: what each part of the built package (dist/) weighs, raw and gzip-compressed, and
// the packed tarball. Run `npm run build` first. The figures in docs/install.md come from here.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

import { ROOT, capture } from './lib/run.mjs';

const dist = join(ROOT, 'dist');
const all = readdirSync(dist, { recursive: true }).filter((f) => statSync(join(dist, f)).isFile());
const js = (f) => f.endsWith('.js') || f.endsWith('.mjs');

const groups = [
  ['posenc.wasm (the module)', ['posenc.wasm']],
  ['posenc.mjs (Emscripten glue)', ['posenc.mjs']],
  ['the API (dist/**/*.js without the CLI and the embedded modules)', all.filter((f) => js(f) && !f.startsWith('cli') && f !== 'wasm-base64.js' && f !== 'relaxed-base64.js')],
  ['relaxed-base64.js (the relaxed-SIMD kernels, inside every entry)', ['relaxed-base64.js']],
  ['wasm-base64.js (the module inside posenc/embedded)', ['wasm-base64.js']],
  ['index.cjs (the CommonJS entry, one file)', ['index.cjs']],
];

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log('| part | files | bytes | gzip -9 |\n| --- | --- | --- | --- |');
for (const [name, files] of groups) {
  const bytes = files.map((f) => readFileSync(join(dist, f)));
  const raw = bytes.reduce((a, b) => a + b.length, 0);
  const gz = bytes.reduce((a, b) => a + gzipSync(b, { level: 9 }).length, 0);
  console.log(`| ${name} | ${files.length} | ${kib(raw)} | ${kib(gz)} |`);
}
const packed = JSON.parse(capture('npm', ['pack', '--dry-run', '--json', '--ignore-scripts']) || '[{}]')[0];
if (packed.size) console.log(`\nnpm pack: ${packed.entryCount} files, tarball ${kib(packed.size)}, unpacked ${kib(packed.unpackedSize)}`);
