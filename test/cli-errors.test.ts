/**
 * How the CLI fails, as scripts and people see it (docs/errors.md): usage errors exit 2 with one
 * line, `--json` runs fail in JSON on stdout, the first one-shot run says it is creating the
 * embedded database, and `config set` keeps the user's comments.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gitSnapshot, sous } from './support/cli';
import { makeGitRepo, rmTempDir } from './support/tmp';

describe('sous CLI failures and first run', () => {
  let repo: string;
  beforeAll(() => {
    repo = makeGitRepo('sous-cli-errors-');
  });
  afterAll(() => rmTempDir(repo));

  test('a usage error exits 2 with one line naming the problem and where help is', async () => {
    for (const [args, line] of [
      [['prepare', '--bogus'], "sous: unknown option '--bogus' (see sous prepare --help)"],
      [['config', 'set'], "sous: missing required argument 'key' (see sous config set --help)"],
      [['nosuch'], "sous: unknown command 'nosuch' (see sous --help)"],
    ] as const) {
      const r = await sous([...args]);
      expect({ args, code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({ args, code: 2, stderr: `${line}\n`, stdout: '' });
    }
  });

  test('help and the version are answers, not failures', async () => {
    const version = await sous(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const help = await sous(['prepare', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: sous prepare');
  });

  test('with --json a failure is one JSON object on stdout, with the same exit code', async () => {
    const usage = await sous(['prepare', '--bogus', '--json']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe('');
    expect(usage.json).toEqual({ error: { code: 'usage', message: "unknown option '--bogus' (see sous prepare --help)", exit_code: 2 } });

    const missing = await sous(['status', '--path', path.join(repo, 'no-such-dir'), '--json']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toBe('');
    expect(missing.json.error).toMatchObject({ exit_code: missing.code });
    expect(missing.json.error.message).toContain('no-such-dir');

    // Without --json the same failure stays one readable line on stderr.
    const plain = await sous(['status', '--path', path.join(repo, 'no-such-dir')]);
    expect(plain.stdout).toBe('');
    expect(plain.stderr.trim().split('\n')).toHaveLength(1);
    expect(plain.stderr).toMatch(/^sous: .*no-such-dir/);
  });

  test('the first one-shot run says it is creating the embedded database; later runs do not', async () => {
    const before = gitSnapshot(repo);
    const first = await sous(['prepare', '--path', repo, '--json']);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(`creating the embedded database in ${path.join(repo, '.sous', 'data')} (first run only`);
    expect(first.json.workspace).toBe(repo); // stdout stays pure JSON
    const second = await sous(['prepare', '--path', repo, '--json']);
    expect(second.code).toBe(0);
    expect(second.stderr).not.toContain('creating the embedded database');
    expect(gitSnapshot(repo)).toEqual(before);
  }, 120_000);

  test('config set changes one value and keeps the comments the user wrote', async () => {
    const file = path.join(repo, '.sous', 'config.toml');
    await sous(['init', '--path', repo, '--non-interactive']);
    const text = `# Ask Ana before changing the backend.\n[backend]\nmodel = "qwen2.5-coder:7b" # the team's model\n\n[compute]\ncpu_fraction = 0.5\n`;
    fs.writeFileSync(file, text);
    const set = await sous(['config', 'set', 'compute.cpu_fraction', '0.25', '--path', repo]);
    expect(set.code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe(text.replace('cpu_fraction = 0.5', 'cpu_fraction = 0.25'));
    const refused = await sous(['config', 'set', 'compute.cpu_fraction', 'lots', '--path', repo]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/^sous: .*compute\.cpu_fraction/);
    expect(fs.readFileSync(file, 'utf8')).toBe(text.replace('cpu_fraction = 0.5', 'cpu_fraction = 0.25'));
  }, 120_000);
});
