#!/usr/bin/env node
// `npm run reference -- --transformers <bare git dir or checkout> [--commit <sha>]
//   [--huggingface-hub <bare git dir or checkout>] [--hub-commit <sha>] [--verbose]`
// Runs scripts/reference/generate.py with a Python that has torch (a maintainer tool: not part of npm test).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);

if (!args.includes('--huggingface-hub')) {
  // The hub snapshot is normally fetched beside the transformers one (<mirror>/huggingface+huggingface_hub/repo).
  const at = args.indexOf('--transformers');
  const guess = at >= 0 && args[at + 1] ? resolve(args[at + 1], '..', '..', 'huggingface+huggingface_hub', 'repo') : '';
  if (guess && existsSync(guess)) args.push('--huggingface-hub', guess);
}

const python = process.env.POSENC_REFERENCE_PYTHON ?? '/usr/bin/python3';
const result = spawnSync(python, [join(here, 'generate.py'), '--repo', resolve(here, '..', '..'), ...args], {
  stdio: 'inherit',
});
if (result.error) {
  console.error(`reference: could not run ${python}: ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
