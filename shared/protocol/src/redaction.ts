/**
 * `privacy.redact_patterns` applied to text that leaves the process: logs, API responses, exports,
 * model prompts. One implementation, so every surface redacts the same way.
 */

/** Compiles the patterns; entries that do not compile are skipped (config validation reports them). */
export function compileRedactPatterns(patterns: readonly string[]): RegExp[] {
  const out: RegExp[] = [];
  for (const p of patterns) {
    try {
      out.push(new RegExp(p)); // no `g`: `.test()` on a global regex is stateful
    } catch {
      // a broken pattern must not stop the others from applying
    }
  }
  return out;
}

/** Replaces every match of the patterns in `text` with `[redacted]`. */
export function redactText(text: string, patterns: readonly RegExp[]): string {
  let out = text;
  for (const p of patterns) out = out.replace(new RegExp(p.source, p.flags.includes('g') ? p.flags : p.flags + 'g'), '[redacted]');
  return out;
}

/** A connection URL safe to show: the password becomes `***` (for errors naming DATABASE_URL/REDIS_URL). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '<unparseable URL>';
  }
}
