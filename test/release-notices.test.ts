/**
 * Licence and third-party notices: Sous is Apache-2.0 everywhere it says so, and
 * THIRD_PARTY_NOTICES.md lists every production dependency of the lockfile with a licence on the
 * allow-list (no GPL, AGPL or other copyleft in what ships). A new dependency fails here until
 * `npm run notices` regenerates the file.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTempDir, rmTempDir } from './support/tmp';

const ROOT = path.join(__dirname, '..');
const notices = require('../scripts/release/notices.js') as {
  NOTICES_FILE: string;
  licenseAllowed(expression: string): boolean;
  productionPackages(root?: string): Array<{ name: string; version: string; license: string }>;
  renderNotices(root?: string): string;
  parseNotices(text: string): Map<string, string>;
  noticeProblems(root?: string): string[];
};
const { workspaces } = require('../scripts/release/manifests.js') as { workspaces(): Array<{ dir: string; manifest: { license?: string } }> };
/** md5 of the Apache License 2.0 exactly as apache.org publishes it (LICENSE-2.0.txt). */
const APACHE_2_MD5 = '3b83ef96387f14655fc854ddc3c6bd57';

describe('licence and third-party notices', () => {
  test('LICENSE is the unmodified Apache License 2.0 and every manifest declares Apache-2.0', () => {
    expect(createHash('md5').update(fs.readFileSync(path.join(ROOT, 'LICENSE'))).digest('hex')).toBe(APACHE_2_MD5);
    const root = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { license: string };
    expect(root.license).toBe('Apache-2.0');
    expect(workspaces().filter((w) => w.manifest.license !== 'Apache-2.0').map((w) => w.dir)).toEqual([]);
    expect(fs.readFileSync(path.join(ROOT, 'sdk/python/pyproject.toml'), 'utf8')).toContain('license = { text = "Apache-2.0" }');
  });

  test('every production dependency is in THIRD_PARTY_NOTICES.md with an allowed licence, and the file is current', () => {
    expect(notices.noticeProblems(ROOT)).toEqual([]);
    const committed = fs.readFileSync(path.join(ROOT, notices.NOTICES_FILE), 'utf8');
    const listed = notices.parseNotices(committed);
    const packages = notices.productionPackages(ROOT);
    expect(packages.length).toBeGreaterThan(100);
    for (const p of packages) expect({ pkg: `${p.name}@${p.version}`, license: listed.get(`${p.name}@${p.version}`) }).toEqual({ pkg: `${p.name}@${p.version}`, license: p.license });
    expect(committed).toMatch(/## Container images[\s\S]*node:20\.20\.2-bookworm-slim[\s\S]*\/usr\/share\/doc\/<package>\/copyright/);
    expect(committed === notices.renderNotices(ROOT)).toBe(true); // else: npm run notices
  });

  test('the container image carries LICENSE and THIRD_PARTY_NOTICES.md and declares its licence', () => {
    const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runtime).toMatch(/^COPY LICENSE THIRD_PARTY_NOTICES\.md \.\/$/m);
    expect(runtime).toMatch(/^LABEL org\.opencontainers\.image\.licenses="Apache-2\.0"$/m);
  });

  test('the allow-list takes permissive licences and SPDX choices, and refuses copyleft', () => {
    for (const ok of ['MIT', 'ISC', 'Apache-2.0', 'BSD-3-Clause', '(MIT OR Apache-2.0)', '(MIT OR GPL-3.0-or-later)', 'MIT AND ISC']) expect({ ok, allowed: notices.licenseAllowed(ok) }).toEqual({ ok, allowed: true });
    for (const bad of ['GPL-3.0-only', 'AGPL-3.0-or-later', 'LGPL-2.1-only', 'SSPL-1.0', 'MIT AND GPL-2.0-only', 'UNLICENSED', '', 'SEE LICENSE IN LICENSE.md']) expect({ bad, allowed: notices.licenseAllowed(bad) }).toEqual({ bad, allowed: false });
  });

  test('a production dependency missing from the notices, or under GPL, is reported', () => {
    const dir = makeTempDir('sous-notices-');
    try {
      fs.copyFileSync(path.join(ROOT, notices.NOTICES_FILE), path.join(dir, notices.NOTICES_FILE));
      fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
      const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
      lock.packages['node_modules/copyleft-thing'] = { version: '1.0.0', license: 'GPL-3.0-only' };
      lock.packages['node_modules/dev-only-tool'] = { version: '1.0.0', license: 'GPL-3.0-only', dev: true };
      fs.writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify(lock));
      const problems = notices.noticeProblems(dir);
      expect(problems).toEqual([
        expect.stringMatching(/^copyleft-thing@1\.0\.0 \(GPL-3\.0-only\) is not in THIRD_PARTY_NOTICES\.md/),
        expect.stringMatching(/^copyleft-thing@1\.0\.0 is licensed "GPL-3\.0-only", which is not on the allow-list/),
      ]);
    } finally {
      rmTempDir(dir);
    }
  });
});
