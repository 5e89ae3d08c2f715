/**
 * The one list of AI clients Auto Focus looks for (spec invariant 9: "it checks only supported AI
 * clients and the service's own integrations"). Nothing else in Sous names a client process; add or
 * change a client here and detection, status and docs follow.
 *
 * What a process reveals, and so all a client can be recognised by:
 * - its **name**: on Linux `/proc/<pid>/comm` (the exec'd file's base name, or the title a program
 *   sets for itself, cut to 15 characters); on macOS/BSD the base name of `ps`'s `comm`; on Windows
 *   the image name without `.exe`. Matched exactly, case-insensitively.
 * - its **executable path**: on Linux the `/proc/<pid>/exe` link, on macOS `ps`'s `comm` (the full
 *   path). Matched by substring, case-insensitively, `\` read as `/`.
 *
 * Never argv, environment, working directory, open files, window titles or anything inside a
 * process. Consequences, stated per client in `note`:
 * - A Node CLI runs as `node <script>`: its name is `node` and its executable the node binary. The
 *   script path is in argv, which we do not read. Such a CLI is seen only when it sets its process
 *   title (Claude Code sets `claude`; on Linux the title becomes the comm name, on macOS it does
 *   not) or ships a native binary; otherwise only Sous's own integrations (an MCP session, requests
 *   through the proxy) show it is in use.
 * - Copilot, Cline and Continue also run as extensions inside an editor. We detect the host editor's
 *   process and never look inside it (extensions, open workspaces, windows): a running VS Code counts
 *   as "VS Code with Copilot" whether or not Copilot is enabled.
 */

export type ClientId =
  | 'claude-code'
  | 'cursor'
  | 'vscode-copilot'
  | 'windsurf'
  | 'codex-cli'
  | 'gemini-cli'
  | 'zed'
  | 'cline'
  | 'continue'
  | 'goose';

export interface SupportedClient {
  /** Stable kebab-case id used in status, config and logs. */
  readonly id: ClientId;
  /** Display name. */
  readonly name: string;
  /**
   * Exact executable base names, lower case (matching ignores case and a Windows `.exe`). Each fits
   * in Linux's 15-character comm name, or it could never match there.
   */
  readonly processNames: readonly string[];
  /**
   * Substrings of the executable path, for installs whose file name says nothing (macOS `.app`
   * bundles whose main binary is `Electron`, their `… Helper` processes, versioned native binaries,
   * the node binary an editor's remote server ships in its own folder). Never a script path: that
   * would be argv.
   */
  readonly executablePatterns: readonly string[];
  /** What the process listing can and cannot see of this client; shown to users as-is. */
  readonly note: string;
}

export const SUPPORTED_CLIENTS: readonly SupportedClient[] = [
  {
    id: 'claude-code',
    name: 'Claude Code',
    processNames: ['claude'],
    // Native installs: ~/.local/share/claude/versions/<version> (launched through ~/.local/bin/claude)
    // and the binary the npm package ships under @anthropic-ai/claude-code/.
    executablePatterns: ['/share/claude/versions/', '/@anthropic-ai/claude-code/'],
    // Limit: the Claude desktop app's binary is also named Claude (macOS, Windows) and matches too.
    note: 'Native binary by name or path; the npm build runs under node and is seen by its process title "claude" (Linux only).',
  },
  {
    id: 'cursor',
    name: 'Cursor',
    processNames: ['cursor'],
    executablePatterns: ['/cursor.app/', '/.cursor-server/'],
    note: 'The editor process (and its remote server); never what is open in it.',
  },
  {
    id: 'vscode-copilot',
    name: 'VS Code with Copilot',
    processNames: ['code', 'code-insiders', 'code - insiders'],
    executablePatterns: [
      '/visual studio code.app/',
      '/visual studio code - insiders.app/',
      '/.vscode-server/',
      '/.vscode-server-insiders/',
    ],
    note: 'Seen as the VS Code process; whether Copilot is enabled inside it is not looked at.',
  },
  {
    id: 'windsurf',
    name: 'Windsurf',
    processNames: ['windsurf'],
    executablePatterns: ['/windsurf.app/', '/.windsurf-server/'],
    note: 'The editor process (and its remote server); never what is open in it.',
  },
  {
    id: 'codex-cli',
    name: 'Codex CLI',
    processNames: ['codex'],
    // The npm package's node launcher starts a native binary from its vendor folder (older builds
    // name it codex-<target-triple>).
    executablePatterns: ['/@openai/codex/'],
    note: 'The native codex binary, whether installed directly or through npm.',
  },
  {
    id: 'gemini-cli',
    name: 'Gemini CLI',
    processNames: ['gemini'],
    executablePatterns: [],
    note: 'Runs under node: seen only if it titles its process "gemini" (Linux); otherwise through Sous integrations only.',
  },
  {
    id: 'zed',
    name: 'Zed',
    processNames: ['zed', 'zed-editor'],
    executablePatterns: ['/zed.app/', '/zed preview.app/'],
    note: 'The editor process; never what is open in it.',
  },
  {
    id: 'cline',
    name: 'Cline',
    processNames: ['cline'],
    executablePatterns: [],
    note: 'The cline CLI by name; the extension is seen only as its host editor (VS Code, Cursor, Windsurf).',
  },
  {
    id: 'continue',
    name: 'Continue',
    processNames: ['cn'],
    executablePatterns: [],
    note: 'The cn CLI runs under node: seen only if titled "cn" (Linux); the extension only as its host editor.',
  },
  {
    id: 'goose',
    name: 'Goose',
    processNames: ['goose', 'goosed'],
    executablePatterns: ['/goose.app/'],
    note: 'The goose CLI, the desktop app and its goosed server.',
  },
];

/** The name as matched: lower case, without a Windows `.exe`. */
export function normalizeProcessName(name: string): string {
  return name.trim().toLowerCase().replace(/\.exe$/, '');
}

/** The executable path as matched: lower case, `/` separators, no Linux ` (deleted)` suffix. */
export function normalizeExecutablePath(exe: string): string {
  return exe.replace(/ \(deleted\)$/, '').replace(/\\/g, '/').toLowerCase();
}

/**
 * The supported client a process belongs to, from its name and executable path only, or undefined.
 * Every other process is dropped by the caller without being kept or logged.
 */
export function clientForProcess(
  entry: { name: string; exe?: string },
  clients: readonly SupportedClient[] = SUPPORTED_CLIENTS,
): SupportedClient | undefined {
  const name = normalizeProcessName(entry.name);
  const exe = entry.exe === undefined ? undefined : normalizeExecutablePath(entry.exe);
  return clients.find(
    (client) =>
      client.processNames.includes(name) ||
      (exe !== undefined && client.executablePatterns.some((pattern) => exe.includes(pattern))),
  );
}
