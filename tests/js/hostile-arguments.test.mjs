// Caller objects in place of each positional argument of every public call (tests/js/api-cases.mjs):
// a Proxy whose every trap throws (get, has, ownKeys, getPrototypeOf: `instanceof` and `in` run
// traps too), an array Proxy, and an object whose getters throw. posenc reads them as the caller's
// code: INVALID_ARGUMENT naming the argument, the caller's error as `cause`, or another documented
// refusal; never INTERNAL, never the caller's error bare; and the module keeps working.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { apiCases } from './api-cases.mjs';
import { createPosEnc } from './helpers.mjs';

const pe = await createPosEnc();
const cases = apiCases(pe);

class CallerError extends Error {}
const trap = (what) => () => { throw new CallerError(what); };
const HOSTILE = {
  'a Proxy whose every trap throws': () => new Proxy({}, { get: trap('get'), has: trap('has'), ownKeys: trap('ownKeys'), getPrototypeOf: trap('getPrototypeOf') }),
  'an array Proxy whose reads throw': () => new Proxy([], { get: trap('get') }),
  'an object whose getters throw': () => ({ get data() { throw new CallerError('data'); }, get dims() { throw new CallerError('dims'); }, get length() { throw new CallerError('length'); } }),
};

const copy = (a) => (a && a.data instanceof Float32Array ? { data: a.data.slice(), dims: a.dims.slice() } : a);

for (const [kind, make] of Object.entries(HOSTILE)) {
  test(`${kind}, as each argument of every call: a PosEncError, the caller's error its cause`, () => {
    let callerErrors = 0;
    for (const [name, call, valid] of cases) {
      for (let i = 0; i < valid.length; i++) {
        const args = valid.map(copy);
        args[i] = make();
        try {
          call(...args);
        } catch (error) {
          assert.ok(!(error instanceof CallerError), `${name}, argument ${i}: the caller's error came back bare`);
          assert.equal(error?.name, 'PosEncError', `${name}, argument ${i}: ${error}`);
          assert.notEqual(error.code, 'INTERNAL', `${name}, argument ${i}: ${error.message}`);
          if (error.cause instanceof CallerError) {
            assert.equal(error.code, 'INVALID_ARGUMENT', `${name}, argument ${i}: ${error.message}`);
            callerErrors += 1;
          }
        }
      }
    }
    assert.ok(callerErrors > 0, 'some reads ran the caller\'s code');
    const [, call, valid] = cases.find(([name]) => name === 'sinusoidal.table');
    assert.ok(Array.from(call(...valid.map(copy)).data).every(Number.isFinite), 'the module keeps working');
  });
}
