// The cost of posenc's bounded calls at their documented limits (docs/reliability.md, "Bounded
// cost"): each case runs in its own Node process, which reports the call's wall time, the growth of
// its peak resident memory (maxRSS) and of WebAssembly memory. Prints the Markdown table.
//
//   node tests/bench/limits.mjs              every case (needs dist/: npm run build)
//   node tests/bench/limits.mjs --case NAME  one case, as JSON (what the table's rows run)
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CASES = {
  'model.fromConfig': { limit: '65536 layers (MAX_LAYERS)', run: (pe, c) => pe.model.fromConfig(c.config) },
  'model.summarize': { limit: '65536 layers', setup: (pe, c) => ({ plan: pe.model.fromConfig(c.config) }), run: (pe, c) => pe.model.summarize(c.plan) },
  'model.summarize (a JSON copy)': {
    limit: '65536 layers, read and checked on each call',
    setup: (pe, c) => ({ plan: JSON.parse(JSON.stringify(pe.model.fromConfig(c.config))) }), run: (pe, c) => pe.model.summarize(c.plan),
  },
  'model.apply (a JSON copy)': {
    limit: '65536 layers, read and checked on each call',
    setup: (pe, c) => ({ plan: JSON.parse(JSON.stringify(pe.model.fromConfig(c.config))) }),
    run: (pe, c) => pe.model.apply(c.plan, 0, new Float32Array(64), null, { dims: [1, 64] }),
  },
  'doctor.config': { limit: '65536 layers', run: (pe, c) => pe.doctor.config(c.config) },
  'doctor.identify': {
    limit: 'none beyond the tensors: at most 9 fits of each lane pair and row (shown: 8192 lanes, 64 tokens)',
    setup: (pe) => {
      const before = Float32Array.from({ length: 64 * 8192 }, (_, i) => Math.sin(i));
      const after = before.slice();
      pe.rope.apply(after, null, { dims: [64, 8192], rotaryDim: 4096 });
      return { before, after };
    },
    run: (pe, c) => pe.doctor.identify(c.before, c.after, { dims: [64, 8192] }),
  },
  'precision.oracle': {
    limit: 'contextLength × rotaryDim/2 ≤ 2^26, rotaryDim ≤ 65536 (shown: 2^20 positions, 128 lanes)',
    run: (pe) => pe.precision.oracle({ rotaryDim: 128, base: 10000 }, { contextLength: 2 ** 20, bucket: 4096 }),
  },
  'precision.oracle (refused)': {
    limit: 'rotaryDim 2^27: refused before anything is allocated',
    run: (pe) => { try { pe.precision.oracle({ rotaryDim: 2 ** 27, base: 10000 }, { contextLength: 8 }); } catch (e) { if (e.code !== 'OUT_OF_RANGE') throw e; } },
  },
};

const LAYERS = { model_type: 'llama', num_hidden_layers: 65536, hidden_size: 64, num_attention_heads: 1, rope_theta: 10000 };

async function runCase(name) {
  const { createPosEnc } = await import('../../dist/node.js');
  const pe = await createPosEnc();
  const c = CASES[name];
  const ctx = { config: LAYERS };
  Object.assign(ctx, c.setup?.(pe, ctx));
  const rss0 = process.resourceUsage().maxRSS;
  const wasm0 = pe.memory.bytes;
  const t0 = performance.now();
  c.run(pe, ctx);
  const ms = performance.now() - t0;
  console.log(JSON.stringify({ ms, rssKiB: process.resourceUsage().maxRSS - rss0, wasmBytes: pe.memory.bytes - wasm0 }));
}

const i = process.argv.indexOf('--case');
if (i > 0) {
  await runCase(process.argv[i + 1]);
} else {
  const me = fileURLToPath(import.meta.url);
  console.log('| call | limit | time | peak RSS growth | WebAssembly memory growth |');
  console.log('| --- | --- | ---: | ---: | ---: |');
  for (const [name, c] of Object.entries(CASES)) {
    const out = spawnSync(process.execPath, [me, '--case', name], { encoding: 'utf8' });
    if (out.status !== 0) throw new Error(`${name}: ${out.stderr}`);
    const r = JSON.parse(out.stdout.trim().split('\n').pop());
    const time = r.ms < 1000 ? `${r.ms.toFixed(r.ms < 10 ? 1 : 0)} ms` : `${(r.ms / 1000).toFixed(1)} s`;
    console.log(`| \`${name}\` | ${c.limit} | ${time} | ${(r.rssKiB / 1024).toFixed(0)} MiB | ${(r.wasmBytes / 2 ** 20).toFixed(0)} MiB |`);
  }
}
