// `posenc plan`: the per-layer summary of a config.json (grouped layers) and of a GGUF file, the
// plan as JSON, and clear errors for bad arguments.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const cli = fileURLToPath(new URL('../../dist/cli/cli.js', import.meta.url));
const fixtures = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const run = (...args) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });

test('posenc plan config.json groups identical layers', () => {
  const r = run('plan', join(fixtures, 'gemma-2-9b-it.json'));
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines[0], 'gemma2: 42 layers, 16 heads (8 key/value), head 256, 8192 positions');
  assert.match(lines[1], /^layers 0, 2, 4, .*, 40: sliding window 4096; RoPE base 10000, head 256, half$/);
  assert.match(lines[2], /^layers 1, 3, .*, 41: global; RoPE base 10000, head 256, half$/);
  const q = run('plan', join(fixtures, 'qwen3-vl-2b-instruct.json'));
  assert.match(q.stdout, /layers 0-27: global; RoPE base 5e6, head 128, half, M-RoPE sections \[24, 20, 20\] interleaved/);
});

test('posenc plan --json prints the plan; a .gguf file is read as GGUF', () => {
  const r = run('plan', join(fixtures, 'llama-3.2-1b-instruct.json'), '--json');
  const plan = JSON.parse(r.stdout);
  assert.equal(plan.layers.length, 16);
  assert.equal(plan.layers[0].rope.spec.scaling.type, 'llama3');
  const dir = mkdtempSync(join(tmpdir(), 'posenc-plan-'));
  const parts = [Buffer.from('GGUF')];
  const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); parts.push(b); };
  const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); parts.push(b); };
  const str = (s) => { u64(s.length); parts.push(Buffer.from(s)); };
  u32(3); u64(0); u64(3);
  str('general.architecture'); u32(8); str('bloom');
  str('bloom.block_count'); u32(4); u32(2);
  str('bloom.attention.head_count'); u32(4); u32(16);
  const path = join(dir, 'tiny.gguf');
  writeFileSync(path, Buffer.concat(parts));
  const g = run('plan', path);
  assert.equal(g.status, 1, 'bloom.embedding_length is missing: the file cannot be used');
  assert.match(g.stderr, /bloom\.embedding_length is required \[INVALID_FILE\]/);
});

test('posenc plan: bad arguments are clear messages', () => {
  const missing = run('plan', join(fixtures, 'no-such-model.json'));
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /^posenc plan: .*no-such-model\.json/);
  assert.match(run('plan').stderr, /the path of a config\.json or \.gguf file is required/);
  assert.match(run('plan', join(fixtures, 'gemma-2-9b-it.json'), '--seq-len', 'x').stderr, /--seq-len/);
});
