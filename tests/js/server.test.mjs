// The lesson server (scripts/lib/server.mjs) under hostile requests, sent raw over node:net: bad
// escapes, methods, targets and Host headers get 4xx answers, nothing outside the served folders
// leaks, slow or oversized requests are cut off, and after each the server still answers. Also
// its content types, nosniff, and caching (ETag, Last-Modified, 304).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { startServer, stopServer } from '../../scripts/lib/server.mjs';

const SECRET = 'posenc-server-test-secret';
let dir;
let site; // the folder server: { server, url, port }
let slow; // a server with short timeouts for the slow-client tests

/**
 * Sends `text` as it is on a new connection; resolves with what came back until the server closed
 * the connection (or `waitMs` passed): { status, headers, body, closed }.
 */
function raw(port, text, { waitMs = 3000 } = {}) {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks = [];
    let closed = false;
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (e) => (e.code === 'ECONNRESET' ? undefined : reject(e)));
    socket.on('end', () => { closed = true; });
    socket.on('close', () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      const head = (split < 0 ? all : all.subarray(0, split)).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '')?.[1] ?? 0);
      const headers = {};
      for (const line of head.slice(1)) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status, headers, body: split < 0 ? Buffer.alloc(0) : all.subarray(split + 4), closed, all });
    });
    socket.write(text, 'latin1');
  });
}

/** A GET (or another method) for `target`, with a Host the server accepts unless given. */
function request(port, target, { method = 'GET', host = `127.0.0.1:${port}`, headers = {} } = {}) {
  const lines = [`${method} ${target} HTTP/1.1`];
  if (host !== null) lines.push(`Host: ${host}`);
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  lines.push('Connection: close', '', '');
  return raw(port, lines.join('\r\n'));
}

/** The server still serves a file, after whatever came before. */
async function stillUp(port) {
  const ok = await request(port, '/app.js');
  assert.equal(ok.status, 200, 'the server still answers');
  assert.match(ok.body.toString(), /export const ok/);
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'posenc-server-'));
  const root = join(dir, 'site');
  mkdirSync(join(root, 'sub'), { recursive: true });
  writeFileSync(join(dir, 'secret.txt'), SECRET); // next to the served folder: must never be served
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>t</title>');
  writeFileSync(join(root, 'app.js'), 'export const ok = 1;\n');
  writeFileSync(join(root, 'app.mjs'), 'export const ok = 2;\n');
  writeFileSync(join(root, 'style.css'), 'body{}');
  writeFileSync(join(root, 'data.json'), '{"a":1}');
  writeFileSync(join(root, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(root, 'module.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  writeFileSync(join(root, 'types.d.ts'), 'export {};\n');
  writeFileSync(join(root, 'README.md'), '# readme\n');
  writeFileSync(join(root, 'sub', 'index.html'), '<!doctype html><title>sub</title>');
  symlinkSync(join(dir, 'secret.txt'), join(root, 'link.txt')); // a link out of the folder
  const started = await startServer({ port: 0, root });
  site = { ...started, port: started.server.address().port };
  const s = await startServer({ port: 0, root, timeouts: { headersMs: 300, requestMs: 600, keepAliveMs: 300, checkEveryMs: 100 } });
  slow = { ...s, port: s.server.address().port };
});

after(async () => {
  for (const s of [site, slow]) if (s) await stopServer(s.server);
  rmSync(dir, { recursive: true, force: true });
});

test('a lone or malformed percent escape gets 400 and the server stays up', async () => {
  for (const target of ['/%', '/%zz', '/%e0%a4%a', '/app%2', '/%c3%28.js', '/%ff']) {
    const res = await request(site.port, target);
    assert.equal(res.status, 400, target);
    assert.equal(res.headers['x-content-type-options'], 'nosniff', target);
    await stillUp(site.port);
  }
});

test('methods other than GET and HEAD get 405 with Allow', async () => {
  for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'CONNECT', 'PROPFIND']) {
    const target = method === 'CONNECT' ? '127.0.0.1:1' : '/app.js';
    const res = await request(site.port, target, { method, headers: method === 'POST' ? { 'Content-Length': 0 } : {} });
    assert.equal(res.status, 405, method);
    assert.equal(res.headers.allow, 'GET, HEAD', method);
    await stillUp(site.port);
  }
  const upgrade = await request(site.port, '/app.js', { headers: { Upgrade: 'websocket', Connection: 'Upgrade' } });
  assert.ok([200, 400].includes(upgrade.status), `Upgrade: ${upgrade.status}`);
  await stillUp(site.port);
  const head = await request(site.port, '/app.js', { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.body.length, 0);
});

test('nothing outside the served folder is served: dot segments, encoded slashes, NUL, links, odd targets', async () => {
  const targets = [
    '/../secret.txt', '/sub/../../secret.txt', '/%2e%2e/secret.txt', '/%2E%2E%2Fsecret.txt', '/..%2fsecret.txt',
    '/..%5csecret.txt', '/sub%2f..%2f..%2fsecret.txt', '/app.js%00', '/app%00.js', '/%00', '/link.txt',
    '//etc/passwd', '//127.0.0.1/app.js', 'http://127.0.0.1/secret.txt', `http://127.0.0.1:${site.port}/app.js`,
    'app.js', '*', '/\\..\\secret.txt', `/${'a/'.repeat(2000)}`,
  ];
  for (const target of targets) {
    const res = await request(site.port, target);
    assert.ok([400, 404].includes(res.status), `${target}: ${res.status}`);
    assert.ok(!res.all.toString('latin1').includes(SECRET), `${target} leaked the file`);
    assert.ok(!res.all.toString('latin1').includes(dir), `${target} leaked a path`);
    await stillUp(site.port);
  }
  for (const target of ['/app.js%00', '/%2e%2e/secret.txt', '/..%2fsecret.txt', 'http://127.0.0.1/secret.txt']) {
    assert.equal((await request(site.port, target)).status, 400, target);
  }
});

test('the Host header must name this server: localhost, 127.0.0.1 or [::1] with its port', async () => {
  const { port } = site;
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
    assert.equal((await request(port, '/app.js', { host })).status, 200, host);
  }
  for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1.nip.io:${port}`, `localhost:${port + 1}`,
    '127.0.0.1', `127.0.0.1:${port}@evil`, `[::1]`, `localhost.:${port}`, `0.0.0.0:${port}`, '']) {
    const res = await request(port, '/app.js', { host });
    assert.ok([400, 421].includes(res.status), `Host ${JSON.stringify(host)}: ${res.status}`);
    assert.ok(!res.body.toString().includes('export const ok'), host);
  }
  assert.equal((await request(port, '/app.js', { host: 'evil.example' })).status, 421);
  assert.equal((await request(port, '/app.js', { host: null })).status, 400, 'HTTP/1.1 without Host');
  await stillUp(port);
});

test('huge headers get 431 and the server stays up', async () => {
  const res = await request(site.port, '/app.js', { headers: { 'X-Big': 'a'.repeat(64 * 1024) } });
  assert.equal(res.status, 431);
  const many = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`X-H${i}`, 'v']));
  assert.ok([400, 431].includes((await request(site.port, '/app.js', { headers: many })).status));
  await stillUp(site.port);
});

test('garbage on the wire gets 400 and the server stays up', async () => {
  for (const text of ['\r\n\r\n', 'GARBAGE\r\n\r\n', 'GET /app.js HTTP/9.9\r\nHost: x\r\n\r\n', '\x00\x01\x02\r\n\r\n',
    'GET /app.js HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n', 'GET /a b c HTTP/1.1\r\n\r\n']) {
    const res = await raw(site.port, text);
    assert.ok(res.status === 0 || (res.status >= 400 && res.status < 500), `${JSON.stringify(text)}: ${res.status}`);
    await stillUp(site.port);
  }
});

test('a client that sends its headers too slowly is cut off; an idle keep-alive connection is closed', async () => {
  const { port } = slow;
  const started = Date.now();
  const res = await raw(port, `GET /app.js HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`, { waitMs: 10_000 });
  assert.equal(res.status, 408, 'request timeout');
  assert.ok(Date.now() - started < 5000);
  const idle = await raw(port, `GET /app.js HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`, { waitMs: 10_000 });
  assert.equal(idle.status, 200);
  assert.ok(idle.closed, 'the server closed the idle keep-alive connection');
  await stillUp(port);
});

test('content types, nosniff, and index.html for folders', async () => {
  for (const [path, type] of [
    ['/app.js', 'text/javascript; charset=utf-8'], ['/app.mjs', 'text/javascript; charset=utf-8'],
    ['/style.css', 'text/css; charset=utf-8'], ['/data.json', 'application/json; charset=utf-8'],
    ['/icon.svg', 'image/svg+xml'], ['/module.wasm', 'application/wasm'], ['/types.d.ts', 'text/plain; charset=utf-8'],
    ['/README.md', 'text/markdown; charset=utf-8'], ['/', 'text/html; charset=utf-8'], ['/sub/', 'text/html; charset=utf-8'],
    ['/app.js?v=3#frag', 'text/javascript; charset=utf-8'],
  ]) {
    const res = await request(site.port, path);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers['content-type'], type, path);
    assert.equal(res.headers['x-content-type-options'], 'nosniff', path);
  }
  const folder = await request(site.port, '/sub?x=1');
  assert.equal(folder.status, 301, 'a folder without its slash is redirected (the page uses relative URLs)');
  assert.equal(folder.headers.location, '/sub/');
  assert.equal((await request(site.port, '/app.js/')).status, 404, 'a file is not a folder');
  const missing = await request(site.port, '/missing.js');
  assert.equal(missing.status, 404);
  assert.equal(missing.headers['x-content-type-options'], 'nosniff');
});

test('ETag and Last-Modified revalidate to 304; a changed file gets a new ETag; each encoding has its own', async () => {
  const { port } = site;
  const first = await request(port, '/app.js');
  const etag = first.headers.etag;
  assert.match(etag, /^"[^"]+"$/);
  assert.ok(first.headers['last-modified']);
  assert.equal(first.headers['cache-control'], 'no-cache');
  assert.equal(first.headers.vary, 'Accept-Encoding');
  const again = await request(port, '/app.js', { headers: { 'If-None-Match': etag } });
  assert.equal(again.status, 304);
  assert.equal(again.body.length, 0);
  assert.equal(again.headers.etag, etag);
  assert.equal(again.headers.vary, 'Accept-Encoding');
  assert.equal((await request(port, '/app.js', { headers: { 'If-None-Match': `"other", ${etag}` } })).status, 304);
  assert.equal((await request(port, '/app.js', { headers: { 'If-None-Match': '*' } })).status, 304);
  assert.equal((await request(port, '/app.js', { headers: { 'If-Modified-Since': first.headers['last-modified'] } })).status, 304);
  assert.equal((await request(port, '/app.js', { headers: { 'If-Modified-Since': 'Thu, 01 Jan 1970 00:00:00 GMT' } })).status, 200);
  assert.equal((await request(port, '/app.js', { headers: { 'If-Modified-Since': 'not a date' } })).status, 200);
  // If-None-Match wins over If-Modified-Since (RFC 9110 section 13.2.2)
  assert.equal((await request(port, '/app.js', { headers: { 'If-None-Match': '"other"', 'If-Modified-Since': first.headers['last-modified'] } })).status, 200);
  const br = await request(port, '/app.js', { headers: { 'Accept-Encoding': 'br' } });
  assert.equal(br.headers['content-encoding'], 'br');
  assert.notEqual(br.headers.etag, etag, 'the brotli bytes have an ETag of their own');
  assert.equal((await request(port, '/app.js', { headers: { 'Accept-Encoding': 'br', 'If-None-Match': br.headers.etag } })).status, 304);
  assert.equal((await request(port, '/app.js', { headers: { 'If-None-Match': br.headers.etag } })).status, 200, 'the brotli ETag does not validate the plain file');

  const file = join(dir, 'site', 'app.js');
  writeFileSync(file, 'export const ok = 3;\n');
  utimesSync(file, new Date(), new Date(Date.now() + 5000));
  const changed = await request(port, '/app.js', { headers: { 'If-None-Match': etag } });
  assert.equal(changed.status, 200);
  assert.notEqual(changed.headers.etag, etag);
  assert.match(changed.body.toString(), /ok = 3/);
});
