import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultConfig, loadConfig, setConfigValue, setConfigValues, sousPaths } from '@sous/config';
import { editConfigText } from '../src/edit';
import { makeTempDir, rmTempDir } from '../../../test/support/tmp';

// A file as a user keeps it: their own comments, order, a multi-line list and a trailing comment.
const HAND_WRITTEN = `# Team settings: ask Ana before changing the backend.
[backend]
base_url = "http://127.0.0.1:11434/v1"  # the shared Ollama
model = "qwen2.5-coder:7b"

[privacy]
# Only what the agents need.
allowed_paths = [
  "src", # code
  "docs",
]

[compute]
cpu_fraction = 0.5
`;

describe('config set edits the file in place', () => {
  let root: string;
  let file: string;
  beforeEach(() => {
    root = makeTempDir('sous-config-edit-');
    file = sousPaths(root).config;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, HAND_WRITTEN);
  });
  afterEach(() => rmTempDir(root));

  it('changes only the line of the key, keeping every comment and the layout', async () => {
    await setConfigValue(file, 'backend.model', 'llama3.2:3b');
    expect(fs.readFileSync(file, 'utf8')).toBe(HAND_WRITTEN.replace('model = "qwen2.5-coder:7b"', 'model = "llama3.2:3b"'));
    expect(loadConfig(file).backend.model).toBe('llama3.2:3b');
  });

  it('keeps a trailing comment on the changed line and the comments inside a list it shortens', async () => {
    await setConfigValue(file, 'backend.base_url', 'http://10.0.0.5:11434/v1');
    expect(fs.readFileSync(file, 'utf8')).toContain('base_url = "http://10.0.0.5:11434/v1"  # the shared Ollama');
    await setConfigValue(file, 'privacy.allowed_paths', '["src"]');
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('"src", # code');
    expect(text).not.toContain('"docs"');
    expect(text).toContain('# Only what the agents need.');
    expect(loadConfig(file).privacy.allowed_paths).toEqual(['src']);
  });

  it('adds a key the file lacks, and a section it lacks, without touching the rest', async () => {
    await setConfigValue(file, 'compute.idle_only', 'false');
    await setConfigValue(file, 'intent.skills_loop.max_feedback_events_per_cycle', '50');
    const text = fs.readFileSync(file, 'utf8');
    expect(text.startsWith(HAND_WRITTEN.slice(0, HAND_WRITTEN.indexOf('cpu_fraction')))).toBe(true);
    const cfg = loadConfig(file);
    expect(cfg.compute.idle_only).toBe(false);
    expect(cfg.compute.cpu_fraction).toBe(0.5);
    expect(cfg.intent.skills_loop.max_feedback_events_per_cycle).toBe(50);
    expect(cfg.backend.model).toBe('qwen2.5-coder:7b');
  });

  it('sets several keys in one write (setup apply) and keeps the comments', async () => {
    const { next, backup } = await setConfigValues(file, [
      ['policy.bundle', 'cost_saver'],
      ['compute.cpu_fraction', 0.25],
    ]);
    expect(backup).toBeUndefined();
    expect(next.policy.bundle).toBe('cost_saver');
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('# Team settings: ask Ana before changing the backend.');
    expect(text).toContain('cpu_fraction = 0.25');
  });

  it('leaves the file byte for byte as it was when the value is refused', async () => {
    await expect(setConfigValue(file, 'compute.cpu_fraction', '7')).rejects.toMatchObject({ code: 'invalid_value' });
    expect(fs.readFileSync(file, 'utf8')).toBe(HAND_WRITTEN);
  });

  it('renders the whole file when an edit does not read back as the intended config, and says so', async () => {
    // The read-back check is what decides: an intended config the patched text does not match.
    const intended = { ...defaultConfig(), backend: { ...defaultConfig().backend, model: 'something else' } };
    const edited = await editConfigText(HAND_WRITTEN, [['backend.model', 'llama3.2:3b']], intended, file);
    expect(edited.inPlace).toBe(false);
    expect(edited.text).toContain('model = "something else"');
    expect(edited.text).toContain('# Sous configuration (.sous/config.toml).');
  });
});
