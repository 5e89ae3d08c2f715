import type { Express } from 'express';
import Joi from 'joi';
import { ApiError } from '@sous/protocol';
import { validate } from '@sous/http';
import { ConfigError, getConfigValue } from '@sous/config';
import { BUNDLE_IDS, TIERS, applySetup, classifyTier, probeHardware, type ApplyResult, type Tier } from '@sous/setup';
import type { DaemonContext } from '../daemon';

const applyBody = Joi.object({
  bundle: Joi.string().valid(...BUNDLE_IDS).required(),
  tier: Joi.string().valid(...TIERS),
});

/**
 * `POST /setup/apply` (docs/http-api.md, docs/setup.md): the same write as `sous setup apply` —
 * `policy.bundle` and the tier's settings (the probed tier unless the body names one), validated as a
 * whole and written atomically to `.sous/config.toml`. The config watcher then hot-reloads it, as for
 * any edit; the answer waits for that (up to 5 s) and says whether it happened (`reloaded`), plus
 * what was written and what changed.
 */
/** How long the answer waits for the config watcher to hot-reload the written file. */
const RELOAD_WAIT_MS = 5_000;

/** True once the daemon's live config holds every written value (the watcher reloaded the file). */
async function waitForReload(ctx: DaemonContext, result: ApplyResult): Promise<boolean> {
  const deadline = Date.now() + RELOAD_WAIT_MS;
  const live = (): boolean => result.settings.every((s) => JSON.stringify(getConfigValue(ctx.config(), s.key)) === JSON.stringify(s.to));
  while (!live()) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}

export function setupRoutes(app: Express, ctx: DaemonContext): void {
  app.post('/setup/apply', async (req, res) => {
    const body = validate(applyBody, req.body, 'body') as { bundle: string; tier?: Tier };
    const tier = body.tier ?? classifyTier(await probeHardware()).tier;
    let result: ApplyResult;
    try {
      result = await applySetup(ctx.paths.config, body.bundle, tier);
    } catch (err) {
      // The file on disk is missing or invalid (a hand edit in progress): nothing was written.
      if (err instanceof ConfigError) throw new ApiError('conflict', `nothing applied: ${err.message}`);
      throw err;
    }
    // Answered after the one reload path (the watcher) took it, so the caller's next read sees it.
    res.json({ ...result, reloaded: await waitForReload(ctx, result) });
  });
}
