// `posenc shift`: KV-cache context shift of a key tensor file (pe.rope.shift): keys rotated for
// their positions, re-rotated in place for new ones.
import { PosEncError } from '../runtime/errors.js';
import type { Command } from './commands.js';
import { readTensorFile, writeTensorFile } from './files.js';
import { numberFlag, numberOrList, requiredFlag, SPEC_FLAGS, specFromFlags } from './tool-flags.js';

export const SHIFT_COMMAND: Command = {
  summary: 'move rotated keys (a KV cache) to new positions: re-rotate them by the position difference',
  usage: 'posenc shift --in k.npy --out k_shifted.npy [--layout bshd|bhsd] [--num-heads H] (--config config.json [--layer N] | [--rotary-dim R] [--base B] [--pairing half|interleaved]) [--offset P | --positions p0,p1,...] (--delta D | --delta d0,d1,... | --new-offset P | --new-positions p0,p1,...) [--seq-len L]',
  flags: ['in', 'out', 'layout', 'num-heads', ...SPEC_FLAGS, 'offset', 'positions', 'delta', 'new-offset', 'new-positions', 'seq-len'],
  async run(pe, flags, print) {
    const k = await readTensorFile(pe, requiredFlag(flags, 'in'));
    const out = requiredFlag(flags, 'out');
    const spec = await specFromFlags(pe, flags);
    const positions = numberOrList(flags, 'positions');
    const newPositions = numberOrList(flags, 'new-positions');
    if (typeof positions === 'number' || typeof newPositions === 'number') {
      throw new PosEncError('INVALID_ARGUMENT', '--positions and --new-positions take one position per token, comma-separated (use --offset or --new-offset for a first position)');
    }
    pe.rope.shift(k, {
      ...spec,
      layout: flags.values.layout as 'bshd' | 'bhsd' | undefined,
      numHeads: numberFlag(flags, 'num-heads', true, 1),
      offset: numberFlag(flags, 'offset'),
      positionIds: positions,
      delta: numberOrList(flags, 'delta'),
      newOffset: numberFlag(flags, 'new-offset'),
      newPositionIds: newPositions,
      seqLen: numberFlag(flags, 'seq-len', true, 1),
    });
    await writeTensorFile(pe, out, k);
    print(`wrote ${out}: [${k.dims.join(', ')}] keys moved to their new positions`);
  },
};
