/**
 * Where a skill's text may go, by its zone (spec invariant 8; docs/skills.md#zones). "Text" is
 * everything read from its SKILL.md (name, description, body) and its folder.
 *
 * - `project_local` follows the repository's privacy settings: it was read through the same scope
 *   (excluded files never read, key-like strings redacted), so it may go wherever in-scope
 *   repository text goes: briefings, MCP results, the model that preparation calls.
 * - `external` never leaves the machine: it is sent only to a model backend on loopback, and shown
 *   only to a local user who asks for it (`sous skills list`, a loopback daemon). Briefings, MCP
 *   results, the proxy and the context API carry at most its opaque id, zone and weight.
 */
import type { SkillZone } from './types';

/**
 * Where text would go:
 * - `model`: a model prompt; `loopback` says whether the backend's URL is on this machine's loopback.
 * - `briefing`: a resolve briefing, prepared context, an MCP tool result: read by an agent's model, wherever it runs.
 * - `local_user`: a daemon on loopback answering a user's own tool that asked to see external skills.
 */
export type SkillDestination = { kind: 'model'; loopback: boolean } | { kind: 'briefing' } | { kind: 'local_user' };

/** Whether a skill of `zone` may carry its text to `destination`. */
export function zoneAllows(zone: SkillZone, destination: SkillDestination): boolean {
  if (zone === 'project_local') return true;
  switch (destination.kind) {
    case 'model':
      return destination.loopback;
    case 'local_user':
      return true;
    case 'briefing':
      return false;
  }
}
