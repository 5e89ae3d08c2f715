/**
 * The server topology as containers, for machines with a Docker engine: docker-compose.yml itself,
 * built and started through testcontainers (`docker compose up --build`), with the test's
 * repository, config, token and free host ports passed as the compose variables a user sets in
 * `.env`. The caller reaches it the way a team does: HTTPS through Caddy, trusting Caddy's internal
 * root CA, read out of the Caddy container.
 * Not run on machines without Docker (this project's CI has none): there the same suite runs the
 * topology as processes (test/topology-https.test.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from './compose';
import { uniqueName } from './services';
import { until } from './wait';

export interface ComposeSite {
  httpsPort: number;
  rootCa: Buffer;
  stop(): Promise<void>;
}

export interface ComposeSiteOptions {
  repo: string;
  /** The Sous config every app service mounts (written to a file under `scratch`). */
  config: string;
  scratch: string;
  tokens: string;
  httpPort: number;
  httpsPort: number;
}

/** Root CA of Caddy's internal authority, in the caddy-data volume. */
const CADDY_ROOT = '/data/caddy/pki/authorities/local/root.crt';

export async function startComposeSite(options: ComposeSiteOptions): Promise<ComposeSite> {
  const { DockerComposeEnvironment, Wait } = await import('testcontainers');
  const configFile = path.join(options.scratch, 'config.toml');
  fs.writeFileSync(configFile, options.config, { mode: 0o444 });
  const env = await new DockerComposeEnvironment(ROOT, 'docker-compose.yml')
    .withProjectName(uniqueName('sous').toLowerCase())
    .withEnvironment({
      POSTGRES_PASSWORD: 'pg0123456789abcdef',
      REDIS_PASSWORD: 'redis0123456789abcdef',
      SOUS_AUTH_TOKENS: options.tokens,
      SOUS_REPO: options.repo,
      SOUS_CONFIG_FILE: configFile,
      SOUS_LISTEN_ADDR: '127.0.0.1',
      SOUS_HTTP_PORT: String(options.httpPort),
      SOUS_HTTPS_PORT: String(options.httpsPort),
    })
    .withBuild()
    // Compose's own health conditions order the start; Caddy is up when it listens.
    .withWaitStrategy('caddy-1', Wait.forListeningPorts())
    .withStartupTimeout(15 * 60_000)
    .up();
  try {
    const caddy = env.getContainer('caddy-1');
    // Caddy writes its root on the first certificate it issues, shortly after it starts.
    const pem = await until(async () => {
      const out = await caddy.exec(['cat', CADDY_ROOT]);
      return out.exitCode === 0 && out.output.includes('BEGIN CERTIFICATE') ? out.output : undefined;
    }, 60_000, 500);
    return { httpsPort: options.httpsPort, rootCa: Buffer.from(pem.slice(pem.indexOf('-----BEGIN'))), stop: async () => void (await env.down({ removeVolumes: true })) };
  } catch (err) {
    await env.down({ removeVolumes: true });
    throw err;
  }
}
