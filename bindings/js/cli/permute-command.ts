// `posenc permute`: a q_proj / k_proj weight or bias reordered for the other RoPE pairing
// (pe.rope.permuteWeights): Meta checkpoints to Hugging Face (--to half) and back (--to interleaved).
import type { Command } from './commands.js';
import { readTensorFile, writeTensorFile } from './files.js';
import { numberFlag, requiredFlag } from './tool-flags.js';

export const PERMUTE_COMMAND: Command = {
  summary: "reorder a q/k projection's rows for the other RoPE pairing (Meta/GGUF interleaved <-> Hugging Face half)",
  usage: 'posenc permute --in q_proj.npy|model.safetensors [--tensor NAME] --to half|interleaved --num-heads H [--head-dim D] [--rotary-dim R] --out q_proj_permuted.npy',
  flags: ['in', 'tensor', 'to', 'num-heads', 'head-dim', 'rotary-dim', 'out'],
  async run(pe, flags, print) {
    const w = await readTensorFile(pe, requiredFlag(flags, 'in'), flags.values.tensor);
    const out = requiredFlag(flags, 'out');
    const to = requiredFlag(flags, 'to');
    requiredFlag(flags, 'num-heads');
    const permuted = pe.rope.permuteWeights(w, {
      to: to as 'half' | 'interleaved',
      numHeads: numberFlag(flags, 'num-heads', true, 1)!,
      headDim: numberFlag(flags, 'head-dim', true, 1),
      rotaryDim: numberFlag(flags, 'rotary-dim', true, 1),
    });
    await writeTensorFile(pe, out, permuted);
    print(`wrote ${out}: [${permuted.dims.join(', ')}] rows reordered for the ${to} pairing`);
  },
};
