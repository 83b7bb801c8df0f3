// What an entry of posenc gives the API beyond the module: the Node entry reads files by path
// (node-files.ts); browser and embedded entries give nothing, and a path is then refused.

/** A file read by byte ranges; `size` is undefined for a stream until it ends. */
export interface RangeReader {
  size: number | undefined;
  /** The bytes [start, end), fewer where the file ends first. */
  read(start: number, end: number): Promise<Uint8Array>;
  close(): Promise<void>;
}

export interface Host {
  /** Opens a regular file by path or file: URL (FILE_NOT_FOUND, NOT_A_FILE, FILE_UNREADABLE otherwise). */
  openFile?: (fn: string, path: string | URL) => Promise<RangeReader>;
}
