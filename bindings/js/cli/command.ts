// What a command of the `posenc` program is (flags, help, how API messages name its flags), the
// flags every file-writing command shares, and the report each command prints.
import { OUTPUT_DTYPES } from '../io/dtypes.js';
import type { OutputDtype } from '../io/dtypes.js';
import type { Flag, FlagValues } from './flags.js';
import type { JobContext, OutputSpec } from './jobs.js';
import type { TensorFile } from './output.js';
import { formatBytes } from './progress.js';

/** What a command prints: lines for people, an object for `--json`. */
export interface Report {
  lines: string[];
  json: unknown;
}

export interface Command {
  name: string;
  summary: string;
  /** Help paragraphs after the usage line. */
  about?: string[];
  flags: Flag[];
  /** A positional argument (rope-config's config.json). */
  positional?: { name: string; help: string };
  /** Complete command lines, shown in help and run by the CLI tests. */
  examples: string[];
  /** API option names that messages from the API may use, and the flags that set them. */
  apiNames?: Record<string, string>;
  run(ctx: JobContext, values: FlagValues, positionals: string[]): Promise<Report>;
}

export const JSON_FLAG: Flag = { name: 'json', kind: 'switch', help: 'print a JSON report on stdout instead of the summary' };

/** --out, --dtype, --name (the tensor's key in a .safetensors file), --json. */
export function outputFlags(tensorName: string): Flag[] {
  return [
    { name: 'out', kind: 'text', value: 'FILE', required: true, help: 'the file to write: .npy, .safetensors or .json' },
    { name: 'dtype', kind: 'choice', choices: OUTPUT_DTYPES, default: 'float32', help: 'element type of the file; float16 and bfloat16 are rounded to nearest, ties to even' },
    { name: 'name', kind: 'text', value: 'NAME', default: tensorName, help: 'the tensor\'s key in a .safetensors file' },
    JSON_FLAG,
  ];
}

/** The one-tensor output of --out/--dtype/--name. */
export function outputOf(values: FlagValues, tensorName: string, dims: number[]): OutputSpec {
  return {
    path: values.out as string,
    flag: '--out',
    tensors: [{ name: (values.name as string | undefined) ?? tensorName, dims }],
    dtype: (values.dtype as OutputDtype | undefined) ?? 'float32',
  };
}

export function dimsText(dims: readonly number[]): string {
  return `[${dims.join(', ')}]`;
}

/** The report of a command that wrote `files`: one line per file, `what` describing its contents. */
export function writeReport(command: string, what: string, files: TensorFile[], seconds: number): Report {
  return {
    lines: files.map((f) => {
      const tensors = f.tensors.map((t) => `${f.tensors.length > 1 ? `${t.name} ` : ''}${dimsText(t.dims)}`).join(', ');
      return `wrote ${f.path}: ${what} ${tensors} ${f.dtype}, ${formatBytes(f.bytes)} in ${seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
    }),
    json: {
      command,
      seconds: Math.round(seconds * 1000) / 1000,
      files: files.map((f) => ({ path: f.path, format: f.format, dtype: f.dtype, bytes: f.bytes, tensors: f.tensors })),
    },
  };
}

/** The API function that begins a PosEncError message (`rope.apply: `, `learned table.lookup: `, `attention.scores (rope): `). */
const API_PREFIX = new RegExp('^(?:sinusoidal|learned|rope|shaw|transformerXL|t5|deberta|alibi|attention|model|doctor|precision|io|memory|tensors' +
  '|RopeCache|LayerRopeCache|WasmTensor|learned table|sinusoidal table)\\.[A-Za-z]+(?: \\([a-z]+\\))?: ');

/**
 * An API message in the command's terms: without the API function's name, and with the option
 * names the command's flags set (`apiNames`) replaced by those flags. camelCase names are replaced
 * wherever they appear; plain words only where they name the option (`option 'x'`, or first, as
 * in `layer 99 is ...` or `pipelines[0] must be ...`).
 */
export function translateMessage(message: string, apiNames: Readonly<Record<string, string>>): string {
  let text = message.replace(API_PREFIX, '');
  for (const [api, flag] of Object.entries(apiNames)) {
    const name = api.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    text = text.replace(new RegExp(`option '${name}'`, 'g'), flag);
    if (/[A-Z]/.test(api)) text = text.replace(new RegExp(`'?\\b${name}\\b'?`, 'g'), flag);
    else if (new RegExp(`^${name}[ []`).test(text)) text = flag + text.slice(api.length);
  }
  return text;
}
