// ViT position-table interpolation (`pe.learned.interpolate`): the patch rows of a learned table,
// seen as a grid, are resized with PyTorch's bicubic interpolation as Hugging Face's
// interpolate_pos_encoding does; prefix rows (class, distillation tokens) are kept. Maths in
// src/encodings/vit.cpp.
import * as args from '../runtime/args.js';
import type { WasmTensor } from '../runtime/wasm-tensor.js';
import type { Tensor, TensorInput } from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { Heap, MAX_ALLOCATION_BYTES } from '../runtime/heap.js';
import { withHeap } from '../runtime/scope.js';

/** A patch grid size: `g` for a square `g x g` grid, or `[height, width]`. */
export type GridSizeInput = number | readonly [number, number] | readonly number[];

/** Options of {@link LearnedApi.interpolate}. */
export interface LearnedInterpolateOptions {
  /** The patch grid the table was trained for (ViT-B/16 at 224 px: 14). Rows must be numPrefixTokens + h * w. */
  gridSize: GridSizeInput;
  /** The patch grid wanted, e.g. image size / patch size: 24 for 384 px with 16 px patches. */
  newGridSize: GridSizeInput;
  /** Rows before the patch grid, copied unchanged (default 1: ViT's class token; DeiT-distilled 2; 0 for none). */
  numPrefixTokens?: number;
  /** Shape `[rows, dim]` of `table` when it is a bare Float32Array. */
  tableDims?: readonly number[];
  /** Where to write the new table: a Float32Array of `(numPrefixTokens + h * w) * dim` values (reused from call to call) or a WasmTensor of those dims. Default: a new Float32Array. */
  out?: Float32Array | WasmTensor;
}

/** A grid size option as [height, width]. */
function gridOf(fn: string, name: string, value: unknown): [number, number] {
  if (typeof value === 'number') {
    const g = args.integer(fn, name, value);
    return [g, g];
  }
  if (Array.isArray(value) || (ArrayBuffer.isView(value) && !(value instanceof DataView))) {
    const sizes = value as unknown as ArrayLike<unknown>;
    if (sizes.length !== 2) {
      throw new PosEncError('INVALID_ARGUMENT', `${fn}: ${name} must be g or [height, width], got an array of length ${sizes.length}`);
    }
    return [args.integer(fn, `${name}[0]`, sizes[0]), args.integer(fn, `${name}[1]`, sizes[1])];
  }
  throw new PosEncError('INVALID_TYPE', `${fn}: ${name} must be g or [height, width], got ${args.describe(value)}`);
}

/** `pe.learned.interpolate`: resizes a ViT position table to another patch grid. */
export function interpolateTable(heap: Heap, table: TensorInput, options: LearnedInterpolateOptions): Tensor {
  const fn = 'learned.interpolate';
  const opts = args.options(fn, options, ['gridSize', 'newGridSize', 'numPrefixTokens', 'tableDims', 'out']);
  const t = args.tensor(fn, 'table', table, opts.tableDims, 'tableDims');
  if (t.dims.length !== 2) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: table must have dims [rows, dim], got [${t.dims.join(', ')}]`);
  }
  const [rows, dim] = [t.dims[0]!, t.dims[1]!];
  const [gridH, gridW] = gridOf(fn, 'gridSize', args.required(fn, opts, 'gridSize'));
  const [newH, newW] = gridOf(fn, 'newGridSize', args.required(fn, opts, 'newGridSize'));
  const prefix = opts.numPrefixTokens === undefined ? 1 : args.integer(fn, 'numPrefixTokens', opts.numPrefixTokens, 0);
  const outRows = prefix + newH * newW;
  if (outRows * dim * 4 > MAX_ALLOCATION_BYTES) {
    throw new PosEncError(
      'SIZE_OVERFLOW',
      `${fn}: the interpolated table [${outRows}, ${dim}] needs ${outRows * dim * 4} bytes, more than WebAssembly memory can hold (2 GiB)`,
    );
  }
  return withHeap(heap, (scope) => {
    const tablePtr = scope.tensorIn(t, 'table');
    return scope.generate(fn, opts.out, [outRows, dim], 'the interpolated table', { axis: 0, whole: true }, (out) =>
      heap.check(heap.call.vitInterpolate({ table: tablePtr, rows, dim, gridH, gridW, newH, newW, numPrefixTokens: prefix, out }), fn), [t]);
  });
}
