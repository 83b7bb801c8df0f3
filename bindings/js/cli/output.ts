// Output files written piece by piece: the header first, then the data of each tensor at its place
// in the file as it is computed, into a temporary file beside the target that is renamed over it
// only when everything was written. A failed or interrupted job leaves the target as it was.
import { randomBytes } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { open, rename, rm, statfs, writeFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';

import { encodeFloats, OUTPUT_ITEM_SIZE } from '../io/dtypes.js';
import type { OutputDtype } from '../io/dtypes.js';
import { npyHeader } from '../io/npy.js';
import { safetensorsHeader } from '../io/safetensors.js';
import { CliError } from './flags.js';
import { formatBytes } from './progress.js';

/**
 * The most values a .json output holds: JSON is kept in memory and written as text when the job
 * commits (about 12 characters a value), so beyond this the job would exhaust Node's heap instead of
 * failing cleanly. .npy and .safetensors are streamed and have no such limit.
 */
export const MAX_JSON_VALUES = 4_194_304;

/** A tensor of an output file: its name (safetensors key) and shape. */
export interface OutputTensor {
  name: string;
  dims: number[];
}

export type OutputFormat = 'npy' | 'safetensors' | 'json';

/** The output format of `path`, from its extension; `tensors` is how many the file must hold. */
export function outputFormat(path: string, flag: string, tensors = 1): OutputFormat {
  const ext = extname(path).toLowerCase();
  if (ext === '.safetensors') return 'safetensors';
  if (ext === '.npy' || ext === '.json') {
    if (tensors > 1) throw new CliError(`${flag} ${path}: this command writes ${tensors} tensors, which need a .safetensors file`);
    return ext === '.npy' ? 'npy' : 'json';
  }
  throw new CliError(`${flag} ${path}: unknown output type '${ext}'; use .npy, .safetensors or .json`);
}

/** Temporary files being written, removed by removeUnfinished() when the process is interrupted. */
const unfinished = new Set<string>();

/** Removes every temporary file still being written (for signal handlers; synchronous). */
export function removeUnfinished(): void {
  for (const path of unfinished) rmSync(path, { force: true });
  unfinished.clear();
}

/** A clear message for a failed file operation on `path` (the target, not the temporary file). */
export function writeFailure(error: unknown, path: string, written?: string): CliError {
  const e = error as NodeJS.ErrnoException;
  const nothing = `; ${path} was not written`;
  switch (e?.code) {
    case 'ENOSPC':
      return new CliError(`no space left on the device holding ${path}${written ? ` after ${written}` : ''}${nothing}`, 1);
    case 'EDQUOT':
      return new CliError(`disk quota exceeded writing ${path}${written ? ` after ${written}` : ''}${nothing}`, 1);
    case 'EFBIG':
      return new CliError(`${path} would be larger than its file system allows${nothing}`, 1);
    case 'EACCES':
    case 'EPERM':
      return new CliError(`cannot write ${path}: permission denied (${e.code})`, 1);
    case 'EROFS':
      return new CliError(`cannot write ${path}: the file system is read-only`, 1);
    case 'ENOENT':
      return new CliError(`cannot write ${path}: the directory ${dirname(path)} does not exist`, 1);
    case 'ENOTDIR':
      return new CliError(`cannot write ${path}: a part of the path is not a directory`, 1);
    case 'EISDIR':
      return new CliError(`cannot write ${path}: it is a directory`, 1);
    default:
      return new CliError(`cannot write ${path}: ${e?.message ?? String(error)}`, 1);
  }
}

/** Writes of one file in flight at once: enough to keep the disk busy while the next piece is computed. */
const IN_FLIGHT = 2;

/**
 * One output file being written. Create it with {@link TensorFile.create}, call write() for every
 * piece of every tensor (in any order), then commit(); on any failure call abort().
 */
export class TensorFile {
  /** Bytes of the whole file, header included (for .json: known once committed). */
  bytes: number;
  /** Bytes of each element. */
  readonly itemBytes: number;
  #handle: FileHandle | undefined;
  #pending: Promise<unknown>[] = [];
  #spare: Uint8Array[] = [];
  #written = 0;
  #failure: unknown;
  /** .json only: the values, kept until commit (the format cannot be written piece by piece). */
  #json: Float32Array[] | undefined;

  private constructor(
    readonly path: string,
    readonly format: OutputFormat,
    readonly tensors: readonly OutputTensor[],
    readonly dtype: OutputDtype,
    private readonly temp: string,
    private readonly offsets: number[],
    headerBytes: number,
  ) {
    this.itemBytes = OUTPUT_ITEM_SIZE[dtype];
    this.bytes = headerBytes + tensors.reduce((n, t) => n + t.dims.reduce((a, b) => a * b, 1) * this.itemBytes, 0);
  }

  /** Opens the temporary file for `path` and writes the header. */
  static async create(path: string, flag: string, tensors: OutputTensor[], dtype: OutputDtype): Promise<TensorFile> {
    const target = resolve(path);
    const format = outputFormat(path, flag, tensors.length);
    if (format === 'json' && dtype !== 'float32') {
      throw new CliError(`--dtype ${dtype} applies to .npy and .safetensors files; ${flag} ${path} is JSON`);
    }
    const values = tensors.reduce((n, t) => n + t.dims.reduce((a, b) => a * b, 1), 0);
    if (format === 'json' && values > MAX_JSON_VALUES) {
      throw new CliError(`${flag} ${path}: ${values} values are too many for a .json file (at most ${MAX_JSON_VALUES}, held in memory); write .npy or .safetensors, which are streamed`);
    }
    let existing;
    try {
      existing = statSync(target, { throwIfNoEntry: false });
    } catch (error) {
      throw writeFailure(error, path);
    }
    if (existing?.isDirectory()) throw new CliError(`cannot write ${path}: it is a directory`, 1);
    if (existing && !existing.isFile()) throw new CliError(`cannot write ${path}: it is not a regular file (a device, pipe or socket)`, 1);
    let header: Uint8Array = new Uint8Array(0);
    let offsets = [0];
    if (format === 'npy') {
      header = npyHeader(tensors[0]!.dims, dtype);
      offsets = [header.length];
    } else if (format === 'safetensors') {
      const layout = safetensorsHeader('posenc', tensors.map((t) => ({ name: t.name, dtype, dims: t.dims })));
      header = layout.bytes;
      offsets = layout.offsets;
    }
    const temp = join(dirname(target), `.${basename(target)}.${process.pid}-${randomBytes(4).toString('hex')}.part`);
    const file = new TensorFile(path, format, tensors, dtype, temp, offsets, header.length);
    await file.#checkSpace();
    try {
      file.#handle = await open(temp, 'wx');
      unfinished.add(temp);
      if (format === 'json') file.#json = tensors.map((t) => new Float32Array(t.dims.reduce((a, b) => a * b, 1)));
      else await file.#handle.write(header, 0, header.length, 0);
    } catch (error) {
      await file.abort();
      throw writeFailure(error, path);
    }
    return file;
  }

  /** Fails early when the file system has less room than the file needs (and says how much). */
  async #checkSpace(): Promise<void> {
    let free: number;
    try {
      const s = await statfs(dirname(this.temp));
      free = Number(s.bavail) * Number(s.bsize);
    } catch (error) {
      throw writeFailure(error, this.path);
    }
    if (this.format !== 'json' && free < this.bytes) {
      throw new CliError(`${this.path} needs ${formatBytes(this.bytes)}, but its file system has ${formatBytes(free)} free; ${this.path} was not written`, 1);
    }
  }

  /**
   * Writes `data` as elements [start, start + data.length) of tensor `index`. The values are
   * encoded into a buffer of the file's own, so `data` may be reused as soon as this returns; the
   * write itself may still be in flight (the promise waits only for room in the queue).
   */
  async write(index: number, start: number, data: Float32Array): Promise<void> {
    if (this.#json) {
      this.#json[index]!.set(data, start);
      return;
    }
    const item = OUTPUT_ITEM_SIZE[this.dtype];
    const length = data.length * item;
    const buffer = this.#buffer(length);
    encodeFloats(data, this.dtype, buffer);
    const write = this.#handle!.write(buffer, 0, length, this.offsets[index]! + start * item).then(
      () => {
        this.#written += length;
        this.#spare.push(buffer);
      },
      (error: unknown) => { this.#failure ??= error; },
    );
    this.#pending.push(write);
    if (this.#pending.length >= IN_FLIGHT) await this.#pending.shift();
    this.#throwIfFailed();
  }

  #buffer(length: number): Uint8Array {
    const i = this.#spare.findIndex((b) => b.length >= length);
    return i >= 0 ? this.#spare.splice(i, 1)[0]!.subarray(0, length) : new Uint8Array(length);
  }

  #throwIfFailed(): void {
    if (this.#failure !== undefined) throw writeFailure(this.#failure, this.path, `${formatBytes(this.#written)} of ${formatBytes(this.bytes)}`);
  }

  /** Waits for every write, closes the file and renames it to the target. */
  async commit(): Promise<void> {
    try {
      await Promise.all(this.#pending);
      this.#pending = [];
      this.#throwIfFailed();
      if (this.#json) {
        const text = this.#jsonText();
        await writeFile(this.#handle!, text);
        this.bytes = Buffer.byteLength(text);
      }
      await this.#handle!.close();
      this.#handle = undefined;
      await rename(this.temp, resolve(this.path));
      unfinished.delete(this.temp);
    } catch (error) {
      await this.abort();
      throw error instanceof CliError ? error : writeFailure(error, this.path);
    }
  }

  /** Closes and removes the temporary file (the target is untouched). */
  async abort(): Promise<void> {
    await Promise.allSettled(this.#pending);
    this.#pending = [];
    await this.#handle?.close().catch(() => undefined);
    this.#handle = undefined;
    await rm(this.temp, { force: true });
    unfinished.delete(this.temp);
  }

  /** `{ "dims": [...], "data": [...] }`; infinities and NaN as the strings "Infinity", "-Infinity", "NaN". */
  #jsonText(): string {
    const text = (v: number) => (Number.isFinite(v) ? String(v) : v > 0 ? '"Infinity"' : v < 0 ? '"-Infinity"' : '"NaN"');
    return `{"dims":${JSON.stringify(this.tensors[0]!.dims)},"data":[${Array.from(this.#json![0]!, text).join(',')}]}\n`;
  }
}
