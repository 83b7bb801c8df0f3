// The `posenc` command: every subcommand writes what the public API computes, and bad input gives
// a message naming the flag and a non-zero exit code.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { createPosEnc, randomFloats } from './helpers.mjs';

const pe = await createPosEnc();
const cli = fileURLToPath(new URL('../../dist/cli/cli.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'posenc-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const file = (name) => join(dir, name);
function posenc(...args) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function ok(...args) {
  const r = posenc(...args);
  assert.equal(r.code, 0, `posenc ${args.join(' ')} failed: ${r.err}`);
  return r.out;
}
const readNpy = (name) => pe.io.readNpy(readFileSync(file(name)));
const writeNpy = (name, t) => writeFileSync(file(name), pe.io.writeNpy(t));

test('info and help', () => {
  assert.match(ok('info'), /^posenc \d+\.\d+\.\d+ \(WebAssembly SIMD kernels: sse4\.1\)/);
  assert.match(ok('help'), /Commands:[\s\S]*rope-config/);
  assert.equal(posenc().code, 2);
});

test('sinusoidal writes the table the API computes, as .npy and .json', () => {
  ok('sinusoidal', '--length', '16', '--dim', '10', '--base', '500', '--layout', 'half', '--offset', '3', '--out', file('s.npy'));
  const expected = pe.sinusoidal.table({ length: 16, dim: 10, base: 500, layout: 'half', offset: 3 });
  assert.deepEqual(readNpy('s.npy'), expected);
  ok('sinusoidal', '--length', '2', '--dim', '4', '--out', file('s.json'));
  const json = JSON.parse(readFileSync(file('s.json'), 'utf8'));
  assert.deepEqual(json.dims, [2, 4]);
  assert.deepEqual(json.data, Array.from(pe.sinusoidal.table({ length: 2, dim: 4 }).data));
  ok('sinusoidal', '--length', '100', '--dim', '16', '--precision', 'fast', '--out', file('f.npy'));
  assert.deepEqual(readNpy('f.npy'), pe.sinusoidal.table({ length: 100, dim: 16, precision: 'fast' }));
});

test('add-sinusoidal and add-learned transform embedding files', () => {
  const x = { data: randomFloats(2 * 5 * 8, 1), dims: [2, 5, 8] };
  writeNpy('x.npy', x);
  ok('add-sinusoidal', '--in', file('x.npy'), '--offset', '7', '--out', file('xs.npy'));
  const expected = { data: x.data.slice(), dims: x.dims };
  pe.sinusoidal.addTo(expected, { offset: 7 });
  assert.deepEqual(readNpy('xs.npy'), expected);

  const wpe = { data: randomFloats(20 * 8, 2), dims: [20, 8] };
  writeNpy('wpe.npy', wpe);
  ok('add-learned', '--in', file('x.npy'), '--table', file('wpe.npy'), '--offset', '15', '--out', file('xl.npy'));
  const learned = { data: x.data.slice(), dims: x.dims };
  pe.learned.addTo(learned, wpe, { offset: 15 });
  assert.deepEqual(readNpy('xl.npy'), learned);
  const r = posenc('add-learned', '--in', file('x.npy'), '--table', file('wpe.npy'), '--offset', '16', '--out', file('bad.npy'));
  assert.equal(r.code, 2);
  assert.match(r.err, /outside the table's positions 0\.\.19 \[OUT_OF_RANGE\]/);
});

test("rope and rope-cache reproduce a model's RoPE from its config.json", () => {
  const config = {
    model_type: 'llama', hidden_size: 256, num_attention_heads: 4, max_position_embeddings: 4096, rope_theta: 500000,
    rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 1024 },
  };
  writeFileSync(file('config.json'), JSON.stringify(config));
  const q = { data: randomFloats(1 * 4 * 3 * 64, 3), dims: [1, 4, 3, 64] };
  writeNpy('q.npy', q);
  ok('rope', '--in', file('q.npy'), '--layout', 'bhsd', '--config', file('config.json'), '--offset', '100', '--out', file('qr.npy'));
  const expected = { data: q.data.slice(), dims: q.dims };
  pe.rope.apply(expected, null, { ...pe.rope.fromConfig(config), layout: 'bhsd', offset: 100 });
  assert.deepEqual(readNpy('qr.npy'), expected);

  ok('rope-cache', '--config', file('config.json'), '--max-positions', '32', '--cos', file('cos.npy'), '--sin', file('sin.npy'));
  const cache = pe.rope.createCache({ ...pe.rope.fromConfig(config), maxPositions: 32 });
  const { cos, sin } = cache.toTensors();
  cache.dispose();
  assert.deepEqual(readNpy('cos.npy'), cos);
  assert.deepEqual(readNpy('sin.npy'), sin);

  const report = JSON.parse(ok('rope-config', file('config.json')));
  assert.equal(report.spec.headDim, 64);
  assert.equal(report.spec.scaling.type, 'llama3');
  assert.equal(report.frequencies.invFreq.length, 32);
  assert.deepEqual(report.frequencies.invFreq, Array.from(pe.rope.frequencies(pe.rope.fromConfig(config)).invFreq));
});

test('alibi writes the bias the API computes', () => {
  ok('alibi', '--heads', '12', '--q-len', '4', '--k-len', '6', '--query-offset', '2', '--out', file('a.npy'));
  assert.deepEqual(readNpy('a.npy'), pe.alibi.bias({ numHeads: 12, qLen: 4, kLen: 6, queryOffset: 2 }));
});

test('bad input: the message names the flag or field, and the exit code is non-zero', () => {
  let r = posenc('sinusoidal', '--length', '4', '--out', file('t.npy'));
  assert.equal(r.code, 2);
  assert.match(r.err, /--dim is required \[MISSING_OPTION\]/);
  r = posenc('sinusoidal', '--length', 'four', '--dim', '4', '--out', file('t.npy'));
  assert.match(r.err, /--length must be a number, got 'four'/);
  r = posenc('sinusoidal', '--length', '4', '--dim', '4', '--lenght', '3');
  assert.equal(r.code, 2);
  assert.match(r.err, /Unknown option '--lenght'/);
  r = posenc('sinusoidal', '--length', '4', '--dim', '4', '--out', file('t.txt'));
  assert.match(r.err, /unknown output type/);
  r = posenc('nope');
  assert.equal(r.code, 2);
  assert.match(r.err, /unknown command 'nope'/);
  writeFileSync(file('broken.json'), JSON.stringify({ hidden_size: 64, num_attention_heads: 4, rope_scaling: { rope_type: 'warp' } }));
  r = posenc('rope-config', file('broken.json'));
  assert.equal(r.code, 2);
  assert.match(r.err, /rope_type.*\[INVALID_CONFIG\]/);
  r = posenc('add-sinusoidal', '--in', file('missing.npy'), '--out', file('o.npy'));
  assert.equal(r.code, 1);
  assert.match(r.err, /cannot access .*missing\.npy \(ENOENT\)/);
  writeFileSync(file('junk.npy'), 'not a numpy file');
  r = posenc('add-sinusoidal', '--in', file('junk.npy'), '--out', file('o.npy'));
  assert.match(r.err, /\[INVALID_FILE\]/);
});
