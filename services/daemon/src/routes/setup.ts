import type { Express } from 'express';
import Joi from 'joi';
import { ApiError } from '@sous/protocol';
import { validate } from '@sous/http';
import { ConfigError } from '@sous/config';
import { BUNDLE_IDS, TIERS, applySetup, classifyTier, probeHardware, recommendBundle, type ApplyResult, type Tier } from '@sous/setup';
import { waitForReload } from '../config-reload';
import type { DaemonContext } from '../daemon';

const emptyQuery = Joi.object({});
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
    res.json({ ...result, reloaded: await waitForReload(ctx, result.settings) });
  });

  // `GET /setup/recommend`: what `sous setup recommend --json` prints, plus the active bundle. The
  // trail is plain lines the cockpit shows verbatim (spec 2.9). The probe is never cached (spec 2.10).
  app.get('/setup/recommend', async (req, res) => {
    validate(emptyQuery, req.query, 'query');
    const hardware = await probeHardware();
    const rec = recommendBundle(hardware);
    res.json({ tier: rec.tier, bundle_id: rec.bundle_id, active_bundle: ctx.config().policy.bundle, scores: rec.scores, trail: rec.trail, hardware });
  });
}
