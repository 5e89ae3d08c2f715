/**
 * Review rule: a key-like secret added by the changes under review. Texts reach the engine already
 * redacted by `privacy.redact_patterns`, so an added `[redacted]` is the main signal; a few common
 * key shapes the default pattern does not cover are matched on the (redacted) line as well. The card
 * names the kind of secret, the line and at most the identifier it is assigned to: never the value.
 */
import type { RepositoryView } from '../../view/repository-view';
import type { Candidate, EvidenceRef } from '../../work/types';
import { isDocFile } from '../docs-drift/mentions';
import { addedLines, capitalised, commitOf, currentLine, describeSource, evidenceMarkdown, isTestPath, joinWords, type ChangeSet } from './changes';

const REDACTED = '[redacted]';
const STRENGTH = 0.9;
/** Identifiers longer than this are not shown (a long token-like name might itself be sensitive). */
const MAX_IDENTIFIER = 40;

/** Key shapes the default redaction (`sk-…`) misses. Matched on redacted text, never shown. */
const SHAPES: ReadonlyArray<{ kind: string; regex: RegExp }> = [
  { kind: 'AWS access key id', regex: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  { kind: 'private key', regex: /-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED )?PRIVATE KEY-----/ },
  { kind: 'GitHub token', regex: /\bgh[pousr]_[A-Za-z0-9]{36}\b/ },
  { kind: 'Slack token', regex: /\bxox[baprs]-[A-Za-z0-9-]{10,}/ },
];

/** `apiKey = "…"`, `password: '…'`: a credential-named field assigned a long literal. */
const ASSIGNMENT = /([\w$.-]*(?:api[_-]?key|secret|password|passwd|token))['"]?\s*[:=]\s*(['"])([^'"\s]{12,})\2/i;
/** Values that are names or placeholders, not secrets. */
const NOT_A_VALUE = [/^[A-Z][A-Z0-9_]+$/, /^[a-z]+(?:[._][a-z]+)+$/i, /^(?:x+|\*+|\.+|-+|0+)$/i, /example|placeholder|changeme|dummy|your[_-]|redacted|:\/\/|^[$%{<]/i];

interface SecretHit {
  kind: string;
  identifier: string | undefined;
  evidence: EvidenceRef;
}

/** Secret cards for the change sets: one per file, listing every added line with a key-like value. */
export function secretCandidates(view: RepositoryView, changes: readonly ChangeSet[], signal: AbortSignal): Candidate[] {
  const byPath = new Map<string, Map<number, SecretHit>>();
  const sources = new Map<string, Set<string>>();
  const redactedFile = new Map<string, boolean>();
  for (const change of changes) {
    for (const diff of change.files) {
      if (signal.aborted) return [];
      if (diff.status === 'deleted') continue;
      // Docs and tests show credentials as examples (`password: "hunter2hunter2"`): only a known key
      // shape or a redacted real key counts there, never a credential-named assignment.
      const examples = isDocFile(diff.path, view.file(diff.path)?.language) || isTestPath(diff.path);
      for (const added of addedLines(diff)) {
        const found = classify(added.text, examples, () => {
          const known = redactedFile.get(diff.path);
          if (known !== undefined) return known;
          const was = wasRedacted(view, diff.path);
          redactedFile.set(diff.path, was);
          return was;
        });
        if (found === undefined) continue;
        // Only lines still in the file: the card's evidence must point at current text.
        const here = currentLine(view, diff.path, added.line, added.text);
        if (here === undefined) continue;
        const hits = byPath.get(diff.path) ?? new Map<number, SecretHit>();
        byPath.set(diff.path, hits);
        if (hits.has(here.line)) continue;
        const commit = commitOf(change);
        const evidence: EvidenceRef = {
          path: diff.path,
          lineStart: here.line,
          lineEnd: here.line,
          contentHash: here.contentHash,
          ...(commit === undefined ? {} : { commit }),
          note: `adds a ${found.kind}${found.identifier === undefined ? '' : ` to \`${found.identifier}\``}`,
        };
        hits.set(here.line, { ...found, evidence });
        sources.set(diff.path, (sources.get(diff.path) ?? new Set<string>()).add(describeSource(change)));
      }
    }
  }
  const out: Candidate[] = [];
  for (const [path, hits] of byPath) {
    const list = [...hits.values()].sort((a, b) => (a.evidence.lineStart ?? 0) - (b.evidence.lineStart ?? 0));
    out.push(card(path, list, joinWords([...(sources.get(path) ?? [])])));
  }
  return out;
}

/**
 * The kind of secret on a (redacted) line and the identifier it is assigned to, or undefined.
 * `redacted()` says whether the file's text was redacted at all: a literal "[redacted]" in code
 * that was never redacted (a redaction helper, a log mask) is no secret.
 */
function classify(text: string, examples: boolean, redacted: () => boolean): { kind: string; identifier: string | undefined } | undefined {
  const marker = text.indexOf(REDACTED);
  if (marker >= 0 && redacted()) return { kind: 'key matching privacy.redact_patterns', identifier: identifierBefore(text, marker) };
  for (const shape of SHAPES) {
    const m = shape.regex.exec(text);
    // AWS's documented sample key (AKIAIOSFODNN7EXAMPLE) and its kin appear in docs and tests.
    if (m !== null && /EXAMPLE/i.test(m[0])) continue;
    if (m !== null) return { kind: shape.kind, identifier: identifierBefore(text, m.index) };
  }
  if (examples) return undefined;
  const m = ASSIGNMENT.exec(text);
  const value = m?.[3];
  if (m !== null && value !== undefined && !NOT_A_VALUE.some((r) => r.test(value))) {
    return { kind: 'hard-coded credential', identifier: safeIdentifier(m[1]) };
  }
  return undefined;
}

/** Whether the indexed text differs in length from the file on disk: a redaction happened. */
function wasRedacted(view: RepositoryView, path: string): boolean {
  const file = view.file(path);
  const text = view.text(path);
  if (file === undefined || text === undefined) return true;
  const length = Buffer.byteLength(text, 'utf8');
  // A dropped UTF-8 byte-order mark accounts for three bytes.
  return file.bytes !== length && file.bytes !== length + 3;
}

/** The name a value at `index` is assigned to (`key` in `const key = "…"`), when it is a plain identifier. */
function identifierBefore(text: string, index: number): string | undefined {
  const m = /([A-Za-z_$][\w$.-]*)['"]?\s*[:=]\s*[([{]?\s*['"`]?[^'"`]*$/.exec(text.slice(0, index));
  return safeIdentifier(m?.[1]);
}

function safeIdentifier(name: string | undefined): string | undefined {
  if (name === undefined || name.length > MAX_IDENTIFIER || !/^[A-Za-z_$][\w$.-]*$/.test(name)) return undefined;
  if (name.includes(REDACTED) || SHAPES.some((s) => s.regex.test(name))) return undefined;
  return name;
}

function describe(hit: SecretHit): string {
  const name = hit.identifier === undefined ? '' : ` (\`${hit.identifier} = ${REDACTED}\`)`;
  return `a ${hit.kind} at line ${hit.evidence.lineStart}${name}`;
}

function card(path: string, hits: SecretHit[], from: string): Candidate {
  const evidence = hits.map((h) => h.evidence);
  const what = joinWords(hits.slice(0, 5).map(describe)) + (hits.length > 5 ? ` and ${hits.length - 5} more` : '');
  const lines = hits.map((h) => h.evidence.lineStart).join(', ');
  return {
    kind: 'review_note',
    detector: 'review.secret_added',
    claim: `${path}|secret`,
    title: hits.length === 1 ? `A key-like secret added in ${path}` : `${hits.length} key-like secrets added in ${path}`,
    summary: `${capitalised(what)} added to ${path} in ${from}. A secret in source control outlives the change that removes it.`,
    whyNow: `Added in ${from}.`,
    body: [
      `## What`,
      `${capitalised(what)} added to \`${path}\` in ${from}. The value is not shown here; it reads ${REDACTED} in everything Sous stores.`,
      ``,
      `## Why it matters`,
      `Keys committed to a repository are copied with every clone and stay in its history. Once pushed, treat the key as leaked.`,
      ``,
      `## Evidence`,
      evidenceMarkdown(evidence),
      ``,
      `## Safe action`,
      `Read the value from the environment or a secret store instead, drop it from the change, and rotate the key if it was ever committed or pushed.`,
    ].join('\n'),
    action: `Move the secret out of ${path} (line${hits.length === 1 ? '' : 's'} ${lines}) and rotate it if it was committed`,
    evidence,
    strength: STRENGTH,
    targets: [path],
    warnings: ['Sous only sees redacted text: check the line itself before acting.'],
  };
}
