// Fuzz target: the `posenc` command line, in process. Each case is a command with generated
// arguments (flags with hostile values, unknown flags, corpus files, directories, missing files) run
// the way bin/posenc runs it: parseFlags, then the command. It must finish with a report or fail
// with a CliError (a message and exit code) or a PosEncError: those are what the program prints
// without a stack trace (bindings/js/cli/cli.ts, fail()).
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Writable } from 'node:stream';

import fc from 'fast-check';

import { COMMANDS } from '../../../dist/cli/commands.js';
import { CliError, parseFlags } from '../../../dist/cli/flags.js';
import { FUZZ_DIR, ROOT, containedAsync, InvariantError, outcomes } from '../harness.mjs';
import { INCLUDE } from '../known-defects.mjs';

// Every file a case names is a copy in a scratch folder: a case may well write its output over an input.
const scratch = mkdtempSync(join(tmpdir(), 'posenc-fuzz-cli-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
const inputs = join(scratch, 'in');
mkdirSync(inputs);
const originals = [...['npy', 'safetensors', 'gguf', 'json-tensor']
  .flatMap((t) => readdirSync(join(FUZZ_DIR, 'corpus', t)).sort().map((f) => join(FUZZ_DIR, 'corpus', t, f))),
...['llama-3.1-8b.json', 'phi-3.5-mini-instruct.json', 'qwen3-vl-2b-instruct.json', 'gpt2.json'].map((f) => join(ROOT, 'tests', 'fixtures', 'models', f))];
const copies = originals.map((f) => join(inputs, basename(f)));
/** Puts back every input a previous case may have overwritten (so that a replay sees the same files). */
const restoreInputs = () => originals.forEach((f, i) => copyFileSync(f, copies[i]));
writeFileSync(join(inputs, 'empty.npy'), '');
writeFileSync(join(inputs, 'not-json.json'), '{"dims": [2');
writeFileSync(join(inputs, 'null.json'), 'null');
const INPUT_PATHS = [...copies, join(inputs, 'empty.npy'), join(inputs, 'not-json.json'), join(inputs, 'missing.npy'), inputs,
  ...(INCLUDE.jsonTensorNonObject ? [join(inputs, 'null.json')] : [])];
const OUTPUT_PATHS = ['out.npy', 'out.safetensors', 'out.json', 'out.txt', 'sub/missing/out.npy'].map((f) => join(scratch, f));

/** A number the flag should accept: an integer from its minimum (even ones often: dims), or a number. */
const validNumber = (flag) => (flag.kind === 'int'
  ? fc.oneof(fc.integer({ min: Math.max(flag.min ?? 1, 1), max: 8 }).map((n) => String(2 * n)), fc.integer({ min: flag.min ?? 0, max: 40 }).map(String))
  : fc.oneof(fc.constantFrom('1', '2', '0.5', '10000', '4'), ...(flag.positive ? [] : [fc.constantFrom('0', '-4')])));
const hostileNumber = fc.constantFrom('-0', '-1', 'NaN', 'Infinity', '-Infinity', '1e400', '1e-400', '0x10', '1.5', ' 3', '', 'abc',
  '2147483648', '9007199254740993', '1e20', '1e308', '5e-324');

/** A value for `flag`: usually one of its kind that makes sense, sometimes a hostile one. */
function valueFor(flag) {
  const sensible = {
    int: validNumber(flag),
    number: validNumber(flag),
    choice: fc.constantFrom(...(flag.choices ?? ['x'])),
    text: /^(out|cos|sin)$/.test(flag.name) ? fc.constantFrom(...OUTPUT_PATHS) : fc.constantFrom(...INPUT_PATHS),
  }[flag.kind] ?? validNumber(flag);
  const hostile = fc.oneof(hostileNumber, fc.constantFrom('', 'X', '--', '-', '--json', '=', 'w'), fc.constantFrom(...INPUT_PATHS));
  return fc.oneof({ weight: 12, arbitrary: sensible }, { weight: 1, arbitrary: hostile });
}

/** One token list for `command`: some of its flags (required ones usually) in order, and rarely junk. */
function argvFor(command) {
  const flagArgs = command.flags.map((flag) => fc.option(flag.kind === 'switch'
    ? fc.oneof({ weight: 6, arbitrary: fc.constantFrom([`--${flag.name}`], [`--no-${flag.name}`]) }, { weight: 1, arbitrary: fc.constant([`--${flag.name}=1`]) })
    : fc.tuple(valueFor(flag), fc.nat(7)).map(([v, eq]) => (eq === 0 ? [`--${flag.name}=${v}`] : [`--${flag.name}`, v])),
  { freq: flag.required ? 12 : 2 }));
  const junk = fc.oneof({ weight: 15, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constantFrom('--unknown', '-x', '--rotary-dim', 'extra', '--no-json', '-4') });
  const positional = command.positional ? fc.option(fc.constantFrom(...INPUT_PATHS), { freq: 8 }) : fc.constant(null);
  return fc.tuple(fc.tuple(...flagArgs), junk, positional).map(([flags, extra, pos]) => [
    ...(pos === null ? [] : [pos]), ...flags.filter(Boolean).flat(), ...(extra === null ? [] : [extra])]);
}

const silent = new Writable({ write(_chunk, _enc, done) { done(); } });

export const target = {
  name: 'cli',
  quickRuns: 300,
  async: true,
  arbitrary: fc.constantFrom(...COMMANDS).chain((command) => argvFor(command).map((argv) => ({ command: command.name, argv }))),
  async check(pe, { command: name, argv }) {
    restoreInputs();
    const command = COMMANDS.find((c) => c.name === name);
    const what = `posenc ${name} ${argv.join(' ')}`;
    let parsed;
    try {
      parsed = parseFlags(command.flags, argv, command.positional ? 1 : 0);
    } catch (error) {
      if (!(error instanceof CliError)) throw new InvariantError(`${what}: parsing threw ${error}`);
      outcomes.set('CliError (flags)', (outcomes.get('CliError (flags)') ?? 0) + 1);
      return;
    }
    if (parsed.help) return;
    const ctx = { pe, chunkBytes: 256, progressStream: silent, progressDelayMs: 1e9 };
    try {
      await containedAsync(what, () => command.run(ctx, parsed.values, parsed.positionals));
    } catch (error) {
      if (!(error.cause instanceof CliError && [1, 2].includes(error.cause.exitCode))) throw error;
      outcomes.set('CliError (run)', (outcomes.get('CliError (run)') ?? 0) + 1);
    }
  },
};
