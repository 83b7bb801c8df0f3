// The tool commands of the `posenc` program: shift, permute (and doctor, precision), each against
// the API it calls, with clear messages for bad arguments.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

import { createPosEnc, randomFloats } from './helpers.mjs';

const pe = await createPosEnc();
const cli = fileURLToPath(new URL('../../dist/cli/cli.js', import.meta.url));
const fixtures = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const run = (...args) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
const dir = mkdtempSync(join(tmpdir(), 'posenc-tools-'));
const writeJson = (name, tensor) => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ dims: tensor.dims, data: Array.from(tensor.data) }));
  return path;
};
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

test('posenc shift moves keys as pe.rope.shift does (explicit spec and a config layer)', () => {
  const data = randomFloats(5 * 16, 61);
  const keys = { data: data.slice(), dims: [5, 16] };
  pe.rope.apply(keys, null, { base: 500000, positionIds: [0, 1, 5, 6, 7] });
  const input = writeJson('k.json', keys);
  const out = join(dir, 'k2.json');
  const r = run('shift', '--in', input, '--out', out, '--base', '500000', '--positions', '0,1,5,6,7', '--new-offset', '0');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /wrote .*k2\.json: keys moved to their new positions \[5, 16\] float32/);
  const want = { data: data.slice(), dims: [5, 16] };
  pe.rope.apply(want, null, { base: 500000, offset: 0 });
  const got = readJson(out);
  assert.deepEqual(got.dims, [5, 16]);
  got.data.forEach((v, i) => assert.ok(Math.abs(v - want.data[i]) < 1e-6, `${i}`));

  // Layer 0 of Llama 3.2 1B (llama3 scaling), 32 heads of 64 lanes in a [1, 2, 2048] tensor
  const spec = pe.rope.fromConfig(readFileSync(join(fixtures, 'llama-3.2-1b-instruct.json'), 'utf8'));
  const big = { data: randomFloats(2 * 2048, 62), dims: [1, 2, 2048] };
  const rotated = { data: big.data.slice(), dims: big.dims };
  pe.rope.apply(rotated, null, { ...spec, numHeads: 32, offset: 9000 });
  const cfg = run('shift', '--in', writeJson('kb.json', rotated), '--out', out, '--config', join(fixtures, 'llama-3.2-1b-instruct.json'),
    '--num-heads', '32', '--offset', '9000', '--delta=-100,-200');
  assert.equal(cfg.status, 0, cfg.stderr);
  const direct = { data: big.data.slice(), dims: big.dims };
  pe.rope.apply(direct, null, { ...spec, numHeads: 32, positionIds: [8900, 8801] });
  readJson(out).data.forEach((v, i) => assert.ok(Math.abs(v - direct.data[i]) < 1e-6, `${i}`));
});

test('posenc shift: refusals and bad arguments are clear messages', () => {
  const input = writeJson('k1.json', { data: new Float32Array(16), dims: [2, 8] });
  const out = join(dir, 'x.json');
  assert.match(run('shift', '--in', input, '--out', out).stderr, /say where the keys go: --delta, --new-offset or --new-positions is required/);
  assert.match(run('shift', '--in', input, '--out', out, '--delta', '1,x').stderr, /--delta: value 1 \('x'\) is not a finite number/);
  assert.match(run('shift', '--in', input, '--out', out, '--delta', '1', '--layer', '2').stderr, /--layer needs --config/);
  assert.match(run('shift', '--in', input, '--out', out, '--delta', '1', '--positions', '4').stderr, /--positions holds 1 values; the tensor has 2 tokens, one value each \(or use --offset\)/);
  assert.match(run('shift', '--in', input, '--out', out, '--delta', '-3').stdout, /wrote .*x\.json/, 'a negative number is a value');
  const gemma = run('shift', '--in', input, '--out', out, '--delta', '1', '--config', join(fixtures, 'llama-3.2-1b-instruct.json'), '--layer', '99');
  assert.equal(gemma.status, 2);
  assert.match(gemma.stderr, /--layer 99 is outside the model's 16 layers/);
});

test('posenc permute reorders rows as pe.rope.permuteWeights does, and back', () => {
  const w = { data: randomFloats(24 * 3, 63), dims: [24, 3] };
  const input = writeJson('w.json', w);
  const half = join(dir, 'w_half.json');
  const r = run('permute', '--in', input, '--to', 'half', '--num-heads', '3', '--rotary-dim', '6', '--out', half);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /wrote .*w_half\.json: rows reordered for the half pairing: \[24, 3\] float32/);
  assert.deepEqual(readJson(half).data, Array.from(pe.rope.permuteWeights(w, { to: 'half', numHeads: 3, rotaryDim: 6 }).data));
  const back = join(dir, 'w_back.json');
  assert.equal(run('permute', '--in', half, '--to', 'interleaved', '--num-heads', '3', '--rotary-dim', '6', '--out', back).status, 0);
  assert.deepEqual(readJson(back).data, Array.from(w.data));
  assert.match(run('permute', '--in', input, '--to', 'half', '--out', back).stderr, /--num-heads is required/);
  assert.match(run('permute', '--in', input, '--to', 'sideways', '--num-heads', '3', '--out', back).stderr, /--to/);
  assert.match(run('permute', '--in', input, '--to', 'half', '--num-heads', '5', '--out', back).stderr, /the weight has 24 output rows, and --num-heads 5 does not divide them/);

  // A .safetensors file of several tensors: --in-tensor picks one, as for every --in
  const model = join(dir, 'model.safetensors');
  writeFileSync(model, pe.io.writeSafetensors({ 'k_proj.weight': w, 'q_proj.weight': { data: new Float32Array(24), dims: [24] } }));
  assert.match(run('permute', '--in', model, '--to', 'half', '--num-heads', '3', '--out', back).stderr, /holds 2 tensors; choose one with --in-tensor \(k_proj\.weight, q_proj\.weight\)/);
  assert.equal(run('permute', '--in', model, '--in-tensor', 'k_proj.weight', '--to', 'half', '--num-heads', '3', '--rotary-dim', '6', '--out', back).status, 0);
  assert.deepEqual(readJson(back).data, readJson(half).data);
});

test('posenc doctor config.json lists the findings of pe.doctor.config; --before/--after identifies', () => {
  const r = run('doctor', join(fixtures, 'phi-3-mini-128k-instruct.json'));
  assert.equal(r.status, 0, r.stderr);
  const findings = pe.doctor.config(readFileSync(join(fixtures, 'phi-3-mini-128k-instruct.json'), 'utf8')).findings;
  assert.match(r.stdout, new RegExp(`${findings.length} findings:`));
  for (const f of findings) assert.ok(r.stdout.includes(`- ${f.key ? `${f.key}: ` : ''}${f.text}`), f.text);
  const json = JSON.parse(run('doctor', join(fixtures, 'phi-3-mini-128k-instruct.json'), '--json').stdout);
  assert.deepEqual(json.findings, findings);

  const before = { data: randomFloats(12 * 64, 64), dims: [12, 64] };
  const after = { data: before.data.slice(), dims: [12, 64] };
  pe.rope.apply(after, null, { pairing: 'interleaved', base: 500000, offset: 20 });
  const id = run('doctor', '--before', writeJson('b.json', before), '--after', writeJson('a.json', after));
  assert.equal(id.status, 0, id.stderr);
  assert.match(id.stdout, /pairing +interleaved\nrotary dim +64 of 64 lanes\nbase +500000\nscaling +none/);
  assert.match(id.stdout, /offset +20 \(the rotation used the positions given \+ 20\)/);
  assert.match(id.stdout, /confidence +medium\nnote: 2 of 32 pairs turn too little between the positions given/); // 12 positions, base 500000
  assert.match(id.stdout, /spec: \{"headDim":64,"rotaryDim":64,"base":500000,"pairing":"interleaved"\}/);
  assert.match(run('doctor').stderr, /give a config\.json, or --before and --after tensor files/);
  const both = join(dir, 'both.safetensors');
  writeFileSync(both, pe.io.writeSafetensors({ before, after }));
  const picked = run('doctor', '--before', both, '--before-tensor', 'before', '--after', both, '--after-tensor', 'after');
  assert.equal(picked.stdout, id.stdout, 'each file flag has its own tensor flag');
  assert.match(run('doctor', '--before', both, '--after', both).stderr, /choose one with --before-tensor/);
  assert.match(run('doctor', '--before', writeJson('b.json', before), '--after', writeJson('b2.json', before)).stderr,
    /^posenc doctor: the tensors before and after are equal: there is no rotation to identify \[INVALID_ARGUMENT\]/);
  assert.match(run('doctor', join(fixtures, 'gpt2.json'), '--before', 'x.npy').stderr, /do not go together/);
});

test('posenc precision prints the oracle by ranges of positions', () => {
  const r = run('precision', '--rotary-dim', '64', '--base', '10000', '--context', '2048', '--steps');
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n');
  assert.equal(lines[0], 'the RoPE given: RoPE rotary dim 64, base 10000, default; positions 0-2047');
  assert.match(lines[2], /^positions +hf-float32 +hf-float16 +hf-bfloat16 +ggml-float32 +ggml-float16$/);
  assert.match(lines[3], /^0-15 /);
  assert.match(r.stdout, /\n1024-2047 /);
  assert.match(r.stdout, /hf-float16:\n {2}inv_freq: float32/);
  assert.match(r.stderr, /^5 pipelines x 2048 positions x 32 pairs in \d+\.\d+ s\n$/);
  // The table's last row is the oracle's maximum over those positions
  const report = pe.precision.oracle({ rotaryDim: 64, base: 10000 }, { contextLength: 2048 });
  const last = lines.find((l) => l.startsWith('1024-2047')).trim().split(/ +/).slice(1).map(Number);
  report.pipelines.forEach((p, k) => assert.equal(last[k], Number(Math.max(...p.rotationError.slice(1024)).toExponential(1))));
  const cfg = run('precision', join(fixtures, 'llama-3.2-1b-instruct.json'), '--context', '512', '--pipelines', 'hf-bfloat16', '--json');
  const json = JSON.parse(cfg.stdout);
  assert.equal(json.spec.scalingType, 'llama3');
  assert.deepEqual(json.pipelines.map((p) => p.name), ['hf-bfloat16']);
  assert.match(run('precision', '--rotary-dim', '64').stderr, /--context/);
  assert.match(run('precision', '--context', '64').stderr, /give a config\.json or --rotary-dim/);
  // API messages speak of flags, without the API function's name
  assert.match(run('precision', '--rotary-dim', '64', '--context', '64', '--pipelines', 'tpu-float8').stderr, /^posenc precision: --pipelines\[0\] must be 'hf-float32'/);
  assert.match(run('precision', join(fixtures, 'llama-3.2-1b-instruct.json'), '--context', '64', '--layer', '99').stderr,
    /^posenc precision: --layer 99 is outside the model's 16 layers \[OUT_OF_RANGE\]/);
});

test('rope-config and rope point a model whose layers differ to posenc plan and --layer-type', () => {
  for (const command of [['rope-config'], ['rope', '--in', writeJson('q1.json', { data: new Float32Array(256), dims: [1, 256] }), '--out', join(dir, 'q2.json'), '--config']]) {
    const r = run(...command, join(fixtures, 'gemma-3-1b-it.json'));
    assert.equal(r.status, 2);
    assert.match(r.stderr, new RegExp(`^posenc ${command[0]}: .*gemma-3-1b-it\\.json: the model's layers differ \\(.*\\): use 'posenc plan' ` +
      'for the per-layer plan, or pick layers with --layer-type: sliding_attention, full_attention \\[INVALID_CONFIG\\]'));
  }
});
