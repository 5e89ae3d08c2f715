/** The index's coverage line for `sous status` and `sous doctor`: what it skipped or degraded, by reason. */

export interface CoverageBody {
  skipped: Record<string, number>;
  degraded: Record<string, number>;
}

const list = (counts: Record<string, number>): string =>
  Object.entries(counts)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([reason, n]) => `${reason.replace(/_/g, ' ')} ${n}`)
    .join(', ');

/** `skipped: binary 12, too large 2; degraded: minified 3` (or `nothing skipped or degraded`). */
export function describeCoverage(c: CoverageBody): string {
  const skipped = list(c.skipped);
  const degraded = list(c.degraded);
  if (skipped === '' && degraded === '') return 'nothing skipped or degraded';
  return [skipped === '' ? '' : `skipped: ${skipped}`, degraded === '' ? '' : `degraded: ${degraded}`].filter(Boolean).join('; ');
}
