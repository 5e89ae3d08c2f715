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

/** The global twin of each pattern, made once (`replace` needs `g`; the policy's patterns have none). */
const globalTwins = new WeakMap<RegExp, RegExp>();
const SECRET_GROUP = /\(\?<secret>/;

function globalTwin(p: RegExp): RegExp {
  let twin = globalTwins.get(p);
  if (twin === undefined) {
    // `d` gives the secret group's offsets; only patterns that have one pay for them.
    const flags = p.flags.replace(/[gd]/g, '') + (SECRET_GROUP.test(p.source) ? 'gd' : 'g');
    globalTwins.set(p, (twin = new RegExp(p.source, flags)));
  }
  return twin;
}

/**
 * Replaces every match of the patterns in `text` with `[redacted]`. A pattern with a group named
 * `secret` has only that group replaced, the rest of its match (a key's public prefix, a URL's user
 * and host) stays. White space at either end of what is replaced stays, and so does each line break
 * inside it (a redacted PEM block keeps its line count), so line numbers of redacted text are the
 * file's own. An empty or all-blank match is left as it is.
 */
export function redactText(text: string, patterns: readonly RegExp[]): string {
  let out = text;
  for (const p of patterns) {
    const twin = globalTwin(p);
    out = twin.hasIndices ? redactGroups(out, twin) : out.replace(twin, mask);
  }
  return out;
}

function redactGroups(text: string, re: RegExp): string {
  let out = '';
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    const [start, end] = m.indices?.groups?.secret ?? m.indices?.[0] ?? [m.index, m.index + m[0].length];
    out += text.slice(last, start) + mask(text.slice(start, end));
    last = end;
  }
  re.lastIndex = 0;
  return last === 0 ? text : out + text.slice(last);
}

/**
 * `[redacted]` in place of `match`'s text. Blanks at either end stay; a match over several lines keeps
 * each line break and, on each line it starts, a first `+`, `-` or blank: the line prefix of a diff
 * (git patches are redacted whole, and must still parse), one character of no secret elsewhere.
 */
function mask(match: string): string {
  const start = match.length - match.trimStart().length;
  if (start === match.length) return match;
  const end = match.trimEnd().length;
  const lines = match.slice(start, end).split('\n');
  const startsLine = match.lastIndexOf('\n', start - 1) >= 0;
  const out = lines.map((line, i) => ((i > 0 || startsLine) && /^[+\- ]/.test(line) ? line[0] : ''));
  out[0] += '[redacted]';
  return match.slice(0, start) + out.join('\n') + match.slice(end);
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
