import * as fs from 'node:fs';
import * as path from 'node:path';
import { createLogger } from '@sous/logging';
import { compileRedactPatterns as compilePatterns } from '@sous/protocol';
import { makeTempDir, rmTempDir } from '../../../test/support/tmp';

describe('structured logs', () => {
  let dir: string;
  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(() => rmTempDir(dir));

  test('write JSON lines under the given file, creating its folder', () => {
    const file = path.join(dir, 'logs', 'daemon.log');
    const logger = createLogger({ name: 'daemon', file });
    logger.info({ job: 'j1', state: 'completed' }, 'job');
    const line = JSON.parse(fs.readFileSync(file, 'utf8').trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ name: 'daemon', msg: 'job', job: 'j1', state: 'completed' });
    expect(typeof line.time).toBe('string');
  });

  test('never contain prompts, file contents or secrets passed as fields', () => {
    const file = path.join(dir, 'daemon.log');
    const logger = createLogger({ name: 'daemon', file });
    logger.info({ prompt: 'fix the login bug PROMPT-TEXT', content: 'const password = FILE-CONTENT', nested: { api_key: 'KEY-VALUE', text: 'BUFFER-TEXT' } }, 'request');
    const out = fs.readFileSync(file, 'utf8');
    for (const leaked of ['PROMPT-TEXT', 'FILE-CONTENT', 'KEY-VALUE', 'BUFFER-TEXT']) expect(out).not.toContain(leaked);
    expect(out).toContain('[censored]');
  });

  test('redact key-like strings in messages with privacy.redact_patterns, following config changes', () => {
    const file = path.join(dir, 'daemon.log');
    let patterns = compilePatterns(['sk-[A-Za-z0-9_-]{20,}']);
    const logger = createLogger({ name: 'daemon', file, redactPatterns: () => patterns });
    logger.warn('backend refused key sk-abcdefghijklmnopqrstuvwxyz123');
    logger.warn({ error: 'upstream said sk-abcdefghijklmnopqrstuvwxyz123 is invalid' }, 'backend error');
    patterns = compilePatterns(['tok_[0-9]{6,}']);
    logger.warn('token tok_1234567 seen');
    const out = fs.readFileSync(file, 'utf8');
    expect(out).not.toContain('sk-abcdefghijklmnopqrstuvwxyz123');
    expect(out).not.toContain('tok_1234567');
    expect(out.match(/\[redacted\]/g)).toHaveLength(3);
  });

  test('an invalid pattern is skipped instead of breaking logging', () => {
    expect(compilePatterns(['(unclosed', 'ok'])).toHaveLength(1);
  });
});
