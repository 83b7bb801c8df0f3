// pe.model.fromGgufFile: a GGUF file's plan read from its header alone, streamed from a Blob or
// File, a web or Node stream, or a path, in bounded memory; the same plan as fromGguf of its bytes.
// `posenc plan model.gguf` reads it so: a sparse file over 2 GiB is planned by a process whose
// memory stays small.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { createPosEnc } from './helpers.mjs';
import { gguf } from './gguf-bytes.mjs';
import { llama3RopeFreqs } from './model-formulas.mjs';

const pe = await createPosEnc();
const cli = fileURLToPath(new URL('../../dist/cli/cli.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'posenc-gguf-stream-'));

const divisors = Array.from(llama3RopeFreqs(128, 500000, { factor: 8, low: 1, high: 4, original: 8192 }));
const keys = [['general.architecture', 'str', 'llama'], ['llama.block_count', 'u32', 4], ['llama.context_length', 'u32', 131072],
  ['llama.embedding_length', 'u32', 4096], ['llama.attention.head_count', 'u32', 32], ['llama.attention.head_count_kv', 'u32', 8],
  ['llama.rope.dimension_count', 'u32', 128], ['llama.rope.freq_base', 'f32', 500000]];
/** A Llama 3.1-like file whose tokenizer list makes the header `tokens` strings long, with rope_freqs after another tensor. */
function file(tokens = 10) {
  const list = Array.from({ length: tokens }, (_, i) => `token-${i}`);
  return gguf([...keys, ['tokenizer.ggml.tokens', 'strs', list]], { tensors: [{ name: 'token_embd.weight', values: new Array(64).fill(0.5) }, { name: 'rope_freqs.weight', values: divisors }] });
}

/** A web ReadableStream giving `bytes` in chunks of `size`. */
function webStream(bytes, size) {
  let at = 0;
  return new ReadableStream({ pull(c) { if (at >= bytes.length) c.close(); else { c.enqueue(bytes.slice(at, at + size)); at += size; } } });
}

test('every source gives the plan fromGguf gives of the bytes: Blob, File, web stream, Node stream, path, file: URL', async () => {
  for (const tokens of [10, 200000]) { // 200000 tokens: a 2.7 MB header, past the first 1 MiB window
    const bytes = file(tokens);
    const expected = pe.model.fromGguf(bytes);
    assert.ok(expected.layers[0].rope.spec.scaling.shortFactor.length === 64);
    const path = join(dir, `llama-${tokens}.gguf`);
    writeFileSync(path, bytes);
    const sources = {
      Blob: new Blob([bytes]), File: new File([bytes], 'model.gguf'), 'web stream': webStream(bytes, 4093),
      'Node stream': createReadStream(path, { highWaterMark: 65536 }), 'Readable.from': Readable.from([Buffer.from(bytes)]),
      path, 'file: URL': pathToFileURL(path), Uint8Array: bytes, ArrayBuffer: bytes.slice().buffer,
    };
    for (const [what, source] of Object.entries(sources)) {
      assert.deepEqual(await pe.model.fromGgufFile(source), expected, `${what}, ${tokens} tokens`);
    }
    assert.deepEqual(await pe.model.fromGgufFile(new Blob([bytes]), { contextLength: 4096 }), pe.model.fromGguf(bytes, { contextLength: 4096 }));
  }
});

test('errors: the same INVALID_FILE as fromGguf, a file that ends early, bad sources, missing paths, folders and FIFOs never read', async () => {
  const rejects = async (call, code, pattern) => assert.rejects(call, (e) => e.name === 'PosEncError' && e.code === code && pattern.test(e.message));
  const bytes = file();
  await rejects(pe.model.fromGgufFile(new Blob([bytes.subarray(0, bytes.length - 64)])), 'INVALID_FILE', /model\.fromGgufFile: tensor rope_freqs\.weight lies at bytes/);
  await rejects(pe.model.fromGgufFile(webStream(bytes.subarray(0, 300), 7)), 'INVALID_FILE', /the file ends inside/);
  await rejects(pe.model.fromGgufFile(new Blob([gguf([['general.architecture', 'str', 'constructor']])])), 'INVALID_FILE', /'constructor' is not one posenc knows/);
  await rejects(pe.model.fromGgufFile(42), 'INVALID_TYPE', /source must be a Blob or File/);
  await rejects(pe.model.fromGgufFile(Readable.from(['GGUF', 'text'])), 'INVALID_TYPE', /the stream must give bytes/);
  await rejects(pe.model.fromGgufFile(new Blob([bytes]), { contextLen: 5 }), 'UNKNOWN_OPTION', /contextLen/);
  await rejects(pe.model.fromGgufFile(join(dir, 'missing.gguf')), 'FILE_NOT_FOUND', /model\.fromGgufFile: cannot read .*missing\.gguf: no such file/);
  await rejects(pe.model.fromGgufFile(dir), 'NOT_A_FILE', /it is a directory/);
  await rejects(pe.model.fromGgufFile('/dev/zero'), 'NOT_A_FILE', /not a regular file/);
  const fifo = join(dir, 'fifo.gguf');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  await rejects(pe.model.fromGgufFile(fifo), 'NOT_A_FILE', /not a regular file/);
  // A stream that fails, and caller code that throws, are the caller's errors (INVALID_ARGUMENT, with them as the cause).
  const failing = new Readable({ read() { this.destroy(new Error('disk gone')); } });
  await rejects(pe.model.fromGgufFile(failing), 'INVALID_ARGUMENT', /reading the stream threw Error: disk gone/);
  const hostile = new Proxy({}, { getPrototypeOf() { throw new Error('trap'); } });
  await rejects(pe.model.fromGgufFile(hostile), 'INVALID_ARGUMENT', /reading source threw Error: trap/);
  // Never synchronously: a bad option is a rejection too.
  const p = pe.model.fromGgufFile(new Blob([bytes]), { get contextLength() { throw new Error('getter'); } });
  await rejects(p, 'INVALID_ARGUMENT', /getter/);
});

test('a header over 64 MiB is refused without reading further; a stream is read only up to the factor tensors, then closed', async () => {
  // A sparse file whose float list claims 20M entries (80 MB of zeros): past the header limit.
  const path = join(dir, 'huge-header.gguf');
  const head = gguf([...keys, ['tokenizer.ggml.scores', 'strs', []]]);
  // Patch the list's element type to float32 (6) and its length to 20,000,000: the file then holds only zeros for it.
  const at = Buffer.from(head).indexOf(Buffer.from('tokenizer.ggml.scores')) + 'tokenizer.ggml.scores'.length;
  const view = new DataView(head.buffer, head.byteOffset);
  view.setUint32(at + 4, 6, true);
  view.setBigUint64(at + 8, 20000000n, true);
  writeFileSync(path, head);
  truncateSync(path, 100 * 1024 * 1024);
  await assert.rejects(pe.model.fromGgufFile(path), (e) => e.code === 'INVALID_FILE' && /the GGUF header goes on past 67108864 bytes/.test(e.message));
  // A stream of 1 GiB: the plan is read from its first bytes, and the stream is closed after them.
  const bytes = file();
  let given = 0;
  let closed = false;
  const endless = new Readable({
    read() { const chunk = given === 0 ? Buffer.from(bytes) : Buffer.alloc(65536); given += chunk.length; this.push(given > 2 ** 30 ? null : chunk); },
    destroy(error, done) { closed = true; done(error); },
  });
  assert.deepEqual(await pe.model.fromGgufFile(endless), pe.model.fromGguf(bytes));
  assert.ok(closed, 'the stream is closed');
  assert.ok(given < 4 << 20, `read ${given} bytes`);
});

test('posenc plan of a sparse GGUF over 2 GiB: the header is read, in a process whose memory stays bounded', () => {
  const path = join(dir, 'big.gguf');
  writeFileSync(path, file(1000));
  truncateSync(path, 3 * 2 ** 30); // 3 GiB, all but the header a hole
  // The process reports its peak resident memory when it exits.
  const report = `data:text/javascript,process.on('exit', () => process.stderr.write('maxRSS ' + process.resourceUsage().maxRSS + '\\n'))`;
  const r = spawnSync(process.execPath, ['--max-old-space-size=64', '--import', report, cli, 'plan', path], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^llama: 4 layers, 32 heads \(8 key\/value\), head 128, 131072 positions/);
  assert.match(r.stdout, /LongRoPE/);
  const kib = Number(/maxRSS (\d+)/.exec(r.stderr)?.[1]);
  // Node itself with the module loaded is about 60-100 MiB; reading the file would take 3 GiB.
  assert.ok(kib > 0 && kib < 256 * 1024, `peak RSS ${kib} KiB`);
});
