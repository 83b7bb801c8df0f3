// A small static server for the lesson page: web/ at /, the built package at /dist/ (or both under
// a base path such as /lessons/posenc/: the page uses relative URLs, so it works wherever it sits).
// Binds 127.0.0.1 only. Serves .wasm as application/wasm so browsers compile it while streaming, and
// text and wasm compressed (brotli or gzip, whichever the browser accepts; see compression.mjs).
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

import { COMPRESSIBLE, compressed, pickEncoding } from './compression.mjs';

import { ROOT } from './run.mjs';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.npy': 'application/octet-stream',
  '.safetensors': 'application/octet-stream',
  '.d.ts': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** The lesson: the built package at <base>dist/, web/ at <base>; or one folder `root` at <base>. */
function mounts(base, root) {
  if (root) return [[base, root]];
  return [
    [`${base}dist/`, join(ROOT, 'dist')],
    [base, join(ROOT, 'web')],
  ];
}

function resolve(urlPath, base, root) {
  for (const [prefix, dir] of mounts(base, root)) {
    if (!urlPath.startsWith(prefix)) continue;
    const rel = normalize(decodeURIComponent(urlPath.slice(prefix.length)) || 'index.html');
    const file = join(dir, rel);
    if (file !== dir && !file.startsWith(dir + sep)) return null; // no escaping the mount
    return file;
  }
  return null;
}

/**
 * Starts the server; resolves with { server, url } once it listens. Port 0 picks a free port;
 * `base` ('/' by default, else e.g. '/lessons/posenc/') is the path the site is served under;
 * `root`, a folder to serve instead of the lesson (the package tests serve bundled apps with it).
 */
export function startServer({ port = 0, host = '127.0.0.1', base = '/', root = undefined } = {}) {
  if (!base.startsWith('/') || !base.endsWith('/')) throw new Error(`server: base must start and end with '/', got ${base}`);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    let file = resolve(path.endsWith('/') ? path + 'index.html' : path, base, root);
    let stat;
    try {
      stat = file && statSync(file);
      if (stat && stat.isDirectory()) {
        file = join(file, 'index.html');
        stat = statSync(file);
      }
    } catch {
      stat = undefined;
    }
    if (!file || !stat || !stat.isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    const type = TYPES[extname(file)] ?? 'application/octet-stream';
    const headers = { 'content-type': type, 'cache-control': 'no-cache' };
    const encoding = COMPRESSIBLE.has(extname(file)) ? pickEncoding(req.headers['accept-encoding']) : null;
    if (encoding) {
      const body = compressed(file, stat, encoding, () => readFileSync(file));
      res.writeHead(200, { ...headers, 'content-encoding': encoding, 'content-length': body.length, vary: 'accept-encoding' });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    res.writeHead(200, { ...headers, 'content-length': stat.size, ...(COMPRESSIBLE.has(extname(file)) ? { vary: 'accept-encoding' } : {}) });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      resolvePromise({ server, url: `http://${host}:${actual}${base}` });
    });
  });
}

/** Stops a server from startServer: refuses new connections, closes open ones, resolves when closed. */
export function stopServer(server) {
  return new Promise((resolvePromise) => {
    server.close(() => resolvePromise());
    server.closeAllConnections?.(); // keep-alive connections would otherwise hold close() open (Node >= 18.2)
  });
}
