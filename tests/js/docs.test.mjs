// The docs run as pasted: every program block of README.md and docs/*.md runs as its own module
// against the built package (js/cjs: written inside the repository, so `import ... from 'posenc'`
// resolves to this package by self-reference, and run in an empty folder; sh: bash in one project
// folder per document with posenc installed, `posenc`/`npx posenc` being the built CLI, stderr
// merged into stdout), and what it prints is compared, character for character, with the output block the text states
// (rules in docs-blocks.mjs). The README's error-code table must list exactly the
// codes of bindings/js/runtime/errors.ts, its layout map must match the tree, and every relative link
// must lead to a file (and heading) of the repository; the README links nothing outside it.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { compareOutput, fencedBlocks, headingAnchor, layoutPaths, maskSeconds, programsOf, tableCodes } from './docs-blocks.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SNIPPETS = join(ROOT, 'build', 'docs-snippets');
const CLI = join(ROOT, 'dist', 'cli', 'cli.js');
const TIMEOUT_MS = 120_000;

const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

/** Runs a command; resolves to { code, stdout, stderr } whatever the exit status. */
function runProgram(file, args, cwd) {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, timeout: TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => resolve({ code: error ? (error.code ?? error.signal) : 0, stdout, stderr }));
  });
}

/**
 * A project folder for a document's shell blocks, as a user's would be after installing posenc:
 * `node_modules/posenc` is this package, so files the blocks write can `import ... from 'posenc'`.
 * The blocks of one document run in order in the same folder (a tutorial's later commands read
 * what its first ones wrote); each js/cjs block runs on its own.
 */
function projectFolder() {
  const cwd = mkdtempSync(join(tmpdir(), 'posenc-docs-'));
  mkdirSync(join(cwd, 'node_modules'));
  symlinkSync(ROOT, join(cwd, 'node_modules', 'posenc'));
  return cwd;
}

/** Runs one program block and returns what it printed (sh blocks in the document's `project` folder). */
async function run(doc, { block }, project) {
  const extension = { js: 'mjs', cjs: 'cjs', sh: 'sh' }[block.lang];
  const file = join(SNIPPETS, `${doc.replace(/[/.]/g, '-')}-${block.line}.${extension}`);
  mkdirSync(SNIPPETS, { recursive: true });
  let result;
  if (block.lang === 'sh') {
    // A user runs `posenc` (or `npx posenc`) where the package is installed; here it is the CLI just built.
    const cli = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"`;
    writeFileSync(file, `posenc() {\n  ${cli};\n}\nnpx() {\n  if [ "$1" = posenc ]; then shift; ${cli};\n` +
      `  else echo "docs test: only 'npx posenc' is available" >&2; return 127; fi\n}\nexec 2>&1\n${block.code}`);
    result = await runProgram('bash', ['-euo', 'pipefail', file], project());
  } else {
    const cwd = mkdtempSync(join(tmpdir(), 'posenc-docs-'));
    try {
      writeFileSync(file, block.code);
      result = await runProgram(process.execPath, [file], cwd);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }
  assert.equal(result.code, 0, `${doc}:${block.line} exited with ${result.code}\n${(result.stderr || result.stdout).slice(-4000)}`);
  return result.stdout;
}

for (const doc of DOCS) {
  const { programs, problems } = programsOf(readFileSync(join(ROOT, doc), 'utf8'));
  let folder;
  const project = () => (folder ??= projectFolder());
  after(() => folder && rmSync(folder, { recursive: true, force: true }));

  test(`${doc}: every code block is a program with its output, or marked as not one`, () => {
    assert.deepEqual(problems, []);
  });

  for (const program of programs) {
    const { block, expected } = program;
    test(`${doc}:${block.line} (${block.heading}) prints what the text states`, async () => {
      const printed = await run(doc, program, project);
      if (expected === undefined) return; // an sh block without an output block: it must succeed
      const sh = block.lang === 'sh';
      const difference = compareOutput(sh ? maskSeconds(printed) : printed, sh ? maskSeconds(expected) : expected);
      assert.equal(difference, undefined, `${doc}:${block.line}: ${difference}\n--- printed:\n${printed}--- stated:\n${expected}`);
    });
  }
}

test('the README error table lists exactly the codes of errors.ts', () => {
  const source = readFileSync(join(ROOT, 'bindings/js/runtime/errors.ts'), 'utf8');
  const union = /export type PosEncErrorCode =([^;]+);/.exec(source);
  assert.ok(union, 'errors.ts declares PosEncErrorCode');
  const codes = [...union[1].matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]).sort();
  const listed = tableCodes(readFileSync(join(ROOT, 'README.md'), 'utf8'), 'Errors');
  assert.ok(listed, 'README.md has an "Errors" section');
  assert.deepEqual([...new Set(listed)].sort(), codes);
  assert.equal(listed.length, new Set(listed).size, 'each code is listed once');
});

test('the README layout map names existing paths, and every directory of the tree to depth 2', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const map = fencedBlocks(readme).find((b) => b.heading === 'Contributing / building from source' && b.lang === 'text');
  assert.ok(map, 'the README has a layout map (a text block under "Contributing / building from source")');
  const paths = layoutPaths(map.code);
  for (const p of paths) assert.ok(existsSync(join(ROOT, p)), `the layout map names ${p}, which does not exist`);
  const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
  const dirs = new Set(tracked.flatMap((f) => {
    const parts = f.split('/').slice(0, -1);
    return parts.slice(0, 2).map((_, i) => `${parts.slice(0, i + 1).join('/')}/`);
  }));
  const missing = [...dirs].filter((d) => !paths.includes(d)).sort();
  assert.deepEqual(missing, [], 'directories missing from the README layout map');
});

test('relative links lead to files and headings of the repository; the README links nothing outside it', () => {
  const anchors = (file) => new Set(fencedFree(readFileSync(file, 'utf8')).match(/^#{1,6} .*$/gm)?.map((h) => headingAnchor(h.replace(/^#+ /, ''))) ?? []);
  const broken = [];
  for (const doc of DOCS) {
    const text = fencedFree(readFileSync(join(ROOT, doc), 'utf8'));
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) {
        if (doc === 'README.md') broken.push(`${doc}: ${target} is outside the repository`);
        continue;
      }
      const [path, anchor] = target.split('#');
      const file = path ? normalize(join(ROOT, dirname(doc), path)) : join(ROOT, doc);
      if (!existsSync(file)) broken.push(`${doc}: ${target} (no such file)`);
      else if (anchor && file.endsWith('.md') && !anchors(file).has(anchor)) broken.push(`${doc}: ${target} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
  assert.doesNotMatch(readFileSync(join(ROOT, 'README.md'), 'utf8'), /https?:\/\//, 'the README cites nothing outside the repository');
});

/** Markdown without its fenced code blocks. */
function fencedFree(markdown) {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```\s*$/gm, '');
}

test('the comparison is exact: a rounded, missing, extra or respaced value is a difference', () => {
  assert.equal(compareOutput('[ 0, 0.841471 ]\n', '[ 0, 0.841471 ]\n'), undefined);
  assert.equal(compareOutput('a\nb\n', 'a\nb'), undefined, 'only the final newline is ignored');
  assert.match(compareOutput('[ 0, 0.8414709568023682 ]\n', '[ 0, 0.841471 ]'), /line 1: stated/, 'rounding for display is the program\'s job');
  assert.match(compareOutput('12.4', '12'), /stated "12", printed "12.4"/);
  assert.match(compareOutput('a 1', 'a  1'), /line 1/, 'spacing counts');
  assert.match(compareOutput('a\n1', 'a\n1\n2'), /less than stated: line 3 "2"/);
  assert.match(compareOutput('a\n1\n2', 'a\n1'), /more than stated: line 3 "2"/);
  assert.match(compareOutput('x\n\n', 'x'), /more than stated: line 2 ""/, 'a trailing blank line counts');
  assert.match(compareOutput('INVALID_TYPE', 'INVALID_ARGUMENT'), /stated "INVALID_ARGUMENT"/);
  // a CLI report's seconds are masked (sh blocks), nothing else is
  assert.equal(compareOutput(maskSeconds('wrote a.npy: 1.00 KiB in 0.04 s\n'), maskSeconds('wrote a.npy: 1.00 KiB in 0.21 s')), undefined);
  assert.match(compareOutput(maskSeconds('wrote a.npy: 2.00 KiB in 0.04 s\n'), maskSeconds('wrote a.npy: 1.00 KiB in 0.21 s')), /stated "wrote a.npy: 1.00/);
  assert.match(compareOutput(maskSeconds('took 0.04 s, done\n'), maskSeconds('took 0.21 s, done')), /stated "took 0.21/);
});

test('a js block without output, an orphan output block and an unmarked block are errors', () => {
  const { problems } = programsOf('```js\nconsole.log(1)\n```\n\n```output\n1\n```\n\nText.\n\n```output\n2\n```\n\n```js\nx\n```\n\n```\nplain\n```\n');
  assert.equal(problems.length, 3, problems.join('\n'));
  assert.match(problems[0], /must directly follow/);
  assert.match(problems[1], /language '' is neither/);
  assert.match(problems[2], /states no output/);
});
