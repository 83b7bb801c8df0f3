// Progress of a long job on stderr: bytes done, rate and time left, redrawn in place on a terminal
// once the job has run for about a second; nothing at all when stderr is a pipe or a file.

/** Human-readable bytes: 512 B, 1.50 KiB, 2.00 GiB. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let u = 0;
  let v = n;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${v.toFixed(2)} ${units[u]}`;
}

/** Seconds as 7s, 2m05s, 1h02m. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/**
 * One progress line: `label  done / total  percent  rate  ETA`. `elapsed` in seconds; the rate
 * and time left are left out until something was done.
 */
export function formatProgress(label: string, done: number, total: number, elapsed: number): string {
  const percent = total > 0 ? Math.min(100, Math.floor((100 * done) / total)) : 100;
  const parts = [label, `${formatBytes(done)} / ${formatBytes(total)}`, `${String(percent).padStart(3)}%`];
  if (done > 0 && elapsed > 0) {
    const rate = done / elapsed;
    parts.push(`${formatBytes(rate)}/s`, `ETA ${formatDuration((total - done) / rate)}`);
  }
  return parts.join('  ');
}

/** Where progress goes: a stream with a TTY flag (process.stderr). */
export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

/** Milliseconds a job runs before its progress shows (unless told otherwise), and between redraws. */
export const PROGRESS_DELAY_MS = 1000;
const REDRAW_MS = 200;

/** Progress of one job over `total` bytes: call advance() as bytes are done and end() when finished. */
export class Progress {
  #done = 0;
  #shown = false;
  #lastDraw = -Infinity;
  readonly #start: number;

  constructor(
    readonly label: string,
    readonly total: number,
    private readonly stream: ProgressStream,
    private readonly now: () => number = () => performance.now(),
    private readonly delayMs = PROGRESS_DELAY_MS,
  ) {
    this.#start = now();
  }

  advance(bytes: number): void {
    this.#done += bytes;
    if (!this.stream.isTTY) return;
    const t = this.now();
    if (t - this.#start < this.delayMs || t - this.#lastDraw < REDRAW_MS) return;
    this.#lastDraw = t;
    this.#shown = true;
    this.stream.write(`\r${formatProgress(this.label, this.#done, this.total, (t - this.#start) / 1000)}\x1b[K`);
  }

  /** Clears the line if one was drawn. */
  end(): void {
    if (this.#shown) this.stream.write('\r\x1b[K');
    this.#shown = false;
  }
}
