import * as path from 'node:path';

/** Languages Sous tells apart. `text` is everything else. */
export type Language =
  | 'typescript'
  | 'tsx'
  | 'javascript'
  | 'python'
  | 'go'
  | 'rust'
  | 'java'
  | 'c'
  | 'cpp'
  | 'csharp'
  | 'ruby'
  | 'php'
  | 'kotlin'
  | 'swift'
  | 'scala'
  | 'shell'
  | 'markdown'
  | 'json'
  | 'yaml'
  | 'toml'
  | 'text';

/** Languages that are program code (coverage counts these; markup, data and plain text are not code). */
export const CODE_LANGUAGES: ReadonlySet<Language> = new Set<Language>([
  'typescript', 'tsx', 'javascript', 'python', 'go', 'rust', 'java', 'c', 'cpp', 'csharp',
  'ruby', 'php', 'kotlin', 'swift', 'scala', 'shell',
]);

/** The one table of file extensions (lower case, with the dot) to languages. */
export const LANGUAGE_BY_EXTENSION: Readonly<Record<string, Language>> = {
  '.ts': 'typescript', '.mts': 'typescript', '.cts': 'typescript',
  '.tsx': 'tsx',
  '.js': 'javascript', '.mjs': 'javascript', '.cjs': 'javascript', '.jsx': 'javascript',
  '.py': 'python', '.pyi': 'python', '.pyw': 'python',
  '.go': 'go',
  '.rs': 'rust',
  '.java': 'java',
  '.c': 'c', '.h': 'c',
  '.cc': 'cpp', '.cpp': 'cpp', '.cxx': 'cpp', '.c++': 'cpp', '.hh': 'cpp', '.hpp': 'cpp', '.hxx': 'cpp', '.ipp': 'cpp',
  '.cs': 'csharp',
  '.rb': 'ruby', '.rake': 'ruby', '.gemspec': 'ruby',
  '.php': 'php',
  '.kt': 'kotlin', '.kts': 'kotlin',
  '.swift': 'swift',
  '.scala': 'scala', '.sc': 'scala',
  '.sh': 'shell', '.bash': 'shell', '.zsh': 'shell', '.ksh': 'shell',
  '.md': 'markdown', '.markdown': 'markdown', '.mdx': 'markdown',
  '.json': 'json', '.jsonc': 'json', '.json5': 'json',
  '.yml': 'yaml', '.yaml': 'yaml',
  '.toml': 'toml',
};

/** Whole file names (no extension to go by) with a known language. */
export const LANGUAGE_BY_FILE_NAME: Readonly<Record<string, Language>> = {
  Rakefile: 'ruby',
  Gemfile: 'ruby',
  Podfile: 'ruby',
  '.bashrc': 'shell',
  '.zshrc': 'shell',
  '.profile': 'shell',
};

/** Interpreters named on a `#!` line, for files without a telling extension. */
export const LANGUAGE_BY_INTERPRETER: Readonly<Record<string, Language>> = {
  node: 'javascript', nodejs: 'javascript', deno: 'typescript', 'ts-node': 'typescript', tsx: 'typescript', bun: 'javascript',
  python: 'python', python2: 'python', python3: 'python',
  ruby: 'ruby', php: 'php',
  sh: 'shell', bash: 'shell', zsh: 'shell', ksh: 'shell', dash: 'shell',
};

/**
 * The language of `filePath`: by extension (`LANGUAGE_BY_EXTENSION`), then by file name, then by the
 * interpreter on a `#!` first line (`#!/usr/bin/env python3`, `#!/bin/bash`), else `text`.
 */
export function detectLanguage(filePath: string, firstLine?: string): Language {
  const base = path.posix.basename(filePath.replace(/\\/g, '/'));
  const byExt = LANGUAGE_BY_EXTENSION[path.posix.extname(base).toLowerCase()];
  if (byExt) return byExt;
  const byName = LANGUAGE_BY_FILE_NAME[base];
  if (byName) return byName;
  if (firstLine?.startsWith('#!')) return languageFromShebang(firstLine) ?? 'text';
  return 'text';
}

/** Whether `filePath` names program code by its extension or name alone (no content is read). */
export function isCodePath(filePath: string): boolean {
  return CODE_LANGUAGES.has(detectLanguage(filePath));
}

function languageFromShebang(line: string): Language | undefined {
  const words = line.slice(2).trim().split(/\s+/);
  let program = path.posix.basename(words[0] ?? '');
  // `#!/usr/bin/env [-S] python3`: the interpreter is the first word after env and its flags.
  if (program === 'env') program = words.slice(1).find((w) => !w.startsWith('-')) ?? '';
  const name = program.replace(/[\d.]+$/, ''); // python3.12 -> python
  return LANGUAGE_BY_INTERPRETER[program] ?? LANGUAGE_BY_INTERPRETER[name];
}
