/**
 * docs_drift: a doc mentions a name, file, flag, environment variable or config key that the code no
 * longer has, and git shows the commit that removed (or renamed, or moved) it while the doc named it.
 * Absence alone is never enough: docs mention other projects' names all the time, so a card needs
 * the removing commit, a diff line of the code that took the thing away, and the doc naming it in
 * that very commit (left behind, not written later). Changelogs, release notes, migration guides and
 * dated docs record history and are never examined. When the same diff lines replace it by exactly one new name (or git
 * recorded a file rename) and the new one exists now, a virtual diff updates the doc's mentions.
 */
import * as path from 'node:path';
import type { RepositoryView } from '../../view/repository-view';
import { makeVirtualDiff } from '../../work/virtual-diff';
import type { Candidate, EvidenceRef } from '../../work/types';
import type { Detector, DetectorContext, DetectorResult } from '../types';
import { extractMentions, isDocFile, isHistoryDoc, type Mention, type MentionKind } from './mentions';
import { needleForms, needleOf, renamedValue, repoFacts, type MentionGroup, type RepoFacts, type Removal } from './history-facts';

/** Docs examined per cycle at most, those on the frontier first. */
const MAX_DOCS = 500;
/** Doc lines cited per finding. */
const MAX_SITES_CITED = 5;

export const docsDriftDetector: Detector = {
  name: 'docs_drift',
  kinds: ['docs_drift', 'virtual_diff'],
  async detect({ view, frontier, signal }: DetectorContext): Promise<DetectorResult> {
    const docs = view
      .paths()
      .filter((p) => isDocFile(p, view.file(p)?.language) && !isHistoryDoc(p))
      .sort((a, b) => frontier.priority(b) - frontier.priority(a) || (a < b ? -1 : 1))
      // Every doc may mention what a change removed, not only docs on the frontier; those come first.
      .slice(0, MAX_DOCS);
    // The mentions first: the code is then scanned once for just those words, not kept whole in memory.
    const mentions = new Map<string, MentionGroup[]>();
    const needles = new Set<string>();
    const flagNeedles = new Set<string>();
    for (const doc of docs) {
      const text = view.text(doc);
      if (text === undefined || text.includes('\0')) continue;
      mentions.set(doc, groupMentions(extractMentions(doc, text)));
    }
    const repo = repoFacts(view, needles, flagNeedles);
    for (const [doc, groups] of mentions) {
      const kept = ownDotted(groups, repo);
      mentions.set(doc, kept);
      for (const g of kept) {
        if (g.kind === 'path' || g.kind === 'module_path') continue;
        for (const form of needleForms(g.kind, g.value)) needles.add(form);
        if (g.kind === 'flag') flagNeedles.add(needleOf(g.kind, g.value));
      }
    }
    // What the code lacks now is known from the index; then one read of the history for just those words.
    const words = new Set<string>();
    for (const groups of mentions.values()) {
      for (const g of groups) {
        if (signal.aborted) break;
        if (g.kind === 'module_path') {
          const word = await repo.dottedWord(g.value);
          if (word !== undefined) words.add(word);
        } else if (g.kind !== 'path' && !repo.existsNow(g.kind, g.value)) words.add(needleOf(g.kind, g.value));
      }
    }
    await repo.prepare([...words].filter((w) => w.length >= 3));
    const candidates: Candidate[] = [];
    const covered: string[] = [];
    for (const doc of docs) {
      if (signal.aborted) break;
      const found = await examineDoc(view, repo, doc, mentions.get(doc) ?? [], signal);
      if (found === null) break;
      candidates.push(...found);
      covered.push(doc);
    }
    return { candidates, covered };
  },
};

/** Cards for one doc, or null when the cycle was cancelled before the doc was done. */
async function examineDoc(view: RepositoryView, repo: RepoFacts, doc: string, groups: readonly MentionGroup[], signal: AbortSignal): Promise<Candidate[] | null> {
  const text = view.text(doc);
  if (text === undefined) return [];
  const out: Candidate[] = [];
  for (const group of groups.filter((g) => g.kind === 'module_path')) {
    if (signal.aborted) return null;
    const removal = await orNone(repo.dottedRemoval(group, doc));
    if (removal !== undefined) out.push(...cards(view, doc, text, group, removal));
  }
  const missing = groups.filter((g) => g.kind !== 'module_path' && !repo.existsNow(g.kind, g.value));
  if (missing.length === 0) return out;
  const history = await view.git.history();
  // Cheap first: only mentions that something in the history could have removed are worth git calls.
  const plausible = missing.filter((g) =>
    g.kind === 'path' ? history.lastTouch(g.value) !== undefined || !history.complete : repo.removing(needleOf(g.kind, g.value)).length > 0,
  );
  for (const group of plausible) {
    if (signal.aborted) return null;
    const removal = await orNone(group.kind === 'path' ? repo.pathRemoval(group, doc) : repo.nameRemoval(group, doc));
    if (removal !== undefined) out.push(...cards(view, doc, text, group, removal));
  }
  return out;
}

/**
 * A dotted span is read two ways at extraction (a Python path, and a key or a name); once the
 * repository's packages are known, one reading stays: the Python path when its first word is one of
 * them (its other reading's sites are dropped), else the other.
 */
function ownDotted(groups: readonly MentionGroup[], repo: RepoFacts): MentionGroup[] {
  const own = groups.filter((g) => g.kind === 'module_path' && repo.isOwnDotted(g.value));
  const covered = (site: Mention): boolean => own.some((g) => g.sites.some((s) => s.line === site.line && site.column >= s.column && site.column < s.column + s.raw.length));
  const out: MentionGroup[] = [...own];
  for (const g of groups) {
    if (g.kind === 'module_path') continue;
    const sites = own.length === 0 ? g.sites : g.sites.filter((s) => !covered(s));
    if (sites.length > 0) out.push(sites.length === g.sites.length ? g : { ...g, sites });
  }
  return out;
}

/**
 * One mention's history read failed (a partial clone lacks the blob git needed): that mention gets no
 * card, the other mentions and docs are still examined.
 */
async function orNone(found: Promise<Removal | undefined>): Promise<Removal | undefined> {
  try {
    return await found;
  } catch {
    return undefined;
  }
}

function groupMentions(mentions: readonly Mention[]): MentionGroup[] {
  const groups = new Map<string, MentionGroup>();
  for (const m of mentions) {
    const key = `${m.kind}|${m.value}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { kind: m.kind, value: m.value, sites: [m] });
    else group.sites.push(m);
  }
  return [...groups.values()];
}

/** What a site's raw text becomes (a link is rewritten relative to the doc, as it was written). */
function replacementAt(doc: string, site: Mention, kind: MentionKind, value: string, renamedTo: string): string {
  if (kind !== 'path') return renamedValue(kind, value, renamedTo); // raw is the value for every other kind
  const relative = site.raw.startsWith('./') || site.raw.startsWith('../');
  if (!relative) return site.raw.startsWith('/') ? `/${renamedTo}` : renamedTo;
  const rel = path.posix.relative(path.posix.dirname(doc), renamedTo);
  return rel.startsWith('../') || !site.raw.startsWith('./') ? rel : `./${rel}`;
}

/** The doc's text with every site's raw text replaced (only where it still reads as recorded). */
function rewriteSites(text: string, sites: readonly Mention[], replace: (site: Mention) => string): string {
  const lines = text.split('\n');
  for (const site of [...sites].sort((a, b) => b.line - a.line || b.column - a.column)) {
    const line = lines[site.line - 1];
    if (line === undefined || line.slice(site.column, site.column + site.raw.length) !== site.raw) continue;
    lines[site.line - 1] = line.slice(0, site.column) + replace(site) + line.slice(site.column + site.raw.length);
  }
  return lines.join('\n');
}

const KIND_LABEL: Record<MentionKind, string> = {
  identifier: 'name',
  path: 'file',
  flag: 'CLI flag',
  env: 'environment variable',
  config_key: 'config key',
  module_path: 'Python path',
};

const RULE: Record<MentionKind, string> = {
  identifier: 'removed_name',
  path: 'removed_path',
  flag: 'removed_flag',
  env: 'removed_env',
  config_key: 'removed_config_key',
  module_path: 'removed_module_path',
};

/** The drift card, and the rename diff when there is a single replacement that exists now. */
function cards(view: RepositoryView, doc: string, text: string, group: MentionGroup, removal: Removal): Candidate[] {
  const { kind, value } = group;
  const commitText = `${removal.commit.sha.slice(0, 7)} "${removal.commit.subject}"`;
  const lines = [...new Set(group.sites.map((s) => s.line))];
  const where = `${doc} line ${lines[0] ?? 1}`;
  const renamed = removal.renamedTo !== undefined ? renamedValue(kind, value, removal.renamedTo) : undefined;
  const moved = kind === 'path' || kind === 'module_path' ? 'moved' : 'renamed';
  const change = renamed === undefined ? `removed \`${value}\`` : `${moved} \`${value}\` to \`${renamed}\``;
  const docHash = view.file(doc)?.sha256;
  const evidence: EvidenceRef[] = lines.slice(0, MAX_SITES_CITED).map((line) => ({
    path: doc,
    lineStart: line,
    lineEnd: line,
    ...(docHash !== undefined ? { contentHash: docHash } : {}),
    note: `mentions \`${value}\``,
  }));
  const current = removal.current !== undefined ? view.file(removal.current) : undefined;
  const definedAt = kind === 'identifier' ? current?.definitions.find((d) => d.name === renamed) : undefined;
  evidence.push({
    path: current?.path ?? removal.file,
    ...(definedAt !== undefined ? { lineStart: definedAt.line, lineEnd: definedAt.endLine } : {}),
    ...(current !== undefined ? { contentHash: current.sha256 } : {}),
    commit: removal.commit.sha,
    note: change,
  });
  const whyNow = `Commit ${commitText} ${change}; ${doc} named it then and still does.`;
  const body = (what: string, action: string): string =>
    [
      `**What:** ${what}`,
      '',
      `**Why:** commit ${commitText} ${change} in \`${removal.file}\`; ${doc} already named it then, and was not updated.`,
      '',
      '**Evidence:**',
      ...evidence.map((e) => `- \`${e.path}\`${e.lineStart !== undefined ? ` line ${e.lineStart}` : ''}${e.commit !== undefined ? ` (commit ${e.commit.slice(0, 7)})` : ''}: ${e.note}`),
      '',
      `**Safe action:** ${action}`,
    ].join('\n');
  const drift: Candidate = {
    kind: 'docs_drift',
    detector: `docs_drift.${(kind === 'path' || kind === 'module_path') && renamed !== undefined ? `moved_${kind}` : RULE[kind]}`,
    claim: `${doc}|${kind}|${value}`,
    title: `${where} mentions \`${value}\`, ${renamed === undefined ? 'removed' : `${moved} to \`${renamed}\``} in ${commitText}`,
    summary: `${where} mentions the ${KIND_LABEL[kind]} \`${value}\`, which no longer exists in the repository. Commit ${commitText} ${change}; the doc named it then and was not updated.`,
    whyNow,
    body: body(
      `${where} mentions the ${KIND_LABEL[kind]} \`${value}\`; nothing in the indexed code has it now.`,
      renamed === undefined ? `update or remove the mention in ${where}.` : `replace \`${value}\` with \`${renamed}\` in ${doc}.`,
    ),
    action: renamed === undefined ? `Update or remove the mention in ${where}` : `Update ${where}: \`${value}\` → \`${renamed}\``,
    evidence,
    strength: kind === 'identifier' || kind === 'path' ? 0.85 : 0.8,
    targets: [doc, ...(current !== undefined && current.path !== doc ? [current.path] : [])],
  };
  const renamedTo = removal.renamedTo;
  if (renamedTo === undefined || renamed === undefined) return [drift];
  const after = rewriteSites(text, group.sites, (site) => replacementAt(doc, site, kind, value, renamedTo));
  const made = makeVirtualDiff(view, [{ path: doc, after }]);
  if ('refused' in made) return [drift];
  const rename: Candidate = {
    kind: 'virtual_diff',
    detector: 'docs_drift.rename_diff',
    claim: `${doc}|rename|${value}`,
    title: `Update ${doc}: \`${value}\` → \`${renamed}\` (${moved} in ${commitText})`,
    summary: `A patch replacing \`${value}\` with \`${renamed}\` where ${doc} mentions it (line ${lines.join(', ')}). Commit ${commitText} ${change}; the doc named it then and was not updated.`,
    whyNow,
    body: body(
      `a patch to ${doc} that replaces \`${value}\` with \`${renamed}\` at its mentions (line ${lines.join(', ')}) and nowhere else; \`${renamed}\` exists now, \`${value}\` does not.`,
      'export the patch, read it, and apply it yourself; Sous never applies it.',
    ),
    action: 'Export the patch and apply it after review',
    evidence: evidence.map((e) => ({ ...e })),
    strength: 0.9,
    targets: [doc],
    diff: made.diff,
  };
  return [drift, rename];
}
