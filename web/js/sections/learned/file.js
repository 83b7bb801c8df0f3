// Reading a position table from a file the reader drops or picks: an .npy array or a tensor of a
// .safetensors file (pe.io), whichever the name or the first bytes say. What a file holds is
// listed first; a tensor is read when it is shown. Every failure is an Error whose message says
// what is wrong with the file (posenc's INVALID_FILE message, or the page's shape check).

/** @typedef {import('posenc').PosEnc} PosEnc */
/**
 * @typedef {object} Entry  a tensor of a file that can be a position table
 * @property {string} name
 * @property {number[]} dims
 * @property {string} dtype  'npy' for the array of an .npy file
 * @property {import('posenc').Tensor} [tensor]  already read (an .npy array)
 * @property {number} [size]
 */
/** @typedef {{ name: string, bytes: Uint8Array, kind: 'npy' | 'safetensors', entries: Entry[] }} TableFile */

const NPY_MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
/** Names that usually hold a position table, to preselect it in a model file. */
const POSITION_NAME = /(^|\.)(wpe|position_embeddings?|pos_embed(ding)?s?|positional_embedding)(\.|$)/i;

/** Which reader a file needs: by extension, else by its first bytes. @param {string} name @param {Uint8Array} bytes */
function fileKind(name, bytes) {
  if (/\.npy$/i.test(name)) return 'npy';
  if (/\.safetensors$/i.test(name)) return 'safetensors';
  return NPY_MAGIC.every((b, i) => bytes[i] === b) ? 'npy' : 'safetensors';
}

/** Lists the tensors of a file that can be position tables (two dimensions after leading 1s). @param {PosEnc} pe @param {string} name @param {Uint8Array} bytes @returns {TableFile} */
export function readFile(pe, name, bytes) {
  const kind = fileKind(name, bytes);
  if (kind === 'npy') {
    const tensor = pe.io.readNpy(bytes);
    return { name, bytes, kind, entries: [{ name: 'array', dims: tensor.dims, dtype: 'npy', tensor }] };
  }
  let header;
  try {
    header = pe.io.listSafetensors(bytes);
  } catch (error) {
    if (/\.safetensors$/i.test(name)) throw error;
    throw new Error(`it is neither an .npy file (it does not start with \\x93NUMPY) nor a .safetensors file (${error instanceof Error ? error.message : error})`);
  }
  const all = header.tensors;
  const entries = all.filter((t) => t.readable && t.dims.length >= 2 && t.dims.filter((d) => d !== 1).length === 2)
    .map((t) => ({ name: t.name, dims: t.dims, dtype: t.dtype }));
  if (entries.length === 0) {
    const some = all.slice(0, 6).map((t) => `${t.name} ${t.dtype} [${t.dims.join(', ')}]`).join('; ');
    throw new Error(`it holds no float tensor of shape [positions, dim] (${all.length} tensor(s)${some ? `: ${some}` : ''})`);
  }
  return { name, bytes, kind, entries };
}

/** The entry to show first: the one named like a position table, else the first. @param {TableFile} file */
export function preferredEntry(file) {
  return file.entries.find((e) => POSITION_NAME.test(e.name)) ?? /** @type {Entry} */ (file.entries[0]);
}

/**
 * Reads one entry as a [rows, dim] table: [1, ..., rows, dim] loses its leading 1s; anything else
 * of another rank is not a position table.
 * @param {PosEnc} pe @param {TableFile} file @param {string} name
 */
export function readTable(pe, file, name) {
  const entry = file.entries.find((e) => e.name === name);
  if (!entry) throw new Error(`it has no tensor '${name}'`);
  const tensor = entry.tensor ?? /** @type {import('posenc').Tensor} */ (pe.io.readSafetensors(file.bytes, { names: [name] })[name]);
  const label = file.kind === 'npy' ? 'the array' : `tensor '${name}'`;
  const dims = tensor.dims.slice();
  while (dims.length > 2 && dims[0] === 1) dims.shift();
  if (dims.length !== 2) throw new Error(`${label} has shape [${tensor.dims.join(', ')}]; a position table has two dimensions, [positions, dim]`);
  const [rows, dim] = /** @type {[number, number]} */ (dims);
  if (rows === 0 || dim === 0) throw new Error(`${label} has shape [${tensor.dims.join(', ')}]: it is empty`);
  return { data: tensor.data, rows, dim };
}

/** The largest |value| below which `q` of the values lie (from a sample of 50 000), for the colour scale. @param {Float32Array} data */
export function robustMax(data, q = 0.995) {
  const step = Math.max(1, Math.floor(data.length / 50_000));
  const sample = new Float32Array(Math.ceil(data.length / step));
  for (let i = 0, k = 0; i < data.length; i += step, k++) sample[k] = Math.abs(data[i]);
  sample.sort();
  return sample[Math.min(sample.length - 1, Math.floor(q * sample.length))] || 1;
}
