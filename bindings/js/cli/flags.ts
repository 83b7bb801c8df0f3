// Command-line flags: their declarations, the parser (`--name value`, `--name=value`, negative
// numbers as values, `--no-name` for switches) and the checks that name the flag in every message.
import { nearestName } from '../runtime/nearest.js';

/** A command-line mistake: printed with the command's usage hint, exit code 2. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 2) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * How a flag's value is read:
 * - `int`: an integer (decimal digits, optional sign) >= `min`,
 * - `number`: a finite number (`positive`: > 0),
 * - `choice`: one of `choices`,
 * - `text`: any string (paths, tensor names),
 * - `switch`: no value; `--name` sets it, `--no-name` clears it.
 */
export type FlagKind = 'int' | 'number' | 'choice' | 'text' | 'switch';

export interface Flag {
  name: string;
  kind: FlagKind;
  help: string;
  /** The value's placeholder in usage lines (default from the kind: N, X, PATH...). */
  value?: string;
  /** The default as help shows it (the program applies it). */
  default?: string;
  required?: boolean;
  min?: number;
  positive?: boolean;
  choices?: readonly string[];
}

/** Parsed values: numbers for int/number flags, strings for choice/text, booleans for switches. */
export type FlagValues = Record<string, string | number | boolean | undefined>;

export interface Parsed {
  values: FlagValues;
  positionals: string[];
  help: boolean;
}

/** The nearest of `names` to `wanted`, if it is close enough to be a typo (the API's rule). */
export const suggest = nearestName;

/** Checks one flag value and converts it. */
function convert(flag: Flag, raw: string): string | number {
  const name = `--${flag.name}`;
  switch (flag.kind) {
    case 'int': {
      const min = flag.min ?? 0;
      if (!/^[+-]?\d+$/.test(raw.trim())) throw new CliError(`${name} must be an integer >= ${min}, got '${raw}'`);
      const n = Number(raw);
      if (!Number.isSafeInteger(n)) throw new CliError(`${name} is too large: ${raw}`);
      if (n < min) throw new CliError(`${name} must be an integer >= ${min}, got ${n}`);
      return n;
    }
    case 'number': {
      const n = raw.trim() === '' ? NaN : Number(raw);
      if (!Number.isFinite(n)) throw new CliError(`${name} must be a finite number, got '${raw}'`);
      if (flag.positive && !(n > 0)) throw new CliError(`${name} must be greater than 0, got ${n}`);
      return n;
    }
    case 'choice':
      if (!flag.choices!.includes(raw)) throw new CliError(`${name} must be one of ${flag.choices!.join(', ')}; got '${raw}'`);
      return raw;
    default:
      if (raw === '') throw new CliError(`${name} needs a value`);
      return raw;
  }
}

/**
 * Parses `argv` (the arguments after the command name) against `flags`. A flag that takes a value
 * always takes the next argument, so `--offset -4` is -4; a value that is itself a known flag
 * (`--length --dim 4`) is reported as missing. `--help`/`-h` anywhere asks for help (and nothing
 * else is checked).
 */
export function parseFlags(flags: readonly Flag[], argv: readonly string[], maxPositionals: number): Parsed {
  const byName = new Map(flags.map((f) => [f.name, f]));
  const values: FlagValues = {};
  const positionals: string[] = [];
  const seen = new Set<string>();
  // --help wins over anything else on the line, even a flag given a bad value
  if (argv.includes('--help') || argv.includes('-h')) return { values, positionals, help: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('-') || arg === '-' || /^-\d/.test(arg)) {
      positionals.push(arg);
      continue;
    }
    if (!arg.startsWith('--')) throw new CliError(`unknown flag ${arg}; flags are spelled --name (see --help)`);
    const eq = arg.indexOf('=');
    let name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    let flag = byName.get(name);
    let negated = false;
    if (!flag && name.startsWith('no-') && byName.get(name.slice(3))?.kind === 'switch') {
      name = name.slice(3);
      flag = byName.get(name);
      negated = true;
    }
    if (!flag) {
      const near = suggest(name, [...byName.keys()]);
      throw new CliError(`unknown flag --${name}${near ? ` (did you mean --${near}?)` : ''}`);
    }
    if (seen.has(name)) throw new CliError(`--${name} is given more than once`);
    seen.add(name);
    if (flag.kind === 'switch') {
      if (eq >= 0) throw new CliError(`--${name} takes no value (use --${name} or --no-${name})`);
      values[name] = !negated;
      continue;
    }
    let raw: string;
    if (eq >= 0) {
      raw = arg.slice(eq + 1);
    } else {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith('--') && byName.has(next.slice(2).split('=')[0]!.replace(/^no-/, '')))) {
        throw new CliError(`--${name} needs a value${flag.value ? ` (${flag.value})` : ''}`);
      }
      raw = next;
      i++;
    }
    values[name] = convert(flag, raw);
  }
  if (positionals.length > maxPositionals) {
    throw new CliError(`unexpected argument '${positionals[maxPositionals]}'${positionals[maxPositionals]!.startsWith('-') ? ' (negative numbers go after their flag, e.g. --offset -4)' : ''}`);
  }
  for (const f of flags) {
    if (f.required && values[f.name] === undefined) throw new CliError(`--${f.name} is required`);
  }
  return { values, positionals, help: false };
}

const PLACEHOLDER: Record<FlagKind, string> = { int: 'N', number: 'X', choice: '', text: 'VALUE', switch: '' };

/** `--name VALUE` as usage lines show it. */
export function flagUsage(f: Flag): string {
  if (f.kind === 'switch') return `--${f.name}`;
  return `--${f.name} ${f.value ?? (f.kind === 'choice' ? f.choices!.join('|') : PLACEHOLDER[f.kind])}`;
}

/** The flags as a help table: usage, then the description and default. */
export function flagTable(flags: readonly Flag[]): string[] {
  const left = flags.map(flagUsage);
  const width = Math.min(34, Math.max(...left.map((l) => l.length)));
  return flags.map((f, i) => {
    const notes = [f.required ? 'required' : undefined, f.default !== undefined ? `default ${f.default}` : undefined]
      .filter((n) => n !== undefined);
    const text = `${f.help}${notes.length ? ` (${notes.join('; ')})` : ''}`;
    const l = left[i]!;
    return l.length > width ? `  ${l}\n  ${' '.repeat(width)}  ${text}` : `  ${l.padEnd(width)}  ${text}`;
  });
}
