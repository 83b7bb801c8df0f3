// How long the page takes to answer, at the top of every range its controls allow, in headless
// Chromium at 1366 × 900. For each interaction:
// - the longest task on the page's main thread, as CPU time (a trace's thread time) and as wall
//   time (Long Tasks API); on a shared machine the wall time also counts the time other processes
//   held the core, so the CPU time is what this page costs;
// - the longest time from an input event to the end of the frame after it (measured in the page:
//   headless Chromium's Event Timing durations wait for presentation feedback that comes with a
//   later frame);
// - the time until every figure it changed was redrawn (the sections' busy marks cleared; this
//   includes the test's own round trips and work in the page's workers).
// The numbers go to tests/artifacts/timings.json and the test output. The target is 100 ms.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { encodeFloats, npyBytes } from '../js/io-fixtures.mjs';
import { figure, numberField, section, settled } from './page-helpers.mjs';
import { ARTIFACTS, DESKTOP } from './harness.mjs';

/**
 * The test fails when a task's CPU time passes 100 ms × MARGIN. Thread time is much steadier than
 * wall time under load, but not exact (a core shared by two hyperthreads, caches, the profiler's
 * own work): repeated runs of the same interaction varied by up to a fifth in our runs, hence 1.25.
 */
const MARGIN = 1.25;
const results = [];
const ctx = {}; // { browser, page }

/** Watches a page for long tasks and input → frame times; call before it loads. */
async function watchTimings(page) {
  await page.addInitScript(() => {
    const perf = { long: [], frames: [], start: 0 };
    Object.defineProperty(window, '__perf', { value: perf });
    new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.startTime >= perf.start) perf.long.push(e.duration); }).observe({ type: 'longtask' });
    // input → the next frame: from the event's time stamp to just after the frame that follows it
    // (a task queued from requestAnimationFrame runs once that frame's rendering is done)
    for (const type of ['keydown', 'input', 'change', 'click', 'drop']) {
      addEventListener(type, (event) => {
        const t0 = event.timeStamp;
        requestAnimationFrame(() => setTimeout(() => { if (t0 >= perf.start) perf.frames.push({ type, ms: performance.now() - t0 }); }));
      }, { capture: true });
    }
  });
}

/**
 * Finds what an interaction needs (`prepare`: role queries run in the page too, and must not be
 * counted), then runs the interaction it returns, waits until the page has redrawn, and records
 * what it cost.
 */
async function measure(name, prepare) {
  const { page } = ctx;
  const act = await prepare();
  const k = results.length;
  await page.evaluate((mark) => {
    window.__perf.long.length = 0;
    window.__perf.frames.length = 0;
    window.__perf.start = performance.now();
    performance.mark(mark); // in the trace too: its tasks are the ones up to the matching end mark
  }, `timings:start:${k}`);
  await act();
  await page.waitForFunction(() => !document.querySelector('[data-busy]'), null, { timeout: 120_000, polling: 50 });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.waitForTimeout(60); // a long task is reported after it ends
  const r = await page.evaluate(() => ({
    longestTaskMs: Math.round(Math.max(0, ...window.__perf.long)),
    inputToFrameMs: Math.round(Math.max(0, ...window.__perf.frames.map((f) => f.ms))),
    untilRedrawnMs: Math.round(performance.now() - window.__perf.start),
  }));
  await page.evaluate((mark) => performance.mark(mark), `timings:end:${k}`);
  results.push({ name, ...r });
  return r;
}

/**
 * The CPU time (ms) of the longest task on the page's main thread between each step's start and
 * end marks, from one trace of all the steps (tracing each step alone costs more than the steps).
 */
function longestTasksCpu(events, steps) {
  const main = events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const onMain = (e) => main.some((m) => m.pid === e.pid && m.tid === e.tid);
  const tasks = events.filter((e) => e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' && onMain(e));
  const mark = (name) => events.find((e) => e.name === name)?.ts;
  return Array.from({ length: steps }, (_, k) => {
    const [from, to] = [mark(`timings:start:${k}`), mark(`timings:end:${k}`)];
    if (from === undefined || to === undefined) throw new Error(`step ${k} has no marks in the trace`);
    const inside = tasks.filter((t) => t.ts + t.dur >= from && t.ts <= to);
    return Math.round(Math.max(0, ...inside.map((t) => (t.tdur ?? t.dur) / 1000)));
  });
}

/** An interaction typing `value` into a field found beforehand. */
const typing = (locator, value) => async () => {
  const field = await locator.elementHandle();
  return () => field.fill(String(value));
};
/** Several such steps as one interaction. */
const all = (...steps) => async () => {
  const acts = await Promise.all(steps.map((s) => s()));
  return async () => {
    for (const act of acts) await act();
  };
};

/** A GPT-2-sized table file (1024 × 768, float32): sin of a few frequencies, as a trained table roughly looks. */
function gpt2SizedTable() {
  const [rows, dim] = [1024, 768];
  const values = Array.from({ length: rows * dim }, (_, i) => Math.sin(Math.floor(i / dim) * 0.01 * (1 + (i % dim) / 64)));
  return npyBytes({ shape: [rows, dim], data: encodeFloats(values, 'f4') });
}

/** The timing tests: a fresh desktop page (no settings left over from other tests) in the suite's browser. */
export function timingTests(shared) {
  describe('timings at the top of every range', () => {
    before(async () => {
      ctx.browser = shared.browser;
      ctx.page = await ctx.browser.newPage(DESKTOP);
      await watchTimings(ctx.page);
      await ctx.page.goto(ctx.browser.url);
      await ctx.page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
      await settled(ctx.page);
    });
    after(async () => {
      await ctx.page?.close();
      if (!results.length) return;
      writeFileSync(`${ARTIFACTS}timings.json`, `${JSON.stringify(results, null, 2)}\n`);
      console.log('\ninteraction                                          longest task (CPU, wall)  input→frame  until redrawn');
      for (const r of results) {
        console.log(`${r.name.padEnd(53)}${String(r.longestTaskCpuMs).padStart(8)} ms${String(r.longestTaskMs).padStart(8)} ms${String(r.inputToFrameMs).padStart(10)} ms${String(r.untilRedrawnMs).padStart(12)} ms`);
      }
    });

    test('every interaction at the top of its range stays responsive', async () => {
      const { page } = ctx;
      const why = section(page, 'Why order matters');
      const sin = section(page, 'Sinusoidal encoding');
      const learned = section(page, 'Learned position tables');
      const rel = section(page, 'Relative positions');
      const rope = section(page, 'Rotary position embedding (RoPE)');
      const compare = section(page, 'Comparison');
      const steps = [
        ['why: a 16-word sentence', typing(why.getByRole('textbox', { name: /^sentence/ }), Array.from({ length: 16 }, (_, i) => `word${i}`).join(' '))],
        ['why: RoPE for 16 words', async () => {
          const radio = await why.getByRole('radio', { name: 'RoPE' }).elementHandle();
          return () => radio.check();
        }],
        ['why: undo the permutation for 16 words', async () => {
          const box = await why.getByRole('checkbox', { name: 'undo the permutation in the permuted figures' }).elementHandle();
          return () => box.check();
        }],
        ['why: X = E + P at position 100 000', typing(numberField(why, 'position p'), 100000)],
        ['sinusoidal: dim 512 (the slider\'s end)', async () => {
          const slider = await sin.getByRole('slider', { name: /^dim/ }).elementHandle();
          await slider.focus();
          return () => page.keyboard.press('End');
        }],
        ['sinusoidal: length 4096 × dim 2048 (the fields\' end)', all(typing(numberField(sin, 'length'), 4096), typing(numberField(sin, 'dim'), 2048))],
        ['sinusoidal: cosine similarity at 4096 × 2048', async () => {
          const box = await sin.getByRole('combobox', { name: 'measure' }).elementHandle();
          return () => box.selectOption('cosine');
        }],
        ['sinusoidal: 30 cursor moves in the 4096 × 2048 table', async () => {
          const canvas = await figure(sin, 'The table').locator('canvas').elementHandle();
          await canvas.focus();
          return async () => {
            for (let k = 0; k < 30; k++) await page.keyboard.press('Shift+ArrowDown');
          };
        }],
        ['sinusoidal: all positions in the waves at 4096', async () => {
          const box = await sin.getByRole('combobox', { name: 'positions' }).elementHandle();
          return () => box.selectOption('all');
        }],
        ['sinusoidal: back to 256 × 128', all(typing(numberField(sin, 'length'), 256), typing(numberField(sin, 'dim'), 128))],
        ['learned: a 1024 × 768 float32 file dropped', async () => {
          const zone = await learned.locator('.dropzone').elementHandle();
          return () => zone.evaluate((el) => {
            const data = new DataTransfer();
            data.items.add(window.__table); // made before the measurement: its bytes came through the test's protocol
            el.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
          });
        }],
        ['learned: position 2 729 of the 1024-row table, stretched (the limit)', typing(numberField(learned, 'ask for position'), 2729)],
        ['learned: training 128 positions × 32 dims', all(typing(numberField(learned, 'positions'), 128), typing(numberField(learned, 'width'), 32))],
        ['learned: training again at 64 × 16 (the defaults)', all(typing(numberField(learned, 'positions'), 64), typing(numberField(learned, 'width'), 16))],
        ['relative: 512 queries × 512 keys', all(typing(numberField(rel, 'queries'), 512), typing(numberField(rel, 'keys'), 512))],
        ['relative: Shaw’s position term at 512²', async () => {
          const radio = await rel.getByRole('radio', { name: 'position term', exact: true }).elementHandle();
          return () => radio.check();
        }],
        ['relative: query offset 100 000', typing(numberField(rel, 'query offset'), 100000)],
        ['relative: ALiBi 128 heads at 512²', typing(numberField(rel, 'heads'), 128)],
        ['relative: T5 512 buckets, maxDistance 100 000', all(typing(numberField(rel, 'numBuckets'), 512), typing(numberField(rel, 'maxDistance'), 100000))],
        ['relative: DeBERTa maxPosition 8192, bucketSize 4096', all(typing(numberField(rel, 'maxPosition'), 8192), typing(numberField(rel, 'bucketSize'), 4096))],
        ['relative: Transformer-XL memLen 512, dModel 1024', all(typing(numberField(rel, 'memLen'), 512), typing(numberField(rel, 'dModel'), 1024))],
        ['rope: head dim 512', typing(numberField(rope, 'head dim'), 512)],
        ['rope: q·k over 512 positions at head dim 512', typing(numberField(figure(rope, 'q·k depends only on'), 'positions'), 512)],
        ['rope: R over all 512 lanes', typing(numberField(rope, 'lanes shown'), 512)],
        ['rope: q and k shifted by 1 000 000', typing(numberField(rope, 'shift both by s'), 1000000)],
        ['rope: the decay over 1 000 000 tokens', typing(numberField(rope, 'distance up to'), 1000000)],
        ['rope: the precision oracle over 262 144 positions (Ministral 3)', async () => {
          const box = await figure(rope, 'Error per position').getByRole('combobox', { name: 'model' }).elementHandle();
          return () => box.selectOption('ministral3');
        }],
        ['rope: a KV-cache shift at position 10 000 000', typing(numberField(rope, 'cache starts at position'), 10000000)],
        ['rope: the plan of Phi-3.5 mini', async () => {
          const b = await rope.getByRole('button', { name: 'Phi-3.5 mini', exact: true }).elementHandle();
          return () => b.click();
        }],
        ['rope: LongRoPE at head dim 512', async () => {
          const box = await rope.getByRole('combobox', { name: 'scaling type' }).elementHandle();
          return () => box.selectOption('longrope');
        }],
        ['rope: position 1 000 000 on the slowest pair', all(typing(numberField(figure(rope, 'One pair, turning'), 'pair i'), 255), typing(numberField(figure(rope, 'One pair, turning'), 'position m'), 1000000))],
        ['rope: context 10 000 000', typing(numberField(rope, 'context'), 10000000)],
        ['compare: every method up to 16 384 tokens', typing(numberField(compare, 'distance shown up to'), 16384)],
      ];
      await page.evaluate((b64) => {
        window.__table = new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'gpt2-sized.npy');
      }, Buffer.from(gpt2SizedTable()).toString('base64'));
      await ctx.browser.browser.startTracing(page, { categories: ['toplevel', 'blink.user_timing'] });
      for (const [name, action] of steps) await measure(name, action);
      const trace = JSON.parse((await ctx.browser.browser.stopTracing()).toString()).traceEvents;
      longestTasksCpu(trace, results.length).forEach((ms, k) => { results[k].longestTaskCpuMs = ms; });
      assert.deepEqual(await page.$$eval('p.status:not([hidden])', (els) => els.map((e) => e.textContent)), [], 'every setting above is one the page accepts');
      const slow = results.filter((r) => r.longestTaskCpuMs > 100 * MARGIN);
      assert.deepEqual(slow, [], `tasks over ${100 * MARGIN} ms of CPU time`);
    });
  });
}
