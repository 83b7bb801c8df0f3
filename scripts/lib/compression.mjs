// Compressed responses for the static server: the encoding a request accepts (brotli before gzip,
// q-values honoured, q=0 refuses), and each file's compressed bytes, kept until the file changes.
// Brotli at quality 5: posenc.wasm (292 KB) becomes 89 KB in ~80 ms; quality 11 saves 9 KB more
// but takes ~1.4 s, too long for the first load after a rebuild.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** Files worth compressing: text and WebAssembly (images and tables of floats are not). */
export const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.wasm', '.svg', '.map', '.ts', '.txt', '.md']);

const CODERS = {
  br: (bytes) => brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
  gzip: (bytes) => gzipSync(bytes, { level: 6 }),
};

/**
 * The encoding to answer with for an Accept-Encoding header: 'br', 'gzip' or null (send the file
 * as it is). `*` stands for any encoding not named; a q of 0 refuses one.
 */
export function pickEncoding(header) {
  if (!header) return null;
  const weights = new Map();
  for (const part of String(header).split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';').map((t) => t.trim());
    if (!name) continue;
    const q = params.map((p) => /^q=([0-9.]+)$/.exec(p)).find(Boolean);
    weights.set(name, q ? Number(q[1]) : 1);
  }
  const weight = (name) => weights.get(name) ?? weights.get('*') ?? 0;
  const best = ['br', 'gzip'].filter((e) => weight(e) > 0).sort((a, b) => weight(b) - weight(a))[0];
  return best ?? null;
}

const cache = new Map(); // `${encoding}:${file}` -> { mtimeMs, size, body }

/** The compressed bytes of `file` (read with `read` when not cached or changed since). */
export function compressed(file, stat, encoding, read) {
  const key = `${encoding}:${file}`;
  const hit = cache.get(key);
  if (hit && hit.mtimeMs === stat.mtimeMs && hit.size === stat.size) return hit.body;
  const body = CODERS[encoding](read());
  cache.set(key, { mtimeMs: stat.mtimeMs, size: stat.size, body });
  return body;
}
