#!/usr/bin/env node
// The `posenc` program: generate tables and biases into files, apply encodings to tensor files,
// inspect a model's RoPE. `posenc --help` lists the commands, `posenc <command> --help` their flags;
// docs/cli.md documents them all (installed with the package: programHelp() prints where).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import type { Command } from './command.js';
import { translateMessage } from './command.js';
import { COMMANDS } from './commands.js';
import type { Flag } from './flags.js';
import { CliError, flagTable, flagUsage, parseFlags, suggest } from './flags.js';
import { DEFAULT_CHUNK_BYTES } from './jobs.js';
import { removeUnfinished } from './output.js';
import { PROGRESS_DELAY_MS } from './progress.js';
import { PosEncError } from '../runtime/errors.js';
import { createPosEnc } from '../node.js';
import { VERSION } from '../posenc.js';

/** Errors about an input file: exit code 1, and no pointer to the flags. */
const FILE_CODES: ReadonlySet<string> = new Set(['INVALID_FILE', 'FILE_NOT_FOUND', 'NOT_A_FILE', 'FILE_UNREADABLE']);

/** The `--help` row of every command's flag table (parseFlags reads --help itself). */
const HELP_FLAG: Flag = { name: 'help', kind: 'switch', help: 'this help' };

/** The package's page on the CLI, where the program can point a user. */
const DOCS_URL = 'https://github.com/posenc/posenc/blob/main/docs/cli.md';

/**
 * Where the CLI's documentation is: docs/cli.md of the installed package (the tarball ships
 * docs/*.md beside dist/), as an absolute path, with the package homepage's copy; the homepage's
 * alone when the file is not there (a bundled copy of the CLI).
 */
function documentation(): string {
  const installed = fileURLToPath(new URL('../../docs/cli.md', import.meta.url));
  return existsSync(installed) ? `${installed} (online: ${DOCS_URL})` : DOCS_URL;
}

function programHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    `posenc ${VERSION}: transformer positional encodings from the command line`,
    '',
    'Usage: posenc <command> [flags]     posenc <command> --help     posenc --version',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Files: .npy and .safetensors (read and written piece by piece, any size the disk holds), .json (small tensors).',
    'Progress (rate, time left) shows on a terminal for jobs over a second.',
    `Documentation: ${documentation()}`,
  ].join('\n');
}

function commandHelp(c: Command): string {
  const required = c.flags.filter((f) => f.required).map(flagUsage);
  return [
    `posenc ${c.name}: ${c.summary}`,
    '',
    `Usage: posenc ${c.name}${c.positional ? ` ${c.positional.name}` : ''} ${[...required, '[flags]'].join(' ')}`,
    ...(c.about ? ['', ...c.about] : []),
    '',
    ...(c.positional ? [`  ${c.positional.name}  ${c.positional.help}`, ''] : []),
    'Flags:',
    ...flagTable([...c.flags, HELP_FLAG]),
    '',
    'Examples:',
    ...c.examples.map((e) => `  ${e}`),
  ].join('\n');
}

/** A whole number from the environment variable `name` (>= `min`), or `fallback` if it is not set. */
function fromEnvironment(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min) throw new CliError(`${name} must be an integer >= ${min}, got '${raw}'`);
  return n;
}

/** Prints why `command` failed; returns the exit code (1: a file could not be used, 2: the command line is wrong). */
function fail(c: Command, error: unknown): number {
  if (error instanceof CliError) {
    console.error(`posenc ${c.name}: ${error.message}${error.exitCode === 2 ? `\nRun 'posenc ${c.name} --help' for its flags.` : ''}`);
    return error.exitCode;
  }
  if (error instanceof PosEncError) {
    const file = FILE_CODES.has(error.code);
    console.error(`posenc ${c.name}: ${translateMessage(error.message, c.apiNames ?? {})} [${error.code}]${file ? '' : `\nRun 'posenc ${c.name} --help' for its flags.`}`);
    return file ? 1 : 2;
  }
  throw error;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    console.error(programHelp());
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    const about = COMMANDS.find((c) => c.name === rest[0]);
    console.log(about ? commandHelp(about) : programHelp());
    return 0;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    console.log(`posenc ${VERSION}`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    const near = suggest(name, COMMANDS.map((c) => c.name));
    console.error(`posenc: unknown command '${name}'${near ? ` (did you mean '${near}'?)` : ''}\nRun 'posenc --help' for the commands.`);
    return 2;
  }
  try {
    const parsed = parseFlags(command.flags, rest, command.positional ? 1 : 0);
    if (parsed.help) {
      console.log(commandHelp(command));
      return 0;
    }
    const ctx = {
      pe: await createPosEnc(),
      // Bytes per piece, and when progress shows: tests make pieces small and progress immediate.
      chunkBytes: fromEnvironment('POSENC_CLI_CHUNK_BYTES', DEFAULT_CHUNK_BYTES, 1),
      progressStream: process.stderr,
      progressDelayMs: fromEnvironment('POSENC_CLI_PROGRESS_DELAY_MS', PROGRESS_DELAY_MS, 0),
    };
    const report = await command.run(ctx, parsed.values, parsed.positionals);
    console.log(parsed.values.json ? JSON.stringify(report.json, null, 2) : report.lines.join('\n'));
    return 0;
  } catch (error) {
    return fail(command, error);
  }
}

// An interrupted job leaves no temporary file behind (the target is only ever replaced whole).
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
  process.once(signal, () => {
    removeUnfinished();
    process.exit(code);
  });
}
process.on('exit', removeUnfinished);
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error; // `posenc rope-config config.json | head -3`
});

process.exitCode = await main(process.argv.slice(2));
