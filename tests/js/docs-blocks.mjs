// The docs test's rules, apart from its runner: how a Markdown file's code blocks are classified,
// paired with the output they state, and compared with what a program printed.
//
// Every fenced block in README.md and docs/*.md has a language, and the language says what it is:
//   js, cjs   a complete program (ES module / CommonJS), run as its own module; it must be followed
//             by an `output` block stating what it prints
//   sh        shell commands run with bash in an empty folder (`posenc` and `npx posenc` are the built CLI); an
//             `output` block after it is compared when present, with what the commands print on
//             stdout and stderr (as a terminal shows both), and the seconds a CLI report ends
//             with (`wrote t.npy: ... in 0.21 s`) masked on both sides: they are the machine's
//   output    what the block before it prints (standard output), character for character: the
//             text must be what a user who pastes the program sees (only the final newline of each
//             side is ignored; a program that rounds for display rounds in its own code)
//   NOT_PROGRAMS: text (formulas, layouts), json (config fragments), console (commands for a
//             maintainer's machine, with `$ ` prompts: installs, builds), cpp, cmake
// Any other language, or none, is an error: nothing is skipped silently.

/** Languages the docs test runs. */
export const PROGRAMS = new Set(['js', 'cjs', 'sh']);
/** Languages of blocks that are not programs: shown to the reader, never run. */
export const NOT_PROGRAMS = new Set(['text', 'json', 'console', 'cpp', 'cmake']);
/** The language of a block stating what the program before it prints. */
export const OUTPUT = 'output';

/**
 * The fenced code blocks of a Markdown text: { lang, code, line (1-based, of the opening fence),
 * heading (the nearest heading above) }.
 */
export function fencedBlocks(markdown) {
  const lines = markdown.split('\n');
  const blocks = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const heads = /^#{1,6} (.*)/.exec(lines[i]);
    if (heads) heading = heads[1].trim();
    const open = /^```(.*)$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    if (i >= lines.length) throw new Error(`line ${start + 1}: a code block is never closed`);
    blocks.push({ lang: open[1].trim(), code: body.join('\n') + '\n', line: start + 1, endLine: i + 1, heading });
  }
  return blocks;
}

/**
 * The programs of a Markdown text, each with its stated output (or undefined), and the problems
 * found: blocks of unknown language, output blocks that follow no program, js blocks without one.
 */
export function programsOf(markdown) {
  const blocks = fencedBlocks(markdown);
  const lines = markdown.split('\n');
  const programs = [];
  const problems = [];
  for (let b = 0; b < blocks.length; b++) {
    const block = blocks[b];
    if (block.lang === OUTPUT) {
      const previous = programs.at(-1);
      const adjacent = previous && previous.block === blocks[b - 1] &&
        lines.slice(previous.block.endLine, block.line - 1).every((l) => l.trim() === '');
      if (!adjacent) problems.push(`line ${block.line}: an output block must directly follow a js, cjs or sh block`);
      else previous.expected = block.code;
      continue;
    }
    if (PROGRAMS.has(block.lang)) {
      programs.push({ block, expected: undefined });
      continue;
    }
    if (!NOT_PROGRAMS.has(block.lang)) {
      problems.push(`line ${block.line}: code block language '${block.lang}' is neither a program ` +
        `(${[...PROGRAMS].join(', ')}) nor marked as one that is not (${[...NOT_PROGRAMS].join(', ')})`);
    }
  }
  for (const p of programs) {
    if (p.block.lang !== 'sh' && (p.expected === undefined || p.expected.trim() === '')) {
      problems.push(`line ${p.block.line}: this ${p.block.lang} block states no output (add an output block after it)`);
    }
  }
  return { programs, problems };
}

/** Text with the seconds at the end of a line (` in 0.21 s`, a CLI report's timing) replaced by a placeholder. */
export function maskSeconds(text) {
  return text.replace(/ in \d+(?:\.\d+)? s$/gm, ' in (seconds) s');
}

/**
 * Undefined when `printed` is exactly the text `stated` (a final newline apart), else where they
 * first differ: the line number and both lines.
 */
export function compareOutput(printed, stated) {
  const got = printed.replace(/\n$/, '').split('\n');
  const want = stated.replace(/\n$/, '').split('\n');
  for (let i = 0; i < Math.max(got.length, want.length); i++) {
    if (got[i] === want[i]) continue;
    if (got[i] === undefined) return `the program printed less than stated: line ${i + 1} ${JSON.stringify(want[i])} is missing`;
    if (want[i] === undefined) return `the program printed more than stated: line ${i + 1} ${JSON.stringify(got[i])}`;
    return `line ${i + 1}: stated ${JSON.stringify(want[i])}, printed ${JSON.stringify(got[i])}`;
  }
  return undefined;
}

/** The codes in the first column of the Markdown table under the heading `heading` (`CODE` in backticks). */
export function tableCodes(markdown, heading) {
  const start = markdown.search(new RegExp(`^#{2,4} ${heading}\\s*$`, 'm'));
  if (start < 0) return undefined;
  const rest = markdown.slice(start).split('\n').slice(1);
  const end = rest.findIndex((l) => /^#{1,4} /.test(l));
  const rows = rest.slice(0, end < 0 ? undefined : end).filter((l) => /^\| *`/.test(l));
  return rows.flatMap((row) => [...row.split('|')[1].matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]));
}

/**
 * The paths of a layout map (a text block of `name  description` lines, two spaces of indentation
 * per level, directories ending in `/`; description lines that wrap are indented past the names).
 */
export function layoutPaths(map) {
  const parents = [];
  const paths = [];
  for (const line of map.split('\n')) {
    const m = /^( *)(\S+)/.exec(line);
    if (!m || m[1].length % 2 !== 0 || m[1].length > 2 * parents.length || m[1].length >= 12) continue;
    const depth = m[1].length / 2;
    parents.length = depth;
    const path = parents.join('') + m[2];
    paths.push(path);
    if (m[2].endsWith('/')) parents.push(m[2]);
  }
  return paths;
}

/** GitHub's anchor for a Markdown heading. */
export function headingAnchor(heading) {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}
