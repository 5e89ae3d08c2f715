import { defaultConfig } from '@sous/config';
import { buildRepositoryIndex, scopePolicyFromConfig } from '@sous/retrieval';
import { symbolParserPool } from '../../retrieval/src/symbols/parser-pool';
import { createRepositoryView, type RepositoryView } from '../src/view/repository-view';
import { hotspotDetector } from '../src/detectors/hotspots';
import type { DetectorResult, Frontier } from '../src/detectors/types';
import type { Candidate } from '../src/work/types';
import { git, makeEmptyGitRepo, rmTempDir, writeFile } from '../../../test/support/tmp';

afterAll(() => symbolParserPool().release());

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmTempDir(dir);
});

function commit(dir: string, message: string, files: Record<string, string>): string {
  for (const [rel, content] of Object.entries(files)) writeFile(dir, rel, content);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', message]);
  return git(dir, ['rev-parse', 'HEAD']).trim();
}

/** `src/engine.ts`, 40 lines, version `v`. */
function engine(v: number, extra = ''): string {
  const body = Array.from({ length: 38 }, (_, i) => `  const step${i} = input + ${i * v};`).join('\n');
  return `export function engine(input: number): number {\n${body}\n${extra}  return input;\n}\n`;
}

/** A repository whose `src/engine.ts` changed in 7 commits, among small files changed once each. */
function hotRepo(): { dir: string; shas: string[] } {
  const dir = makeEmptyGitRepo('sous-hotspot-');
  dirs.push(dir);
  const files: Record<string, string> = { 'src/engine.ts': engine(1) };
  for (let i = 0; i < 8; i++) files[`src/small${i}.ts`] = `export const s${i} = ${i};\n`;
  const shas = [commit(dir, 'initial', files)];
  for (let v = 2; v <= 7; v++) shas.push(commit(dir, `engine v${v}`, { 'src/engine.ts': engine(v) }));
  return { dir, shas: shas.reverse() };
}

async function detect(dir: string): Promise<DetectorResult & { view: RepositoryView }> {
  const policy = scopePolicyFromConfig(defaultConfig());
  const view = createRepositoryView(await buildRepositoryIndex(dir, policy), policy);
  const frontier: Frontier = { entries: view.paths().map((path) => ({ path, priority: 1 })), priority: () => 1 };
  const result = await hotspotDetector.detect({ view, trigger: { kind: 'uncommitted' }, frontier, signal: new AbortController().signal });
  return { ...result, view };
}

test('a hotspot changed with a debug statement gives a bug hypothesis citing the signal and the commits', async () => {
  const { dir, shas } = hotRepo();
  writeFile(dir, 'src/engine.ts', engine(8, '  console.log("engine", input);\n'));
  const { candidates, view } = await detect(dir);
  expect(candidates).toHaveLength(1);
  const card = candidates[0] as Candidate;
  expect(card.kind).toBe('bug_hypothesis');
  expect(card.detector).toBe('bug.hotspot_change');
  expect(card.claim).toBe('src/engine.ts|hotspot');
  expect(card.title).toBe('Changes to src/engine.ts (changed in 7 of the last 7 commits, 42 lines) with a debug statement: likely regression point');
  expect(card.evidence[0]).toEqual(expect.objectContaining({ path: 'src/engine.ts', lineStart: 40, contentHash: view.file('src/engine.ts')?.sha256 }));
  expect(card.evidence.slice(1).map((e) => e.commit)).toEqual(shas.slice(0, 5));
});

test('a hotspot changed without a review signal, or a signal outside hotspots, gives nothing', async () => {
  const { dir } = hotRepo();
  writeFile(dir, 'src/engine.ts', engine(8));
  writeFile(dir, 'src/small3.ts', 'export const s3 = 3;\nconsole.log(s3);\n');
  const { candidates } = await detect(dir);
  expect(candidates).toEqual([]);
});
