/**
 * Review rule: a key-like secret added by the changes under review. Texts reach the engine already
 * redacted by `privacy.redact_patterns`, whose defaults are the credential formats of @sous/protocol:
 * each format's signature finds it on a line whether redacted (`AKIA[redacted]`) or not (a workspace
 * with patterns of its own), and a bare `[redacted]` is a key one of the patterns matched. The card
 * names the kind of secret, the line and at most the identifier it is assigned to: never the value.
 */
import { CREDENTIAL_FORMATS, CREDENTIAL_NAME, compileRedactPatterns, REDACTED } from '@sous/protocol';
import { sha256Of, type RepositoryView } from '../../view/repository-view';
import type { Candidate, EvidenceRef } from '../../work/types';
import { isDocFile } from '../docs-drift/mentions';
import { addedLines, capitalised, commitOf, currentLine, describeSource, evidenceMarkdown, joinWords, type ChangeSet } from './changes';
import { isTestPath } from '../../view/file-roles';

const STRENGTH = 0.9;
/** Identifiers longer than this are not shown (a long token-like name might itself be sensitive). */
const MAX_IDENTIFIER = 40;

/** Formats a line shows by their kept context (a prefix, armour, a URL's user and host). */
const SIGNATURES = CREDENTIAL_FORMATS.flatMap((f) => (f.signature === undefined ? [] : [{ kind: f.kind, regex: f.signature }]));
const PRIVATE_KEY = CREDENTIAL_FORMATS.find((f) => f.id === 'private-key')?.kind;
const KEY_END = /-----END [A-Z0-9 ]{0,40}PRIVATE KEY/;
/** Credential-named assignments, matched on text no pattern redacted (a workspace's own patterns). */
const ASSIGNMENTS = compileRedactPatterns(CREDENTIAL_FORMATS.filter((f) => f.assignment).map((f) => f.pattern));
/** `[redacted]` as the value of a credential-named assignment: `password = "[redacted]"`. */
const REDACTED_ASSIGNMENT = new RegExp(`${CREDENTIAL_NAME}['"]?\\s*(?::=|=>|[:=])\\s*[rbu]?['"]?\\[redacted\\]`);
/** The identifier a credential-named assignment assigns to. */
const ASSIGNED_NAME = new RegExp(`([\\w$.-]*${CREDENTIAL_NAME})['"]?\\s*(?::=|=>|[:=])`);

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
      // Inside a private key's block: its body lines (one `[redacted]` and blanks) are that key.
      let inKey = false;
      for (const added of addedLines(diff)) {
        if (inKey) {
          inKey = !KEY_END.test(added.text);
          continue;
        }
        const found = classify(added.text, examples, () => {
          const known = redactedFile.get(diff.path);
          if (known !== undefined) return known;
          const was = wasRedacted(view, diff.path);
          redactedFile.set(diff.path, was);
          return was;
        });
        if (found === undefined) continue;
        if (found.kind === PRIVATE_KEY && !KEY_END.test(added.text)) inKey = true;
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
  for (const shape of SIGNATURES) {
    const m = shape.regex.exec(text);
    if (m !== null && (!m[0].includes(REDACTED) || redacted())) return { kind: shape.kind, identifier: identifierBefore(text, m.index) };
  }
  const marker = text.indexOf(REDACTED);
  if (marker >= 0 && redacted()) {
    // A redacted credential-named assignment is the weak kind: docs and tests show such examples.
    if (REDACTED_ASSIGNMENT.test(text)) return examples ? undefined : { kind: 'hard-coded credential', identifier: safeIdentifier(ASSIGNED_NAME.exec(text)?.[1]) };
    return { kind: 'key matching privacy.redact_patterns', identifier: identifierBefore(text, marker) };
  }
  if (examples) return undefined;
  if (ASSIGNMENTS.some((r) => r.test(text))) return { kind: 'hard-coded credential', identifier: safeIdentifier(ASSIGNED_NAME.exec(text)?.[1]) };
  return undefined;
}

/** Whether the indexed text is not the file on disk: a redaction happened. */
function wasRedacted(view: RepositoryView, path: string): boolean {
  const file = view.file(path);
  const text = view.text(path);
  if (file === undefined || text === undefined) return true;
  // A dropped UTF-8 byte-order mark is the only other change reading makes (a ten-character secret
  // gives a text of the same length, so lengths cannot tell).
  return sha256Of(text) !== file.sha256 && sha256Of(`\uFEFF${text}`) !== file.sha256;
}

/** The name a value at `index` is assigned to (`key` in `const key = "…"`), when it is a plain identifier. */
function identifierBefore(text: string, index: number): string | undefined {
  const m = /([A-Za-z_$][\w$.-]*)['"]?\s*[:=]\s*[([{]?\s*['"`]?[^'"`]*$/.exec(text.slice(0, index));
  return safeIdentifier(m?.[1]);
}

function safeIdentifier(name: string | undefined): string | undefined {
  if (name === undefined || name.length > MAX_IDENTIFIER || !/^[A-Za-z_$][\w$.-]*$/.test(name)) return undefined;
  if (name.includes(REDACTED) || SIGNATURES.some((s) => s.regex.test(name))) return undefined;
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
