import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { extractSymbols, LONG_LINE_CHARS, looksMinified, MAX_TREE_SITTER_BYTES } from '../src/symbols';

describe('extractSymbols regex fallback', () => {
  test('unsupported language (Ruby) gets definitions, imports and references by regex', async () => {
    const text = [
      "require 'json'", // 1
      'module Billing', // 2
      '  class Invoice', // 3
      '    def total_amount', // 4
      '      items.sum(&:price)', // 5
      '    end', // 6
      '  end', // 7
      'end', // 8
      'def helper; Invoice.new; end', // 9
    ].join('\n');
    const symbols = await extractSymbols('ruby', text);
    expect(symbols.parser).toBe('regex');
    expect(symbols.fallbackReason).toBe("unsupported language 'ruby'");
    expect(symbols.definitions).toEqual([
      { name: 'Billing', kind: 'module', line: 2, endLine: 2 },
      { name: 'Invoice', kind: 'class', line: 3, endLine: 3 },
      { name: 'total_amount', kind: 'method', line: 4, endLine: 4 },
      { name: 'helper', kind: 'function', line: 9, endLine: 9 },
    ]);
    expect(symbols.imports).toEqual([{ source: 'json', names: [], line: 1 }]);
    expect(symbols.references.find((r) => r.name === 'Invoice')).toEqual({ name: 'Invoice', line: 9, count: 1 });
    expect(symbols.references.find((r) => r.name === 'items')).toEqual({ name: 'items', line: 5, count: 1 });
    expect(symbols.references.some((r) => r.name === 'def' || r.name === 'end')).toBe(false);
  });

  test('C-like and shell text: functions, structs, includes', async () => {
    const text = ['#include "parser.h"', 'struct Token { int kind; };', 'fn tokenize() {}', 'func Run() {}'].join('\n');
    const symbols = await extractSymbols('c', text);
    expect(symbols.definitions.map((d) => `${d.kind}:${d.name}`)).toEqual([
      'class:Token',
      'function:tokenize',
      'function:Run',
    ]);
    expect(symbols.imports).toEqual([{ source: 'parser.h', names: [], line: 1 }]);
  });

  test('a TypeScript file with syntax errors keeps tree-sitter results and adds what regex finds', async () => {
    const text = [
      "import { a } from './a';", // 1
      'export function first(x: number) {', // 2
      '  return a(x;', // 3  unbalanced
      '}', // 4
      'export class Second {', // 5
      '  method( {', // 6  broken
      '}', // 7
      'export function third() { return first(1); }', // 8
    ].join('\n');
    const symbols = await extractSymbols('typescript', text);
    expect(symbols.parser).toBe('mixed');
    expect(symbols.fallbackReason).toBe('syntax errors');
    const names = symbols.definitions.map((d) => d.name);
    expect(names).toEqual(expect.arrayContaining(['first', 'Second', 'third']));
    expect(symbols.imports).toEqual([{ source: './a', names: ['a'], line: 1 }]);
    expect(symbols.references.find((r) => r.name === 'first')?.line).toBe(8);
  });

  test('a Python file that is not Python at all still yields symbols without throwing', async () => {
    const text = 'def broken(:\n    ))) class\nclass Fine:\n    pass\n';
    const symbols = await extractSymbols('python', text);
    expect(symbols.parser).toBe('mixed');
    expect(symbols.definitions.map((d) => d.name)).toEqual(expect.arrayContaining(['broken', 'Fine']));
  });

  test('texts over the size cap skip tree-sitter', async () => {
    const line = 'export function big() { return 1; }\n';
    const text = line.repeat(Math.ceil((MAX_TREE_SITTER_BYTES + 1) / line.length));
    const symbols = await extractSymbols('typescript', text);
    expect(symbols.parser).toBe('regex');
    expect(symbols.fallbackReason).toMatch(/^over size cap \(\d+ bytes > 524288\)$/);
    expect(symbols.definitions[0]).toEqual({ name: 'big', kind: 'function', line: 1, endLine: 1, exported: true });
  });

  test('minified code (most of the text in very long lines) skips tree-sitter', async () => {
    const minified = `function a(b){return b+1}var c=${'a(1)+'.repeat(LONG_LINE_CHARS)}0;export function keep(){return c}\n`;
    expect(looksMinified(minified)).toBe(true);
    const symbols = await extractSymbols('javascript', minified);
    expect(symbols.parser).toBe('regex');
    expect(symbols.fallbackReason).toBe(`minified (most of the text is in lines over ${LONG_LINE_CHARS} characters)`);
    expect(symbols.definitions.map((d) => d.name)).toContain('a');
    // Ordinary code with one long line (an inlined table) is still parsed.
    const ordinary = `${'export function f() { return 1; }\n'.repeat(200)}const table = '${'x'.repeat(LONG_LINE_CHARS + 10)}';\n`;
    expect(looksMinified(ordinary)).toBe(false);
    expect((await extractSymbols('javascript', ordinary)).parser).toBe('tree-sitter');
  });

  test('an unterminated string full of backslashes on one long line is read, not hung on', () => {
    // Shaped like a line of a minified bundle (pglite's fs/base.cjs hung a parse worker this way: the
    // string pattern backtracked exponentially). In a child process, so a regression fails the test
    // at the deadline instead of hanging the whole run.
    const script = `
      const { extractSymbols } = require(${JSON.stringify(path.join(__dirname, '..', 'dist', 'symbols', 'extract.js'))});
      const line = 'var s="' + '\\\\x'.repeat(40) + 'q '.repeat(30000) + '; function after(){ return usedLater }';
      extractSymbols('ruby', line).then((s) => process.stdout.write(JSON.stringify({ parser: s.parser, refs: s.references.map((r) => r.name) })));
    `;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(run.signal).toBeNull();
    const symbols = JSON.parse(run.stdout) as { parser: string; refs: string[] };
    expect(symbols.parser).toBe('regex');
    // The string never ends, so what follows it counts as code: the names after it are still found.
    expect(symbols.refs).toEqual(expect.arrayContaining(['usedLater', 'after']));
  }, 40_000);

  test('empty text gives empty results', async () => {
    const symbols = await extractSymbols('go', '');
    expect(symbols).toEqual({ definitions: [], references: [], imports: [], parser: 'tree-sitter' });
  });
});
