// PosEncError: the one error type posenc throws, with a stable machine-readable code.
import { STATUS_ERROR_CODES } from '../generated/boundary.js';

/**
 * Stable error codes. Match on `error.code`, never on the message text.
 *
 * | code | meaning |
 * | --- | --- |
 * | `INVALID_TYPE` | an argument has the wrong JS type (e.g. a plain array where a Float32Array is required) |
 * | `INVALID_ARGUMENT` | a value outside its domain: NaN, non-integer or non-positive size, odd `rotaryDim`, unknown enum string; `createPosEnc` called again with other loading options |
 * | `MISSING_OPTION` | a required option is absent |
 * | `UNKNOWN_OPTION` | an option name posenc does not know (usually a typo) |
 * | `SHAPE_MISMATCH` | an array whose length does not match its stated shape, or tensors that do not fit together |
 * | `OUT_OF_RANGE` | an index or position outside a table, or `rotaryDim > headDim` |
 * | `SIZE_OVERFLOW` | sizes whose product overflows or cannot fit in WebAssembly memory |
 * | `OUT_OF_MEMORY` | WebAssembly memory could not grow enough |
 * | `INVALID_CONFIG` | a model configuration (`config.json`) that is inconsistent or incomplete |
 * | `INVALID_FILE` | a file (`.npy`, `.safetensors`) that cannot be read as a table |
 * | `FILE_NOT_FOUND` | the CLI: an input path that does not exist |
 * | `NOT_A_FILE` | the CLI: an input path that is a directory, device, socket or pipe |
 * | `FILE_UNREADABLE` | the CLI: an input file that exists but cannot be read (permission denied, I/O error) |
 * | `DISPOSED` | a reusable object was used after `dispose()` |
 * | `DETACHED_BUFFER` | a typed array whose buffer was detached (transferred, or a view of WebAssembly memory that has since grown) or shrunk below the array's end |
 * | `UNSUPPORTED` | the JavaScript engine lacks WebAssembly SIMD (or relaxed SIMD, asked for); `posenc/webgpu`: no `navigator.gpu`, no adapter, or no `'shader-f16'` for a float16 table |
 * | `LOAD_FAILED` | `posenc.wasm` could not be fetched, read or compiled (the message names the URL or path tried and the fix) |
 * | `INTERNAL` | a bug in posenc; please report it |
 */
export type PosEncErrorCode =
  | 'INVALID_TYPE'
  | 'INVALID_ARGUMENT'
  | 'MISSING_OPTION'
  | 'UNKNOWN_OPTION'
  | 'SHAPE_MISMATCH'
  | 'OUT_OF_RANGE'
  | 'SIZE_OVERFLOW'
  | 'OUT_OF_MEMORY'
  | 'INVALID_CONFIG'
  | 'INVALID_FILE'
  | 'FILE_NOT_FOUND'
  | 'NOT_A_FILE'
  | 'FILE_UNREADABLE'
  | 'DISPOSED'
  | 'DETACHED_BUFFER'
  | 'UNSUPPORTED'
  | 'LOAD_FAILED'
  | 'INTERNAL';

/** The error posenc throws for every bad input. The module stays usable after it. */
export class PosEncError extends Error {
  /** A stable code (see {@link PosEncErrorCode}). */
  readonly code: PosEncErrorCode;

  /** An error of `code`; `message` starts with the function and names the argument. */
  constructor(code: PosEncErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PosEncError';
    this.code = code;
  }
}

/**
 * The PosEncError code of each C++ StatusCode value (index = value; null for ok), generated from
 * bindings/boundary/enums.mjs, which the C++ build checks against posenc::StatusCode. Typed here so
 * that a status code whose name is not a PosEncErrorCode fails to compile.
 */
const STATUS_CODES: readonly (PosEncErrorCode | null)[] = STATUS_ERROR_CODES;

/** The PosEncError for a non-zero C++ status code and its message. */
export function statusError(status: number, message: string): PosEncError {
  const code = STATUS_CODES[status] ?? 'INTERNAL';
  return new PosEncError(code, message);
}

/** An error thrown by caller code (a getter, a Proxy trap) while `fn` read `name`, as a PosEncError (INVALID_ARGUMENT, the original as `cause`). */
export function callerError(fn: string, name: string, error: unknown): PosEncError {
  if (error instanceof PosEncError) return error;
  const what = error instanceof Error ? `${error.name}: ${error.message}` : describe(error);
  return new PosEncError('INVALID_ARGUMENT', `${fn}: reading ${name} threw ${what}`, { cause: error });
}

/**
 * The PosEncError for an error that escaped a public function `fn` (the last line of defence of
 * posenc.ts's `guarded`: every specific check comes first). A PosEncError passes through; an engine
 * error about a detached or out-of-bounds buffer is DETACHED_BUFFER; a failed JS allocation is
 * OUT_OF_MEMORY; anything else is INTERNAL (a bug in posenc), the original kept as `cause`.
 */
export function hostError(fn: string, error: unknown): PosEncError {
  if (error instanceof PosEncError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof TypeError && /detached|out of bounds/i.test(message)) {
    return new PosEncError('DETACHED_BUFFER', `${fn}: an argument's buffer was detached or shrunk during the call (${message})`, { cause: error });
  }
  if (error instanceof RangeError && /allocation failed|invalid array length|invalid typed array length/i.test(message)) {
    return new PosEncError('OUT_OF_MEMORY', `${fn}: out of memory (${message})`, { cause: error });
  }
  return new PosEncError('INTERNAL', `${fn}: unexpected ${error instanceof Error ? error.name : 'error'}: ${message} (a bug in posenc; please report it)`, { cause: error });
}

/** A short description of a value for error messages. */
export function describe(value: unknown): string {
  try {
    return describeValue(value);
  } catch {
    return 'an object whose properties throw'; // a Proxy or getters of the caller's: an error message must not fail
  }
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return `'${value.length > 40 ? value.slice(0, 40) + '...' : value}'`;
  if (typeof value === 'bigint') return `${value}n`;
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  if (typeof value === 'object') return value.constructor?.name && value.constructor !== Object ? `a ${value.constructor.name}` : 'an object';
  return typeof value;
}
