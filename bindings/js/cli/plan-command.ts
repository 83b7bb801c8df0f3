// `posenc plan config.json|model.gguf [--seq-len L] [--json]`: a model's per-layer position plan,
// identical layers grouped, or the plan itself as JSON.
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';

import { PosEncError } from '../runtime/errors.js';
import type { Command } from './commands.js';

export const PLAN_COMMAND: Command = {
  summary: "print what every layer of a model does to positions, from its config.json or GGUF file",
  usage: 'posenc plan config.json|model.gguf [--seq-len L] [--json true]',
  flags: ['seq-len', 'json'],
  async run(pe, flags, print) {
    const path = flags.positionals[0];
    if (path === undefined) throw new PosEncError('MISSING_OPTION', 'the path of a config.json or .gguf file is required');
    const json = flags.values.json;
    if (json !== undefined && json !== 'true' && json !== 'false') throw new PosEncError('INVALID_ARGUMENT', `--json must be true or false, got '${json}'`);
    const seqText = flags.values['seq-len'];
    const seqLen = seqText === undefined ? undefined : Number(seqText);
    if (seqLen !== undefined && (!Number.isInteger(seqLen) || seqLen < 1)) throw new PosEncError('INVALID_ARGUMENT', `--seq-len must be a positive integer, got '${seqText}'`);
    const bytes = await readFile(path);
    const plan = extname(path).toLowerCase() === '.gguf' ? pe.model.fromGguf(bytes) : pe.model.fromConfig(bytes.toString('utf8'));
    if (json === 'true') {
      print(JSON.stringify(plan, null, 2));
      return;
    }
    for (const line of pe.model.summarize(plan, seqLen === undefined ? undefined : { seqLen })) print(line);
  },
};
