// `posenc plan config.json|model.gguf`: what every layer of a model does to positions, identical
// layers grouped, or (--json) the plan itself.
import { extname } from 'node:path';

import type { Command, Report } from './command.js';
import { JSON_FLAG } from './command.js';
import { CliError } from './flags.js';
import { readJsonObject } from './files.js';

export const PLAN_COMMAND: Command = {
  name: 'plan',
  summary: 'print what every layer of a model does to positions, from its config.json or GGUF file',
  about: [
    'Layers that do the same are grouped ("layers 0-4, 6-10: sliding window 1024; RoPE base 10000, ...").',
    'A .gguf file is read as GGUF: its header only (at most 64 MiB) and the RoPE factor tensors when present, never',
    'the weights, so files of any size are read in little memory; anything else as a config.json.',
  ],
  positional: { name: 'MODEL', help: "the model's config.json or .gguf file" },
  flags: [
    { name: 'seq-len', kind: 'int', min: 1, help: 'the current length, for dynamic NTK and LongRoPE' },
    JSON_FLAG,
  ],
  examples: ['posenc plan config.json', 'posenc plan model.gguf --json'],
  apiNames: { seqLen: '--seq-len' },
  async run(ctx, values, positionals): Promise<Report> {
    const path = positionals[0];
    if (path === undefined) throw new CliError('the path of a config.json or .gguf file is required: posenc plan config.json');
    const { pe } = ctx;
    const plan = extname(path).toLowerCase() === '.gguf' ? await pe.model.fromGgufFile(path) : pe.model.fromConfig(await readJsonObject(path));
    const seqLen = values['seq-len'] as number | undefined;
    return { lines: pe.model.summarize(plan, seqLen === undefined ? undefined : { seqLen }), json: plan };
  },
};
