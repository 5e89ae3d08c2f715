import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { extractSymbols } from '../src/symbols';
import type { FileSymbols } from '../src/symbols';
import { grammarDirectory } from '../src/symbols/grammar';
import { LANGUAGE_SPECS } from '../src/symbols/languages';

interface GrammarManifest {
  packages: { name: string; version: string; license: string; files: Record<string, string> }[];
}

const realCode = path.join(__dirname, 'real-code');

function sha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** A file of an installed package, found from its entry point (packages with an `exports` map hide the rest). */
function packageFile(name: string, fromEntry: string): string {
  const file = path.join(path.dirname(require.resolve(name)), fromEntry);
  if (!fs.existsSync(file)) throw new Error(`${name} no longer ships ${fromEntry}: pick another real file`);
  return file;
}

/** "kind name" (+ "exported"/"internal" when known) per definition, in file order. */
function described(symbols: FileSymbols): string[] {
  return symbols.definitions.map((d) => `${d.kind} ${d.name}${d.exported === undefined ? '' : d.exported ? ' exported' : ' internal'}`);
}

function imports(symbols: FileSymbols): string[] {
  return symbols.imports.map((i) => `${i.source} [${i.names.join(', ')}]`);
}

describe('vendored grammars (shared/retrieval/grammars)', () => {
  const dir = grammarDirectory();
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'grammars.json'), 'utf8')) as GrammarManifest;

  test('the folder ships exactly the grammars the language table uses', () => {
    const used = [...new Set(Object.values(LANGUAGE_SPECS).map((spec) => spec.grammar))].sort();
    expect(manifest.packages.flatMap((pkg) => Object.keys(pkg.files)).sort()).toEqual(used);
    expect(fs.readdirSync(dir).filter((file) => file.endsWith('.wasm')).sort()).toEqual(used);
  });

  test('each grammar is the file its package shipped, with the licence beside it', () => {
    for (const pkg of manifest.packages) {
      expect(fs.readFileSync(path.join(dir, 'licenses', `${pkg.name}.txt`), 'utf8')).toMatch(/MIT License/);
      for (const [file, expected] of Object.entries(pkg.files)) {
        expect({ file, sha256: sha256(path.join(dir, file)) }).toEqual({ file, sha256: expected });
      }
    }
  });
});

describe('each grammar reads real code nobody here wrote', () => {
  test('javascript: picomatch', async () => {
    const symbols = await extractSymbols('javascript', fs.readFileSync(require.resolve('picomatch/lib/picomatch.js'), 'utf8'));
    expect(symbols.parser).toBe('tree-sitter');
    expect(described(symbols)).toEqual(expect.arrayContaining(['function isObject internal', 'function picomatch internal']));
    expect(imports(symbols)).toEqual(expect.arrayContaining(['./scan []', './parse []', './utils []', './constants []']));
  });

  test.each(['typescript', 'tsx'])('%s: pg-protocol', async (language) => {
    const text = fs.readFileSync(packageFile('pg-protocol', '../src/buffer-reader.ts'), 'utf8');
    const symbols = await extractSymbols(language, text);
    expect(symbols.parser).toBe('tree-sitter');
    expect(described(symbols)).toEqual(expect.arrayContaining(['class BufferReader exported', 'method setBuffer', 'method int16', 'method cstring']));
  });

  test('python: CPython queue.py', async () => {
    const symbols = await extractSymbols('python', fs.readFileSync(path.join(realCode, 'queue.py'), 'utf8'));
    expect(symbols.parser).toBe('tree-sitter');
    expect(described(symbols)).toEqual([
      'variable __all__ internal',
      'class Empty exported',
      'class Full exported',
      'class Queue exported',
      'method __init__ internal',
    ]);
    expect(imports(symbols)).toEqual([
      'threading []',
      'types []',
      'collections [deque]',
      'heapq [heappush, heappop]',
      'time [monotonic]',
      '_queue [SimpleQueue]',
      '_queue [Empty]',
    ]);
  });

  test('go: git persistent-https socket.go', async () => {
    const symbols = await extractSymbols('go', fs.readFileSync(path.join(realCode, 'socket.go'), 'utf8'));
    expect(symbols.parser).toBe('tree-sitter');
    expect(described(symbols)).toEqual([
      'module main',
      'class Socket exported',
      'function defaultDir internal',
      'variable DefaultSocket exported',
      'method Listen exported',
      'method Dial exported',
      'method Path exported',
      'method mkdir internal',
      'method checkPermissions internal',
    ]);
    expect(imports(symbols)).toEqual(['fmt []', 'log []', 'net []', 'os []', 'path/filepath []', 'syscall []']);
  });

  test('rust: the standard library from_fn.rs', async () => {
    const symbols = await extractSymbols('rust', fs.readFileSync(path.join(realCode, 'from_fn.rs'), 'utf8'));
    expect(symbols.parser).toBe('tree-sitter');
    expect(described(symbols)).toEqual([
      'function from_fn exported',
      'class FromFn exported',
      'type Item internal',
      'method next internal',
      'method fmt internal',
    ]);
    expect(imports(symbols)).toEqual(['crate [fmt]']);
  });

  test('java: OpenJDK AtomicStampedReference', async () => {
    const symbols = await extractSymbols('java', fs.readFileSync(path.join(realCode, 'AtomicStampedReference.java'), 'utf8'));
    expect(symbols.parser).toBe('tree-sitter');
    expect(described(symbols)).toEqual(
      expect.arrayContaining([
        'module java.util.concurrent.atomic',
        'class AtomicStampedReference exported',
        'class Pair internal',
        'method compareAndSet exported',
        'constant PAIR internal',
        'method casPair internal',
      ]),
    );
    expect(imports(symbols)).toEqual([
      'jdk.internal.invoke.MhUtil [MhUtil]',
      'java.lang.invoke.MethodHandles [MethodHandles]',
      'java.lang.invoke.VarHandle [VarHandle]',
    ]);
  });
});
