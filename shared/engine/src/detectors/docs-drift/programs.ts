/**
 * Whose flag a doc's `--flag` is. The commands a repository ships, from its manifests: package.json `name`/`bin`, Cargo.toml
 * `[package]`/`[[bin]]` names, pyproject.toml / setup.cfg / setup.py names and console scripts,
 * go.mod's module and `cmd/<name>` folders. A flag in a doc's command line belongs to the command
 * that starts it: `rg --column` in fzf's docs is ripgrep's, `emerge --sync` is Gentoo's. Knowing the
 * project's own commands lets docs drift keep only the flags passed to them.
 */
import * as path from 'node:path';
import { isProjectSource } from '../../view/file-roles';

/** What a manifest reading needs from the repository view. */
export interface ManifestSource {
  paths(): string[];
  text(path: string): string | undefined;
}

const MANIFESTS = new Set(['package.json', 'Cargo.toml', 'pyproject.toml', 'setup.cfg', 'setup.py', 'go.mod']);

/** Every command name the repository's own manifests declare (lowercase), empty when none could be read. */
export function projectPrograms(view: ManifestSource): ReadonlySet<string> {
  const names = new Set<string>();
  const add = (raw: string | undefined): void => {
    if (raw === undefined) return;
    const name = raw.trim().toLowerCase().replace(/^@[^/]+\//, '');
    if (!/^[a-z0-9][\w.+-]*$/.test(name)) return;
    names.add(name);
    // A `<tool>-cli` package usually installs the `<tool>` command (webpack-cli → webpack).
    const base = /^(.+)-cli$/.exec(name)?.[1];
    if (base !== undefined) names.add(base);
  };
  for (const file of view.paths()) {
    const segments = file.split('/');
    const base = segments[segments.length - 1] ?? '';
    const cmd = segments.indexOf('cmd');
    // Go's convention: cmd/<name>/main.go builds the `<name>` command.
    if (cmd >= 0 && cmd === segments.length - 3 && base.endsWith('.go')) add(segments[cmd + 1]);
    if (!MANIFESTS.has(base) || segments.includes('node_modules') || !isProjectSource(file)) continue;
    const text = view.text(file);
    if (text === undefined) continue;
    for (const name of manifestNames(base, text)) add(name);
  }
  return names;
}

function manifestNames(kind: string, text: string): string[] {
  switch (kind) {
    case 'package.json':
      return packageJsonNames(text);
    case 'Cargo.toml':
      return tomlTableNames(text, /^\[(?:package|\[bin\])\]$/);
    case 'pyproject.toml':
      return [...tomlTableNames(text, /^\[(?:project|tool\.poetry)\]$/), ...tomlTableKeys(text, /^\[(?:project\.scripts|project\.gui-scripts|tool\.poetry\.scripts)\]$/)];
    case 'setup.cfg':
      return [...tomlTableNames(text, /^\[metadata\]$/), ...consoleScripts(text)];
    case 'setup.py':
      return [...(text.match(/\bname\s*=\s*["']([\w.-]+)["']/)?.slice(1) ?? []), ...consoleScripts(text)];
    case 'go.mod': {
      // `module github.com/caddyserver/caddy/v2` → caddy
      const module = /^module\s+(\S+)/m.exec(text)?.[1];
      const parts = (module ?? '').split('/').filter((p) => !/^v\d+$/.test(p));
      return parts.length > 0 ? [parts[parts.length - 1] as string] : [];
    }
    default:
      return [];
  }
}

function packageJsonNames(text: string): string[] {
  let pkg: unknown;
  try {
    pkg = JSON.parse(text);
  } catch {
    return [];
  }
  if (typeof pkg !== 'object' || pkg === null) return [];
  const { name, bin } = pkg as { name?: unknown; bin?: unknown };
  const out = typeof name === 'string' ? [name] : [];
  if (typeof bin === 'object' && bin !== null) out.push(...Object.keys(bin));
  return out;
}

/** `name = "…"` inside the tables whose header matches `header`. */
function tomlTableNames(text: string, header: RegExp): string[] {
  return tomlTableMatches(text, header, /^name\s*[=:]\s*["']?([\w.-]+)/);
}

/** The keys of the tables whose header matches `header` (console scripts). */
function tomlTableKeys(text: string, header: RegExp): string[] {
  return tomlTableMatches(text, header, /^["']?([\w.-]+)["']?\s*=/);
}

/** The first group of `entry` on each line inside the tables (or ini sections) whose header matches `header`. */
function tomlTableMatches(text: string, header: RegExp, entry: RegExp): string[] {
  const out: string[] = [];
  let inTable = false;
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t.startsWith('[')) inTable = header.test(t);
    else if (inTable) {
      const m = entry.exec(t);
      if (m?.[1]) out.push(m[1]);
    }
  }
  return out;
}

/** `name = package.module:function` entries (setup.cfg's console_scripts, setup.py's entry_points). */
function consoleScripts(text: string): string[] {
  return [...text.matchAll(/["']?([\w.-]+)\s*=\s*[\w.]+:[\w.]+/g)].map((m) => m[1] as string);
}

/** The command word of a command line, normalised (`./target/release/rg` → `rg`, `fzf.exe` → `fzf`). */
export function commandName(word: string): string {
  return path.posix.basename(word.replace(/\\/g, '/')).toLowerCase().replace(/\.(?:exe|cmd|js|py)$/, '');
}

/**
 * Tools whose flags are their own, never the project's: `cargo run --bin x`, `mypy --warn-unreachable`,
 * `git commit --amend`. (Not `cargo fmt` or `cargo clippy`: a plugin subcommand may be the project.)
 */
const EXTERNAL_TOOLS: ReadonlySet<string> = new Set(
  'git npm yarn pip pip3 pipx python python3 mypy ruff flake8 flit pipenv virtualenv hatch pre-commit openssl docker kubectl go rustup rustc brew apt apt-get curl wget node deno make gcc uv twine gh tsc jest nvm conda bash sh'.split(' '),
);
/** A cargo command line that runs the project's benches or tests, whose harness takes the flags after ` -- `. */
const CARGO_HARNESS = /^\s*(?:\$\s+)?(?:sudo\s+)?cargo\s+(?:\+\S+\s+)?(?:bench|test|nextest\s+run)\b/;
const CARGO_BUILTINS: ReadonlySet<string> = new Set('run build test install check add doc publish update bench clean new init metadata tree rustc fix search login'.split(' '));

/**
 * Whether the flag at `column` of `line` is passed to another program. The command it follows starts
 * at the line's start, a backtick, a pipe, `;`, `&&` or `$(`, after a `$ ` prompt, `sudo` and
 * `VAR=value` words; `python -m tool`, `npx tool` and `uvx tool` are `tool`'s, and a ` -- ` hands the
 * rest to the program being run. The flag is another program's when that command is not one of the
 * project's own (`programs`, from its manifests) and either is a well-known tool (EXTERNAL_TOOLS, a
 * builtin cargo subcommand), or the line is code (a fenced example, a code span, a `$ ` prompt) and
 * names some other command: `rg --column` in fzf's README, `emerge --sync` in an install section.
 * Prose ("pass --exact to…") has no command word, and with no manifest read nothing is known to
 * be the project's: then only the well-known tools count.
 */
export function foreignFlag(line: string, column: number, inFence: boolean, programs: ReadonlySet<string>, blockCommand = ''): boolean {
  const before = line.slice(0, column);
  const after = (separator: string): number => {
    const at = before.lastIndexOf(separator);
    return at < 0 ? 0 : at + separator.length;
  };
  const starts = ['`', '|', ';', '&&', '$('].map(after);
  // In an example, a string the flag sits inside holds a command of its own (`"post-commit": "git
  // update-index --again"` in a package.json, `run: "rg --column"`): an odd count of quotes before it.
  const quoted = inFence ? ['"', "'"].map((q) => (before.split(q).length % 2 === 0 ? after(q) : 0)) : [];
  const start = Math.max(...starts, ...quoted);
  const segment = before.slice(start);
  // …except to a test harness: `cargo bench -- --save-baseline main` is criterion's flag, `cargo test -- --nocapture` libtest's.
  if (/\s--\s/.test(segment)) return CARGO_HARNESS.test(segment);
  const prompt = /^\s*\$\s+/.test(segment);
  // A YAML step (`- run: git update-index --again`) names its command after the key.
  const unkeyed = inFence ? segment.replace(/^\s*(?:-\s+)?[\w.-]+:\s+(?=\S)/, '') : segment;
  const words = unkeyed.trim().replace(/^\$\s+/, '').split(/\s+/).filter((w) => w !== '' && w !== 'sudo' && !/^[A-Z_][A-Z0-9_]*=/.test(w));
  let [command = '', sub = ''] = words;
  if ((command === 'python' || command === 'python3') && sub === '-m') [command = '', sub = ''] = words.slice(2);
  else if (command === 'npx' || command === 'uvx') [command = '', sub = ''] = words.slice(1);
  // A line with no command of its own in an example (`  -a, --author string` of a help text) is the
  // output of the last command its block ran at a `$ ` prompt.
  if ((command === '' || command.startsWith('-')) && inFence && blockCommand !== '') command = blockCommand;
  if (command === '' || command.startsWith('-')) return false;
  // A script of the repository run by its path (`./bin/publish`, `scripts/release.sh`, `./manage.py`) is the project's own.
  if (/^(?:\.{1,2}\/)?[\w.-]+\/[\w./-]+$|^\.\/[\w.-]+$/.test(command) && !/^(?:\.\/)?(?:target|node_modules|dist|build)\//.test(command)) return false;
  const name = commandName(command);
  if (programs.has(name)) return false;
  if (EXTERNAL_TOOLS.has(name) || (name === 'cargo' && CARGO_BUILTINS.has(sub))) return true;
  const code = inFence || prompt || (start > 0 && start === starts[0]);
  return code && programs.size > 0 && /^[a-z0-9][\w.+-]*$/.test(name);
}

const PROMPT_LINE = /^\s*\$\s+(?:sudo\s+)?(?:[A-Z_][A-Z0-9_]*=\S*\s+)*([^\s|;&]+)/;

/** The command a `$ ` prompt line runs (`$ sudo cobra-cli help` → `cobra-cli`), or undefined. */
export function promptCommand(line: string): string | undefined {
  return PROMPT_LINE.exec(line)?.[1];
}
