// Loaded with `node --import` into a child the CLI bench case runs: on exit, writes the process's
// peak resident set size (process.resourceUsage().maxRSS, KiB) to the file POSENC_BENCH_RSS_FILE names.
import { writeFileSync } from 'node:fs';

process.on('exit', () => writeFileSync(process.env.POSENC_BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)));
