/**
 * docker-compose.yml as the real docker-compose (v1) renders it: anchors merged, variables
 * interpolated. There is no Docker engine here; `config` works offline.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
export const INSTALL_HINT = 'apt-get install -y docker-compose caddy';

export interface ComposeService {
  image?: string;
  build?: { context?: string; dockerfile?: string };
  command?: string | string[];
  init?: boolean;
  mem_limit?: string | number;
  deploy?: { replicas?: number };
  environment?: Record<string, string | null>;
  ports?: string[];
  expose?: string[];
  volumes?: string[];
  networks?: Record<string, unknown>;
  depends_on?: Record<string, { condition?: string }>;
  healthcheck?: { test?: string[] | string; disable?: boolean };
  read_only?: boolean;
  cap_drop?: string[];
}
export interface ComposeConfig {
  services: Record<string, ComposeService>;
  networks?: Record<string, { internal?: boolean } | null>;
}

/**
 * Runs a validator binary. A missing binary fails the test with the install command: CI must not
 * turn green because the tool that checks these files was absent.
 */
export function runTool(cmd: string, args: string[], env: NodeJS.ProcessEnv, input?: string): { status: number; stdout: string; stderr: string } {
  const res = spawnSync(cmd, args, { cwd: ROOT, env, input, encoding: 'utf8', timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
  if (res.error) {
    const code = (res.error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error(`${cmd} is not installed; it validates the deployment files offline. Run: ${INSTALL_HINT}`);
    throw new Error(`${cmd} ${args.join(' ')} failed to run: ${res.error.message}`);
  }
  return { status: res.status ?? -1, stdout: res.stdout, stderr: res.stderr };
}

/** The interpreter docker-compose v1 runs on (its shebang), which is sure to have PyYAML. */
function composePython(): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const script = path.join(dir, 'docker-compose');
    if (!fs.existsSync(script)) continue;
    const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(fs.readFileSync(script, 'utf8').slice(0, 200));
    if (shebang?.[1]) return shebang[1].endsWith('/env') && shebang[2] ? shebang[2] : shebang[1];
  }
  return 'python3';
}

/** `docker-compose --env-file deploy/.env.example -f docker-compose.yml <args>` in exactly `env`. */
export function compose(args: string[], env: NodeJS.ProcessEnv) {
  return runTool('docker-compose', ['--env-file', 'deploy/.env.example', '-f', 'docker-compose.yml', ...args], env);
}

/**
 * `docker-compose config` (normalized YAML) as an object. v1 has no JSON output; PyYAML comes with
 * docker-compose v1, so its python converts it.
 */
export function renderCompose(env: NodeJS.ProcessEnv): ComposeConfig {
  const res = compose(['config'], env);
  if (res.status !== 0) throw new Error(`docker-compose config failed: ${res.stderr.trim()}`);
  const json = runTool(composePython(), ['-c', 'import sys, json, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'], env, res.stdout);
  if (json.status !== 0) throw new Error(`could not convert the compose YAML to JSON (python3-yaml comes with docker-compose): ${json.stderr.trim()}`);
  return JSON.parse(json.stdout) as ComposeConfig;
}
