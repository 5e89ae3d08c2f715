/** Ready prediction-backed drafts follow review findings that ask for a change; nothing else makes one. */
import { defaultConfig } from '@sous/config';
import { buildRepositoryIndex, scopePolicyFromConfig } from '@sous/retrieval';
import { symbolParserPool } from '../../retrieval/src/symbols/parser-pool';
import { createRepositoryView } from '../src/view/repository-view';
import { draftDetector } from '../src/detectors/drafts';
import { git, makeEmptyGitRepo, rmTempDir, writeFile } from '../../../test/support/tmp';

afterAll(() => symbolParserPool().release());

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmTempDir(dir);
});

function repo(files: Record<string, string>): string {
  const dir = makeEmptyGitRepo('sous-drafts-');
  dirs.push(dir);
  for (const [rel, content] of Object.entries(files)) writeFile(dir, rel, content);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'initial']);
  return dir;
}

async function drafts(dir: string) {
  const policy = scopePolicyFromConfig(defaultConfig());
  const view = createRepositoryView(await buildRepositoryIndex(dir, policy), policy);
  return draftDetector.detect({ view, trigger: { kind: 'uncommitted' }, frontier: { entries: [], priority: () => 0 }, signal: new AbortController().signal });
}

const MATH = 'export function total(a: number, b: number): number {\n  return a + b;\n}\n';
const REPORT = "import { total } from './math';\n\nexport const sum = total(1, 2);\n";

test('a signature change with a stale caller gives a draft to update the caller, with the briefing', async () => {
  const dir = repo({ 'src/math.ts': MATH, 'src/report.ts': REPORT });
  writeFile(dir, 'src/math.ts', 'export function total(a: number, b: number, c: number): number {\n  return a + b + c;\n}\n');
  const result = await drafts(dir);
  expect(result.candidates).toHaveLength(1);
  const [draft] = result.candidates;
  expect(draft).toMatchObject({ kind: 'prediction_draft', detector: 'draft.follow_up', claim: 'follow-up|review.stale_callers|src/math.ts|total|signature' });
  expect(draft!.draft?.prompt).toMatch(/Update the callers of `total` in src\/report\.ts/);
  expect(draft!.body).toContain('`src/report.ts:3`');
  expect(draft!.evidence.map((e) => e.path)).toEqual(expect.arrayContaining(['src/math.ts', 'src/report.ts']));
});

test('a debug statement alone asks for no draft; a clean repository gives none', async () => {
  const dir = repo({ 'src/math.ts': MATH });
  expect((await drafts(dir)).candidates).toEqual([]);
  writeFile(dir, 'src/math.ts', `${MATH}console.log('x');\n`);
  expect((await drafts(dir)).candidates).toEqual([]);
});
