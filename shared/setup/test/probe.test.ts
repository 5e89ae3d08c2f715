import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DEFAULT_RUNTIME_PROBES, classifyTier, detectRuntimes, probeHardware, readThermal, type HardwareSnapshot } from '../src';
import { makeTempDir, rmTempDir } from '../../../test/support/tmp';

const execFileP = promisify(execFile);
const REPO = path.resolve(__dirname, '../../..');
const SNAPSHOT_KEYS = [
  'probed_at', 'os_probe_ok', 'platform', 'ram_gb', 'cpu_class', 'cpu_brand', 'cpu_physical_cores', 'cpu_speed_ghz',
  'gpu_kind', 'gpu_vendor', 'gpu_model', 'gpu_vram_gb', 'battery_present', 'thermal_constrained', 'thermal_max_c',
  'runtimes', 'probe_errors',
].sort();

function expectComplete(s: HardwareSnapshot): void {
  expect(Object.keys(s).sort()).toEqual(SNAPSHOT_KEYS);
  expect(typeof s.ram_gb).toBe('number');
  expect(['low', 'mid', 'high']).toContain(s.cpu_class);
  expect(['discrete_nvidia', 'discrete_amd', 'discrete_other', 'integrated', 'unified_memory', 'none', 'unknown']).toContain(s.gpu_kind);
  expect(typeof s.battery_present).toBe('boolean');
  expect(typeof s.thermal_constrained).toBe('boolean');
  expect(Array.isArray(s.runtimes)).toBe(true);
  expect(Array.isArray(s.probe_errors)).toBe(true);
}

/** A real OpenAI-style model server on a free loopback port. */
async function startModelServer(body: unknown, route = '/v1/models'): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url === route) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    close: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((err) => (err ? reject(err) : resolve()));
    }),
  };
}

describe('probeHardware on this machine', () => {
  test('returns a complete snapshot without throwing', async () => {
    const s = await probeHardware();
    expectComplete(s);
    expect(s.os_probe_ok).toBe(true);
    expect(s.ram_gb).toBeGreaterThan(0);
    expect(classifyTier(s).tier).not.toBe('unknown');
  });

  test('writes nothing: a run whose cwd, HOME and TMPDIR are an empty directory leaves it empty', async () => {
    const dir = makeTempDir('sous-probe-');
    // tsx keeps its own IPC directory in TMPDIR at start-up, so the child points TMPDIR at `dir` itself
    // before it loads the probe.
    const tsxTmp = makeTempDir('sous-probe-tsx-');
    try {
      const script = [
        `for (const k of ['HOME', 'TMPDIR', 'TMP', 'TEMP', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME']) process.env[k] = process.cwd();`,
        `require(${JSON.stringify(path.join(REPO, 'shared/setup/src/index.ts'))}).probeHardware()`,
        `.then((s) => process.stdout.write(JSON.stringify(s)))`,
      ].join('\n');
      const { stdout } = await execFileP(path.join(REPO, 'node_modules/.bin/tsx'), ['--no-cache', '-e', script], {
        cwd: dir,
        env: { ...process.env, TMPDIR: tsxTmp },
        timeout: 30_000,
      });
      expectComplete(JSON.parse(stdout) as HardwareSnapshot);
      expect(fs.readdirSync(dir)).toEqual([]);
    } finally {
      rmTempDir(dir);
      rmTempDir(tsxTmp);
    }
  });
});

describe('runtime detection', () => {
  test('finds a real loopback server answering /v1/models, and reports it absent once stopped', async () => {
    const server = await startModelServer({ object: 'list', data: [{ id: 'tiny-coder', object: 'model' }, { id: 'tiny-chat', object: 'model' }] });
    const runtimes = [{ name: 'test_runtime', port: server.port, path: '/v1/models' }];
    let stopped = false;
    try {
      const up = await probeHardware({ runtimes, runtimeTimeoutMs: 5000 });
      expect(up.runtimes).toEqual([{ name: 'test_runtime', base_url: `http://127.0.0.1:${server.port}/v1`, models: ['tiny-coder', 'tiny-chat'] }]);
      await server.close();
      stopped = true;
      // A fresh probe (nothing cached) sees the runtime gone.
      const down = await probeHardware({ runtimes });
      expect(down.runtimes).toEqual([]);
      expect(down.probe_errors).toEqual(up.probe_errors);
    } finally {
      if (!stopped) await server.close();
    }
  });

  test("reads Ollama's own /api/tags model list", async () => {
    const server = await startModelServer({ models: [{ name: 'qwen2.5-coder:7b', model: 'qwen2.5-coder:7b' }] }, '/api/tags');
    try {
      const found = await detectRuntimes([{ name: 'ollama', port: server.port, path: '/api/tags' }]);
      expect(found).toEqual([{ name: 'ollama', base_url: `http://127.0.0.1:${server.port}/v1`, models: ['qwen2.5-coder:7b'] }]);
    } finally {
      await server.close();
    }
  });

  test('tells llama.cpp from LocalAI on a shared port, asking the port once', async () => {
    const llama = await startModelServer({ object: 'list', data: [{ id: 'm.gguf', owned_by: 'llamacpp' }] });
    const localai = await startModelServer({ object: 'list', data: [{ id: 'gpt-4', object: 'model' }] });
    const at = (port: number) => DEFAULT_RUNTIME_PROBES.filter((p) => p.port === 8080).map((p) => ({ ...p, port }));
    try {
      expect((await detectRuntimes(at(llama.port))).map((r) => r.name)).toEqual(['llama_cpp']);
      expect((await detectRuntimes(at(localai.port))).map((r) => r.name)).toEqual(['localai']);
    } finally {
      await llama.close();
      await localai.close();
    }
  });
});

describe('probe fallbacks', () => {
  const fail = () => Promise.reject(new Error('not available here'));
  const hang = () => new Promise<never>(() => undefined);

  test('every OS part failing gives the snapshot of tier unknown, with one note per part', async () => {
    const s = await probeHardware({
      sources: { mem: fail, cpu: fail, graphics: hang, battery: fail, osInfo: fail },
      partTimeoutMs: 100,
      runtimes: [],
    });
    expectComplete(s);
    expect(s.os_probe_ok).toBe(false);
    expect(s.ram_gb).toBe(0);
    expect(s.gpu_kind).toBe('unknown');
    expect(s.probe_errors).toEqual(
      expect.arrayContaining(['memory: not available here', 'cpu: not available here', 'graphics: timed out after 100 ms', 'battery: not available here', 'os: not available here']),
    );
    expect(classifyTier(s).tier).toBe('unknown');
  });

  test('one failed part falls back alone and is noted', async () => {
    const s = await probeHardware({ sources: { graphics: fail }, runtimes: [] });
    expect(s.os_probe_ok).toBe(true);
    expect(s.ram_gb).toBeGreaterThan(0);
    expect(s.gpu_kind).toBe('unknown');
    expect(s.probe_errors).toContain('graphics: not available here');
  });
});

describe('thermal flag', () => {
  test('a zone above 85 °C sets thermal_constrained and logs one warning', async () => {
    const root = makeTempDir('sous-thermal-');
    try {
      const zones: Array<[string, string]> = [['thermal_zone0', '45000'], ['thermal_zone1', '91500'], ['cooling_device0', '1']];
      for (const [zone, milli] of zones) {
        fs.mkdirSync(path.join(root, zone));
        fs.writeFileSync(path.join(root, zone, 'temp'), `${milli}\n`);
      }
      const warnings: Array<{ obj: Record<string, unknown>; msg: string }> = [];
      const s = await probeHardware({ thermalRoot: root, platform: 'linux', runtimes: [], logger: { warn: (obj, msg) => warnings.push({ obj, msg }) } });
      expect(s.thermal_constrained).toBe(true);
      expect(s.thermal_max_c).toBe(91.5);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.obj).toEqual({ thermal_max_c: 91.5 });

      fs.writeFileSync(path.join(root, 'thermal_zone1', 'temp'), '85000\n');
      expect(await readThermal(root)).toEqual({ constrained: false, max_c: 85 });
    } finally {
      rmTempDir(root);
    }
  });

  test('a missing thermal directory is no reading, not an error', async () => {
    const dir = makeTempDir('sous-nothermal-');
    try {
      expect(await readThermal(path.join(dir, 'absent'))).toEqual({ constrained: false, max_c: null });
    } finally {
      rmTempDir(dir);
    }
    const s = await probeHardware({ thermalRoot: '/nonexistent/sous/thermal', platform: 'linux', runtimes: [] });
    expect(s.thermal_constrained).toBe(false);
    expect(s.probe_errors.filter((e) => e.startsWith('thermal'))).toEqual([]);
  });
});
