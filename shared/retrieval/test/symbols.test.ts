import { extractSymbols } from '../src/symbols';
import type { FileSymbols, SymbolDefinition } from '../src/symbols';

/** name → "kind@line-endLine[+exported|-exported]" for compact, readable expectations. */
function definitions(symbols: FileSymbols): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of symbols.definitions) out[`${d.name}:${d.kind}`] = summary(d);
  return out;
}

function summary(d: SymbolDefinition): string {
  const exported = d.exported === undefined ? '' : d.exported ? '+' : '-';
  return `${d.line}-${d.endLine}${exported}`;
}

function reference(symbols: FileSymbols, name: string): { line: number; count: number } | undefined {
  const found = symbols.references.find((r) => r.name === name);
  return found && { line: found.line, count: found.count };
}

describe('extractSymbols with tree-sitter', () => {
  // First: after a big parse V8 compiles the grammar's hot WASM functions in background threads and a
  // process waits for them at exit (~0.3 s); starting early lets that overlap the other tests.
  test('parses a 2,000-line TypeScript file well within a sanity deadline', async () => {
    const lines: string[] = ["import { helper } from './helper';"];
    for (let i = 0; lines.length < 2000; i += 1) {
      lines.push(`export function handler${i}(input: number): number {`, `  return helper(input) + ${i};`, '}', '');
    }
    await extractSymbols('typescript', 'const warm = 1;'); // grammar loading is not what this measures
    const started = Date.now();
    const symbols = await extractSymbols('typescript', lines.join('\n'));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(symbols.parser).toBe('tree-sitter');
    expect(symbols.definitions).toHaveLength(500);
    expect(reference(symbols, 'helper')?.count).toBe(500);
  });

  test('typescript: declarations, exports, imports and uses', async () => {
    const text = [
      "import { readFile, join as joinPath } from 'node:fs';", // 1
      "import * as store from './store';", // 2
      "import Config from '../config';", // 3
      "export * from './types';", // 4
      "const legacy = require('./legacy');", // 5
      'export interface Job { id: string }', // 6
      'export type JobId = Job["id"];', // 7
      'enum Status { Ready, Done }', // 8
      'export const MAX_JOBS = 10;', // 9
      'let counter = 0;', // 10
      'export const runOne = async (job: Job) => store.save(job);', // 11
      'export class Runner extends Base {', // 12
      '  run(job: Job): void {', // 13
      '    readFile(job.id);', // 14
      '  }', // 15
      '}', // 16
      'export default function main(): void { new Runner().run(legacy); }', // 17
    ].join('\n');
    const symbols = await extractSymbols('typescript', text);
    expect(symbols.parser).toBe('tree-sitter');
    expect(definitions(symbols)).toEqual({
      'Job:interface': '6-6+',
      'JobId:type': '7-7+',
      'Status:enum': '8-8-',
      'MAX_JOBS:constant': '9-9+',
      'counter:variable': '10-10-',
      'legacy:constant': '5-5-',
      'runOne:function': '11-11+',
      'Runner:class': '12-16+',
      'run:method': '13-15',
      'main:function': '17-17+',
    });
    expect(symbols.imports).toEqual([
      { source: 'node:fs', names: ['readFile', 'join'], line: 1 },
      { source: './store', names: ['store'], line: 2 },
      { source: '../config', names: ['Config'], line: 3 },
      { source: './types', names: [], line: 4 },
      { source: './legacy', names: [], line: 5 },
    ]);
    expect(reference(symbols, 'Job')).toEqual({ line: 7, count: 3 });
    expect(reference(symbols, 'readFile')).toEqual({ line: 14, count: 1 });
    expect(reference(symbols, 'Base')).toEqual({ line: 12, count: 1 });
    // Definition names and import lines are not uses.
    expect(reference(symbols, 'counter')).toBeUndefined();
    expect(reference(symbols, 'joinPath')).toBeUndefined();
  });

  test('tsx: components and JSX identifiers', async () => {
    const text = [
      "import React from 'react';",
      "import { Button } from './button';",
      'export function App(props: Props) {',
      '  return <Button label={props.title} />;',
      '}',
    ].join('\n');
    const symbols = await extractSymbols('tsx', text);
    expect(symbols.parser).toBe('tree-sitter');
    expect(definitions(symbols)).toEqual({ 'App:function': '3-5+' });
    expect(symbols.imports.map((i) => i.source)).toEqual(['react', './button']);
    expect(reference(symbols, 'Button')).toEqual({ line: 4, count: 1 });
  });

  test('javascript: CommonJS and ES modules', async () => {
    const text = [
      "const path = require('path');",
      "import helper from './helper.js';",
      'function build(dir) { return path.join(dir, helper()); }',
      'class Cache { get(key) { return key; } }',
      'module.exports = { build, Cache };',
      'export { build };',
      "export { default as theme } from './theme.js';", // `default` is a keyword token since tree-sitter-javascript 0.25
    ].join('\n');
    const symbols = await extractSymbols('javascript', text);
    expect(definitions(symbols)).toEqual({
      'path:constant': '1-1-',
      'build:function': '3-3+',
      'Cache:class': '4-4-',
      'get:method': '4-4',
    });
    expect(symbols.imports).toEqual([
      { source: 'path', names: [], line: 1 },
      { source: './helper.js', names: ['helper'], line: 2 },
      { source: './theme.js', names: ['default'], line: 7 },
    ]);
    expect(reference(symbols, 'path')).toEqual({ line: 3, count: 1 });
    expect(reference(symbols, 'build')).toEqual({ line: 5, count: 2 });
  });

  test('python: functions, methods, classes, constants and imports', async () => {
    const text = [
      'import os, sys', // 1
      'from .models import User, Group as G', // 2
      'from ..core import *', // 3
      '', // 4
      'MAX_USERS = 100', // 5
      '_cache = {}', // 6
      '', // 7
      '@cached', // 8
      'def load_user(user_id):', // 9
      '    return User.get(user_id)', // 10
      '', // 11
      'class Service(Base):', // 12
      '    def start(self):', // 13
      '        os.getcwd()', // 14
      '', // 15
      '    def _stop(self):', // 16
      '        pass', // 17
    ].join('\n');
    const symbols = await extractSymbols('python', text);
    expect(symbols.parser).toBe('tree-sitter');
    expect(definitions(symbols)).toEqual({
      'MAX_USERS:constant': '5-5+',
      '_cache:variable': '6-6-',
      'load_user:function': '8-10+',
      'Service:class': '12-17+',
      'start:method': '13-14+',
      '_stop:method': '16-17-',
    });
    expect(symbols.imports).toEqual([
      { source: 'os', names: [], line: 1 },
      { source: 'sys', names: [], line: 1 },
      { source: '.models', names: ['User', 'Group'], line: 2 },
      { source: '..core', names: ['*'], line: 3 },
    ]);
    expect(reference(symbols, 'User')).toEqual({ line: 10, count: 1 });
    expect(reference(symbols, 'self')).toEqual({ line: 13, count: 2 });
    expect(reference(symbols, 'os')).toEqual({ line: 14, count: 1 });
  });

  test('go: package, types, methods, constants and imports', async () => {
    const text = [
      'package server', // 1
      '', // 2
      'import (', // 3
      '\t"fmt"', // 4
      '\tlog "github.com/acme/app/internal/logging"', // 5
      ')', // 6
      '', // 7
      'const DefaultPort = 8080', // 8
      'var started bool', // 9
      '', // 10
      'type Server struct {', // 11
      '\tPort int', // 12
      '}', // 13
      'type Handler interface{ Serve() error }', // 14
      'type Port int', // 15
      '', // 16
      'func (s *Server) Serve() error {', // 17
      '\tlog.Info(fmt.Sprint(s.Port))', // 18
      '\treturn nil', // 19
      '}', // 20
      'func newServer() *Server { return &Server{Port: DefaultPort} }', // 21
      'var (', // 22: grouped specs sit in a var_spec_list since tree-sitter-go 0.25
      '\tMaxConns = 10', // 23
      ')', // 24
    ].join('\n');
    const symbols = await extractSymbols('go', text);
    expect(definitions(symbols)).toEqual({
      'server:module': '1-1',
      'DefaultPort:constant': '8-8+',
      'started:variable': '9-9-',
      'Server:class': '11-13+',
      'Handler:interface': '14-14+',
      'Port:type': '15-15+',
      'Serve:method': '17-20+',
      'newServer:function': '21-21-',
      'MaxConns:variable': '23-23+',
    });
    expect(symbols.imports).toEqual([
      { source: 'fmt', names: [], line: 4 },
      { source: 'github.com/acme/app/internal/logging', names: ['log'], line: 5 },
    ]);
    expect(reference(symbols, 'Server')).toEqual({ line: 17, count: 3 });
    expect(reference(symbols, 'DefaultPort')).toEqual({ line: 21, count: 1 });
  });

  test('rust: items, impl methods, visibility and use trees', async () => {
    const text = [
      'use std::collections::HashMap;', // 1
      'use crate::store::{Store, Key};', // 2
      'mod cache;', // 3
      '', // 4
      'pub struct Index {', // 5
      '    entries: HashMap<Key, u32>,', // 6
      '}', // 7
      'pub enum Mode { Fast, Slow }', // 8
      'pub trait Lookup { fn find(&self, key: &Key) -> Option<u32>; }', // 9
      'impl Index {', // 10
      '    pub fn new() -> Self { Index { entries: HashMap::new() } }', // 11
      '}', // 12
      'const LIMIT: usize = 10;', // 13
      'type Id = u64;', // 14
      'fn helper(store: &Store) {}', // 15
    ].join('\n');
    const symbols = await extractSymbols('rust', text);
    expect(definitions(symbols)).toEqual({
      'cache:module': '3-3-',
      'Index:class': '5-7+',
      'Mode:enum': '8-8+',
      'Lookup:interface': '9-9+',
      'find:method': '9-9-',
      'new:method': '11-11+',
      'LIMIT:constant': '13-13-',
      'Id:type': '14-14-',
      'helper:function': '15-15-',
    });
    expect(symbols.imports).toEqual([
      { source: 'std::collections', names: ['HashMap'], line: 1 },
      { source: 'crate::store', names: ['Store', 'Key'], line: 2 },
      { source: 'cache', names: [], line: 3 },
    ]);
    expect(reference(symbols, 'HashMap')).toEqual({ line: 6, count: 2 });
    expect(reference(symbols, 'Key')).toEqual({ line: 6, count: 2 });
  });

  test('java: package, types, members, modifiers and imports', async () => {
    const text = [
      'package com.acme.orders;', // 1
      '', // 2
      'import java.util.List;', // 3
      'import com.acme.util.*;', // 4
      'import static com.acme.util.Strings.trim;', // 5
      '', // 6
      'public class OrderService {', // 7
      '    public static final int MAX = 5;', // 8
      '    private List<Order> orders;', // 9
      '    public OrderService() {}', // 10
      '    List<Order> open() { return trim(orders); }', // 11
      '}', // 12
      'interface Repo {}', // 13
      'enum State { OPEN }', // 14
    ].join('\n');
    const symbols = await extractSymbols('java', text);
    const defs = definitions(symbols);
    expect(defs).toEqual({
      'com.acme.orders:module': '1-1',
      'OrderService:class': '7-12+',
      'MAX:constant': '8-8+',
      'orders:variable': '9-9-',
      'OrderService:method': '10-10+',
      'open:method': '11-11-',
      'Repo:interface': '13-13-',
      'State:enum': '14-14-',
    });
    expect(symbols.imports).toEqual([
      { source: 'java.util.List', names: ['List'], line: 3 },
      { source: 'com.acme.util', names: ['*'], line: 4 },
      { source: 'com.acme.util.Strings.trim', names: ['trim'], line: 5 },
    ]);
    expect(reference(symbols, 'Order')).toEqual({ line: 9, count: 2 });
    expect(reference(symbols, 'orders')).toEqual({ line: 11, count: 1 });
  });

  test.each([
    ['typescript', "import { a } from './a';\nexport function first(x: number) { return a(x) + other; }\nexport class Second { method() { return first(1); } }\n"],
    ['python', 'import os\nclass Fine:\n    def go(self):\n        return os.path.join(self.x)\n'],
    ['ruby', "require 'json'\nclass Invoice\n  def total; items.sum; end\nend\n"],
  ])('%s without references: the same definitions and imports, no references', async (language, text) => {
    const full = await extractSymbols(language, text);
    const lean = await extractSymbols(language, text, { references: false });
    expect(full.references.length).toBeGreaterThan(0);
    expect(lean.references).toEqual([]);
    expect(lean.definitions).toEqual(full.definitions);
    expect(lean.imports).toEqual(full.imports);
    expect(lean.parser).toBe(full.parser);
  });
});
