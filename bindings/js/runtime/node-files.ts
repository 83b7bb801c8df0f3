// Regular files read by path in Node (the command line's inputs, pe.model.fromGgufFile of a path):
// only regular files (a directory, a FIFO or a device is NOT_A_FILE, never read), every file-system
// error a PosEncError naming the path: FILE_NOT_FOUND, NOT_A_FILE or FILE_UNREADABLE.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

import { PosEncError } from './errors.js';
import type { RangeReader } from './host.js';

/** The PosEncError for a file-system error while opening or reading `path`. */
export function readFailure(error: unknown, path: string): PosEncError {
  if (error instanceof PosEncError) return error;
  const e = error as NodeJS.ErrnoException;
  const why = (code: 'FILE_NOT_FOUND' | 'NOT_A_FILE' | 'FILE_UNREADABLE', text: string): PosEncError =>
    new PosEncError(code, `cannot read ${path}: ${text}`, { cause: error });
  switch (e?.code) {
    case 'ENOENT': return why('FILE_NOT_FOUND', 'no such file');
    case 'ENOTDIR': return why('FILE_NOT_FOUND', 'a part of the path is not a directory (ENOTDIR)');
    case 'EISDIR': return why('NOT_A_FILE', 'it is a directory');
    case 'EACCES':
    case 'EPERM': return why('FILE_UNREADABLE', `permission denied (${e.code})`);
    default: return why('FILE_UNREADABLE', e?.code ? `${e.message} (${e.code})` : String((error as Error)?.message ?? error));
  }
}

/** Opens `path` for reading; refuses anything but a regular file before reading a byte. */
export async function openFile(path: string): Promise<{ handle: FileHandle; size: number }> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below); regular files ignore it.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw readFailure(error, path);
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw new PosEncError('NOT_A_FILE', `cannot read ${path}: it is a directory`);
    if (!stat.isFile()) throw new PosEncError('NOT_A_FILE', `cannot read ${path}: not a regular file (a device, socket or pipe)`);
    return { handle, size: stat.size };
  } catch (error) {
    await handle.close();
    throw readFailure(error, path);
  }
}

/** `path` (a string or file: URL) opened as a {@link RangeReader}; errors are prefixed with `fn`. */
export async function openRangeReader(fn: string, path: string | URL): Promise<RangeReader> {
  let name: string;
  try {
    name = typeof path === 'string' ? path : fileURLToPath(path);
  } catch (error) {
    throw new PosEncError('INVALID_ARGUMENT', `${fn}: ${String(path)} is not a file path (${(error as Error).message})`, { cause: error });
  }
  let opened: { handle: FileHandle; size: number };
  try {
    opened = await openFile(name);
  } catch (error) {
    const e = readFailure(error, name);
    throw new PosEncError(e.code, `${fn}: ${e.message}`, { cause: e.cause ?? e });
  }
  const { handle, size } = opened;
  return {
    size,
    async read(start, end) {
      const length = Math.max(0, Math.min(end, size) - start);
      const out = new Uint8Array(length);
      let at = 0;
      try {
        while (at < length) {
          const { bytesRead } = await handle.read(out, at, length - at, start + at);
          if (bytesRead === 0) break; // the file shrank meanwhile
          at += bytesRead;
        }
      } catch (error) {
        const e = readFailure(error, name);
        throw new PosEncError(e.code, `${fn}: ${e.message}`, { cause: error });
      }
      return at === length ? out : out.subarray(0, at);
    },
    close: () => handle.close(),
  };
}
