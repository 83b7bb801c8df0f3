#!/usr/bin/env node
// The `posenc` command: generate and export tables, apply encodings to embedding files, and
// reproduce a model's RoPE from its config.json. Run `posenc help` for the commands.
import { parseArgs } from 'node:util';

import { COMMANDS } from './commands.js';
import { PosEncError } from '../runtime/errors.js';
import { createPosEnc } from '../node.js';

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  return [
    'posenc: transformer positional encodings from the command line',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    'Usage:',
    ...Object.values(COMMANDS).map((c) => `  ${c.usage}`),
    '',
    'Files: .npy (read/write), .safetensors (read; --tensor picks one), .json ({ "dims", "data" }).',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    console.log(help());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`posenc: unknown command '${name}'\n\n${help()}`);
    return 2;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: Object.fromEntries(command.flags.map((f) => [f, { type: 'string' as const }])),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    console.error(`posenc ${name}: ${(error as Error).message}\nusage: ${command.usage}`);
    return 2;
  }
  try {
    const pe = await createPosEnc();
    await command.run(pe, { values: parsed.values as Record<string, string | undefined>, positionals: parsed.positionals }, (line) => console.log(line));
    return 0;
  } catch (error) {
    if (error instanceof PosEncError) {
      console.error(`posenc ${name}: ${error.message} [${error.code}]\nusage: ${command.usage}`);
      return 2;
    }
    const e = error as NodeJS.ErrnoException;
    if (e && typeof e.code === 'string' && e.path) {
      console.error(`posenc ${name}: cannot access ${e.path} (${e.code})`);
      return 1;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
