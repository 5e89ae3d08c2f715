import { PathSet, resolveImport, splitIdentifier } from '../src/symbols';

describe('splitIdentifier', () => {
  test.each([
    ['parseHTTPResponse2', ['parse', 'http', 'response', '2']],
    ['XMLHttpRequest', ['xml', 'http', 'request']],
    ['getUserID', ['get', 'user', 'id']],
    ['snake_case_name', ['snake', 'case', 'name']],
    ['MAX_RETRY_COUNT', ['max', 'retry', 'count']],
    ['kebab-case-name', ['kebab', 'case', 'name']],
    ['__init__', ['init']],
    ['sha256sum', ['sha', '256', 'sum']],
    ['v2Api', ['v', '2', 'api']],
    ['$scope', ['scope']],
    ['crate::store::Key', ['crate', 'store', 'key']],
    ['IOError', ['io', 'error']],
    ['x', ['x']],
    ['', []],
  ])('%s', (name, parts) => {
    expect(splitIdentifier(name)).toEqual(parts);
  });
});

describe('resolveImport', () => {
  const known = new Set([
    'src/app.ts',
    'src/util.ts',
    'src/components/Button.tsx',
    'src/store/index.ts',
    'src/legacy.js',
    'lib/helper.ts',
    'pkg/__init__.py',
    'pkg/models.py',
    'pkg/sub/__init__.py',
    'pkg/sub/views.py',
    'src/tools/cli.py',
    'cmd/server/main.go',
    'internal/logging/log.go',
    'internal/logging/log_test.go',
    'internal/logging/format.go',
    'src/main/java/com/acme/util/Strings.java',
    'src/main/java/com/acme/util/Numbers.java',
    'src/main/java/com/acme/orders/OrderService.java',
    'src/lib.rs',
    'src/store.rs',
    'src/store/key.rs',
    'src/cache/mod.rs',
  ]);

  test.each([
    // TypeScript / JavaScript
    ['src/app.ts', './util', 'typescript', 'src/util.ts'],
    ['src/app.ts', './util.js', 'typescript', 'src/util.ts'],
    ['src/app.ts', './components/Button', 'tsx', 'src/components/Button.tsx'],
    ['src/app.ts', './store', 'typescript', 'src/store/index.ts'],
    ['src/app.ts', './legacy', 'javascript', 'src/legacy.js'],
    ['src/components/Button.tsx', '../../lib/helper', 'tsx', 'lib/helper.ts'],
    ['src/app.ts', 'react', 'typescript', undefined],
    ['src/app.ts', './missing', 'typescript', undefined],
    ['src/app.ts', '../../outside', 'typescript', undefined],
    // Python
    ['pkg/sub/views.py', '.', 'python', 'pkg/sub/__init__.py'],
    ['pkg/sub/views.py', '..models', 'python', 'pkg/models.py'],
    ['pkg/models.py', '.sub', 'python', 'pkg/sub/__init__.py'],
    ['pkg/models.py', '.sub.views', 'python', 'pkg/sub/views.py'],
    ['src/tools/cli.py', 'pkg.models', 'python', 'pkg/models.py'],
    ['src/tools/cli.py', 'pkg.sub', 'python', 'pkg/sub/__init__.py'],
    ['pkg/models.py', 'tools.cli', 'python', 'src/tools/cli.py'],
    ['pkg/models.py', 'os.path', 'python', undefined],
    // Go
    ['cmd/server/main.go', 'github.com/acme/app/internal/logging', 'go', 'internal/logging/format.go'],
    ['cmd/server/main.go', 'fmt', 'go', undefined],
    // Java
    ['src/main/java/com/acme/orders/OrderService.java', 'com.acme.util.Strings', 'java', 'src/main/java/com/acme/util/Strings.java'],
    ['src/main/java/com/acme/orders/OrderService.java', 'com.acme.util.Strings.trim', 'java', 'src/main/java/com/acme/util/Strings.java'],
    ['src/main/java/com/acme/orders/OrderService.java', 'com.acme.util', 'java', 'src/main/java/com/acme/util/Numbers.java'],
    ['src/main/java/com/acme/orders/OrderService.java', 'java.util.List', 'java', undefined],
    // Rust
    ['src/lib.rs', 'crate::store', 'rust', 'src/store.rs'],
    ['src/lib.rs', 'crate::store::key', 'rust', 'src/store/key.rs'],
    ['src/lib.rs', 'crate::store::key::Key', 'rust', 'src/store/key.rs'],
    ['src/lib.rs', 'cache', 'rust', 'src/cache/mod.rs'],
    ['src/store.rs', 'key', 'rust', 'src/store/key.rs'],
    ['src/store/key.rs', 'super', 'rust', undefined],
    ['src/store/key.rs', 'super::super::cache', 'rust', 'src/cache/mod.rs'],
    ['src/lib.rs', 'std::collections', 'rust', undefined],
    // Other languages
    ['src/app.rb', './util', 'ruby', undefined],
  ])('%s imports %s (%s)', (fromPath, source, language, expected) => {
    expect(resolveImport(fromPath, source, language, known)).toBe(expected);
    // The index's own set (a PathSet, read through a suffix index) resolves alike.
    const indexed = new PathSet();
    for (const p of known) indexed.add(p);
    expect(resolveImport(fromPath, source, language, indexed)).toBe(expected);
  });

  it('follows a PathSet as it changes, also when a rename keeps its size', () => {
    const indexed = new PathSet();
    for (const p of ['cmd/main.go', 'internal/logging/log.go', 'pkg/models.py']) indexed.add(p);
    expect(resolveImport('cmd/main.go', 'example.com/app/internal/logging', 'go', indexed)).toBe('internal/logging/log.go');
    expect(resolveImport('cmd/main.go', 'example.com/app/internal/audit', 'go', indexed)).toBeUndefined();
    // A rename: one path out, one in, the same size.
    indexed.delete('internal/logging/log.go');
    indexed.add('internal/audit/audit.go');
    expect(resolveImport('cmd/main.go', 'example.com/app/internal/logging', 'go', indexed)).toBeUndefined();
    expect(resolveImport('cmd/main.go', 'example.com/app/internal/audit', 'go', indexed)).toBe('internal/audit/audit.go');
    indexed.add('src/pkg/models.py');
    expect(resolveImport('src/app.py', 'pkg.models', 'python', indexed)).toBe('pkg/models.py');
    indexed.clear();
    expect(resolveImport('src/app.py', 'pkg.models', 'python', indexed)).toBeUndefined();
  });
});
