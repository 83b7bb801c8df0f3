// Opening and reading the command line's input files: only regular files (a directory, a FIFO or a
// device is NOT_A_FILE, never read), and every file-system error as a PosEncError naming the path:
// FILE_NOT_FOUND, NOT_A_FILE or FILE_UNREADABLE. JSON files hold what the caller expects, or say so.
import { openFile, readFailure } from '../runtime/node-files.js';
import { describe, PosEncError } from '../runtime/errors.js';

export { openFile, readFailure } from '../runtime/node-files.js';

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
