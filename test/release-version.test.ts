/**
 * One version source: the root package.json. Every workspace manifest, internal dependency range,
 * lockfile entry and the Python SDK say the same (scripts/release/set-version.js writes them), and
 * SOUS_VERSION, which /status, the MCP server info and `sous --version` report, follows it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SOUS_VERSION } from '@sous/protocol';
import { makeTempDir, rmTempDir } from './support/tmp';

const ROOT = path.join(__dirname, '..');
const { versionDisagreements, setVersion } = require('../scripts/release/set-version.js') as {
  versionDisagreements(root?: string): string[];
  setVersion(root?: string, next?: string): string;
};
const rootVersion = (root: string) => (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;

/** A copy of every file that carries a version, to plant disagreements in. */
function copyManifests(): string {
  const dir = makeTempDir('sous-versions-');
  const root = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
  const files = ['package.json', 'package-lock.json', 'sdk/python/pyproject.toml', 'sdk/python/sous/__init__.py', ...root.workspaces.map((w) => `${w}/package.json`)];
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
  }
  return dir;
}

describe('one version source', () => {
  test('every manifest, internal range, lockfile entry and the Python SDK agree with the root package.json', () => {
    expect(versionDisagreements(ROOT)).toEqual([]);
  });

  test('SOUS_VERSION (status, MCP server info, --version) is the root version', () => {
    expect(SOUS_VERSION).toBe(rootVersion(ROOT));
  });

  test('a manifest, range or SDK that drifts is named; set-version puts every one back', () => {
    const dir = copyManifests();
    try {
      const edit = (file: string, change: (text: string) => string) => fs.writeFileSync(path.join(dir, file), change(fs.readFileSync(path.join(dir, file), 'utf8')));
      const v = rootVersion(dir);
      edit('shared/store/package.json', (t) => t.replace(`"version": "${v}"`, '"version": "0.0.1"'));
      edit('services/cli/package.json', (t) => t.replace(`"@sous/mcp": "${v}"`, '"@sous/mcp": "^0.0.1"'));
      edit('sdk/python/pyproject.toml', (t) => t.replace(`version = "${v}"`, 'version = "0.0.1"'));
      const problems = versionDisagreements(dir);
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^shared\/store\/package\.json: version is "0\.0\.1"/),
          expect.stringMatching(/^services\/cli\/package\.json: @sous\/mcp is "\^0\.0\.1"/),
          expect.stringMatching(/^sdk\/python\/pyproject\.toml: version is "0\.0\.1"/),
        ]),
      );

      expect(setVersion(dir, '9.8.7')).toBe('9.8.7');
      expect(versionDisagreements(dir)).toEqual([]);
      const lock = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
      expect([lock.version, lock.packages['services/cli'].version, lock.packages['services/cli'].dependencies['@sous/mcp']]).toEqual(['9.8.7', '9.8.7', '9.8.7']);
      expect(fs.readFileSync(path.join(dir, 'sdk/python/sous/__init__.py'), 'utf8')).toContain('__version__ = "9.8.7"');
      expect(() => setVersion(dir, 'next')).toThrow(/not a version/);
    } finally {
      rmTempDir(dir);
    }
  });

  test('CHANGELOG.md has a section for the current version', () => {
    const changelog = fs.readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
    expect(changelog).toMatch(new RegExp(`^## \\[${rootVersion(ROOT).replace(/\./g, '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'));
  });
});
