// The lesson's static server (scripts/lib/server.mjs): compressed responses (brotli or gzip by
// Accept-Encoding, with the right headers), WebAssembly as application/wasm, files as they are
// for clients that take no encoding, and compressed copies that follow the file when it changes.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

import { pickEncoding } from '../../scripts/lib/compression.mjs';
import { startServer } from '../../scripts/lib/server.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const servers = {};

/** A raw GET (or HEAD): status, headers and the bytes as sent (not decoded). */
function get(url, headers = {}, method = 'GET') {
  return new Promise((resolve, reject) => {
    request(url, { method, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}

before(async () => {
  servers.lesson = await startServer({ port: 0 });
  servers.dir = mkdtempSync(join(tmpdir(), 'posenc-server-'));
  servers.folder = await startServer({ port: 0, root: servers.dir });
});

after(async () => {
  for (const s of [servers.lesson, servers.folder]) await new Promise((resolve) => s.server.close(resolve));
  rmSync(servers.dir, { recursive: true, force: true });
});

test('Accept-Encoding picks brotli, then gzip; q=0 refuses; unknown or missing means none', () => {
  assert.equal(pickEncoding('gzip, deflate, br, zstd'), 'br');
  assert.equal(pickEncoding('gzip, deflate'), 'gzip');
  assert.equal(pickEncoding('br;q=0, gzip'), 'gzip');
  assert.equal(pickEncoding('gzip;q=0.8, br;q=0.5'), 'gzip');
  assert.equal(pickEncoding('*'), 'br');
  assert.equal(pickEncoding('*;q=0, gzip'), 'gzip');
  assert.equal(pickEncoding('identity'), null);
  assert.equal(pickEncoding('deflate'), null);
  assert.equal(pickEncoding('br;q=0, gzip;q=0'), null);
  assert.equal(pickEncoding(undefined), null);
});

test('the page, its scripts and the wasm come compressed with the right headers, and decode to the files', async () => {
  const { url } = servers.lesson;
  for (const [path, file, type] of [
    ['', 'web/index.html', 'text/html; charset=utf-8'],
    ['js/main.js', 'web/js/main.js', 'text/javascript; charset=utf-8'],
    ['css/page.css', 'web/css/page.css', 'text/css; charset=utf-8'],
    ['dist/posenc.wasm', 'dist/posenc.wasm', 'application/wasm'],
  ]) {
    const original = readFileSync(join(ROOT, file));
    const br = await get(`${url}${path}`, { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.status, 200, path);
    assert.equal(br.headers['content-type'], type, path);
    assert.equal(br.headers['content-encoding'], 'br', path);
    assert.equal(br.headers.vary, 'Accept-Encoding', path);
    assert.equal(Number(br.headers['content-length']), br.body.length, path);
    assert.ok(br.body.length < original.length * 0.6, `${path}: ${br.body.length} of ${original.length} bytes`);
    assert.deepEqual(brotliDecompressSync(br.body), original, path);
    const gz = await get(`${url}${path}`, { 'accept-encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip', path);
    assert.deepEqual(gunzipSync(gz.body), original, path);
    const plain = await get(`${url}${path}`);
    assert.equal(plain.headers['content-encoding'], undefined, path);
    assert.equal(plain.headers.vary, 'Accept-Encoding', path);
    assert.equal(Number(plain.headers['content-length']), original.length, path);
    assert.deepEqual(plain.body, original, path);
  }
  const head = await get(`${url}dist/posenc.wasm`, { 'accept-encoding': 'br' }, 'HEAD');
  assert.equal(head.headers['content-encoding'], 'br');
  assert.ok(Number(head.headers['content-length']) > 0);
  assert.equal(head.body.length, 0, 'HEAD sends no body');
});

test('files that do not compress are sent as they are; unknown paths are 404; nothing escapes the root', async () => {
  const { url } = servers.folder;
  writeFileSync(join(servers.dir, 'table.npy'), Buffer.alloc(64, 7));
  const npy = await get(`${url}table.npy`, { 'accept-encoding': 'br, gzip' });
  assert.equal(npy.status, 200);
  assert.equal(npy.headers['content-encoding'], undefined);
  assert.equal(npy.headers['content-type'], 'application/octet-stream');
  assert.deepEqual(npy.body, Buffer.alloc(64, 7));
  assert.equal((await get(`${url}missing.js`, { 'accept-encoding': 'br' })).status, 404);
  assert.equal((await get(`${url}..%2f..%2fetc%2fpasswd`)).status, 400);
});

test('a changed file is compressed again, not served from the old copy', async () => {
  const { url } = servers.folder;
  const file = join(servers.dir, 'app.js');
  writeFileSync(file, 'export const version = 1;\n'.repeat(50));
  const first = await get(`${url}app.js`, { 'accept-encoding': 'br' });
  assert.match(brotliDecompressSync(first.body).toString(), /version = 1/);
  writeFileSync(file, 'export const version = 2;\n'.repeat(50));
  utimesSync(file, new Date(), new Date(Date.now() + 5000)); // a new mtime even on a coarse clock
  const second = await get(`${url}app.js`, { 'accept-encoding': 'br' });
  assert.match(brotliDecompressSync(second.body).toString(), /version = 2/);
});
