/**
 * The proxy's routes (spec 4.4; docs/proxy.md): `POST /v1/chat/completions` with prepared context
 * injected, `GET /v1/models` passed through, `GET /v1/traces` (what was injected, per client).
 * Tokens and the rate limit are checked before any route (@sous/http gate.ts). The request path does: validate → choose the upstream → look the prompt up in the
 * prepared context (in memory) → add the briefing → forward. A miss queues preparation and goes on.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as http from 'node:http';
import type { Express, Request, Response } from 'express';
import Joi from 'joi';
import { sousPaths, type SousConfig } from '@sous/config';
import type { Logger } from '@sous/logging';
import { OPEN_ACCESS, PROXY_API_KEY_ENV, serviceHeaders, type AccessPolicy } from '@sous/http';
import { getBundle, type ContextInjection } from '@sous/setup';
import { bodyWithBriefing, chatBodyOf, joiError } from './chat-body';
import { GatewayError, sendOpenAiError } from './errors';
import { chatFastLane } from './fast-lane';
import { Forwarder } from './forward';
import { injectionBudget, POLICY_THRESHOLD, policyAccepts, promptOf, renderBriefing } from './injection';
import { DaemonPreparedContext, type PreparedContextSource } from './prepared-context';
import { chooseUpstream, upstreamTarget } from './routing';
import { ANONYMOUS_CLIENT, TraceBook, type TraceRecord } from './traces';

/** The single-key legacy form of the proxy's tokens (@sous/http access.ts accepts it as one more token). */
export { PROXY_API_KEY_ENV };
/** Environment variable with the daemon's URL when it is not found through the workspace's run state (containers). */
export const DAEMON_URL_ENV = 'SOUS_DAEMON_URL';
/** Request body limit of the proxy: chat requests carry whole conversations and images as data URLs. */
export const PROXY_BODY_LIMIT_BYTES = 32 * 1024 * 1024;
/** Repositories whose prepared context is held at once under `proxy.allow_repo_override`. */
const MAX_OVERRIDE_REPOS = 8;

const clientId = Joi.string().trim().min(1).max(100).pattern(/^[A-Za-z0-9._:@/-]+$/);
const tracesQuery = Joi.object({ client: clientId, limit: Joi.number().integer().min(1).max(50).default(20) });

export interface GatewayOptions {
  config: SousConfig;
  /** The workspace the proxy was started for. */
  root: string;
  /** Its state folder (where the daemon's run state is), default `<root>/.sous`. */
  stateDir?: string;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  /** The surface's tokens (default none): with tokens the client's Authorization is Sous's, never forwarded upstream. */
  access?: AccessPolicy;
  /** Prepared context of a repository; default: read from that repository's daemon. */
  preparedContext?: (root: string, stateDir?: string) => PreparedContextSource;
}

/** What the process needs back: health details and a clean stop. */
export interface GatewayHandle {
  health(): Record<string, unknown>;
  close(): Promise<void>;
}

/** One request header as a string (repeated headers joined), or undefined. */
function header(req: http.IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The prepared context injection policy of the active bundle (spec 2.9). */
export function injectionPolicy(config: SousConfig): ContextInjection {
  return getBundle(config.policy.bundle).context_injection;
}

export function gatewayRoutes(app: Express, options: GatewayOptions): GatewayHandle {
  const env = options.env ?? process.env;
  const config = options.config;
  const access = options.access ?? OPEN_ACCESS;
  // A client's Authorization goes upstream only where Sous asks for none itself (its own key for a
  // hosted model); where Sous checks tokens, or SOUS_AUTH=off says a proxy in front does, it is
  // not the upstream's. backend.api_key_env, when set, replaces it in every case.
  const forwardClientAuthorization = access.tokens === undefined && !access.authOff;
  const makeContext =
    options.preparedContext ??
    ((root: string, stateDir?: string) => {
      const daemonUrl = root === options.root ? env[DAEMON_URL_ENV] || undefined : undefined;
      return new DaemonPreparedContext({ paths: sousPaths(root, stateDir ? { stateDir } : {}), logger: options.logger, headers: serviceHeaders(access), ...(daemonUrl !== undefined ? { daemonUrl } : {}) });
    });
  // Made at the first request that may inject: a passthrough proxy never reads the daemon.
  let home: PreparedContextSource | undefined;
  const homeContext = (): PreparedContextSource => (home ??= makeContext(options.root, options.stateDir));
  const others = new Map<string, PreparedContextSource>();
  const forwarder = new Forwarder();
  const traces = new TraceBook();
  const timeoutMs = config.gateway.upstream_timeout_seconds * 1000;
  // The config is read once at start: so are the passthrough switch and the bundle's policy.
  const passthrough = config.gateway.passthrough.enabled;
  const policy = injectionPolicy(config);

  const clientOf = (req: http.IncomingMessage): string => {
    const sent = header(req, 'x-sous-client');
    if (sent === undefined) return ANONYMOUS_CLIENT;
    const { error, value } = clientId.validate(sent);
    if (error) throw new GatewayError('invalid_request', 'X-Sous-Client must be 1-100 characters of letters, digits and . _ : @ / -', 'header.x-sous-client');
    return value as string;
  };

  /** The prepared context for this request: the workspace's, or another repository's when overrides are allowed. */
  const contextOf = (req: http.IncomingMessage): PreparedContextSource => {
    const repo = header(req, 'x-sous-repo');
    if (repo === undefined) return homeContext();
    if (!config.proxy.allow_repo_override) throw new GatewayError('forbidden', 'X-Sous-Repo is refused: this proxy serves one repository; set proxy.allow_repo_override = true to let requests choose another', 'header.x-sous-repo');
    if (!path.isAbsolute(repo) || !fs.statSync(repo, { throwIfNoEntry: false })?.isDirectory()) throw new GatewayError('invalid_request', 'X-Sous-Repo must be the absolute path of a repository directory on the proxy machine', 'header.x-sous-repo');
    const root = path.resolve(repo);
    if (root === options.root) return homeContext();
    let source = others.get(root);
    if (source === undefined) {
      source = makeContext(root);
      others.set(root, source);
      if (others.size > MAX_OVERRIDE_REPOS) {
        const [oldest, dropped] = others.entries().next().value as [string, PreparedContextSource];
        dropped.close();
        others.delete(oldest);
      }
    }
    return source;
  };

  /** One chat request, its body parsed (by express, or by the fast lane); `started` = when it arrived. */
  const chat = async (req: http.IncomingMessage, res: http.ServerResponse, parsed: unknown, started: number): Promise<void> => {
    let beforeForward = 0;
    // Set once the request is accepted: a request that then fails upstream is traced with the status it got.
    let traced: { client: string; trace: TraceRecord } | undefined;
    const arrivedAt = Date.now();
    try {
      const body = chatBodyOf(parsed);
      const client = clientOf(req);
      const upstream = chooseUpstream(config, body.model, header(req, 'x-sous-backend'), env);
      const trace: TraceRecord = { model: body.model, upstream: upstream.name, stream: body.stream === true, policy: passthrough ? 'passthrough' : policy, context: 'off', entry_id: null, similarity: null, injected_tokens: 0, budget_tokens: 0, paths: [], status: 0, overhead_ms: 0 };
      traced = { client, trace };
      let payload: string | undefined;
      if (!passthrough) {
        const context = contextOf(req);
        const prompt = promptOf(body.messages);
        const match = prompt === '' ? undefined : context.lookup(prompt, POLICY_THRESHOLD[policy]);
        if (match === undefined) {
          trace.context = 'miss';
          // adopted_package_only can only ever use an adopted prediction: preparing a miss would be wasted.
          if (prompt !== '' && policy !== 'adopted_package_only') context.prepare(prompt, client === ANONYMOUS_CLIENT ? undefined : client);
        } else {
          trace.entry_id = match.entry.id;
          trace.similarity = Math.round(match.similarity * 1000) / 1000;
          const reserved = body.max_completion_tokens ?? body.max_tokens ?? 0;
          const messagesJson = JSON.stringify(body.messages);
          trace.budget_tokens = injectionBudget(body.model, messagesJson.length, reserved);
          const briefing = policyAccepts(policy, match) && trace.budget_tokens > 0 ? renderBriefing(policy, match, trace.budget_tokens) : undefined;
          if (briefing === undefined) trace.context = 'skipped';
          else {
            trace.context = 'hit';
            trace.injected_tokens = briefing.tokens;
            trace.paths = briefing.paths;
            payload = bodyWithBriefing(body, messagesJson, briefing.text);
          }
        }
      }
      payload ??= JSON.stringify(body);
      beforeForward = performance.now() - started;
      const outcome = await forwarder.forward(res, {
        upstream,
        target: upstreamTarget(upstream.baseUrl, '/chat/completions'),
        method: 'POST',
        clientHeaders: req.headers,
        forwardClientAuthorization,
        body: payload,
        timeoutMs,
        answerHeaders: () => ({ 'x-sous-overhead-ms': beforeForward.toFixed(3), 'x-sous-context': trace.context }),
      });
      trace.status = outcome.status;
      trace.overhead_ms = Math.round(beforeForward * 1000) / 1000;
      traces.record(client, trace, arrivedAt);
    } catch (err) {
      sendOpenAiError(res, err);
      if (traced !== undefined) {
        traced.trace.status = res.statusCode;
        traced.trace.overhead_ms = Math.round(beforeForward * 1000) / 1000;
        traces.record(traced.client, traced.trace, arrivedAt);
      }
    }
  };

  chatFastLane(app, PROXY_BODY_LIMIT_BYTES, chat);
  app.post('/v1/chat/completions', (req: Request, res: Response) => chat(req, res, req.body, performance.now()));

  app.get('/v1/models', async (req: Request, res: Response) => {
    const started = performance.now();
    try {
      const upstream = chooseUpstream(config, undefined, header(req, 'x-sous-backend'), env);
      const own = performance.now() - started;
      await forwarder.forward(res, {
        upstream,
        target: upstreamTarget(upstream.baseUrl, '/models'),
        method: 'GET',
        clientHeaders: req.headers,
        forwardClientAuthorization,
        timeoutMs,
        answerHeaders: () => ({ 'x-sous-overhead-ms': own.toFixed(3) }),
      });
    } catch (err) {
      sendOpenAiError(res, err);
    }
  });

  app.get('/v1/traces', (req: Request, res: Response) => {
    try {
      const { error, value } = tracesQuery.validate(req.query, { abortEarly: true });
      if (error) throw joiError(error, 'query');
      const q = value as { client?: string; limit: number };
      const client = q.client ?? clientOf(req);
      res.json({ client, traces: traces.list(client, q.limit) });
    } catch (err) {
      sendOpenAiError(res, err);
    }
  });

  return {
    health: () => ({ policy: passthrough ? 'passthrough' : policy, prepared_context: home?.status() ?? null }),
    async close() {
      home?.close();
      for (const source of others.values()) source.close();
      await forwarder.close();
    },
  };
}
