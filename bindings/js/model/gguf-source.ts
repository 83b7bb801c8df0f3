// Reading a GGUF file's header without its tensors: from a Blob or File (browsers and Node), a web
// ReadableStream or an async iterable of byte chunks (a Node stream), or a path (Node, through the
// host the Node entry gives). The window read grows until the header parses (at most
// MAX_GGUF_HEADER_BYTES), then only the factor tensors' bytes are read: memory stays bounded by the
// header, whatever the file's size. Caller objects are used through the engine's own methods.
import * as args from '../runtime/args.js';
import { PosEncError, callerError } from '../runtime/errors.js';
import type { Host, RangeReader } from '../runtime/host.js';
import { attachedLength, bufferOf, byteOffsetOf, typedArrayName } from '../runtime/typed.js';
import { asBytes, isArrayBuffer, MAX_GGUF_HEADER_BYTES, NeedMoreBytes, readGgufHeader } from './gguf-header.js';
import type { GgufHeader } from './gguf-header.js';
import { factorRanges, rangesFrom } from './gguf-tensors.js';
import type { GgufFile } from './gguf-tensors.js';

/** The first window read; it doubles until the header fits. */
const FIRST_WINDOW = 1 << 20;

/** What `pe.model.fromGgufFile` reads: bytes, a Blob or File, a ReadableStream or async iterable of bytes, or (Node) a path. */
export type GgufSource = ArrayBuffer | Uint8Array | Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | string | URL;

function blobMethods(): { size: (this: Blob) => number; slice: Blob['slice']; arrayBuffer: Blob['arrayBuffer'] } | undefined {
  if (typeof Blob !== 'function') return undefined;
  const size = Object.getOwnPropertyDescriptor(Blob.prototype, 'size')?.get as ((this: Blob) => number) | undefined;
  return size ? { size, slice: Blob.prototype.slice, arrayBuffer: Blob.prototype.arrayBuffer } : undefined;
}

/** A Blob read by ranges through Blob.prototype's own methods. */
function blobReader(blob: Blob): RangeReader {
  const m = blobMethods()!;
  const size = m.size.call(blob);
  return {
    size,
    async read(start, end) {
      const part = m.slice.call(blob, start, Math.min(end, size));
      return new Uint8Array(await m.arrayBuffer.call(part));
    },
    async close() {},
  };
}

/** The bytes of one chunk a stream gave, copied (the stream may reuse its buffer). */
function chunkBytes(fn: string, chunk: unknown): Uint8Array {
  if (ArrayBuffer.isView(chunk) && typedArrayName(chunk) === 'Uint8Array') {
    const n = attachedLength(fn, 'a chunk of the stream', chunk);
    return new Uint8Array(bufferOf.call(chunk), byteOffsetOf.call(chunk), n).slice();
  }
  throw new PosEncError('INVALID_TYPE', `${fn}: the stream must give bytes (Uint8Array or Buffer chunks), it gave ${args.describe(chunk)}`);
}

/**
 * A stream read forward: reads from 0 (the header, parsed again as the window grows) are served
 * from the bytes kept; a read further on drops everything before it, so only the header and one
 * chunk are ever held.
 */
function streamReader(fn: string, next: () => Promise<IteratorResult<unknown>>, stop: () => Promise<unknown>): RangeReader {
  let held = new Uint8Array(0);
  let heldStart = 0;
  let ended = false;
  const reader: RangeReader = {
    size: undefined,
    async read(start, end) {
      if (start < heldStart) throw new PosEncError('INVALID_ARGUMENT', `${fn}: a stream cannot go back to byte ${start}`);
      while (!ended && heldStart + held.length < end) {
        let done: unknown;
        let value: unknown;
        try {
          ({ done, value } = await next());
        } catch (error) {
          throw callerError(fn, 'the stream', error);
        }
        if (done) {
          ended = true;
          reader.size = heldStart + held.length;
          break;
        }
        const chunk = chunkBytes(fn, value);
        if (heldStart + held.length + chunk.length <= start) { // wholly before the range: dropped
          heldStart += held.length + chunk.length;
          held = new Uint8Array(0);
          continue;
        }
        const joined = new Uint8Array(held.length + chunk.length);
        joined.set(held);
        joined.set(chunk, held.length);
        held = joined;
        if (start > heldStart) {
          held = held.slice(start - heldStart);
          heldStart = start;
        }
      }
      const from = Math.max(0, start - heldStart);
      return held.slice(from, Math.max(from, Math.min(held.length, end - heldStart)));
    },
    async close() {
      try {
        await stop();
      } catch {
        // the stream is abandoned either way
      }
    },
  };
  return reader;
}

type Kind = 'bytes' | 'path' | 'blob' | 'web-stream' | 'iterable' | 'other';

/** What kind of source `source` is (a Proxy's traps run here and only here: what they throw is the caller's error). */
function kindOf(fn: string, source: unknown): Kind {
  try {
    if (isArrayBuffer(source) || typedArrayName(source) === 'Uint8Array') return 'bytes';
    if (typeof source === 'string' || (typeof URL === 'function' && source instanceof URL)) return 'path';
    if (blobMethods() && source instanceof Blob) return 'blob';
    if (typeof ReadableStream === 'function' && source instanceof ReadableStream) return 'web-stream';
    if (source !== null && typeof source === 'object' && Symbol.asyncIterator in source) return 'iterable';
    return 'other';
  } catch (error) {
    throw callerError(fn, 'source', error);
  }
}

/** The reader of a source, or the bytes themselves (read at once). */
async function readerOf(fn: string, source: unknown, host: Host): Promise<RangeReader | Uint8Array> {
  switch (kindOf(fn, source)) {
    case 'bytes':
      return asBytes(fn, source);
    case 'path':
      if (!host.openFile) {
        throw new PosEncError('INVALID_TYPE', `${fn}: a path is read by the Node entry of posenc only; here pass a Blob or File (e.g. from an <input type="file">), a stream or the bytes`);
      }
      return host.openFile(fn, source as string | URL);
    case 'blob':
      return blobReader(source as Blob);
    case 'web-stream': {
      let reader: ReadableStreamDefaultReader<Uint8Array>;
      try {
        reader = ReadableStream.prototype.getReader.call(source) as ReadableStreamDefaultReader<Uint8Array>;
      } catch (error) {
        throw new PosEncError('INVALID_ARGUMENT', `${fn}: the stream cannot be read (${error instanceof Error ? error.message : args.describe(error)}); is it locked?`, { cause: error });
      }
      return streamReader(fn, () => reader.read(), () => reader.cancel());
    }
    case 'iterable': {
      let iterator: unknown;
      try {
        iterator = (source as AsyncIterable<unknown>)[Symbol.asyncIterator]();
      } catch (error) {
        throw callerError(fn, 'source[Symbol.asyncIterator]', error);
      }
      if (iterator === null || typeof iterator !== 'object') {
        throw new PosEncError('INVALID_TYPE', `${fn}: source[Symbol.asyncIterator]() must give an iterator, got ${args.describe(iterator)}`);
      }
      const it = iterator as AsyncIterator<unknown>;
      return streamReader(fn, () => it.next(), async () => it.return?.());
    }
    default:
      throw new PosEncError('INVALID_TYPE', `${fn}: source must be a Blob or File, a ReadableStream or async iterable of bytes, a path (Node), or the bytes, got ${args.describe(source)}`);
  }
}

/** The header of the file `reader` reads, reading a window that doubles until the header parses. */
async function headerOf(fn: string, reader: RangeReader): Promise<{ header: GgufHeader; bytes: Uint8Array }> {
  let window = FIRST_WINDOW;
  for (;;) {
    const want = reader.size === undefined ? window : Math.min(window, reader.size);
    const bytes = await reader.read(0, want);
    // Fewer bytes than asked: the file ends there.
    const size = reader.size ?? (bytes.length < want ? bytes.length : Number.MAX_SAFE_INTEGER);
    try {
      return { header: readGgufHeader(fn, bytes, size), bytes };
    } catch (error) {
      if (!(error instanceof NeedMoreBytes)) throw error;
      window = Math.min(MAX_GGUF_HEADER_BYTES, Math.max(2 * window, error.upTo));
    }
  }
}

/** Reads the header of a GGUF source and the bytes of its factor tensors. */
export async function readGgufSource(fn: string, source: unknown, host: Host): Promise<GgufFile> {
  const reader = await readerOf(fn, source, host);
  if (reader instanceof Uint8Array) {
    const header = readGgufHeader(fn, reader);
    return { header, tensorBytes: rangesFrom(reader, factorRanges(header)) };
  }
  try {
    const { header, bytes } = await headerOf(fn, reader);
    const tensorBytes = new Map<string, Uint8Array>();
    for (const r of factorRanges(header).sort((a, b) => a.start - b.start)) {
      if (reader.size !== undefined && r.end > reader.size) continue; // readF32Tensor names the range the file lacks
      const got = r.end <= bytes.length ? bytes.subarray(r.start, r.end) : await reader.read(r.start, r.end);
      if (got.length === r.end - r.start) tensorBytes.set(r.name, got);
    }
    return { header, tensorBytes };
  } finally {
    await reader.close();
  }
}
