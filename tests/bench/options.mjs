// The benchmark's command-line options, shared by scripts/bench.mjs (which builds, then runs the
// Node and native benchmarks) and tests/bench/run.mjs, both read with node:util parseArgs.
import { parseArgs } from 'node:util';

export const USAGE = 'usage: npm run bench -- [--quick] [--filter REGEX] [--json PATH] [--markdown PATH] [--budget MS] [--no-native] [--browser] [--posenc-kernels auto|simd128|relaxed]';

/** The options as node:util parseArgs takes them. */
export const BENCH_OPTIONS = {
  quick: { type: 'boolean', default: false },
  filter: { type: 'string' },
  json: { type: 'string' },
  markdown: { type: 'string' },
  budget: { type: 'string', default: '1200' },
  browser: { type: 'boolean', default: false },
  // createPosEnc's `kernels` option for the measured instance; relaxed/auto run Node with
  // --experimental-wasm-relaxed-simd (scripts/bench.mjs)
  'posenc-kernels': { type: 'string', default: 'auto' },
  'no-native': { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
};

/** The parsed options; an unknown option or a missing value is an error that shows the usage. */
export function parseBenchArgs(argv) {
  try {
    return parseArgs({ args: argv, options: BENCH_OPTIONS }).values;
  } catch (error) {
    console.error(`bench: ${error.message}\n${USAGE}`);
    process.exit(2);
  }
}
