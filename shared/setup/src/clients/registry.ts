import { claudeCode } from './claude-code';
import { cline } from './cline';
import { codex } from './codex';
import { continueDev } from './continue';
import { cursor } from './cursor';
import { gemini } from './gemini';
import { goose } from './goose';
import { vscode } from './vscode';
import { windsurf } from './windsurf';
import { zed } from './zed';
import { CLIENT_IDS, type ClientDefinition, type ClientId } from './types';

const CLIENTS: Readonly<Record<ClientId, ClientDefinition>> = {
  'claude-code': claudeCode,
  cursor,
  vscode,
  windsurf,
  codex,
  gemini,
  zed,
  cline,
  continue: continueDev,
  goose,
};

export function isClientId(id: string): id is ClientId {
  return (CLIENT_IDS as readonly string[]).includes(id);
}

export function getClient(id: ClientId): ClientDefinition {
  return CLIENTS[id];
}

/** Every client, in CLIENT_IDS order. */
export function allClients(): ClientDefinition[] {
  return CLIENT_IDS.map((id) => CLIENTS[id]);
}

/** Thrown for a client id that is not one of the ten. */
export class UnknownClientError extends Error {
  constructor(readonly id: string) {
    super(`unknown client ${JSON.stringify(id)}; known: ${CLIENT_IDS.join(', ')}`);
    this.name = 'UnknownClientError';
  }
}

/** `claude-code,cursor` or a list of such strings → ids, de-duplicated, in the order given. Throws UnknownClientError. */
export function parseClientIds(input: string | string[]): ClientId[] {
  const parts = (Array.isArray(input) ? input : [input]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s !== '');
  const out: ClientId[] = [];
  for (const p of parts) {
    if (!isClientId(p)) throw new UnknownClientError(p);
    if (!out.includes(p)) out.push(p);
  }
  return out;
}
