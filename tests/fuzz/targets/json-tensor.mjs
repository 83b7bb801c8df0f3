// Fuzz target: the command line's `.json` tensor inputs ({ "dims": [...], "data": [...] }, read by
// readTensor in bindings/js/cli/input.ts) over mutated seed files (tests/fuzz/corpus/json-tensor)
// and generated JSON values. A file gives a tensor whose values match its dims and are what the
// file says (as float32), or a PosEncError / CliError.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import fc from 'fast-check';

import { readTensor } from '../../../dist/cli/input.js';
import { CliError } from '../../../dist/cli/flags.js';
import { InvariantError, containedAsync, corpus, jsonValue, mutatedBytes } from '../harness.mjs';
import { INCLUDE } from '../known-defects.mjs';

const seeds = corpus('json-tensor');
const scratch = mkdtempSync(join(tmpdir(), 'posenc-fuzz-json-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
const file = join(scratch, 'input.json');

const generated = fc.record({
  dims: fc.oneof(fc.array(fc.nat(3), { maxLength: 3 }), jsonValue),
  data: fc.oneof(fc.array(fc.oneof(fc.double(), fc.constantFrom('Infinity', '-Infinity', 'NaN', 'a', null, 1e39, -1e39, true)), { maxLength: 9 }), jsonValue),
}, { requiredKeys: [] }).map((t) => JSON.stringify(t));
const topLevel = fc.constantFrom('null', '1', '"x"', '[]', 'true', '{}');

/** The float32 a JSON data entry stands for, or undefined when it is not a number. */
const expectedValue = (v) => (typeof v === 'number' ? Math.fround(v) : v === 'Infinity' || v === '-Infinity' || v === 'NaN' ? Number(v) : undefined);

export const target = {
  name: 'json-tensor',
  async: true,
  arbitrary: fc.oneof(
    { weight: 3, arbitrary: generated },
    { weight: 2, arbitrary: mutatedBytes(seeds, 4).map((b) => new TextDecoder().decode(b)) },
    { weight: INCLUDE.jsonTensorNonObject ? 1 : 0, arbitrary: topLevel },
  ).filter((text) => {
    if (INCLUDE.jsonTensorNonObject) return true;
    try { const v = JSON.parse(text); return v !== null && typeof v === 'object'; } catch { return true; }
  }),
  async check(pe, text) {
    writeFileSync(file, text);
    let r;
    try {
      r = await containedAsync('readTensor(.json)', () => readTensor(pe, { input: file }, 'input'));
    } catch (error) {
      if (error.cause instanceof CliError) return;
      throw error;
    }
    if (!r.ok) return;
    const { data, dims } = r.value;
    if (data.length !== dims.reduce((a, b) => a * b, 1)) throw new InvariantError(`readTensor(.json): dims [${dims}] but ${data.length} values`);
    const parsed = JSON.parse(text);
    parsed.data.forEach((v, i) => {
      const want = expectedValue(v);
      if (!Object.is(want, data[i])) throw new InvariantError(`readTensor(.json): data[${i}] = ${JSON.stringify(v)} was read as ${data[i]}`);
    });
  },
};
