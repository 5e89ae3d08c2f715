/**
 * Engine activity for live surfaces (the cockpit, `sous watch`): a small in-process publisher the
 * daemon's server-sent event stream subscribes to. Events carry ids, kinds and one-line titles,
 * never file contents or prompts. Names and payloads: docs/prepared-work.md.
 */

export type EngineEvent =
  | { type: 'cycle.started'; cycle: string; trigger: string }
  | { type: 'cycle.finished'; cycle: string; trigger: string; duration_ms: number; candidates: number; landed: number; stale: number; superseded: number }
  | { type: 'cycle.deferred'; trigger: string; reason: string }
  | { type: 'card.landed'; id: string; kind: string; title: string }
  | { type: 'card.stale'; id: string; kind: string; reason: string }
  | { type: 'card.superseded'; id: string; kind: string; by: string }
  | { type: 'card.dismissed'; id: string; kind: string }
  | { type: 'card.feedback'; id: string; kind: string; value: string }
  | { type: 'deep_run.started'; session: string; preset: string; deadline: string }
  | { type: 'deep_run.step'; session: string; step: number; calls: number; spend_usd: number; produced: number }
  | { type: 'deep_run.ended'; session: string; state: string; reason: string };

export type EngineEventType = EngineEvent['type'];

/** Every event name, for docs and validation. */
export const ENGINE_EVENT_TYPES: readonly EngineEventType[] = [
  'cycle.started',
  'cycle.finished',
  'cycle.deferred',
  'card.landed',
  'card.stale',
  'card.superseded',
  'card.dismissed',
  'card.feedback',
  'deep_run.started',
  'deep_run.step',
  'deep_run.ended',
];

export type EngineEventListener = (event: EngineEvent & { at: string }) => void;

export class EngineEvents {
  private readonly listeners = new Set<EngineEventListener>();

  /** Delivers to every listener; a throwing listener does not stop the others. */
  emit(event: EngineEvent): void {
    const stamped = { ...event, at: new Date().toISOString() };
    for (const listener of [...this.listeners]) {
      try {
        listener(stamped);
      } catch {
        // A broken surface must not stop the engine.
      }
    }
  }

  /** Returns the unsubscribe function. */
  subscribe(listener: EngineEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }
}
