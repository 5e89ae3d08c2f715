/**
 * The vocabulary of client wiring (spec 4.7): a **client** (one of ten AI coding clients) gets up to
 * four **layers** (MCP entry, primer, skill/workflow/prompt, lifecycle hooks); each layer is a list of
 * **managed edits**, one per file, that know how to add, find and remove exactly Sous's part of that
 * file in the file's own format.
 */

/** The ten client ids `sous launch`, `sous init --clients` and `sous clients …` accept. */
export const CLIENT_IDS = ['claude-code', 'cursor', 'vscode', 'windsurf', 'codex', 'gemini', 'zed', 'cline', 'continue', 'goose'] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

/** Integration layers, in the order they are installed and reported. */
export const LAYER_KINDS = ['mcp', 'primer', 'skill', 'hooks'] as const;
export type LayerKind = (typeof LAYER_KINDS)[number];

/** The format a managed file is parsed with (each with its own parser: jsonc-parser, smol-toml, yaml). */
export type FileFormat = 'json' | 'jsonc' | 'toml' | 'yaml' | 'markdown';

/** How `sous mcp` is started: an absolute executable and its arguments (never a bare `sous`). */
export interface ServerCommand {
  command: string;
  args: string[];
}

/** Where and how one workspace is wired. */
export interface WiringTarget {
  /** Absolute repository root (the `--path` every MCP tool is scoped to). */
  project: string;
  /** Home directory of the user (HOME); tests point it at a temporary directory. */
  home: string;
  platform: NodeJS.Platform;
  /** Starts the MCP server for `project`. */
  server: ServerCommand;
  /**
   * Shell command of the L0 composer hook (Claude Code's UserPromptSubmit). Undefined when the user
   * did not opt in: the hooks layer is then skipped.
   */
  hookCommand?: string;
}

/** Presence of Sous's part in one file. */
export type Presence = 'ok' | 'missing' | 'drifted';

/** Sous's part of one file, in that file's format. Pure text in, text out: the caller does the I/O. */
export interface ManagedEdit {
  /** Absolute path. */
  file: string;
  format: FileFormat;
  /**
   * The file's new text with Sous's part in place (the same text when it already is). Throws
   * WiringError. `force` replaces a same-named file Sous did not write (the caller backs it up first).
   */
  apply(current: string | undefined, force?: boolean): string;
  /** The text without Sous's part; undefined when nothing else is left and the file should go. */
  remove(current: string): string | undefined;
  present(current: string | undefined): Presence;
}

/** One layer of one client: the edits it makes, or why it has none. */
export interface LayerPlan {
  kind: LayerKind;
  edits: ManagedEdit[];
  /** Why this client has no such layer (then `edits` is empty). */
  unsupported?: string;
  /** Installed only when the user opted in; this says how (the edits are still given, to verify and remove). */
  optIn?: string;
}

/** What the docs show for a client: its MCP file and snippet, and a one-line command when it has one. */
export interface ClientSnippet {
  file: string;
  language: 'json' | 'jsonc' | 'toml' | 'yaml';
  text: string;
  command?: string;
}

/** One client: its id, how to tell it is installed, its layers and its MCP snippet. */
export interface ClientDefinition {
  id: ClientId;
  name: string;
  /** Paths (home-relative, `~/…`) or executables on PATH whose presence means the client is installed. */
  markers(target: Pick<WiringTarget, 'home' | 'platform'>): { paths: string[]; executables: string[] };
  layers(target: WiringTarget): LayerPlan[];
  snippet(target: WiringTarget): ClientSnippet;
}

/** A file Sous cannot edit safely (it does not parse, or it already holds a `sous` entry of its own). */
export class WiringError extends Error {
  constructor(
    readonly code: 'unparsable' | 'conflict',
    message: string,
  ) {
    super(message);
    this.name = 'WiringError';
  }
}
