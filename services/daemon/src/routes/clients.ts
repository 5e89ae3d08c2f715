import * as os from 'node:os';
import type { Express } from 'express';
import Joi from 'joi';
import { validate } from '@sous/http';
import { clients } from '@sous/setup';
import type { DaemonContext } from '../daemon';

const emptyQuery = Joi.object({});

/**
 * `GET /clients` — what `sous clients list --json` prints: the supported AI clients, whether each is
 * installed on this machine and whether it is wired to this workspace (docs/clients.md). Read-only:
 * wiring and unwiring stay CLI actions (`sous launch`, `sous clients uninstall`).
 */
export function clientRoutes(app: Express, ctx: DaemonContext): void {
  app.get('/clients', (req, res) => {
    validate(emptyQuery, req.query, 'query');
    const detected = clients.detectClients({ home: os.homedir(), platform: process.platform });
    const wired = clients.launchedClients({ stateDir: ctx.paths.dir });
    res.json({ workspace: ctx.paths.root, clients: detected.map((d) => ({ ...d, wired: wired.includes(d.id) })) });
  });
}
