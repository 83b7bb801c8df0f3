// The package as users get it in Node: `npm pack`, installed into an empty folder, then imported from
// Node ESM, CommonJS and a worker thread, bundled for Node by esbuild, run as a command, and
// type-checked by strict TypeScript consumers of each module setting.
import assert from 'node:assert/strict';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { BIN, COMPUTE, ROOT, checkResult, packAndInstall, removeWork, sh } from './support.mjs';

let ctx;
before(() => { ctx = packAndInstall('posenc-pack-'); });
after(() => removeWork(ctx.work));

const node = (file, args = []) => sh(process.execPath, [file, ...args], ctx.app);
const write = (file, text) => writeFileSync(join(ctx.app, file), text);

test('the tarball holds the built package, its docs and nothing else', () => {
  for (const f of ['package.json', 'README.md', 'LICENSE', 'dist/posenc.wasm', 'dist/posenc.mjs', 'dist/index.js', 'dist/node.js',
    'dist/index.d.ts', 'dist/node.d.ts', 'dist/index.cjs', 'dist/index.d.cts', 'dist/embedded.js', 'dist/embedded.d.ts',
    'dist/wasm-base64.js', 'dist/webgpu/index.js', 'dist/webgpu/index.d.ts']) {
    assert.ok(ctx.files.includes(f), `${f} is packed`);
  }
  for (const f of ctx.files) assert.match(f, /^(dist\/|docs\/[^/]+\.md$|package\.json$|README\.md$|LICENSE$)/, `${f} should not be packed`);
  // Every docs/ link of the README resolves inside the tarball.
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  for (const [, target] of readme.matchAll(/\]\((?:\.\/)?(docs\/[^)#\s]+)/g)) assert.ok(ctx.files.includes(target), `README links ${target}, which is packed`);
});

test('package.json is ready to publish: repository, homepage, bugs, engines, exports', () => {
  const pkg = JSON.parse(readFileSync(join(ctx.app, 'node_modules', 'posenc', 'package.json'), 'utf8'));
  assert.equal(pkg.repository.url, 'git+https://github.com/posenc/posenc.git');
  assert.equal(pkg.homepage, 'https://github.com/posenc/posenc#readme');
  assert.equal(pkg.bugs.url, 'https://github.com/posenc/posenc/issues');
  assert.match(pkg.engines.node, /^>=\d+/);
  assert.deepEqual(Object.keys(pkg.exports), ['.', './embedded', './webgpu', './posenc.wasm', './package.json']);
});

test('the packed package.json has no install-time script, and npm install of the tarball warns about none', () => {
  const pkg = JSON.parse(readFileSync(join(ctx.app, 'node_modules', 'posenc', 'package.json'), 'utf8'));
  // npm runs these for a dependency (prepare for one from a tarball, git or a folder)
  for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(pkg.scripts?.[script], undefined, `scripts.${script} is packed`);
  assert.doesNotMatch(ctx.installOutput, /posenc@[^\s]* \(/, `npm install printed a warning about a script of posenc:\n${ctx.installOutput}`);
  assert.doesNotMatch(ctx.installOutput, /install-scripts|allowScripts/, `npm install printed:\n${ctx.installOutput}`);
  // the checkout still builds on npm ci / npm install: npm runs postprepare for the project itself
  const repo = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  assert.equal(repo.scripts.postprepare, 'node scripts/prepare.mjs');
});

test('Node ESM: named exports, one instance, a RoPE call, errors', () => {
  write('esm.mjs', `
    import { createPosEnc, PosEncError, RopeCache, WasmTensor, VERSION } from 'posenc';
    const pe = await createPosEnc();
    const again = await createPosEnc();
    let other = '';
    try { await createPosEnc({ wasmBinary: new Uint8Array(8) }); } catch (e) { other = e instanceof PosEncError ? e.code : 'wrong class'; }
    let code = '';
    try { pe.rope.frequencies({ rotaryDim: 3 }); } catch (e) { code = e instanceof PosEncError ? e.code : 'wrong class'; }
    const cache = pe.rope.createCache({ rotaryDim: 4, maxPositions: 2 });
    const classes = cache instanceof RopeCache && pe.memory.tensor([1]) instanceof WasmTensor && pe.PosEncError === PosEncError;
    console.log(JSON.stringify({ ...(() => {${COMPUTE}})(), same: pe === again, other, code, classes, version: VERSION }));
  `);
  const out = JSON.parse(node('esm.mjs'));
  checkResult(out);
  assert.equal(out.same, true, 'one instance per process');
  assert.equal(out.other, 'INVALID_ARGUMENT', 'a second createPosEnc with other options is refused');
  assert.equal(out.code, 'INVALID_ARGUMENT');
  assert.equal(out.classes, true);
  assert.equal(out.version, JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
});

test('Node CommonJS: require("posenc") has the same named exports as the ES module', () => {
  write('cjs.cjs', `
    const posenc = require('posenc');
    const { createPosEnc, PosEncError, RopeCache, WasmTensor, PositionTable, VERSION } = posenc;
    createPosEnc().then((pe) => {
      let code = '';
      try { pe.learned.lookup({ data: new Float32Array(2), dims: [1, 2] }, { positionIds: [1] }); } catch (e) { code = e instanceof PosEncError ? e.code : 'wrong'; }
      const cache = pe.rope.createCache({ rotaryDim: 4, maxPositions: 2 });
      console.log(JSON.stringify({ ...(() => {${COMPUTE}})(), code, names: Object.keys(posenc).sort(),
        classes: cache instanceof RopeCache && pe.memory.tensor([1]) instanceof WasmTensor && typeof PositionTable === 'function', VERSION }));
    });
  `);
  write('esm-names.mjs', "import * as posenc from 'posenc'; console.log(JSON.stringify(Object.keys(posenc).sort()));");
  const out = JSON.parse(node('cjs.cjs'));
  checkResult(out);
  assert.equal(out.code, 'OUT_OF_RANGE');
  assert.equal(out.classes, true);
  assert.deepEqual(out.names, JSON.parse(node('esm-names.mjs')), 'CommonJS and ESM export the same names');
  assert.ok(out.names.includes('PosEncError') && out.names.includes('VERSION'));
});

test('Node worker_threads: posenc loads and computes inside a worker', () => {
  write('thread.mjs', `
    import { Worker } from 'node:worker_threads';
    const worker = new Worker(new URL('./thread-worker.mjs', import.meta.url));
    worker.once('message', (m) => { console.log(JSON.stringify(m)); worker.terminate(); });
    worker.once('error', (e) => { console.log(JSON.stringify({ error: String(e) })); });
  `);
  write('thread-worker.mjs', `
    import { parentPort } from 'node:worker_threads';
    import { createPosEnc } from 'posenc';
    const pe = await createPosEnc();
    parentPort.postMessage((() => {${COMPUTE}})());
  `);
  checkResult(JSON.parse(node('thread.mjs')));
});

test('posenc/embedded loads in Node with no file at all', () => {
  write('embedded.mjs', `
    import { createPosEnc } from 'posenc/embedded';
    const pe = await createPosEnc();
    console.log(JSON.stringify((() => {${COMPUTE}})()));
  `);
  checkResult(JSON.parse(node('embedded.mjs')));
});

test('posenc/webgpu imports from the installed package beside posenc: its errors are posenc\'s class; Node has no WebGPU', () => {
  write('webgpu.mjs', `
    import { createPosEnc, PosEncError } from 'posenc';
    import { requestPosEncGpu, float16Bits, ropeWgsl, PosEncError as GpuError } from 'posenc/webgpu';
    const pe = await createPosEnc();
    let code = '';
    try { await requestPosEncGpu(pe); } catch (e) { code = e instanceof PosEncError ? e.code : 'wrong class'; }
    const layout = { rows: 8, pairs: 2, pairing: 'half', span: 2, axes: null, dtype: 'float32', width: 4, nopeHeadDim: 0, headDim: 4 };
    console.log(JSON.stringify({ code, same: GpuError === PosEncError, half: float16Bits(1), wgsl: ropeWgsl(layout).functions.rotate }));
  `);
  assert.deepEqual(JSON.parse(node('webgpu.mjs')), { code: 'UNSUPPORTED', same: true, half: 0x3c00, wgsl: 'posenc_rope_rotate' });
});

test('a missing posenc.wasm is LOAD_FAILED naming the path and the fixes', () => {
  const wasm = join(ctx.app, 'node_modules', 'posenc', 'dist', 'posenc.wasm');
  write('missing.mjs', `
    import { createPosEnc } from 'posenc';
    try { await createPosEnc(); console.log('{}'); } catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message })); }
  `);
  renameSync(wasm, wasm + '.away');
  let out;
  try {
    out = JSON.parse(node('missing.mjs'));
  } finally {
    renameSync(wasm + '.away', wasm);
  }
  assert.equal(out.name, 'PosEncError');
  assert.equal(out.code, 'LOAD_FAILED');
  assert.ok(out.message.includes(wasm), out.message);
  assert.match(out.message, /wasmBinary/);
  assert.match(out.message, /posenc\/embedded/);
});

test('esbuild --platform=node --format=cjs: posenc/embedded runs; the default entry says why it cannot', () => {
  write('bundle-embedded.mjs', `import { createPosEnc } from 'posenc/embedded';\ncreatePosEnc().then((pe) => console.log(JSON.stringify((() => {${COMPUTE}})())));\n`);
  write('bundle-default.mjs', `import { createPosEnc } from 'posenc';\ncreatePosEnc().then(() => console.log('{}'), (e) => console.log(JSON.stringify({ code: e.code, message: e.message })));\n`);
  for (const name of ['bundle-embedded', 'bundle-default']) {
    sh(join(BIN, 'esbuild'), [`${name}.mjs`, '--bundle', '--platform=node', '--format=cjs', `--outfile=out/${name}.cjs`, '--log-level=error'], ctx.app);
  }
  checkResult(JSON.parse(node('out/bundle-embedded.cjs')));
  const failed = JSON.parse(node('out/bundle-default.cjs'));
  assert.equal(failed.code, 'LOAD_FAILED');
  assert.match(failed.message, /no import\.meta\.url/);
  assert.match(failed.message, /posenc\/embedded/);
});

test('the posenc command is installed as a bin and runs', () => {
  const out = sh(join(ctx.app, 'node_modules', '.bin', 'posenc'), ['sinusoidal', '--length', '3', '--dim', '4', '--out', join(ctx.app, 't.json')], ctx.app);
  assert.match(out, /t\.json/);
  assert.match(sh(join(ctx.app, 'node_modules', '.bin', 'posenc'), ['info'], ctx.app), /^posenc \d/);
  // its help points to the docs installed with it
  const help = sh(join(ctx.app, 'node_modules', '.bin', 'posenc'), ['--help'], ctx.app);
  assert.ok(help.includes(`Documentation: ${join(ctx.app, 'node_modules', 'posenc', 'docs', 'cli.md')} (online: `), help);
  assert.ok(ctx.files.includes('docs/cli.md'));
});

test('TypeScript consumers type-check against the shipped typings (nodenext, node16, bundler, Node-only)', () => {
  write('use.mts', `
    import { createPosEnc, PosEncError, type Tensor } from 'posenc';
    import { createPosEnc as createEmbedded } from 'posenc/embedded';
    const pe = await createPosEnc({ locateFile: (file: string) => '/assets/' + file });
    const t: Tensor = pe.sinusoidal.table({ length: 2, dim: 4 });
    // @ts-expect-error unknown layout
    pe.sinusoidal.table({ length: 2, dim: 4, layout: 'wrong' });
    // @ts-expect-error the embedded entry takes no loading options
    await createEmbedded({ wasmBinary: new Uint8Array(8) });
    {
      // 'using' with a TS lib that lacks esnext.disposable: posenc's typings bring Symbol.dispose
      using cache = pe.rope.createCache({ rotaryDim: 4, maxPositions: 8 });
      cache.apply(new Float32Array(4), null, { dims: [1, 4] });
    }
    console.log(t, PosEncError.name);
  `);
  write('use.cts', `
    import posenc = require('posenc');
    posenc.createPosEnc().then((pe) => {
      const E: typeof posenc.PosEncError = posenc.PosEncError;
      const v: string = posenc.VERSION;
      return [pe.rope.frequencies({ rotaryDim: 4 }), E, v];
    });
  `);
  write('use-bundler.ts', `
    import { createPosEnc, WasmTensor } from 'posenc';
    export async function run(): Promise<number> {
      const pe = await createPosEnc();
      const w: WasmTensor = pe.memory.tensor([2]);
      return w.size;
    }
  `);
  const config = (name, options, files) => write(name, JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'es2022', lib: ['es2022', 'dom'], types: [], skipLibCheck: false, ...options }, files,
  }));
  config('tsconfig.nodenext.json', { module: 'nodenext', moduleResolution: 'nodenext' }, ['use.mts', 'use.cts']);
  config('tsconfig.node16.json', { module: 'node16', moduleResolution: 'node16' }, ['use.mts', 'use.cts']);
  config('tsconfig.bundler.json', { module: 'esnext', moduleResolution: 'bundler' }, ['use-bundler.ts']);
  // A Node-only project: lib ES2022 and @types/node (this checkout's), no DOM; the typings need no
  // WebAssembly namespace, which such a project does not have.
  write('use-node.mts', `
    import { readFileSync } from 'node:fs';
    import { createPosEnc, type Tensor } from 'posenc';
    const pe = await createPosEnc({ wasmBinary: readFileSync('node_modules/posenc/dist/posenc.wasm') });
    const t: Tensor = pe.io.readNpy(readFileSync('t.npy'));
    console.log(t.dims);
  `);
  config('tsconfig.node-only.json', { module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022'], types: ['node'],
    typeRoots: [join(ROOT, 'node_modules', '@types')] }, ['use.mts', 'use.cts', 'use-node.mts']);
  for (const config of ['tsconfig.nodenext.json', 'tsconfig.node16.json', 'tsconfig.bundler.json', 'tsconfig.node-only.json']) {
    sh(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', config], ctx.app);
  }
});
