// The two shapes of a big command-line job, run piece by piece so that memory stays at a few pieces
// whatever the size: generating rows of new tensors into output files, and transforming an input
// tensor into an output file. Each piece is computed through the public API into a WasmTensor that
// is reused from piece to piece.
import type { OutputDtype } from '../io/dtypes.js';
import type { PosEnc } from '../posenc.js';
import { planPieces } from '../runtime/scope.js';
import type { WasmTensor } from '../runtime/wasm-tensor.js';
import type { TensorSource } from './input.js';
import { TensorFile } from './output.js';
import type { OutputTensor } from './output.js';
import { Progress } from './progress.js';
import type { ProgressStream } from './progress.js';

/**
 * Bytes of one piece unless POSENC_CLI_CHUNK_BYTES says otherwise (tests set it small to get many
 * pieces). Writing a 2 GiB table in 8 MiB pieces cost the kernel 1.5-3.6 s of system time against
 * 0.4-0.8 s in 1 or 2 MiB pieces, for the same bytes (/usr/bin/time on `posenc sinusoidal --length
 * 131072 --dim 4096` with each POSENC_CLI_CHUNK_BYTES); 2 MiB keeps a piece in cache between the
 * computation and the copy into the write buffer.
 */
export const DEFAULT_CHUNK_BYTES = 2 << 20;

/** What every job gets: the API, the piece size, and where progress goes and after how long. */
export interface JobContext {
  pe: PosEnc;
  chunkBytes: number;
  progressStream: ProgressStream;
  progressDelayMs: number;
}

/** An output file of a job and the flag that named it. */
export interface OutputSpec {
  path: string;
  flag: string;
  tensors: OutputTensor[];
  dtype: OutputDtype;
}

/** WasmTensors by shape, reused from piece to piece (a job needs two shapes at most: a piece and the last one). */
export class TensorPool {
  #tensors = new Map<string, WasmTensor>();

  constructor(private readonly pe: PosEnc) {}

  get(dims: number[]): WasmTensor {
    const key = dims.join(',');
    let t = this.#tensors.get(key);
    if (!t) {
      t = this.pe.memory.tensor(dims);
      this.#tensors.set(key, t);
    }
    return t;
  }

  dispose(): void {
    for (const t of this.#tensors.values()) t.dispose();
    this.#tensors.clear();
  }
}

/** Runs `body` with the files of `outputs` open; commits them all if it succeeds, removes them if anything fails. */
export async function withOutputs<T>(outputs: OutputSpec[], body: (files: TensorFile[]) => Promise<T>): Promise<{ result: T; files: TensorFile[] }> {
  const files: TensorFile[] = [];
  try {
    for (const o of outputs) files.push(await TensorFile.create(o.path, o.flag, o.tensors, o.dtype));
    const result = await body(files);
    for (const f of files) await f.commit();
    return { result, files };
  } catch (error) {
    await Promise.all(files.map((f) => f.abort()));
    throw error;
  }
}

/**
 * Rows of tensors laid out `[outer, rows, inner]`, computed `count` rows at a time:
 * `compute(start, count, pool)` returns, for each written tensor, its values for rows
 * [start, start + count) laid out `[outer, count, inner]` (typically the view of a WasmTensor
 * from `pool`, which the job reuses from piece to piece and frees at the end).
 */
export interface RowJob {
  label: string;
  rows: number;
  outer: number;
  inner: number;
  /** Pieces start at multiples of this and the last one has at least minLast rows (or is the only one). */
  align?: number;
  minLast?: number;
  /** The files and tensor indices the computed arrays go to, in compute's order. */
  targets: { file: TensorFile; index: number }[];
  compute(start: number, count: number, pool: TensorPool): Float32Array[];
}

/** Bytes of every tensor's data in `files`. */
function dataBytes(files: TensorFile[]): number {
  return files.reduce((n, f) => n + f.tensors.reduce((m, t) => m + t.dims.reduce((a, b) => a * b, 1), 0) * f.itemBytes, 0);
}

export async function runRows(ctx: JobContext, job: RowJob, files: TensorFile[]): Promise<void> {
  const rowFloats = job.outer * job.inner * job.targets.length;
  const step = Math.floor(ctx.chunkBytes / 4 / Math.max(1, rowFloats));
  const progress = new Progress(job.label, dataBytes(files), ctx.progressStream, undefined, ctx.progressDelayMs);
  const pool = new TensorPool(ctx.pe);
  try {
    for (const [start, count] of planPieces(job.rows, step, job.align, job.minLast)) {
      const values = job.compute(start, count, pool);
      for (let k = 0; k < job.targets.length; k++) {
        const { file, index } = job.targets[k]!;
        const block = count * job.inner;
        for (let o = 0; o < job.outer; o++) {
          await file.write(index, (o * job.rows + start) * job.inner, values[k]!.subarray(o * block, (o + 1) * block));
        }
        progress.advance(job.outer * block * file.itemBytes);
      }
    }
  } finally {
    progress.end();
    pool.dispose();
  }
}

/**
 * An input tensor seen as `[groups, seq, width]` (positions run along seq), transformed `count`
 * positions at a time: `apply(t, start, count)` changes `t`, a WasmTensor of `dimsOf(count)`
 * holding those positions of one group, in place.
 */
export interface TransformJob {
  label: string;
  groups: number;
  seq: number;
  width: number;
  align?: number;
  minLast?: number;
  dimsOf(count: number): number[];
  apply(t: WasmTensor, start: number, count: number): void;
  /** Frees what the job holds (e.g. a table in WebAssembly memory). */
  dispose?(): void;
}

export async function runTransform(ctx: JobContext, job: TransformJob, source: TensorSource, file: TensorFile): Promise<void> {
  const pool = new TensorPool(ctx.pe);
  const progress = new Progress(job.label, dataBytes([file]), ctx.progressStream, undefined, ctx.progressDelayMs);
  const step = Math.floor(ctx.chunkBytes / 4 / Math.max(1, job.width));
  try {
    const pieces = planPieces(job.seq, step, job.align, job.minLast);
    for (let g = 0; g < job.groups; g++) {
      for (const [start, count] of pieces) {
        const t = pool.get(job.dimsOf(count));
        const at = (g * job.seq + start) * job.width;
        await source.read(at, t.view());
        job.apply(t, start, count);
        await file.write(0, at, t.view());
        progress.advance(count * job.width * file.itemBytes);
      }
    }
  } finally {
    progress.end();
    pool.dispose();
  }
}
