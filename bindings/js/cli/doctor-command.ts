// `posenc doctor`: the convention doctor. With a config.json, every ambiguity in it and the choice the
// plan made (pe.doctor.config); with --before/--after tensor files, which RoPE convention turned one
// into the other (pe.doctor.identify).
import { readFile } from 'node:fs/promises';

import { PosEncError } from '../runtime/errors.js';
import type { Command } from './commands.js';
import { readTensorFile } from './files.js';
import { jsonFlag, numberFlag, numberOrList } from './tool-flags.js';

/** JSON with typed arrays as plain arrays. */
function plainJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v), 2);
}

export const DOCTOR_COMMAND: Command = {
  summary: "list a config.json's ambiguities and the choices made, or identify the RoPE that turned --before into --after",
  usage: 'posenc doctor config.json [--json true]  |  posenc doctor --before q.npy --after q_rot.npy [--layout bshd|bhsd] [--num-heads H] [--offset P | --positions p0,p1,...] [--json true]',
  flags: ['before', 'after', 'layout', 'num-heads', 'offset', 'positions', 'json'],
  async run(pe, flags, print) {
    const json = jsonFlag(flags);
    const path = flags.positionals[0];
    const { before, after } = flags.values;
    if (path !== undefined) {
      const tensorFlags = ['before', 'after', 'layout', 'num-heads', 'offset', 'positions'].filter((f) => flags.values[f] !== undefined);
      if (tensorFlags.length) throw new PosEncError('INVALID_ARGUMENT', `a config.json and --${tensorFlags.join(', --')} do not go together: give one or the other`);
      const report = pe.doctor.config((await readFile(path)).toString('utf8'));
      if (json) {
        print(plainJson(report));
        return;
      }
      for (const line of pe.model.summarize(report.plan).filter((l) => !l.startsWith('note: '))) print(line);
      print(report.findings.length ? `${report.findings.length} findings:` : 'no ambiguities found');
      for (const f of report.findings) print(`- ${f.key ? `${f.key}: ` : ''}${f.text}`);
      return;
    }
    if (before === undefined || after === undefined) {
      throw new PosEncError('MISSING_OPTION', 'give a config.json, or --before and --after tensor files');
    }
    const positions = numberOrList(flags, 'positions');
    if (typeof positions === 'number') throw new PosEncError('INVALID_ARGUMENT', '--positions takes one position per token, comma-separated (use --offset for a first position)');
    const r = pe.doctor.identify(await readTensorFile(pe, before), await readTensorFile(pe, after), {
      layout: flags.values.layout as 'bshd' | 'bhsd' | undefined,
      numHeads: numberFlag(flags, 'num-heads', true, 1),
      offset: numberFlag(flags, 'offset'),
      positionIds: positions,
    });
    if (json) {
      print(plainJson(r));
      return;
    }
    const s = r.spec;
    const sc = s.scaling as Record<string, unknown> | undefined;
    const scaling = sc ? `${String(sc.type)} (${Object.entries(sc).filter(([k]) => k !== 'type').map(([k, v]) => `${k} ${Array.isArray(v) ? `[${v.length} values]` : String(v)}`).join(', ')})` : 'none';
    const rows: [string, string][] = [
      ['pairing', s.pairing], ['rotary dim', `${s.rotaryDim} of ${s.headDim} lanes`], ['base', String(s.base)], ['scaling', scaling],
      ['attention factor', String(Number(r.attentionFactor.toPrecision(7)))],
      ['offset', r.offset === 0 ? '0 (the positions given)' : `${r.offset} (the rotation used the positions given + ${r.offset})`],
      ['residual', `${r.residual.toExponential(1)} (free per-pair fit ${r.fitResidual.toExponential(1)})`], ['confidence', r.confidence],
    ];
    for (const [k, v] of rows) print(`${k.padEnd(16)}  ${v}`);
    for (const n of r.notes) print(`note: ${n}`);
    print(`spec: ${JSON.stringify(s)}`);
  },
};
