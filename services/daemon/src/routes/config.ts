import type { Express } from 'express';
import Joi from 'joi';
import { ApiError } from '@sous/protocol';
import { validate } from '@sous/http';
import { CONFIG_KEYS, ConfigError, getConfigValue, setConfigValue } from '@sous/config';
import { waitForReload } from '../config-reload';
import type { DaemonContext } from '../daemon';

const emptyQuery = Joi.object({});
/** The value is the CLI's string form (`sous config set <key> <value>`): the same parser reads both. */
const setBody = Joi.object({
  key: Joi.string().min(1).max(200).required(),
  value: Joi.string().allow('').max(64 * 1024).required(),
});

/** Config errors a user can fix become 400 (unknown key, bad value); a missing or broken file, 409. */
function configApiError(err: ConfigError): ApiError {
  if (err.code === 'unknown_key') return new ApiError('unknown_key', err.message, 'body.key');
  if (err.code === 'invalid_value') return new ApiError('invalid_value', err.message, 'body.value');
  return new ApiError('conflict', `nothing written: ${err.message}`);
}

/**
 * The configuration the cockpit's Preferences > Engine editor reads and writes (spec 2.8):
 * `GET /config` (the live config and every key with its type and default) and `POST /config/set`,
 * the very write of `sous config set` (same parser, same whole-config validation, atomic), answered
 * after the watcher hot-reloaded it. The browser validates nothing itself.
 */
export function configRoutes(app: Express, ctx: DaemonContext): void {
  app.get('/config', (req, res) => {
    validate(emptyQuery, req.query, 'query');
    const state = ctx.configState();
    res.json({
      path: ctx.paths.config,
      loaded_at: state.loadedAt,
      ...(state.lastError ? { last_error: state.lastError } : {}),
      config: ctx.config(),
      keys: CONFIG_KEYS.map((k) => ({
        key: k.key,
        type: k.type,
        default: k.default ?? null,
        description: k.description,
        ...(k.values ? { values: k.values } : {}),
        reserved: k.reserved !== undefined,
      })),
    });
  });

  app.post('/config/set', async (req, res) => {
    const { key, value } = validate(setBody, req.body, 'body') as { key: string; value: string };
    let written: unknown;
    try {
      written = getConfigValue(await setConfigValue(ctx.paths.config, key, value), key);
    } catch (err) {
      if (err instanceof ConfigError) throw configApiError(err);
      throw err;
    }
    res.json({ key, value: written, reloaded: await waitForReload(ctx, [{ key, to: written }]) });
  });
}
