// `posenc precision`: the precision oracle (pe.precision.oracle) for a model's config.json (one layer)
// or explicit RoPE flags: the largest error of each upstream pipeline, by ranges of positions.
import { readFile } from 'node:fs/promises';

import { PosEncError } from '../runtime/errors.js';
import type { Command } from './commands.js';
import { jsonFlag, numberFlag } from './tool-flags.js';

type Pipeline = 'hf-float32' | 'hf-float16' | 'hf-bfloat16' | 'ggml-float32' | 'ggml-float16';

/** Position ranges [0, b), [b, 2b), [2b, 4b), ...: one table row each. */
function ranges(length: number, bucket: number): [number, number][] {
  const out: [number, number][] = [[0, Math.min(bucket, length)]];
  for (let start = bucket; start < length; start *= 2) out.push([start, Math.min(2 * start, length)]);
  return out;
}

export const PRECISION_COMMAND: Command = {
  summary: 'how far float32/float16/bfloat16 pipelines (Hugging Face, ggml) compute RoPE from float64, by position',
  usage: 'posenc precision (config.json [--layer N] | [--rotary-dim R] [--base B]) --context N [--pipelines hf-float32,...] [--steps true] [--json true]',
  flags: ['layer', 'rotary-dim', 'base', 'context', 'pipelines', 'steps', 'json'],
  async run(pe, flags, print) {
    const path = flags.positionals[0];
    const contextLength = numberFlag(flags, 'context', true, 1);
    if (contextLength === undefined) throw new PosEncError('MISSING_OPTION', '--context is required (the number of positions to evaluate)');
    const layer = numberFlag(flags, 'layer', true, 0);
    let target: Parameters<typeof pe.precision.oracle>[0];
    let what: string;
    if (path !== undefined) {
      if (flags.values['rotary-dim'] !== undefined || flags.values.base !== undefined) throw new PosEncError('INVALID_ARGUMENT', 'a config.json defines the RoPE; do not combine it with --rotary-dim or --base');
      target = pe.model.fromConfig((await readFile(path)).toString('utf8'));
      what = path;
    } else {
      if (layer !== undefined) throw new PosEncError('INVALID_ARGUMENT', '--layer needs a config.json');
      const rotaryDim = numberFlag(flags, 'rotary-dim', true, 2);
      if (rotaryDim === undefined) throw new PosEncError('MISSING_OPTION', 'give a config.json or --rotary-dim');
      target = { rotaryDim, base: numberFlag(flags, 'base') };
      what = 'the RoPE given';
    }
    const steps = flags.values.steps;
    if (steps !== undefined && steps !== 'true' && steps !== 'false') throw new PosEncError('INVALID_ARGUMENT', `--steps must be true or false, got '${steps}'`);
    const pipelines = flags.values.pipelines?.split(',') as Pipeline[] | undefined;
    const bucket = 2 ** Math.max(0, Math.floor(Math.log2(contextLength / 128)));
    const started = performance.now();
    const report = pe.precision.oracle(target, { contextLength, bucket, pipelines, layer });
    const seconds = (performance.now() - started) / 1000;
    if (jsonFlag(flags)) {
      print(JSON.stringify(report));
      return;
    }
    const s = report.spec;
    print(`${what}: RoPE rotary dim ${s.rotaryDim}, base ${s.base}, ${s.scalingType}${s.attentionFactor !== 1 ? `, attention factor ${Number(s.attentionFactor.toPrecision(6))}` : ''}; positions 0-${contextLength - 1}`);
    for (const n of report.notes) print(`note: ${n}`);
    print('largest error of a rotated unit vector against float64, by positions:');
    const width = Math.max(...report.pipelines.map((p) => p.name.length), 8);
    print(`${'positions'.padEnd(16)}${report.pipelines.map((p) => p.name.padStart(width + 2)).join('')}`);
    for (const [from, to] of ranges(contextLength, bucket)) {
      const cells = report.pipelines.map((p) => Math.max(...p.rotationError.slice(from / bucket, Math.ceil(to / bucket))).toExponential(1).padStart(width + 2));
      print(`${`${from}-${to - 1}`.padEnd(16)}${cells.join('')}`);
    }
    print(`${'cos/sin rows'.padEnd(16)}${report.pipelines.map((p) => p.maxCosSinError.toExponential(1).padStart(width + 2)).join('')}`);
    if (steps === 'true') {
      for (const p of report.pipelines) {
        print(`${p.name}:`);
        for (const step of p.steps) print(`  ${step}`);
      }
    }
    // The time goes to stderr: stdout stays the same from run to run
    process.stderr.write(`${report.pipelines.length} pipelines x ${contextLength} positions x ${s.rotaryDim / 2} pairs in ${seconds.toFixed(2)} s\n`);
  },
};
