/**
 * The release as users receive it. scripts/release/release.js packs the built checkout into
 * sous-<version>.tgz, installs it into an empty prefix the way `npm install -g` does, writes the
 * SBOM and the provenance statement, and signs them with a throwaway key made here. Then the
 * installed copy runs as a user runs it: --version, --help, up/status/down on a fresh repository,
 * and `sous mcp` over stdio through the MCP SDK's client, all reporting the one version.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { embeddedEnv, freePort } from './support/cli';
import { rawRequest } from './support/http';
import { git, makeGitRepo, makeTempDir, rmTempDir, writeFile } from './support/tmp';
import { until } from './support/wait';

const ROOT = path.join(__dirname, '..');
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const notices = require('../scripts/release/notices.js') as { productionPackages(): Array<{ name: string; version: string; platform: boolean }> };
const { workspaces } = require('../scripts/release/manifests.js') as { workspaces(): Array<{ manifest: { name: string } }> };
const SIGNER = 'ci@sous.test';
const TARBALL = `sous-${VERSION}.tgz`;

/** Runs a command without blocking jest's timers; rejects with its stderr. */
function run(cmd: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { ...options, encoding: 'utf8', maxBuffer: 64 << 20, timeout: 540_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')} failed: ${err.message}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** The shell, for commands exactly as docs/release.md prints them (with < redirection). */
function shell(command: string, cwd: string): { code: number; output: string } {
  try {
    return { code: 0, output: execFileSync('sh', ['-c', command], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (err) {
    const e = err as { status?: number; stdout?: string; stderr?: string };
    return { code: e.status ?? -1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('release: the packed, installed, signed package', () => {
  let out: string;
  let prefix: string;
  let keyDir: string;
  let sousBin: string;

  beforeAll(async () => {
    out = makeTempDir('sous-release-');
    prefix = path.join(out, 'prefix');
    keyDir = makeTempDir('sous-release-key-');
    const key = path.join(keyDir, 'release_key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'ci-throwaway', '-f', key]);
    // `npm test` has built dist/; the dependencies come from npm's cache where it has them.
    const env = { ...process.env, SOUS_RELEASE_SIGNING_KEY: key, SOUS_RELEASE_SIGNER: SIGNER };
    await run(process.execPath, ['scripts/release/release.js', '--no-build', '--allow-dirty', '--prefer-offline', '--out', out, '--keep-install', prefix], { cwd: ROOT, env });
    sousBin = path.join(prefix, 'bin', 'sous');
  }, 600_000);

  afterAll(() => {
    rmTempDir(out);
    rmTempDir(keyDir);
  });

  test('the tarball holds the built workspaces, licence, notices and changelog; no sources, tests, maps or third-party code', () => {
    const entries = execFileSync('tar', ['tzf', path.join(out, TARBALL)], { encoding: 'utf8' }).trim().split('\n');
    expect(entries).toEqual(
      expect.arrayContaining([
        'package/package.json',
        'package/LICENSE',
        'package/THIRD_PARTY_NOTICES.md',
        'package/CHANGELOG.md',
        'package/node_modules/@sous/cli/dist/main.js',
        'package/node_modules/@sous/daemon/dist/supervisor.js',
        'package/node_modules/@sous/daemon/dist/worker.js',
        'package/node_modules/@sous/proxy/dist/main.js',
        'package/node_modules/@sous/http/dist/context-worker.js',
        'package/node_modules/@sous/retrieval/dist/symbols/parse-worker.js',
        'package/node_modules/@sous/store/migrations/meta/_journal.json',
        'package/node_modules/@sous/store/migrations/0000_initial.sql',
        'package/node_modules/@sous/cockpit/public/index.html',
        'package/node_modules/@sous/cockpit/dist/web/main.js',
        'package/node_modules/@sous/protocol/package.json',
        // Every grammar the symbol index loads (shared/retrieval/grammars): without them parsing falls back to regexes.
        ...fs.readdirSync(path.join(ROOT, 'shared', 'retrieval', 'grammars')).filter((f) => f.endsWith('.wasm')).map((f) => `package/node_modules/@sous/retrieval/grammars/${f}`),
      ]),
    );
    expect(entries.filter((e) => /\.ts$|\.map$|\.tsbuildinfo$|\/(src|test)\//.test(e))).toEqual([]);
    expect(entries.filter((e) => e.startsWith('package/node_modules/') && !e.startsWith('package/node_modules/@sous/'))).toEqual([]);
    const shipped = JSON.parse(execFileSync('tar', ['xzfO', path.join(out, TARBALL), 'package/package.json'], { encoding: 'utf8' })) as Record<string, unknown>;
    expect(shipped).toMatchObject({ name: 'sous', version: VERSION, license: 'Apache-2.0', bin: { sous: 'node_modules/@sous/cli/dist/main.js' } });
    expect(shipped.bundleDependencies).toEqual(workspaces().map((w) => w.manifest.name));
  });

  test('each artefact verifies with the documented ssh-keygen and sha256sum commands; a changed byte does not', () => {
    for (const file of [TARBALL, 'sbom.cdx.json', 'provenance.intoto.json', 'SHA256SUMS']) {
      const ok = shell(`ssh-keygen -Y verify -f allowed_signers -I ${SIGNER} -n sous-release -s ${file}.sig < ${file}`, out);
      expect({ file, ...ok }).toMatchObject({ file, code: 0, output: expect.stringContaining(`Good "sous-release" signature for ${SIGNER}`) });
    }
    expect(shell('sha256sum -c SHA256SUMS', out)).toMatchObject({ code: 0, output: expect.stringContaining(`${TARBALL}: OK`) });
    fs.copyFileSync(path.join(out, TARBALL), path.join(out, 'tampered.tgz'));
    fs.appendFileSync(path.join(out, 'tampered.tgz'), 'x');
    expect(shell(`ssh-keygen -Y verify -f allowed_signers -I ${SIGNER} -n sous-release -s ${TARBALL}.sig < tampered.tgz`, out).code).not.toBe(0);
    expect(fs.readFileSync(path.join(out, 'allowed_signers'), 'utf8')).toMatch(new RegExp(`^${SIGNER} namespaces="sous-release" ssh-ed25519 `));
  });

  test('the CycloneDX SBOM names the package and lists every bundled workspace and production dependency', () => {
    const sbom = JSON.parse(fs.readFileSync(path.join(out, 'sbom.cdx.json'), 'utf8')) as {
      bomFormat: string;
      metadata: { component: { name: string; version: string } };
      components: Array<{ name: string; version: string; purl: string }>;
    };
    expect(sbom.bomFormat).toBe('CycloneDX');
    expect(sbom.metadata.component).toMatchObject({ name: 'sous', version: VERSION });
    const listed = new Map(sbom.components.map((c) => [decodeURIComponent(c.purl.replace(/^pkg:npm\//, '')).replace(/@[^@]+$/, ''), c.version]));
    for (const w of workspaces()) expect({ name: w.manifest.name, version: listed.get(w.manifest.name) }).toEqual({ name: w.manifest.name, version: VERSION });
    // The same packages as the lockfile's production tree (versions resolve within each range at install).
    const expected = notices.productionPackages().filter((p) => !p.platform && fs.existsSync(path.join(prefix, 'lib', 'node_modules', 'sous', 'node_modules', p.name)));
    expect(expected.length).toBeGreaterThan(100);
    expect(expected.filter((p) => !listed.has(p.name)).map((p) => p.name)).toEqual([]);
    const installed = JSON.parse(fs.readFileSync(path.join(prefix, 'lib', 'node_modules', 'sous', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(installed.dependencies).filter((d) => !listed.has(d))).toEqual([]);
  });

  test('the provenance statement binds the tarball and SBOM by sha256 to the commit, lockfile, Node.js and npm', () => {
    const statement = JSON.parse(fs.readFileSync(path.join(out, 'provenance.intoto.json'), 'utf8'));
    expect(statement._type).toBe('https://in-toto.io/Statement/v1');
    expect(statement.predicateType).toBe('https://slsa.dev/provenance/v1');
    expect(statement.subject).toEqual([
      { name: TARBALL, digest: { sha256: sha256(path.join(out, TARBALL)) } },
      { name: 'sbom.cdx.json', digest: { sha256: sha256(path.join(out, 'sbom.cdx.json')) } },
    ]);
    const head = git(ROOT, ['rev-parse', 'HEAD']).trim();
    const deps = statement.predicate.buildDefinition.resolvedDependencies as Array<{ name: string; uri?: string; digest?: Record<string, string> }>;
    expect(deps).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'source', digest: { gitCommit: head } }),
        { name: 'package-lock.json', digest: { sha256: sha256(path.join(ROOT, 'package-lock.json')) } },
        expect.objectContaining({ name: 'node', uri: `pkg:generic/node@${process.version}` }),
        expect.objectContaining({ name: 'npm', uri: expect.stringMatching(/^pkg:npm\/npm@\d+\.\d+\.\d+/) }),
      ]),
    );
    expect(statement.predicate.buildDefinition.externalParameters).toMatchObject({ version: VERSION, command: expect.stringContaining('scripts/release/release.js') });
    const lines = fs.readFileSync(path.join(out, 'SHA256SUMS'), 'utf8').trim().split('\n');
    expect(lines).toContain(`${sha256(path.join(out, 'provenance.intoto.json'))}  provenance.intoto.json`);
  });

  test('the installed sous: --version, --help, and /status and the MCP server info over stdio agree on the version', async () => {
    const env = embeddedEnv();
    expect(execFileSync(sousBin, ['--version'], { env, encoding: 'utf8' }).trim()).toBe(VERSION);
    const help = execFileSync(sousBin, ['--help'], { env, encoding: 'utf8' });
    expect(help).toMatch(/Usage: sous/);
    expect(help).toMatch(/\bup\b[\s\S]*\bmcp\b/);

    const repo = makeGitRepo();
    writeFile(repo, 'src/billing.ts', 'export function computeInvoiceTotal(lines: number[]): number {\n  return lines.reduce((a, b) => a + b, 0);\n}\n');
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'billing']);
    const port = await freePort();
    try {
      const up = JSON.parse((await run(sousBin, ['up', '--path', repo, '--port', String(port), '--json'], { env })).stdout) as { url: string };
      expect(up.url).toBe(`http://127.0.0.1:${port}`);
      const status = await rawRequest({ port, path: '/status' });
      expect(status.json).toMatchObject({ status: 'ok', version: VERSION, store: { kind: 'pglite', ok: true } });

      const transport = new StdioClientTransport({ command: sousBin, args: ['mcp', '--path', repo], env: env as Record<string, string>, stderr: 'pipe' });
      const client = new Client({ name: 'sous-release-test', version: '1.0.0' });
      await client.connect(transport);
      try {
        expect(client.getServerVersion()).toMatchObject({ version: VERSION });
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['sous_status', 'sous_search']));
        // The index reads symbols through the tree-sitter grammars the package resolves at run time.
        const found = await until(async () => {
          const r = (await client.callTool({ name: 'sous_search', arguments: { query: 'computeInvoiceTotal' } })) as { isError?: boolean; structuredContent?: unknown };
          return !r.isError && JSON.stringify(r.structuredContent).includes('src/billing.ts') ? r : undefined;
        }, 90_000, 500);
        expect(found.isError).not.toBe(true);
      } finally {
        await client.close();
      }
    } finally {
      await run(sousBin, ['down', '--path', repo], { env }).catch(() => undefined);
      rmTempDir(repo);
    }
  }, 240_000);
});
