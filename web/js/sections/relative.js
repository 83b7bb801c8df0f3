// Section "Relative positions": the shared query/key lengths and five parts, each its own module:
// the distance matrix and Shaw's clipping, T5 buckets, DeBERTa log buckets, ALiBi, and
// Transformer-XL's R matrix with the rel-shift. Every index, bucket and bias comes from posenc.
import { numberControl, perFrame, showStatus } from '../lib/controls.js';
import { showCall } from '../lib/readout.js';
import { mountAlibi } from './relative-alibi.js';
import { mountDeberta } from './relative-deberta.js';
import { mountDistance } from './relative-distance.js';
import { mountT5 } from './relative-t5.js';
import { mountTransformerXL } from './relative-txl.js';

/** Largest query or key count the figures draw (a heatmap cell stays at least a pixel). */
export const MAX_LEN = 512;

export function mount(root, pe) {
  const $ = (id) => document.getElementById(id);
  const status = $('rel-status');
  const update = perFrame(() => recompute());
  const qLen = numberControl('rel-qlen', update);
  const kLen = numberControl('rel-klen', update);
  const offset = numberControl('rel-offset', update);
  for (const form of root.querySelectorAll('form')) form.addEventListener('submit', (e) => e.preventDefault());

  const calls = new Map(); // part -> its lines in the "calls" block
  const showCalls = (part, lines) => {
    calls.set(part, lines);
    showCall($('rel-call'), [...calls.values()].flat());
  };
  const parts = [mountDistance, mountT5, mountDeberta, mountAlibi, mountTransformerXL].map((m) => m(pe, showCalls, status));

  function recompute() {
    const shared = { qLen: qLen.get(), kLen: kLen.get(), queryOffset: offset.get() };
    const tooBig = [['qLen', shared.qLen], ['kLen', shared.kLen]].find(([, v]) => v > MAX_LEN);
    if (tooBig) {
      showStatus(status, `${tooBig[0]} = ${tooBig[1]} is more than this page draws (${MAX_LEN}); posenc itself has no such limit.`);
      return;
    }
    // posenc checks the lengths and the offset: the distance part calls it first and reports what
    // is wrong here; the other parts then keep their last picture. Each part reports problems with
    // its own settings next to them.
    try {
      parts[0].update(shared);
    } catch (error) {
      showStatus(status, error.message);
      return;
    }
    showStatus(status, null);
    for (const part of parts.slice(1)) part.update(shared);
  }

  recompute();
}
