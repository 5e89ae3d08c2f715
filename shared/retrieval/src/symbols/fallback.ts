import { ReferenceCounter } from './references';
import type { FileSymbols, SymbolDefinition, SymbolImport, SymbolKind } from './types';

interface DefinitionPattern {
  pattern: RegExp;
  kind: SymbolKind;
}

// One line at a time; group `name` is the defined name. Covers the common shapes of
// JS/TS, Python, Ruby, Go, Rust, Java/C#/Kotlin, PHP, Swift, shell; imprecise by design.
const DEFINITION_PATTERNS: readonly DefinitionPattern[] = [
  { pattern: /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*(?<name>[A-Za-z_$][\w$]*)/, kind: 'function' },
  { pattern: /^\s+(?:async\s+)?def\s+(?<name>[A-Za-z_]\w*[?!]?)/, kind: 'method' },
  { pattern: /^(?:async\s+)?def\s+(?<name>[A-Za-z_]\w*[?!]?)/, kind: 'function' },
  { pattern: /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"[^"]*"\s+)?fn\s+(?<name>[A-Za-z_]\w*)/, kind: 'function' },
  { pattern: /^\s*func\s+\([^)]*\)\s*(?<name>[A-Za-z_]\w*)/, kind: 'method' },
  { pattern: /^\s*func\s+(?<name>[A-Za-z_]\w*)/, kind: 'function' },
  { pattern: /^\s*(?:fun|sub|proc)\s+(?<name>[A-Za-z_]\w*)/, kind: 'function' },
  { pattern: /^\s*(?:export\s+)?(?:default\s+)?(?:(?:public|private|protected|internal|abstract|final|sealed|static|data|open)\s+)*class\s+(?<name>[A-Za-z_$][\w$]*)/, kind: 'class' },
  { pattern: /^\s*(?:pub(?:\([^)]*\))?\s+)?struct\s+(?<name>[A-Za-z_]\w*)/, kind: 'class' },
  { pattern: /^\s*(?:export\s+)?(?:public\s+)?(?:interface|trait|protocol)\s+(?<name>[A-Za-z_$][\w$]*)/, kind: 'interface' },
  { pattern: /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:export\s+)?(?:public\s+)?(?:const\s+)?enum\s+(?<name>[A-Za-z_$][\w$]*)/, kind: 'enum' },
  { pattern: /^\s*(?:export\s+)?type\s+(?<name>[A-Za-z_$][\w$]*)\s*(?:<[^=]*>)?\s*=/, kind: 'type' },
  { pattern: /^\s*(?:pub\s+)?(?:module|mod|namespace|package)\s+(?<name>[A-Za-z_][\w.:]*)/, kind: 'module' },
  { pattern: /^(?:export\s+)?const\s+(?<name>[A-Za-z_$][\w$]*)\s*[=:]/, kind: 'constant' },
];

const IMPORT_PATTERNS: readonly RegExp[] = [
  /^\s*import\s+(?<names>[^'"]*?)\s*from\s*['"](?<source>[^'"]+)['"]/, // ES import … from
  /^\s*(?:import|export\s+\*\s+from)\s*['"](?<source>[^'"]+)['"]/, // side-effect import / go single import
  /\brequire(?:_relative)?\s*\(?\s*['"](?<source>[^'"]+)['"]/, // CommonJS, Ruby
  /^\s*from\s+(?<source>[.\w]+)\s+import\s+(?<names>[\w\s,*]+)/, // Python from-import
  /^\s*import\s+(?<source>[\w.]+(?:\.\*)?)\s*;?\s*$/, // Python/Java/Kotlin import
  /^\s*(?:pub\s+)?use\s+(?<source>[\w:]+)/, // Rust, PHP-ish
  /^\s*#\s*include\s*[<"](?<source>[^>"]+)[>"]/, // C, C++
];

const KEYWORDS = new Set(
  (
    'abstract and as async await break case catch class const continue def default del delete do elif else enum ' +
    'except export extends false final finally fn for from func function global go if impl implements import in ' +
    'instanceof interface is lambda let match mod module mut namespace new nil none not null of or package pass ' +
    'private protected pub public raise return self static struct super switch this throw throws trait true try type ' +
    'typeof undefined use var void while with yield True False None begin end ensure rescue then unless until when ' +
    'elsif require'
  ).split(' '),
);

const IDENTIFIER = /[A-Za-z_$][\w$]*/g;

function names(list: string | undefined): string[] {
  if (!list) return [];
  return list
    .replace(/[{}()]/g, ' ')
    .split(',')
    .map((part) => part.trim().split(/\s+as\s+/)[0]?.replace(/^\*$/, '*').trim() ?? '')
    .filter((name) => name !== '' && !name.startsWith('type '));
}

/**
 * A string literal. A backslash is only ever an escape (`[^\\]` in the other branch): when both
 * branches could take it, an unterminated string with many backslashes (minified code) backtracks
 * exponentially and hangs the parse.
 */
const STRING_LITERAL = /(["'`])(?:\\[\s\S]|(?!\1)[^\\])*\1/g;

/** Strip `//` and `#` line comments and string literals so they do not count as references. */
function codeOnly(line: string): string {
  return line.replace(STRING_LITERAL, ' ').replace(/(?:\/\/|#(?!\s*include)).*$/, '');
}

/**
 * Regex extraction for languages without a grammar, oversized files and trees with syntax errors.
 * Definitions have `endLine === line`; `exported` is set only where the line says `export`/`pub`/`public`.
 * With `references` false, identifier uses are not collected (the index does not rank by them).
 */
export function extractWithRegex(text: string, references = true): Omit<FileSymbols, 'parser'> {
  const definitions: SymbolDefinition[] = [];
  const imports: SymbolImport[] = [];
  const uses = new ReferenceCounter();
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = index + 1;
    let definedName: string | undefined;
    for (const { pattern, kind } of DEFINITION_PATTERNS) {
      const name = pattern.exec(raw)?.groups?.name;
      if (name) {
        definedName = name;
        const exported = /^\s*(?:export|pub\b|public\b)/.test(raw) ? true : undefined;
        definitions.push({ name, kind, line, endLine: line, ...(exported ? { exported } : {}) });
        break;
      }
    }
    for (const pattern of IMPORT_PATTERNS) {
      const groups = pattern.exec(raw)?.groups;
      if (groups?.source) {
        imports.push({ source: groups.source, names: names(groups.names), line });
        break;
      }
    }
    if (!references) return;
    let skippedDefinition = false;
    for (const match of codeOnly(raw).matchAll(IDENTIFIER)) {
      const name = match[0];
      if (KEYWORDS.has(name)) continue;
      if (name === definedName && !skippedDefinition) {
        skippedDefinition = true; // the defining occurrence is not a use
        continue;
      }
      uses.add(name, line);
    }
  });
  return { definitions, references: uses.list(), imports };
}
