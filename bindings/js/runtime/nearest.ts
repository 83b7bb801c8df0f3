// The one "did you mean" rule of posenc: the JavaScript API's unknown options and the CLI's
// unknown flags and commands suggest the known name nearest to what was typed.

/** Edit distance (Levenshtein), for "did you mean" (small strings only). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = up;
    }
  }
  return row[b.length]!;
}

/**
 * The nearest of `names` to `wanted`, if it is close enough to be a typo: a name differing only in
 * letter case, a name `wanted` begins (3 letters or more), or one within an edit distance of
 * max(2, a third of its length).
 */
export function nearestName(wanted: string, names: readonly string[]): string | undefined {
  const lower = wanted.toLowerCase();
  const sameLetters = names.find((n) => n.toLowerCase() === lower);
  if (sameLetters !== undefined) return sameLetters;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const n of names) {
    const d = n.startsWith(wanted) && wanted.length >= 3 ? 0.5 : distance(lower, n.toLowerCase());
    if (d < bestDistance) {
      best = n;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(wanted.length / 3)) ? best : undefined;
}
