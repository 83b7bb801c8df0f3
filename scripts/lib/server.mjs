// A small static server for the lesson page: web/ at /, the built package at /dist/ (or both under
// a base path such as /lessons/posenc/: the page uses relative URLs, so it works wherever it sits).
// Binds 127.0.0.1 only and answers only to localhost names (request-check.mjs); serves .wasm as
// application/wasm so browsers compile it while streaming, text and wasm compressed (brotli or
// gzip, see compression.mjs), with ETag and Last-Modified so that reloads revalidate (304). It
// survives any request: refusals are 4xx answers, a failure while serving one is a 500.
import { createReadStream, readFileSync, realpathSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, sep } from 'node:path';
import { pipeline } from 'node:stream';

import { COMPRESSIBLE, compressed, pickEncoding } from './compression.mjs';
import { ALLOWED_METHODS, allowedHosts, checkRequest } from './request-check.mjs';
import { ROOT } from './run.mjs';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.ts': 'text/plain; charset=utf-8', // the .d.ts typings
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
};

/** Limits against slow or oversized requests (Node's http options; see docs/building.md section 16). */
const LIMITS = { maxHeaderBytes: 16 * 1024, headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000, checkEveryMs: 1_000 };

/** The lesson: the built package at <base>dist/, web/ at <base>; or one folder `root` at <base>. */
function mounts(base, root) {
  if (root) return [[base, root]];
  return [
    [`${base}dist/`, join(ROOT, 'dist')],
    [base, join(ROOT, 'web')],
  ];
}

/** The file for a checked path (segments without `/`, `.` or `..`), or null outside every mount. */
function resolve(segments, base, root) {
  const path = `/${segments.join('/')}/`; // with a final slash, so that /base matches the mount /base/
  for (const [prefix, dir] of mounts(base, root)) {
    if (!path.startsWith(prefix)) continue;
    const file = join(dir, ...path.slice(prefix.length).split('/').filter(Boolean));
    if (file !== dir && !file.startsWith(dir + sep)) return null;
    return { file, dir };
  }
  return null;
}

/** The regular file at `file` if it (links resolved) lies inside `dir`, with its stat; else null. */
function inside(file, dir) {
  try {
    const real = realpathSync(file);
    const realDir = realpathSync(dir);
    if (real !== realDir && !real.startsWith(realDir + sep)) return null;
    const stat = statSync(real);
    return { real, stat };
  } catch {
    return null;
  }
}

function answer(res, status, message, headers = {}) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', ...headers });
  res.end(`${message}\n`);
}

/** True when the request's validators say the client's copy (`etag`, `mtimeMs`) is current. */
function notModified(req, etag, mtimeMs) {
  const match = req.headers['if-none-match'];
  if (match !== undefined) {
    return match.trim() === '*' || match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
  }
  const since = Date.parse(req.headers['if-modified-since'] ?? '');
  return Number.isFinite(since) && Math.floor(mtimeMs / 1000) * 1000 <= since;
}

function serve(req, res, hosts, base, root) {
  const checked = checkRequest(req, hosts);
  if (checked.error) return answer(res, checked.error.status, checked.error.message, checked.error.headers);
  const found = resolve(checked.segments, base, root);
  let target = found && inside(found.file, found.dir);
  if (target?.stat.isDirectory()) {
    if (!checked.directory) {
      const location = `${req.url.split(/[?#]/, 1)[0]}/`; // relative URLs in the page need the slash
      return answer(res, 301, 'moved', { location });
    }
    target = inside(join(found.file, 'index.html'), found.dir);
  } else if (checked.directory) {
    target = null;
  }
  if (!target || !target.stat.isFile()) return answer(res, 404, 'not found');

  const { real, stat } = target;
  const ext = extname(real);
  const encoding = COMPRESSIBLE.has(ext) ? pickEncoding(req.headers['accept-encoding']) : null;
  const etag = `"${stat.size.toString(36)}-${Math.round(stat.mtimeMs * 1000).toString(36)}${encoding ? `-${encoding}` : ''}"`;
  const headers = {
    'content-type': TYPES[ext] ?? 'application/octet-stream',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-cache', // a development server: keep copies, but revalidate each time
    etag,
    'last-modified': stat.mtime.toUTCString(),
    ...(COMPRESSIBLE.has(ext) ? { vary: 'Accept-Encoding' } : {}),
  };
  if (notModified(req, etag, stat.mtimeMs)) {
    res.writeHead(304, headers);
    return res.end();
  }
  if (encoding) {
    const body = compressed(real, stat, encoding, () => readFileSync(real));
    res.writeHead(200, { ...headers, 'content-encoding': encoding, 'content-length': body.length });
    return res.end(req.method === 'HEAD' ? undefined : body);
  }
  res.writeHead(200, { ...headers, 'content-length': stat.size });
  if (req.method === 'HEAD') return res.end();
  pipeline(createReadStream(real), res, () => {}); // a read error (file removed meanwhile) ends the response
}

/**
 * Starts the server; resolves with { server, url } once it listens. Port 0 picks a free port;
 * `base` ('/' by default, else e.g. '/lessons/posenc/') is the path the site is served under;
 * `root`, a folder to serve instead of the lesson (the package tests serve bundled apps with it);
 * `timeouts` overrides { headersMs, requestMs, keepAliveMs, checkEveryMs } (the tests shorten them).
 */
export function startServer({ port = 0, host = '127.0.0.1', base = '/', root = undefined, timeouts = {} } = {}) {
  if (!base.startsWith('/') || !base.endsWith('/')) throw new Error(`server: base must start and end with '/', got ${base}`);
  const limits = { ...LIMITS, ...timeouts };
  let hosts = new Set();
  const server = createServer({
    maxHeaderSize: limits.maxHeaderBytes, // larger headers get 431
    headersTimeout: limits.headersMs, // a client that has not sent its headers by then gets 408
    requestTimeout: limits.requestMs,
    keepAliveTimeout: limits.keepAliveMs,
    connectionsCheckingInterval: limits.checkEveryMs,
    requireHostHeader: true,
  }, (req, res) => {
    try {
      serve(req, res, hosts, base, root);
    } catch {
      if (!res.headersSent) answer(res, 500, 'internal error');
      else res.destroy();
    }
  });
  // CONNECT (a proxy tunnel) bypasses the request handler: refuse it on the raw socket.
  server.on('connect', (req, socket) => {
    socket.on('error', () => {});
    socket.end(`HTTP/1.1 405 Method Not Allowed\r\nAllow: ${ALLOWED_METHODS}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      hosts = allowedHosts(host, actual);
      resolvePromise({ server, url: `http://${host.includes(':') ? `[${host}]` : host}:${actual}${base}` });
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
