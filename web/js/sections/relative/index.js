// Section "Relative positions": the query and key lengths every part shares, and five parts, each
// its own module with its own settings: distances and Shaw's clipping, T5 buckets, DeBERTa log
// buckets, ALiBi, and Transformer-XL's R with the rel-shift. Every index, bucket and bias comes
// from posenc. Each part updates in a task of its own, so the largest lengths keep the page responsive.
import { number } from '../../ui/control-specs.js';
import { PageError } from '../../ui/section.js';
import { alibiPart } from './alibi.js';
import { debertaPart } from './deberta.js';
import { distancePart } from './distance.js';
import { t5Part } from './t5.js';
import { txlPart } from './txl.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./state.js').Lengths} Lengths */

/** Largest query or key count the figures draw. */
export const MAX_LEN = 512;

export const SETTINGS = {
  qLen: number({ label: 'queries', unit: 'qLen', value: 32, step: 1, max: MAX_LEN, slider: [1, 128] }),
  kLen: number({ label: 'keys', unit: 'kLen', value: 32, step: 1, max: MAX_LEN, slider: [1, 128] }),
  queryOffset: number({ label: 'query offset', unit: 'cached tokens', value: 0, step: 1, max: 100000 }),
};

/** @param {Section} section */
export function mount(section) {
  const settings = section.panel('settings', SETTINGS);
  section.callOrder(['shaw', 'shaw-score', 't5', 'deberta', 'alibi', 'txl']);
  const parts = [distancePart(section), t5Part(section), alibiPart(section), txlPart(section)];
  debertaPart(section); // its buckets do not depend on the lengths
  const update = section.updater({ status: section.status(settings), figures: parts.flatMap((p) => p.figures) }, () => {
    const problem = settings.problem();
    if (problem) throw new PageError(problem);
    const lengths = settings.values();
    // posenc checks the lengths and the offset (its message names the one that is wrong)
    section.pe.shaw.relativeIndices({ ...lengths, maxRelativePosition: 1 });
    for (const part of parts) part.update(lengths); // each redraws in a task of its own
  });
  settings.onChange(() => update());
  update();
}
