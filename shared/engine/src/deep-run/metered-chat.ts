/**
 * The chat client a Deep-Run step hands to the model assist: before every call it asks whether the
 * session may go on (deadline, pause, stop) and whether the call fits under the cost cap; after it,
 * it counts the call and its tokens. A held call throws CallHeld, which ends the assist's passes for
 * this step (what the step found so far still lands).
 */
import type { ChatClient } from '../model/model-assist';
import type { PromptMessage } from '../model/prompts';
import type { SpendMeter } from './spend';

/** The backend client's answer with usage (@sous/backend's `completeWithUsage`, structurally). */
export interface UsageChatClient {
  completeWithUsage(
    messages: PromptMessage[],
    options?: { maxTokens?: number; signal?: AbortSignal },
  ): Promise<{ text: string; usage: { promptTokens: number; completionTokens: number } | null }>;
}

/** Answer allowance assumed for a call that names none (the backend client's default). */
export const DEFAULT_CALL_MAX_TOKENS = 512;

/** A call the session did not make: the cost cap or a stop condition held it back. */
export class CallHeld extends Error {
  constructor(
    readonly reason: 'cost_cap' | 'stop',
    message: string,
  ) {
    super(message);
    this.name = 'CallHeld';
  }
}

/** What the metered client consults on each call: this step's meter, and the session's own check. */
export interface MeterScope {
  meter: SpendMeter;
  /** Throws CallHeld('stop') when the session must end now. */
  guard(): Promise<void>;
}

/** `inner` metered: `scope()` is read on every call, so one client serves every step of a session. */
export function meteredChat(inner: UsageChatClient, scope: () => MeterScope): ChatClient {
  return {
    async complete(messages, options = {}) {
      const { meter, guard } = scope();
      await guard();
      const maxTokens = options.maxTokens ?? DEFAULT_CALL_MAX_TOKENS;
      if (!meter.allows(messages, maxTokens)) {
        throw new CallHeld('cost_cap', `the next model call could take the estimated spend past the cost cap ($${meter.capUsd})`);
      }
      // Nothing is sent for an aborted step: no call to count.
      options.signal?.throwIfAborted();
      try {
        const answer = await inner.completeWithUsage(messages, { maxTokens, ...(options.signal ? { signal: options.signal } : {}) });
        meter.record(messages, answer);
        return answer.text;
      } catch (err) {
        // An empty answer was still an answer the server counted; anything else billed nothing.
        if ((err as { code?: unknown } | null)?.code === 'empty') meter.record(messages, { text: '', usage: null });
        else meter.recordFailure();
        throw err;
      }
    },
  };
}
