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
//   output    what the block before it prints (standard output)
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
    if (p.block.lang !== 'sh' && (p.expected === undefined || tokens(p.expected).length === 0)) {
      problems.push(`line ${p.block.line}: this ${p.block.lang} block states no output (add an output block after it)`);
    }
  }
  return { programs, problems };
}

const NUMBER = /^(?:-?Infinity(?![\w$])|NaN(?![\w$])|-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)/;
const WORD = /^[A-Za-z_$][A-Za-z0-9_$]*/;

/** Splits printed text into numbers, words and single punctuation characters; whitespace separates only. */
export function tokens(text) {
  const out = [];
  let s = text;
  while (s.length > 0) {
    const space = /^\s+/.exec(s);
    if (space) {
      s = s.slice(space[0].length);
      continue;
    }
    const number = NUMBER.exec(s);
    if (number) {
      out.push({ number: number[0] });
      s = s.slice(number[0].length);
      continue;
    }
    const word = WORD.exec(s);
    const text = word ? word[0] : s[0];
    out.push({ text });
    s = s.slice(text.length);
  }
  return out;
}

/**
 * How far a printed number may be from the stated one: a stated integer must be printed exactly; a
 * stated decimal is the printed value rounded to the digits shown (half a unit in its last place).
 */
export function tolerance(stated) {
  if (/^-?(Infinity|NaN)$/.test(stated)) return 0;
  const m = /^-?(\d*)\.?(\d*)(?:e([+-]?\d+))?$/.exec(stated);
  const decimals = stated.includes('.') ? m[2].length : 0;
  const exponent = m[3] ? Number(m[3]) : 0;
  if (decimals === 0 && exponent === 0) return 0;
  return 0.5 * 10 ** (exponent - decimals);
}

function sameNumber(printed, stated) {
  const a = Number(printed);
  const b = Number(stated);
  if (Number.isNaN(b)) return Number.isNaN(a);
  if (!Number.isFinite(b)) return a === b;
  // The tolerance, plus a few ulps so a value printed exactly at the rounding edge still counts.
  return Math.abs(a - b) <= tolerance(stated) + 4 * Number.EPSILON * Math.abs(b);
}

/** Text with the seconds at the end of a line (` in 0.21 s`, a CLI report's timing) replaced by a placeholder. */
export function maskSeconds(text) {
  return text.replace(/ in \d+(?:\.\d+)? s$/gm, ' in (seconds) s');
}

/** Undefined when `printed` shows what `stated` says (tolerance rule above), else a description of the first difference. */
export function compareOutput(printed, stated) {
  const got = tokens(printed);
  const want = tokens(stated);
  for (let i = 0; i < Math.max(got.length, want.length); i++) {
    const g = got[i];
    const w = want[i];
    const context = () => `printed …${got.slice(Math.max(0, i - 4), i + 4).map((t) => t.number ?? t.text).join(' ')}…`;
    if (g === undefined) return `the program printed less than stated: missing '${w.number ?? w.text}' (${context()})`;
    if (w === undefined) return `the program printed more than stated: '${g.number ?? g.text}' (${context()})`;
    if (w.number !== undefined) {
      if (g.number === undefined || !sameNumber(g.number, w.number)) {
        return `stated ${w.number} (±${tolerance(w.number)}), printed ${g.number ?? `'${g.text}'`} (${context()})`;
      }
    } else if (g.text !== w.text) {
      return `stated '${w.text}', printed '${g.number ?? g.text}' (${context()})`;
    }
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
