// Opening and reading the command line's input files: only regular files (a directory, a FIFO or a
// device is NOT_A_FILE, never read), and every file-system error as a PosEncError naming the path:
// FILE_NOT_FOUND, NOT_A_FILE or FILE_UNREADABLE. JSON files hold what the caller expects, or say so.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

import { describe, PosEncError } from '../runtime/errors.js';

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

/** The whole of the regular file `path`. */
export async function readWholeFile(path: string): Promise<Buffer> {
  const { handle } = await openFile(path);
  try {
    return await handle.readFile();
  } catch (error) {
    throw readFailure(error, path);
  } finally {
    await handle.close();
  }
}

/** Reads a JSON file; invalid JSON is a PosEncError of `code` (INVALID_CONFIG for a model's config.json). */
export async function readJsonFile(path: string, code: 'INVALID_FILE' | 'INVALID_CONFIG' = 'INVALID_FILE'): Promise<unknown> {
  const text = (await readWholeFile(path)).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new PosEncError(code, `${path}: not valid JSON (${(error as Error).message})`);
  }
}

/** Reads a JSON file that must hold an object (a config.json): `null`, a number, a string or an array is `code`. */
export async function readJsonObject(path: string, code: 'INVALID_FILE' | 'INVALID_CONFIG' = 'INVALID_CONFIG'): Promise<Record<string, unknown>> {
  const json = await readJsonFile(path, code);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new PosEncError(code, `${path}: expected a JSON object { ... }, the file holds ${describe(json)}`);
  }
  return json as Record<string, unknown>;
}
