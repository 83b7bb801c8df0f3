// Tensor files for the command line: read .npy, .safetensors and .json; write .npy and .json.
import { readFile, writeFile } from 'node:fs/promises';
import { extname } from 'node:path';

import type { Tensor } from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import type { PosEnc } from '../posenc.js';

/** Reads a float tensor from `path`; `tensorName` picks one tensor of a .safetensors file. */
export async function readTensorFile(pe: PosEnc, path: string, tensorName?: string): Promise<Tensor> {
  const bytes = await readFile(path);
  switch (extname(path).toLowerCase()) {
    case '.npy':
      return pe.io.readNpy(bytes);
    case '.safetensors': {
      const names = pe.io.listSafetensors(bytes).tensors.map((t) => t.name);
      const name = tensorName ?? (names.length === 1 ? names[0] : undefined);
      if (name === undefined) {
        throw new PosEncError('INVALID_ARGUMENT', `${path} holds ${names.length} tensors; choose one with --tensor (${names.slice(0, 8).join(', ')}${names.length > 8 ? ', ...' : ''})`);
      }
      return pe.io.readSafetensors(bytes, { names: [name] })[name]!;
    }
    case '.json': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(bytes.toString('utf8'));
      } catch (error) {
        throw new PosEncError('INVALID_FILE', `${path}: not valid JSON (${(error as Error).message})`);
      }
      const t = parsed as { data?: unknown; dims?: unknown };
      if (!Array.isArray(t.data) || !Array.isArray(t.dims)) {
        throw new PosEncError('INVALID_FILE', `${path}: expected an object { "dims": [...], "data": [...] }`);
      }
      return { data: Float32Array.from(t.data as number[]), dims: (t.dims as number[]).slice() };
    }
    default:
      throw new PosEncError('INVALID_ARGUMENT', `${path}: unknown file type; use .npy, .safetensors or .json`);
  }
}

/** Writes a tensor to `path` as .npy (float32) or .json ({ dims, data }). */
export async function writeTensorFile(pe: PosEnc, path: string, tensor: Tensor): Promise<void> {
  switch (extname(path).toLowerCase()) {
    case '.npy':
      await writeFile(path, pe.io.writeNpy(tensor));
      return;
    case '.json':
      await writeFile(path, JSON.stringify({ dims: tensor.dims, data: Array.from(tensor.data) }) + '\n');
      return;
    default:
      throw new PosEncError('INVALID_ARGUMENT', `${path}: unknown output type; use .npy or .json`);
  }
}

/** Reads a JSON file (a model's config.json). */
export async function readJsonFile(path: string): Promise<unknown> {
  const text = await readFile(path, 'utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new PosEncError('INVALID_CONFIG', `${path}: not valid JSON (${(error as Error).message})`);
  }
}
