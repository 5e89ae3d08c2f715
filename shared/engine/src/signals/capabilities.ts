import { HONEST_EMITS, type DraftIntentSnapshot } from '@sous/protocol';
import { EngineError } from '../errors';

/**
 * Checks a snapshot against the capabilities its adapter declares (spec 6.1, 6.2): the declared
 * `emits` must be honest for the level (an L0 adapter sees submit time only, so it emits
 * `submitted` and nothing else), and the snapshot's `lifecycle_state` must be one it declared.
 * Throws EngineError `capability_mismatch` naming the offending field.
 */
export function checkCapabilities(snapshot: DraftIntentSnapshot): void {
  const { level, emits } = snapshot.capabilities;
  const honest = HONEST_EMITS[level];
  const dishonest = emits.filter((state) => !honest.includes(state));
  if (dishonest.length > 0) {
    throw new EngineError(
      'capability_mismatch',
      `an ${level} adapter may emit only ${honest.join(', ')}, but capabilities.emits declares ${dishonest.join(', ')}`,
      { where: 'body.capabilities.emits', level, allowed: [...honest] },
    );
  }
  if (!emits.includes(snapshot.lifecycle_state)) {
    throw new EngineError(
      'capability_mismatch',
      `lifecycle_state ${snapshot.lifecycle_state} is not among the adapter's declared capabilities.emits (${emits.join(', ')})`,
      { where: 'body.lifecycle_state', level, emits: [...emits] },
    );
  }
}
