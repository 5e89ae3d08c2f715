import { defaultConfig } from '@sous/config';
import {
  createScopePolicy,
  decodeText,
  detectLanguage,
  normalizeRelativePath,
  scopePolicyFromConfig,
  BINARY_SNIFF_BYTES,
} from '../src/scope';

describe('scope policy', () => {
  const policy = scopePolicyFromConfig(defaultConfig());

  it('allows only allowed_paths globs, dot files included', () => {
    expect(policy.inScope('src/index.ts')).toBe(true);
    expect(policy.inScope('src/.eslintrc.js')).toBe(true);
    expect(policy.inScope('docs/guide/intro.md')).toBe(true);
    expect(policy.decide('lib/a.ts')).toEqual({ inScope: false, reason: 'not_allowed' });
    expect(policy.inScope('README.md')).toBe(false);
  });

  it('matches file names holding a newline or another line break like any other name', () => {
    // picomatch's `**` is built on `.`, which stops at line breaks unless the regex has the s flag.
    for (const name of ['a\nb.py', 'a\rb.py', 'a\u2028b.py']) {
      expect(policy.decide(`src/${name}`)).toEqual({ inScope: true });
      expect(policy.decide(`src/deep/${name}`)).toEqual({ inScope: true });
    }
    // An exclusion with a slash must hold for them too: a line break never lets a private file in.
    const p = createScopePolicy({ allowedPaths: ['src/*/*'], excludedPatterns: ['src/private/**', 'config/'] });
    expect(p.decide('src/private/a\nb.key')).toEqual({ inScope: false, reason: 'excluded', pattern: 'src/private/**' });
    expect(p.decide('src/public/a\nb.ts')).toEqual({ inScope: true });
  });

  it('excludes slash-less patterns by name at any depth, files and folders', () => {
    expect(policy.decide('src/config/prod.env')).toEqual({ inScope: false, reason: 'excluded', pattern: '*.env' });
    expect(policy.decide('src/a/credentials.json')).toEqual({ inScope: false, reason: 'excluded', pattern: 'credentials*' });
    expect(policy.decide('src/secrets.json')).toEqual({ inScope: false, reason: 'excluded', pattern: 'secrets*' });
    expect(policy.decide('src/secrets/db.txt')).toEqual({ inScope: false, reason: 'excluded', pattern: 'secrets*' });
    expect(policy.inScope('src/.env')).toBe(false);
    expect(policy.inScope('src/tls/server.pem')).toBe(false);
    expect(policy.inScope('src/env.ts')).toBe(true);
  });

  it('excludes the common homes of credentials by default, but not public keys or env templates', () => {
    const excluded = [
      'src/.env.local', 'src/.env.production', 'src/.envrc', 'src/id_rsa', 'src/.ssh/id_ed25519', 'src/id_ecdsa', 'src/id_ed25519_sk',
      'src/release.jks', 'src/app.keystore', 'src/certs/client.p12', 'src/certs/client.pfx', 'src/putty.ppk', 'src/server.key',
      'src/.npmrc', 'src/.pypirc', 'src/.netrc', 'src/.git-credentials', 'src/.pgpass', 'src/.htpasswd', 'src/infra/terraform.tfstate',
    ];
    for (const path of excluded) expect({ path, decision: policy.decide(path) }).toEqual({ path, decision: expect.objectContaining({ inScope: false, reason: 'excluded' }) });
    const kept = ['src/id_rsa.pub', 'src/.env.example', 'src/.env.sample', 'src/.env.template', 'src/id_utils.py', 'src/keys.ts', 'src/tokenizer.py', 'src/environment.ts'];
    for (const path of kept) expect({ path, inScope: policy.inScope(path) }).toEqual({ path, inScope: true });
  });

  it('anchors patterns with a slash and treats a trailing slash as folders only', () => {
    const p = createScopePolicy({ allowedPaths: ['**'], excludedPatterns: ['config/*.json', '/local.txt', 'build/'] });
    expect(p.inScope('config/app.json')).toBe(false);
    expect(p.inScope('x/config/app.json')).toBe(true);
    expect(p.inScope('local.txt')).toBe(false);
    expect(p.inScope('sub/local.txt')).toBe(true);
    expect(p.inScope('build/out.js')).toBe(false);
    expect(p.inScope('pkg/build/out.js')).toBe(false);
    expect(p.inScope('tools/build')).toBe(true);
  });

  it('never admits git internals or paths leaving the root', () => {
    const p = createScopePolicy({ allowedPaths: ['**'], excludedPatterns: [] });
    expect(p.decide('.git/config')).toEqual({ inScope: false, reason: 'git_internal' });
    expect(p.decide('../outside.ts')).toEqual({ inScope: false, reason: 'invalid_path' });
    expect(p.decide('/etc/passwd')).toEqual({ inScope: false, reason: 'invalid_path' });
    expect(p.inScope('./src//a.ts')).toBe(true);
    expect(normalizeRelativePath('./src//a.ts')).toBe('src/a.ts');
    expect(normalizeRelativePath('src/../../x')).toBeNull();
  });

  it('with no allowed paths nothing is in scope', () => {
    expect(createScopePolicy({ allowedPaths: [], excludedPatterns: [] }).inScope('src/a.ts')).toBe(false);
  });
});

describe('detectLanguage', () => {
  it.each([
    ['src/a.ts', 'typescript'],
    ['src/a.d.ts', 'typescript'],
    ['src/App.tsx', 'tsx'],
    ['lib/x.mjs', 'javascript'],
    ['m.py', 'python'],
    ['main.go', 'go'],
    ['lib.rs', 'rust'],
    ['A.java', 'java'],
    ['x.h', 'c'],
    ['x.cpp', 'cpp'],
    ['P.cs', 'csharp'],
    ['Rakefile', 'ruby'],
    ['i.php', 'php'],
    ['b.gradle.kts', 'kotlin'],
    ['V.swift', 'swift'],
    ['M.scala', 'scala'],
    ['run.sh', 'shell'],
    ['README.MD', 'markdown'],
    ['package.json', 'json'],
    ['ci.yml', 'yaml'],
    ['Cargo.toml', 'toml'],
    ['LICENSE', 'text'],
  ])('%s is %s', (file, language) => {
    expect(detectLanguage(file)).toBe(language);
  });

  it('falls back to the shebang interpreter', () => {
    expect(detectLanguage('bin/tool', '#!/usr/bin/env python3')).toBe('python');
    expect(detectLanguage('bin/tool', '#!/usr/bin/env -S node --no-warnings')).toBe('javascript');
    expect(detectLanguage('bin/tool', '#!/bin/bash -e')).toBe('shell');
    expect(detectLanguage('bin/tool', '#!/usr/bin/python3.12')).toBe('python');
    expect(detectLanguage('bin/tool', '#!/opt/unknown')).toBe('text');
    expect(detectLanguage('bin/tool.rb', '#!/bin/sh')).toBe('ruby');
  });
});

describe('decodeText', () => {
  it('keeps UTF-8 and mostly-valid text, drops a BOM', () => {
    expect(decodeText(Buffer.from('\uFEFFhéllo'))).toEqual({ binary: false, text: 'héllo' });
    const latin1 = Buffer.concat([Buffer.from('a'.repeat(200)), Buffer.from([0xe9]), Buffer.from('b'.repeat(200))]);
    expect(decodeText(latin1).binary).toBe(false);
  });

  it('calls a NUL byte in the first 8 KiB or mostly invalid UTF-8 binary', () => {
    expect(decodeText(Buffer.from([0x61, 0x00, 0x62])).binary).toBe(true);
    expect(decodeText(Buffer.from(Array.from({ length: 400 }, (_, i) => 0x80 + (i % 64)))).binary).toBe(true);
    const lateNul = Buffer.concat([Buffer.from('a'.repeat(BINARY_SNIFF_BYTES)), Buffer.from([0])]);
    expect(decodeText(lateNul).binary).toBe(false);
  });
});
