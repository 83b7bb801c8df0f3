// The posenc command's input files when they are not what they should be: a missing path, a
// directory, a device or an unreadable file for every file argument; JSON holding null, a number, a
// string or an array; tensor values that are not numbers or overflow float32; .safetensors files
// whose tensors leave gaps or trailing bytes. Each is a one-line message naming the path (and the
// element), an exit code of 1, and never a stack trace.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { createPosEnc } from './helpers.mjs';
import { encodeFloats, safetensorsBytes } from './io-fixtures.mjs';

const pe = await createPosEnc();
const cli = fileURLToPath(new URL('../../dist/cli/cli.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'posenc-cli-inputs-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name) => join(dir, name);

function posenc(args, { uid } = {}) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', ...(uid === undefined ? {} : { uid, gid: uid }), timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr, signal: r.signal };
}
/** A run that fails with `code` and a one-line message matching `pattern`: no stack, nothing on stdout. */
function fails(code, pattern, args, options) {
  const r = posenc(args, options);
  assert.equal(r.signal, null, `posenc ${args.join(' ')} was killed (${r.signal}): it hung`);
  assert.equal(r.code, code, `posenc ${args.join(' ')}: exit ${r.code}, stderr ${r.err}`);
  assert.match(r.err, pattern, `posenc ${args.join(' ')}`);
  assert.doesNotMatch(r.err, /\n\s+at |TypeError|ReferenceError|RangeError|node:internal/, `posenc ${args.join(' ')}: a stack trace or host error`);
  assert.equal(r.out, '');
  return r.err;
}

const CONFIG = { model_type: 'llama', hidden_size: 64, num_attention_heads: 2, max_position_embeddings: 64 };
writeFileSync(file('config.json'), JSON.stringify(CONFIG));
writeFileSync(file('q.npy'), pe.io.writeNpy({ data: new Float32Array(2 * 32).fill(0.5), dims: [2, 32] }));
mkdirSync(file('a-dir.json'));
mkdirSync(file('a-dir.npy'));
mkdirSync(file('a-dir.safetensors'));

/**
 * Every command and file argument, as a function of the path to give it (a config.json for config
 * arguments, a tensor file for tensor arguments; `ext` is the tensor file's extension).
 */
const FILE_ARGUMENTS = [
  ['rope-config', 'config', (p) => ['rope-config', p]],
  ['plan', 'config', (p) => ['plan', p]],
  ['doctor', 'config', (p) => ['doctor', p]],
  ['precision', 'config', (p) => ['precision', p, '--context', '64']],
  ['rope-cache --config', 'config', (p) => ['rope-cache', '--config', p, '--max-positions', '4', '--out', file('o.safetensors')]],
  ['rope --config', 'config', (p) => ['rope', '--in', file('q.npy'), '--config', p, '--out', file('o.npy')]],
  ['rope --in', 'tensor', (p) => ['rope', '--in', p, '--rotary-dim', '32', '--out', file('o.npy')]],
  ['add-sinusoidal --in', 'tensor', (p) => ['add-sinusoidal', '--in', p, '--out', file('o.npy')]],
  ['add-learned --table', 'tensor', (p) => ['add-learned', '--in', file('q.npy'), '--table', p, '--out', file('o.npy')]],
  ['t5-bias --table', 'tensor', (p) => ['t5-bias', '--table', p, '--q-len', '2', '--k-len', '2', '--out', file('o.npy')]],
  ['permute --in', 'tensor', (p) => ['permute', '--in', p, '--to', 'half', '--num-heads', '1', '--out', file('o.npy')]],
  ['doctor --before', 'tensor', (p) => ['doctor', '--before', p, '--after', file('q.npy')]],
  ['doctor --after', 'tensor', (p) => ['doctor', '--before', file('q.npy'), '--after', p]],
];

test('every file argument: a missing path, a directory or a device is a clear message naming it', () => {
  const quoted = (path) => path.replace(/[.]/g, '\\.');
  for (const [what, kind, args] of FILE_ARGUMENTS) {
    // every kind of tensor file for one argument (they open differently), one for the others
    const exts = kind === 'config' ? ['.json'] : what === 'add-sinusoidal --in' ? ['.npy', '.safetensors', '.json'] : ['.npy'];
    for (const ext of exts) {
      const missing = file(`missing${ext}`);
      fails(1, new RegExp(`cannot read ${quoted(missing)}: no such file \\[FILE_NOT_FOUND\\]`), args(missing));
      const folder = file(`a-dir${ext}`);
      fails(1, new RegExp(`cannot read ${quoted(folder)}: it is a directory \\[NOT_A_FILE\\]`), args(folder));
    }
  }
  fails(1, /cannot read .*q\.npy\/x\.npy: a part of the path is not a directory \(ENOTDIR\) \[FILE_NOT_FOUND\]/,
    ['add-sinusoidal', '--in', file('q.npy/x.npy'), '--out', file('o.npy')]);
  // a device or a pipe is never read (/dev/zero would never end; a FIFO would wait for a writer)
  for (const args of [['rope-config', '/dev/zero'], ['plan', '/dev/zero'], ['doctor', '/dev/zero']]) {
    fails(1, /cannot read \/dev\/zero: not a regular file \(a device, socket or pipe\) \[NOT_A_FILE\]/, args);
  }
  for (const name of ['fifo.npy', 'fifo.json']) {
    assert.equal(spawnSync('mkfifo', [file(name)]).status, 0, 'mkfifo');
    fails(1, new RegExp(`cannot read .*${name.replace('.', '\\.')}: not a regular file .*\\[NOT_A_FILE\\]`), ['add-sinusoidal', '--in', file(name), '--out', file('o.npy')]);
  }
});

test('an input file without read permission is FILE_UNREADABLE', (t) => {
  if (process.getuid?.() !== 0) {
    t.skip('needs root, to run as another user (root reads any file)');
    return;
  }
  const locked = file('locked.json');
  writeFileSync(locked, JSON.stringify(CONFIG));
  chmodSync(locked, 0o000);
  chmodSync(dir, 0o755);
  fails(1, /cannot read .*locked\.json: permission denied \(EACCES\) \[FILE_UNREADABLE\]/, ['rope-config', locked], { uid: 65534 });
  const lockedNpy = file('locked.npy');
  writeFileSync(lockedNpy, pe.io.writeNpy({ data: new Float32Array(4), dims: [1, 4] }));
  chmodSync(lockedNpy, 0o000);
  fails(1, /cannot read .*locked\.npy: permission denied \(EACCES\) \[FILE_UNREADABLE\]/, ['add-sinusoidal', '--in', lockedNpy, '--out', file('o.npy')], { uid: 65534 });
});

test('a config.json holding null, a number, a string or an array is INVALID_CONFIG, not a TypeError', () => {
  for (const [text, held] of [['null', 'null'], ['42', '42'], ['"llama"', "'llama'"], ['[1, 2]', 'an array of length 2'], ['true', 'boolean']]) {
    const path = file('odd-config.json');
    writeFileSync(path, text);
    for (const [what, kind, args] of FILE_ARGUMENTS) {
      if (kind !== 'config' || (text !== 'null' && what !== 'rope-config')) continue; // every text for one, null for all
      const err = fails(2, new RegExp(`odd-config\\.json: expected a JSON object \\{ \\.\\.\\. \\}, the file holds ${held.replace(/[[\]]/g, '\\$&')} \\[INVALID_CONFIG\\]`), args(path));
      assert.ok(err.split('\n').filter(Boolean).length <= 2, `${what} ${text}: ${err}`);
    }
  }
});

test('a .json tensor holding null, a number, a string or an array is INVALID_FILE', () => {
  const path = file('odd.json');
  for (const [text, pattern] of [
    ['null', /expected an object \{ "dims": \[\.\.\.\], "data": \[\.\.\.\] \}, the file holds null/],
    ['3', /the file holds 3/],
    ['"x"', /the file holds 'x'/],
    ['[1, 2, 3]', /the file holds an array of length 3/],
    ['{"dims": [2], "data": [1, 2], "extra": 1}', /unknown key 'extra'/],
    ['{"dims": [2, -1], "data": []}', /"dims" must be an array of sizes/],
    ['{"dims": [2], "data": {"0": 1}}', /"data" must be an array of numbers/],
    ['{"dims": [1, 3], "data": [1, 2]}', /dims \[1, 3\] need 3 values, data has 2/],
  ]) {
    writeFileSync(path, text);
    fails(1, new RegExp(`odd\\.json: (.* )?${pattern.source}.*\\[INVALID_FILE\\]`), ['add-sinusoidal', '--in', path, '--out', file('o.npy')]);
  }
});

test('.json tensor values: not a number, or beyond float32, is refused with its index (never written as null or 0)', () => {
  const path = file('values.json');
  const cases = [
    ['{"dims":[1,2],"data":["a",1e39]}', /data\[0\] is 'a', not a number/],
    ['{"dims":[1,2],"data":[1,1e39]}', /data\[1\] is 1e\+39, beyond the float32 range \(±3\.4e38\)/],
    ['{"dims":[1,2],"data":[1,-3.5e38]}', /data\[1\] is -3\.5e\+38, beyond the float32 range/],
    ['{"dims":[1,2],"data":[1e400,1]}', /data\[0\] is a number beyond the float64 range, beyond the float32 range/],
    ['{"dims":[1,2],"data":[1,null]}', /data\[1\] is null, not a number/],
    ['{"dims":[1,2],"data":[1,true]}', /data\[1\] is boolean, not a number/],
    ['{"dims":[1,2],"data":[1,"infinity"]}', /data\[1\] is 'infinity', not a number/],
    ['{"dims":[1,2],"data":[1,[2]]}', /data\[1\] is an array of length 1, not a number/],
  ];
  for (const [text, pattern] of cases) {
    writeFileSync(path, text);
    const readers = [['add-sinusoidal', '--in', path, '--out', file('o.json')], ['permute', '--in', path, '--to', 'half', '--num-heads', '1', '--out', file('o.json')]];
    for (const args of text === cases[0][0] ? readers : readers.slice(0, 1)) {
      rmSync(file('o.json'), { force: true });
      fails(1, new RegExp(`values\\.json: ${pattern.source}.*\\[INVALID_FILE\\]`), args);
    }
  }
  // the largest float32 and the documented strings still go through
  writeFileSync(path, JSON.stringify({ dims: [1, 2], data: [3.4028234663852886e38, '-Infinity'] }));
  const r = posenc(['add-sinusoidal', '--in', path, '--out', file('ok.json')]);
  assert.equal(r.code, 0, r.err);
});

test('.safetensors inputs: tensors with a gap, or bytes after the last tensor, are INVALID_FILE', () => {
  const entry = (values) => ({ dtype: 'F32', shape: [1, values.length], data: encodeFloats(values, 'f4') });
  const good = safetensorsBytes({ t: entry(new Array(32).fill(0.25)) });
  writeFileSync(file('good.safetensors'), good);
  assert.equal(posenc(['add-sinusoidal', '--in', file('good.safetensors'), '--out', file('o.npy')]).code, 0);
  const trailing = new Uint8Array(good.length + 4);
  trailing.set(good);
  writeFileSync(file('trailing.safetensors'), trailing);
  fails(1, /trailing\.safetensors: the file has 4 bytes after the last tensor \('t', ending at byte \d+\).*\[INVALID_FILE\]/,
    ['add-sinusoidal', '--in', file('trailing.safetensors'), '--out', file('o.npy')]);
  const gap = safetensorsBytes({ d: { dtype: 'U8', shape: [136], data: new Uint8Array(136) } }, {
    headerJson: '{"a": {"dtype": "F32", "shape": [1, 32], "data_offsets": [0, 128]}, "b": {"dtype": "F32", "shape": [1], "data_offsets": [132, 136]}}',
  });
  writeFileSync(file('gap.safetensors'), gap);
  fails(1, /gap\.safetensors: tensor 'b' starts at data byte 132, but 'a' ends at 128: the file has a gap between tensors \[INVALID_FILE\]/,
    ['add-sinusoidal', '--in', file('gap.safetensors'), '--in-tensor', 'a', '--out', file('o.npy')]);
});

test('a .json output too large to hold in memory is refused up front, with the streamed formats named', () => {
  const err = fails(2, /too many for a \.json file.*\.npy or \.safetensors/, ['sinusoidal', '--length', '65536', '--dim', '128', '--out', file('big.json')]);
  assert.match(err, /8388608 values/);
  assert.equal(posenc(['sinusoidal', '--length', '4', '--dim', '8', '--out', file('small.json')]).code, 0, 'a small .json still works');
});
