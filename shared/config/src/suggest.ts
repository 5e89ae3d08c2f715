/**
 * "Did you mean" hints for unknown keys: optimal-string-alignment distance (Levenshtein plus adjacent
 * transpositions, so `fractoin` is one edit from `fraction`).
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The closest candidate to `input`, or undefined when none is close enough (at most 3 edits and at
 * most a third of the input's length). A bare leaf name (`cpu_fraction`) matches its full key.
 */
export function closestKey(input: string, candidates: readonly string[]): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(input.length / 3)));
  let best: { key: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(input.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { key: candidate, distance };
  }
  if (best) return best.key;
  const leaf = input.split('.').pop() ?? input;
  const byLeaf = candidates.filter((c) => c.endsWith('.' + leaf) || editDistance(c.split('.').pop() ?? c, leaf) <= 1);
  return byLeaf.length === 1 ? byLeaf[0] : undefined;
}
