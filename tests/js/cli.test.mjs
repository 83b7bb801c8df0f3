// The `posenc` program (dist/cli/cli.js), spawned as users run it. Every job here runs with
// POSENC_CLI_CHUNK_BYTES=4096, so that it is computed, read and written in many pieces; each file
// it writes is compared with what one call of the public API computes (bit for bit) and with the
// float64 formulas. Then: help, flags and their errors, safe writing, progress.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { createPosEnc, randomFloats, sinusoid } from './helpers.mjs';
import { encodeFloats, npyBytes } from './io-fixtures.mjs';

const pe = await createPosEnc();
const cli = fileURLToPath(new URL('../../dist/cli/cli.js', import.meta.url));
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
const dir = mkdtempSync(join(tmpdir(), 'posenc-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const file = (name) => join(dir, name);
const PIECES = { POSENC_CLI_CHUNK_BYTES: '4096' };

function posenc(args, { env = {}, uid } = {}) {
  const r = spawnSync(process.execPath, [cli, ...args], {
    encoding: 'utf8', env: { ...process.env, ...PIECES, ...env }, ...(uid === undefined ? {} : { uid, gid: uid }),
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function ok(...args) {
  const r = posenc(args);
  assert.equal(r.code, 0, `posenc ${args.join(' ')} failed: ${r.err}`);
  assert.equal(r.err, '', 'nothing on stderr when it is not a terminal');
  return r.out;
}
/** A failing run: checks its exit code and stderr (which names flags, never API options). */
function fails(code, pattern, args, options) {
  const r = posenc(args, options);
  assert.equal(r.code, code, `posenc ${args.join(' ')}: exit ${r.code}, stderr ${r.err}`);
  assert.match(r.err, pattern);
  assert.doesNotMatch(r.err, /\b(numHeads|qLen|kLen|rotaryDim|queryOffset|maxBias|numBuckets|maxDistance|maxPositions|seqLen|positionIds)\b/, 'flags, not API option names');
  assert.equal(r.out, '');
  return r.err;
}
const readNpy = (name, options) => pe.io.readNpy(readFileSync(file(name)), options);
const writeNpy = (name, t) => writeFileSync(file(name), pe.io.writeNpy(t));
/** The files of the test directory that are not finished outputs (temporary .part files). */
const leftovers = () => readdirSync(dir).filter((f) => f.endsWith('.part'));

/** Bitwise equality of float arrays, reporting the first difference. */
function same(actual, expected, what) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++) {
    if (!Object.is(actual[i], expected[i])) assert.fail(`${what}: element ${i} is ${actual[i]}, one API call gives ${expected[i]}`);
  }
}

/**
 * The columns where the descriptions of a help text's flag table start: a row is
 * `  --flag [VALUE]  description`, or a usage too long for the column alone on its line with the
 * description on the next, indented to the column.
 */
function helpColumns(text) {
  const lines = text.split('\n');
  const start = lines.indexOf('Flags:');
  assert.ok(start >= 0, 'the help has a Flags: section');
  const columns = new Set();
  for (let i = start + 1; i < lines.length && lines[i] !== ''; i++) {
    const row = /^ {2}(--[a-z0-9-]+(?: [^ ]+)?)( {2,})\S/.exec(lines[i]);
    if (row) columns.add(row[1].length + row[2].length + 2);
    else if (/^ {2}--\S+(?: [^ ]+)?$/.test(lines[i])) columns.add(/^ */.exec(lines[++i])[0].length);
    else assert.fail(`not a flag row: '${lines[i]}'`);
  }
  return columns;
}

test('helpColumns sees a misaligned row', () => {
  assert.deepEqual([...helpColumns('Flags:\n  --a N    one\n  --bb     two\n')], [11]);
  assert.equal(helpColumns('Flags:\n  --a N  one\n  --help                 this help\n').size, 2);
});

test('--version, --help, and help for every command', () => {
  for (const flag of ['--version', '-V', 'version']) assert.equal(ok(flag), `posenc ${version}\n`);
  const none = posenc([]);
  assert.equal(none.code, 2);
  assert.match(none.err, /Commands:/);
  const help = ok('--help');
  const names = [...help.matchAll(/^ {2}([a-z0-9-]+) {2,}/gm)].map((m) => m[1]);
  assert.deepEqual(names, ['sinusoidal', 'alibi', 't5-bias', 'rope-cache', 'add-sinusoidal', 'add-learned', 'rope', 'shift', 'permute', 'doctor', 'precision', 'info', 'rope-config', 'plan']);
  // the documentation it points to is a file that exists (the package's docs/cli.md), not a path of the user's project
  const docs = /^Documentation: (\/\S+\/docs\/cli\.md) \(online: https:\/\/github\.com\/posenc\/posenc\/blob\/main\/docs\/cli\.md\)$/m.exec(help);
  assert.ok(docs && existsSync(docs[1]), `posenc --help names an existing docs/cli.md:\n${help}`);
  for (const name of names) {
    const text = ok(name, '--help');
    assert.match(text, new RegExp(`^posenc ${name}: .*\\n\\nUsage: posenc ${name}`));
    assert.match(text, /\nExamples:\n {2}posenc /);
    const columns = helpColumns(text);
    assert.equal(columns.size, 1, `posenc ${name} --help: the flag descriptions start in one column, not ${[...columns].join(', ')}:\n${text}`);
  }
  // `help <command>` is the same lookup for every command: one is enough (each spawn costs ~0.5 s)
  assert.equal(ok('help', 'rope'), ok('rope', '--help'));
  // --help wins over everything else on the line, even a bad value
  assert.match(ok('sinusoidal', '--length', '-4', '--help'), /--offset X +position of the first row .*\(default 0\)/);
  assert.match(ok('info'), new RegExp(`^posenc ${version.replace(/\./g, '\\.')} \\(WebAssembly SIMD kernels: sse4\\.1; Node\\.js`));
  assert.deepEqual(Object.keys(JSON.parse(ok('info', '--json'))), ['version', 'simd', 'node']);
});

test('flags: negative numbers, = values, typos, missing values and repeats are clear errors', () => {
  ok('sinusoidal', '--length', '70', '--dim', '6', '--offset', '-4', '--out', file('neg.npy'));
  same(readNpy('neg.npy').data, pe.sinusoidal.table({ length: 70, dim: 6, offset: -4 }).data, '--offset -4');
  ok('sinusoidal', '--length=70', '--dim=6', '--offset=-4', `--out=${file('neg2.npy')}`);
  assert.deepEqual(readFileSync(file('neg2.npy')), readFileSync(file('neg.npy')));
  const out = ['--out', file('never.npy')];
  const table = (...more) => ['sinusoidal', '--length', '4', '--dim', '4', ...more, ...out];
  fails(2, /^posenc sinusoidal: --length must be an integer >= 1, got -4\nRun 'posenc sinusoidal --help' for its flags\.\n$/, ['sinusoidal', '--length', '-4', '--dim', '4', ...out]);
  fails(2, /--length must be an integer >= 1, got '2\.5'/, ['sinusoidal', '--length', '2.5', '--dim', '4', ...out]);
  fails(2, /--length must be an integer >= 1, got 'four'/, ['sinusoidal', '--length', 'four', '--dim', '4', ...out]);
  fails(2, /--base must be greater than 0, got -3/, table('--base', '-3'));
  fails(2, /--offset must be a finite number, got 'Infinity'/, table('--offset', 'Infinity'));
  fails(2, /--query-offset must be an integer >= 0, got -1/, ['alibi', '--num-heads', '2', '--q-len', '2', '--k-len', '2', '--query-offset', '-1', ...out]);
  fails(2, /unknown flag --lenght \(did you mean --length\?\)/, ['sinusoidal', '--lenght', '4', '--dim', '4', ...out]);
  fails(2, /--length needs a value/, ['sinusoidal', '--dim', '4', ...out, '--length']);
  fails(2, /--length needs a value/, ['sinusoidal', '--length', '--dim', '4', ...out]);
  fails(2, /--dim is given more than once/, table('--dim', '5'));
  fails(2, /--dim is required/, ['sinusoidal', '--length', '4', ...out]);
  fails(2, /unexpected argument '-4' \(negative numbers go after their flag/, table('-4'));
  fails(2, /--layout must be one of interleaved, half; got 'paper'/, table('--layout', 'paper'));
  fails(2, /--mask-future takes no value/, ['alibi', '--num-heads', '2', '--q-len', '2', '--k-len', '2', '--mask-future=yes', ...out]);
  fails(2, /unknown output type '\.txt'; use \.npy, \.safetensors or \.json/, ['sinusoidal', '--length', '4', '--dim', '4', '--out', file('t.txt')]);
  fails(2, /--dtype float16 applies to \.npy and \.safetensors files/, table('--dtype', 'float16').map((a) => (a === out[1] ? file('t.json') : a)));
  fails(2, /^posenc: unknown command 'sinusodial' \(did you mean 'sinusoidal'\?\)/, ['sinusodial']);
  fails(2, /POSENC_CLI_CHUNK_BYTES must be an integer >= 1, got 'lots'/, ['info'], { env: { POSENC_CLI_CHUNK_BYTES: 'lots' } });
  assert.equal(existsSync(file('never.npy')), false);
});

test('sinusoidal: written in pieces, the table one API call computes, in every format and dtype', () => {
  const rows = (length, dim, extra = {}) => pe.sinusoidal.table({ length, dim, ...extra });
  // 200 x 48 floats in 4 KiB pieces: 7 pieces of 32 rows (the 'fast' anchor spacing), the last longer
  ok('sinusoidal', '--length', '200', '--dim', '48', '--out', file('s.npy'));
  const s = readNpy('s.npy');
  assert.deepEqual(s.dims, [200, 48]);
  same(s.data, rows(200, 48).data, 'exact');
  for (let p = 0; p < 200; p += 13) {
    for (let j = 0; j < 48; j++) assert.ok(Math.abs(s.data[p * 48 + j] - sinusoid(p, j, 48)) <= 2 ** -24, `row ${p} column ${j}`);
  }
  for (const [flags, options] of [
    [['--precision', 'fast', '--offset', '96'], { precision: 'fast', offset: 96 }],
    [['--layout', 'half', '--base', '500', '--offset', '-33'], { layout: 'half', base: 500, offset: -33 }],
    [['--offset', '0.375'], { offset: 0.375 }], // fractional: each row's position as one call forms it
  ]) {
    ok('sinusoidal', '--length', '200', '--dim', '48', ...flags, '--out', file('v.npy'));
    same(readNpy('v.npy').data, rows(200, 48, options).data, flags.join(' '));
  }
  // 'fast' with a fractional offset: pieces start at offset + row; within the 3.2e-7 'fast' promises
  ok('sinusoidal', '--length', '200', '--dim', '48', '--precision', 'fast', '--offset', '0.375', '--out', file('f.npy'));
  const f = readNpy('f.npy').data;
  for (let i = 0; i < f.length; i++) assert.ok(Math.abs(f[i] - sinusoid(0.375 + Math.floor(i / 48), i % 48, 48)) <= 3.2e-7, `fast element ${i}`);

  // float16 / bfloat16: the same bytes io.writeNpy writes for the API's table
  for (const dtype of ['float16', 'bfloat16']) {
    ok('sinusoidal', '--length', '200', '--dim', '48', '--dtype', dtype, '--out', file(`${dtype}.npy`));
    assert.deepEqual(readFileSync(file(`${dtype}.npy`)), Buffer.from(pe.io.writeNpy(rows(200, 48), { dtype })), dtype);
  }
  // .safetensors (--name) and .json
  ok('sinusoidal', '--length', '200', '--dim', '48', '--dtype', 'bfloat16', '--name', 'wpe', '--out', file('s.safetensors'));
  assert.deepEqual(readFileSync(file('s.safetensors')), Buffer.from(pe.io.writeSafetensors({ wpe: rows(200, 48) }, { dtype: 'bfloat16' })));
  ok('sinusoidal', '--length', '3', '--dim', '4', '--out', file('s.json'));
  const json = JSON.parse(readFileSync(file('s.json'), 'utf8'));
  assert.deepEqual(json, { dims: [3, 4], data: Array.from(rows(3, 4).data) });

  const report = JSON.parse(ok('sinusoidal', '--length', '200', '--dim', '48', '--out', file('r.npy'), '--json'));
  assert.equal(report.command, 'sinusoidal');
  assert.deepEqual(report.files, [{ path: file('r.npy'), format: 'npy', dtype: 'float32', bytes: readFileSync(file('r.npy')).length, tensors: [{ name: 'table', dims: [200, 48] }] }]);
  assert.match(ok('sinusoidal', '--length', '200', '--dim', '48', '--out', file('r.npy')), /^wrote .*r\.npy: sinusoidal table \[200, 48\] float32, 37\.63 KiB in \d+\.\d+ s\n$/);
});

test('alibi and t5-bias: query rows in pieces, every head at its place in the file', () => {
  ok('alibi', '--num-heads', '6', '--q-len', '50', '--k-len', '70', '--query-offset', '20', '--out', file('a.npy'));
  const a = readNpy('a.npy');
  same(a.data, pe.alibi.bias({ numHeads: 6, qLen: 50, kLen: 70, queryOffset: 20 }).data, 'alibi');
  const slopes = pe.alibi.slopes({ numHeads: 6 });
  for (const [h, i, j] of [[0, 0, 0], [2, 10, 25], [5, 49, 69], [3, 5, 60]]) {
    const q = 20 + i;
    const expected = j > q ? -Infinity : Math.fround(-slopes[h] * (q - j)) + 0; // + 0: the diagonal is +0
    assert.equal(a.data[(h * 50 + i) * 70 + j], expected, `alibi [${h}, ${i}, ${j}]`);
  }
  ok('alibi', '--num-heads', '4', '--q-len', '40', '--k-len', '90', '--form', 'symmetric', '--max-bias', '4', '--out', file('a2.npy'));
  same(readNpy('a2.npy').data, pe.alibi.bias({ numHeads: 4, qLen: 40, kLen: 90, form: 'symmetric', maxBias: 4 }).data, 'symmetric');
  ok('alibi', '--num-heads', '4', '--q-len', '40', '--k-len', '90', '--no-mask-future', '--out', file('a3.npy'));
  same(readNpy('a3.npy').data, pe.alibi.bias({ numHeads: 4, qLen: 40, kLen: 90, maskFuture: false }).data, '--no-mask-future');
  ok('alibi', '--num-heads', '2', '--q-len', '3', '--k-len', '3', '--out', file('a.json'));
  assert.deepEqual(JSON.parse(readFileSync(file('a.json'), 'utf8')).data.slice(0, 3), [0, '-Infinity', '-Infinity']);
  same(pe.io.readNpy(pe.io.writeNpy({ data: Float32Array.from(JSON.parse(readFileSync(file('a.json'), 'utf8')).data), dims: [2, 3, 3] })).data,
    pe.alibi.bias({ numHeads: 2, qLen: 3, kLen: 3 }).data, '.json keeps -Infinity');

  const table = { data: randomFloats(32 * 5, 7, -1, 1), dims: [32, 5] };
  writeFileSync(file('rel.safetensors'), pe.io.writeSafetensors({ other: { data: new Float32Array(2), dims: [2] }, 'encoder.rel': table }));
  for (const [flags, options] of [[[], {}], [['--no-bidirectional', '--query-offset', '9', '--max-distance', '64'], { bidirectional: false, queryOffset: 9, maxDistance: 64 }]]) {
    ok('t5-bias', '--table', file('rel.safetensors'), '--table-tensor', 'encoder.rel', '--q-len', '60', '--k-len', '80', ...flags, '--out', file('t5.npy'));
    same(readNpy('t5.npy').data, pe.t5.bias(table, { qLen: 60, kLen: 80, ...options }).data, `t5 ${flags.join(' ')}`);
  }
  fails(2, /holds 2 tensors; choose one with --table-tensor \(other, encoder\.rel\)/, ['t5-bias', '--table', file('rel.safetensors'), '--q-len', '6', '--k-len', '8', '--out', file('t5.npy')]);
  fails(2, /--num-buckets/, ['t5-bias', '--table', file('rel.safetensors'), '--table-tensor', 'encoder.rel', '--q-len', '6', '--k-len', '8', '--num-buckets', '16', '--out', file('t5x.npy')]);
});

const LLAMA3 = {
  model_type: 'llama', hidden_size: 256, num_attention_heads: 4, max_position_embeddings: 4096, rope_theta: 500000,
  rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 1024 },
};
const YARN = { model_type: 'qwen2', hidden_size: 128, num_attention_heads: 2, max_position_embeddings: 4096, rope_scaling: { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 1024 } };
// Dynamic NTK scaling depends on the current length: pieces must use the whole tensor's
const DYNAMIC = { model_type: 'llama', hidden_size: 64, num_attention_heads: 2, max_position_embeddings: 64, rope_scaling: { rope_type: 'dynamic', factor: 2 } };

test('rope-cache: cos/sin rows in pieces equal createCache().toTensors(), as two files or one .safetensors', () => {
  for (const [name, config, extra, seqLen] of [['llama3', LLAMA3, [], undefined], ['yarn', YARN, [], undefined], ['dynamic', DYNAMIC, ['--seq-len', '150'], 150]]) {
    writeFileSync(file(`${name}.json`), JSON.stringify(config));
    ok('rope-cache', '--config', file(`${name}.json`), '--max-positions', '300', ...extra, '--cos', file('cos.npy'), '--sin', file('sin.npy'));
    const cache = pe.rope.createCache({ ...pe.rope.fromConfig(config), maxPositions: 300, seqLen });
    const { cos, sin } = cache.toTensors();
    cache.dispose();
    same(readNpy('cos.npy').data, cos.data, `${name} cos`);
    same(readNpy('sin.npy').data, sin.data, `${name} sin`);
    assert.deepEqual(readNpy('cos.npy').dims, cos.dims);
  }
  ok('rope-cache', '--rotary-dim', '16', '--base', '1000', '--max-positions', '500', '--out', file('cache.safetensors'), '--dtype', 'float16');
  const cache = pe.rope.createCache({ rotaryDim: 16, base: 1000, maxPositions: 500 });
  const { cos, sin } = cache.toTensors();
  cache.dispose();
  assert.deepEqual(readFileSync(file('cache.safetensors')), Buffer.from(pe.io.writeSafetensors({ cos_cache: cos, sin_cache: sin }, { dtype: 'float16' })));
  fails(2, /--cos and --sin are required \(or --out cache\.safetensors\)/, ['rope-cache', '--rotary-dim', '16', '--max-positions', '5', '--cos', file('c.npy')]);
  fails(2, /the two caches go in one \.safetensors file/, ['rope-cache', '--rotary-dim', '16', '--max-positions', '5', '--out', file('c.npy')]);
  fails(2, /--config defines the RoPE already; leave out --base/, ['rope-cache', '--config', file('llama3.json'), '--base', '10', '--max-positions', '5', '--out', file('c.safetensors')]);
});

test('add-sinusoidal and add-learned: inputs read in pieces (.npy float16, .safetensors, Fortran order)', () => {
  const x = { data: randomFloats(3 * 90 * 16, 1, -1, 1), dims: [3, 90, 16] };
  const expected = (fn) => { const t = { data: x.data.slice(), dims: x.dims }; fn(t); return t.data; };
  writeNpy('x.npy', x);
  ok('add-sinusoidal', '--in', file('x.npy'), '--offset', '7', '--out', file('xs.npy'));
  same(readNpy('xs.npy').data, expected((t) => pe.sinusoidal.addTo(t, { offset: 7 })), 'add-sinusoidal');
  ok('add-sinusoidal', '--in', file('x.npy'), '--precision', 'fast', '--layout', 'half', '--out', file('xs.npy'));
  same(readNpy('xs.npy').data, expected((t) => pe.sinusoidal.addTo(t, { precision: 'fast', layout: 'half' })), 'add-sinusoidal fast');

  // A float16 .npy (values exact in float16) read in pieces, and the same data in Fortran order (read whole)
  const halfValues = Array.from(x.data, (v) => Math.round(v * 256) / 256);
  writeFileSync(file('x16.npy'), npyBytes({ descr: '<f2', shape: x.dims, data: encodeFloats(halfValues, 'f2') }));
  const fortran = new Array(halfValues.length);
  for (let b = 0; b < 3; b++) for (let s = 0; s < 90; s++) for (let d = 0; d < 16; d++) fortran[b + 3 * (s + 90 * d)] = halfValues[(b * 90 + s) * 16 + d];
  writeFileSync(file('xf.npy'), npyBytes({ descr: '<f8', fortran: true, shape: x.dims, data: encodeFloats(fortran, 'f8') }));
  const fromHalf = { data: Float32Array.from(halfValues), dims: x.dims };
  pe.sinusoidal.addTo(fromHalf, { offset: 3 });
  for (const input of ['x16.npy', 'xf.npy']) {
    ok('add-sinusoidal', '--in', file(input), '--offset', '3', '--out', file('xh.npy'));
    same(readNpy('xh.npy').data, fromHalf.data, input);
  }

  const wpe = { data: randomFloats(120 * 16, 2, -1, 1), dims: [120, 16] };
  writeFileSync(file('model.safetensors'), pe.io.writeSafetensors({ 'wte.weight': { data: new Float32Array(16), dims: [1, 16] }, 'wpe.weight': wpe }));
  writeFileSync(file('in.safetensors'), pe.io.writeSafetensors({ x }));
  ok('add-learned', '--in', file('in.safetensors'), '--table', file('model.safetensors'), '--table-tensor', 'wpe.weight', '--offset', '30', '--out', file('xl.npy'));
  same(readNpy('xl.npy').data, expected((t) => pe.learned.addTo(t, wpe, { offset: 30 })), 'add-learned');
  fails(2, /--offset 31 with 90 tokens needs table rows up to 120, but --table .*model\.safetensors has rows 0\.\.119/,
    ['add-learned', '--in', file('x.npy'), '--table', file('model.safetensors'), '--table-tensor', 'wpe.weight', '--offset', '31', '--out', file('bad.npy')]);
  fails(2, /--in .*x4\.npy must be \[seq, dim\] or \[batch, seq, dim\], got \[3, 90, 16, 1\]/,
    ['add-sinusoidal', '--in', (writeNpy('x4.npy', { data: x.data, dims: [3, 90, 16, 1] }), file('x4.npy')), '--out', file('bad.npy')]);
  assert.equal(existsSync(file('bad.npy')), false);
});

test('rope: every layout, from a config or flags, in pieces, equals rope.apply on the whole tensor', () => {
  const q4 = { data: randomFloats(2 * 3 * 70 * 32, 3, -1, 1), dims: [2, 3, 70, 32] };
  writeNpy('q.npy', q4);
  const rotated = (t, options) => { const c = { data: t.data.slice(), dims: t.dims }; pe.rope.apply(c, null, options); return c.data; };
  writeFileSync(file('dyn.json'), JSON.stringify({ ...DYNAMIC, hidden_size: 64, num_attention_heads: 2 }));
  for (const [flags, options] of [
    [['--layout', 'bhsd', '--rotary-dim', '16', '--offset', '5'], { layout: 'bhsd', rotaryDim: 16, offset: 5 }],
    [['--layout', 'bshd', '--pairing', 'interleaved', '--base', '500'], { layout: 'bshd', pairing: 'interleaved', base: 500 }],
    // 70 tokens from offset 20 go past max_position_embeddings 64: dynamic NTK rescales with the whole length
    [['--layout', 'bhsd', '--config', file('dyn.json'), '--offset', '20'], { layout: 'bhsd', ...pe.rope.fromConfig(DYNAMIC), offset: 20 }],
  ]) {
    ok('rope', '--in', file('q.npy'), ...flags, '--out', file('qr.npy'));
    same(readNpy('qr.npy').data, rotated(q4, options), flags.join(' '));
  }
  const q3 = { data: q4.data, dims: [2, 70, 96] };
  writeNpy('q3.npy', q3);
  ok('rope', '--in', file('q3.npy'), '--num-heads', '3', '--offset', '-2', '--out', file('qr.npy'));
  same(readNpy('qr.npy').data, rotated(q3, { numHeads: 3, offset: -2 }), '3-D');
  const q2 = { data: q4.data.subarray(0, 70 * 32), dims: [70, 32] };
  writeNpy('q2.npy', q2);
  ok('rope', '--in', file('q2.npy'), '--config', file('dyn.json'), '--out', file('qr.npy'));
  same(readNpy('qr.npy').data, rotated(q2, { ...pe.rope.fromConfig(DYNAMIC) }), '2-D');

  fails(2, /is 4-D: give --layout bshd/, ['rope', '--in', file('q.npy'), '--out', file('bad.npy')]);
  fails(2, /is \[batch, seq, hidden\]: give --num-heads/, ['rope', '--in', file('q3.npy'), '--out', file('bad.npy')]);
  fails(2, /--rotary-dim must be an even integer from 2 to headDim \(32\), got 15 \[INVALID_ARGUMENT\]/, ['rope', '--in', file('q.npy'), '--layout', 'bhsd', '--rotary-dim', '15', '--out', file('bad.npy')]);
  fails(2, /--rotary-dim must be an even integer from 2 to headDim \(32\), got 64 \[OUT_OF_RANGE\]/, ['rope', '--in', file('q.npy'), '--layout', 'bhsd', '--rotary-dim', '64', '--out', file('bad.npy')]);
  assert.equal(existsSync(file('bad.npy')), false);
  assert.deepEqual(leftovers(), []);
});

test('rope-config: a short table by default, everything with --json', () => {
  writeFileSync(file('config.json'), JSON.stringify(LLAMA3));
  const text = ok('rope-config', file('config.json'));
  assert.match(text, /^.*config\.json: RoPE\n {2}model type {8}llama\n {2}head dim {10}64\n {2}rotary dim {8}64 \(32 pairs\)\n {2}base {14}500000\n/);
  assert.match(text, /\n {2}scaling {11}llama3, factor 8, lowFreqFactor 1, highFreqFactor 4, originalMaxPositionEmbeddings 1024\n/);
  assert.match(text, /\n {2}attention factor {2}1\n {2}diagnostics {7}\d+ pairs kept \(short wavelengths\), \d+ blended, \d+ divided by 8 \(long wavelengths\)\n$/);
  assert.ok(text.split('\n').length < 15, 'a short summary');
  const report = JSON.parse(ok('rope-config', file('config.json'), '--json'));
  const f = pe.rope.frequencies(pe.rope.fromConfig(LLAMA3));
  assert.deepEqual(report.frequencies.invFreq, Array.from(f.invFreq));
  assert.deepEqual(report.frequencies.llama3.band, f.llama3.band);
  const bands = ['unchanged', 'blended', 'divided'].map((b) => f.llama3.band.filter((x) => x === b).length);
  assert.match(text, new RegExp(`${bands[0]} pairs kept \\(short wavelengths\\), ${bands[1]} blended, ${bands[2]} divided by 8`));
  writeFileSync(file('yarn.json'), JSON.stringify(YARN));
  assert.match(ok('rope-config', file('yarn.json')), /attention factor {2}1\.13863\n {2}diagnostics {7}correction range pairs/);
  writeFileSync(file('broken.json'), JSON.stringify({ hidden_size: 64, num_attention_heads: 4, rope_scaling: { rope_type: 'warp' } }));
  fails(2, /broken\.json: .*rope_type.*\[INVALID_CONFIG\]/, ['rope-config', file('broken.json')]);
  fails(2, /the path of a model's config\.json is required/, ['rope-config']);
});

test('--out may be the --in file: it is replaced once the job is done', () => {
  const x = { data: randomFloats(300 * 8, 5, -1, 1), dims: [300, 8] };
  writeNpy('inplace.npy', x);
  ok('add-sinusoidal', '--in', file('inplace.npy'), '--out', file('inplace.npy'));
  const expected = { data: x.data.slice(), dims: x.dims };
  pe.sinusoidal.addTo(expected, {});
  same(readNpy('inplace.npy').data, expected.data, 'in place');
});

test('a failed job leaves no file under the target name, and an old target untouched', () => {
  // float64 input whose last row holds a value beyond float32: found after earlier pieces were written
  const values = Array.from({ length: 200 * 8 }, (_, i) => (i === 200 * 8 - 3 ? 1e300 : i / 1000));
  writeFileSync(file('wide.npy'), npyBytes({ descr: '<f8', shape: [200, 8], data: encodeFloats(values, 'f8') }));
  writeFileSync(file('target.npy'), 'the previous contents');
  fails(2, /1e\+300, beyond the float32 range.*\[OUT_OF_RANGE\]/, ['add-sinusoidal', '--in', file('wide.npy'), '--out', file('target.npy')]);
  assert.equal(readFileSync(file('target.npy'), 'utf8'), 'the previous contents');
  assert.deepEqual(leftovers(), []);

  fails(1, /cannot read .*missing\.npy: no such file/, ['add-sinusoidal', '--in', file('missing.npy'), '--out', file('o.npy')]);
  writeFileSync(file('junk.npy'), 'not a numpy file');
  fails(1, /junk\.npy: not an \.npy file.*\[INVALID_FILE\]/, ['add-sinusoidal', '--in', file('junk.npy'), '--out', file('o.npy')]);
  writeFileSync(file('short.npy'), npyBytes({ shape: [10, 8], data: new Uint8Array(100) }));
  fails(1, /short\.npy: shape \(10, 8\) of float32 needs 320 bytes of data, but the file has 100: it is truncated/, ['add-sinusoidal', '--in', file('short.npy'), '--out', file('o.npy')]);
  fails(1, /cannot write .*no-such-dir\/o\.npy: the directory .*no-such-dir does not exist/, ['sinusoidal', '--length', '4', '--dim', '4', '--out', file('no-such-dir/o.npy')]);
  mkdirSync(file('a-dir.npy'));
  fails(1, /cannot write .*a-dir\.npy: it is a directory/, ['sinusoidal', '--length', '4', '--dim', '4', '--out', file('a-dir.npy')]);
  if (spawnSync('mkfifo', [file('fifo.npy')]).status === 0) {
    fails(1, /cannot write .*fifo\.npy: it is not a regular file/, ['sinusoidal', '--length', '4', '--dim', '4', '--out', file('fifo.npy')]);
  }
  assert.equal(existsSync(file('o.npy')), false);
  assert.deepEqual(leftovers(), []);
});

test('permission and disk-full errors are clear messages', (t) => {
  if (process.getuid?.() !== 0) {
    t.skip('needs root (to run as another user and to mount a small tmpfs)');
    return;
  }
  const locked = file('locked');
  mkdirSync(locked);
  chmodSync(locked, 0o755);
  chmodSync(dir, 0o755);
  fails(1, /cannot write .*locked\/o\.npy: permission denied \(EACCES\)/, ['sinusoidal', '--length', '4', '--dim', '4', '--out', join(locked, 'o.npy')], { uid: 65534 });

  // A 64 KiB file system: a table that cannot fit is refused before writing; two files that each
  // fit but not together run out of space while being written.
  const small = file('small');
  mkdirSync(small);
  const inSmall = (args) => spawnSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs "$0" && exec "$@"', small, process.execPath, cli, ...args],
    { encoding: 'utf8', env: { ...process.env, ...PIECES } });
  const big = inSmall(['sinusoidal', '--length', '1000', '--dim', '100', '--out', join(small, 'big.npy')]);
  if (big.error || /mount|unshare/.test(big.stderr)) {
    t.skip(`cannot mount a tmpfs here: ${big.error?.message ?? big.stderr}`);
    return;
  }
  assert.equal(big.status, 1, big.stderr);
  assert.match(big.stderr, /big\.npy needs 390\.75 KiB, but its file system has 64\.00 KiB free; .*big\.npy was not written/);
  const two = inSmall(['rope-cache', '--rotary-dim', '64', '--max-positions', '400', '--cos', join(small, 'cos.npy'), '--sin', join(small, 'sin.npy')]);
  assert.equal(two.status, 1, two.stderr);
  assert.match(two.stderr, /no space left on the device holding .*(cos|sin)\.npy after [\d.]+ KiB of 50\.13 KiB; .*was not written/);
});

test('an interrupted job removes its temporary file', async () => {
  const target = file('interrupted.npy');
  const child = spawn(process.execPath, [cli, 'sinusoidal', '--length', '200000', '--dim', '256', '--out', target],
    { env: { ...process.env, POSENC_CLI_CHUNK_BYTES: '1024' }, stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  for (let i = 0; i < 400 && leftovers().length === 0; i++) await new Promise((r) => setTimeout(r, 25));
  assert.equal(leftovers().length, 1, 'the job writes into a temporary file');
  child.kill('SIGINT');
  assert.deepEqual(await exited, { code: 130, signal: null });
  assert.deepEqual(leftovers(), []);
  assert.equal(existsSync(target), false);
});

test('progress: on a terminal, never when stderr is a pipe', (t) => {
  const job = [cli, 'sinusoidal', '--length', '30000', '--dim', '256', '--out', file('progress.npy')];
  // Progress shows once a job has run POSENC_CLI_PROGRESS_DELAY_MS (default 1000): 0 here, so that
  // a job of a fraction of a second on any machine shows it.
  const now = { ...process.env, POSENC_CLI_CHUNK_BYTES: '1024', POSENC_CLI_PROGRESS_DELAY_MS: '0' };
  const piped = spawnSync(process.execPath, job, { encoding: 'utf8', env: now });
  assert.equal(piped.status, 0, piped.stderr);
  assert.equal(piped.stderr, '');
  const onTerminal = (env) => spawnSync('script', ['-qec', `${[process.execPath, ...job].map((a) => `'${a}'`).join(' ')} 2>&1 >/dev/null`, '/dev/null'],
    { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
  const tty = onTerminal(now);
  if (tty.error) {
    t.skip(`no script(1) for a pseudo-terminal: ${tty.error.message}`);
    return;
  }
  assert.equal(tty.status, 0, tty.stdout);
  assert.match(tty.stdout, /\rsinusoidal {2}[\d.]+ (KiB|MiB) \/ 29\.30 MiB {2} *\d+% {2}[\d.]+ (KiB|MiB)\/s {2}ETA \d+s\x1b\[K/);
  assert.match(tty.stdout, /\r\x1b\[K$/, 'the line is cleared at the end');
  // with the default delay, a job this short shows nothing
  assert.equal(onTerminal({ ...now, POSENC_CLI_PROGRESS_DELAY_MS: '' }).stdout, '');
});

test('the progress line: bytes, percent, rate and time left', async () => {
  const { formatBytes, formatDuration, formatProgress, Progress } = await import('../../dist/cli/progress.js');
  assert.equal(formatBytes(512), '512 B');
  assert.equal(formatBytes(1536), '1.50 KiB');
  assert.equal(formatBytes(2 ** 31), '2.00 GiB');
  assert.equal(formatDuration(7.4), '7s');
  assert.equal(formatDuration(125), '2m05s');
  assert.equal(formatDuration(3720), '1h02m');
  assert.equal(formatProgress('sinusoidal', 0, 2 ** 31, 0.5), 'sinusoidal  0 B / 2.00 GiB    0%');
  assert.equal(formatProgress('sinusoidal', 2 ** 30, 2 ** 31, 4), 'sinusoidal  1.00 GiB / 2.00 GiB   50%  256.00 MiB/s  ETA 4s');
  let now = 0;
  const written = [];
  const p = new Progress('job', 1000, { isTTY: true, write: (s) => written.push(s) }, () => now);
  p.advance(100);
  now = 900;
  p.advance(100);
  assert.deepEqual(written, [], 'nothing in the first second');
  now = 1000;
  p.advance(300);
  assert.deepEqual(written, ['\rjob  500 B / 1000 B   50%  500 B/s  ETA 1s\x1b[K']);
  now = 1100;
  p.advance(100);
  assert.equal(written.length, 1, 'at most five redraws a second');
  p.end();
  assert.equal(written.at(-1), '\r\x1b[K');
  const quiet = [];
  const q = new Progress('job', 10, { isTTY: false, write: (s) => quiet.push(s) }, () => (now += 5000));
  q.advance(5);
  q.end();
  assert.deepEqual(quiet, []);
});
