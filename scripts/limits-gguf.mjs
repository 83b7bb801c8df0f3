// node scripts/limits-gguf.mjs (after npm run build): measures the bounds docs/reliability.md
// states for reading GGUF headers and posenc.wasm files: `posenc plan` of sparse files whose header
// is typical, at the 64 MiB limit (the costliest shapes: one long float list, millions of empty
// strings) and past it, and createPosEnc of a file at and past the 16 MiB cap. Each runs in its own
// process, which reports its peak resident memory; the times are wall-clock, on this machine.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { gguf } from '../tests/js/gguf-bytes.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist', 'cli', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'posenc-limits-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const report = "data:text/javascript,process.on('exit', () => process.stderr.write('\\nmaxRSS ' + process.resourceUsage().maxRSS + '\\n'))";

const keys = [['general.architecture', 'str', 'llama'], ['llama.block_count', 'u32', 32], ['llama.context_length', 'u32', 131072],
  ['llama.embedding_length', 'u32', 4096], ['llama.attention.head_count', 'u32', 32], ['llama.attention.head_count_kv', 'u32', 8],
  ['llama.rope.dimension_count', 'u32', 128], ['llama.rope.freq_base', 'f32', 500000]];

/**
 * A sparse file of `size` bytes: the keys, a token list (or a list patched to claim `count` elements of
 * `type`, which then covers the zeros after it) and a rope_freqs tensor (not after a list of strings:
 * the list would take in its entry).
 */
function sparse(name, size, { tokens = 0, type, count, tensors = true } = {}) {
  const extra = tokens ? [['tokenizer.ggml.tokens', 'strs', Array.from({ length: tokens }, (_, i) => `token-${i}`)]] : [['tokenizer.ggml.scores', 'strs', []]];
  const bytes = gguf([...keys, ...extra], { tensors: tensors ? [{ name: 'rope_freqs.weight', values: new Array(64).fill(1) }] : [] });
  if (type !== undefined) {
    const at = Buffer.from(bytes).indexOf(Buffer.from('tokenizer.ggml.scores')) + 'tokenizer.ggml.scores'.length;
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    view.setUint32(at + 4, type, true);
    view.setBigUint64(at + 8, BigInt(count), true);
  }
  const path = join(dir, name);
  writeFileSync(path, bytes);
  truncateSync(path, size);
  return path;
}

function measure(what, args) {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--import', report, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const rss = Number(/maxRSS (\d+)/.exec(r.stderr)?.[1]) / 1024;
  if (r.status !== 0 && process.env.VERBOSE) console.error(r.stderr);
  const outcome = r.status === 0 ? 'ok' : (/\[([A-Z_]+)\]|"code":"([A-Z_]+)"|code ([A-Z_]+)/.exec(r.stderr)?.slice(1).find(Boolean) ?? `exit ${r.status}`);
  console.log(`| ${what} | ${outcome} | ${seconds.toFixed(2)} s | ${rss.toFixed(0)} MiB |`);
}

const GiB = 2 ** 30;
console.log('| input | result | time | peak RSS |');
console.log('| --- | --- | ---: | ---: |');
measure('`posenc --version` (the baseline)', [cli, '--version']);
measure('`posenc plan`, 5 GiB sparse GGUF, 128256-token header (2.1 MB)', [cli, 'plan', sparse('typical.gguf', 5 * GiB, { tokens: 128256 })]);
measure('`posenc plan`, header of 63.9 MiB: one float32 list of 16.7M entries', [cli, 'plan', sparse('floats.gguf', 5 * GiB, { type: 6, count: 16_750_000 })]);
measure('`posenc plan`, header of 63.9 MiB: 8.37M empty strings', [cli, 'plan', sparse('strings.gguf', 5 * GiB, { type: 8, count: 8_370_000, tensors: false })]);
measure('`posenc plan`, header past 64 MiB (a list of 20M float32)', [cli, 'plan', sparse('over.gguf', 5 * GiB, { type: 6, count: 20_000_000 })]);
const load = (path) => ['--input-type=module', '-e', `const { createPosEnc } = await import(${JSON.stringify(join(root, 'dist', 'node.js'))});
  try { await createPosEnc({ locateFile: () => ${JSON.stringify(path)} }); } catch (e) { console.error('code ' + e.code); process.exitCode = 1; }`];
const atCap = join(dir, 'cap.wasm');
writeFileSync(atCap, '');
truncateSync(atCap, 16 * 2 ** 20);
const overCap = join(dir, 'over.wasm');
writeFileSync(overCap, '');
truncateSync(overCap, 4 * GiB);
measure('`createPosEnc({ locateFile })`, a 16 MiB file (the cap)', load(atCap));
measure('`createPosEnc({ locateFile })`, a 4 GiB sparse file', load(overCap));
measure('`createPosEnc({ locateFile })`, /dev/zero', load('/dev/zero'));
