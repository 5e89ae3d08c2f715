/**
 * The chat request body at the proxy's edge: the joi schema that says what is refused and why, a
 * hand check that lets the plain request through without walking it with joi (a joi walk costs more
 * CPU than the rest of the proxy's own work), and the outgoing body serialised once.
 */
import Joi from 'joi';
import { GatewayError } from './errors';
import { briefingIndex, type ChatMessage } from './injection';

export interface ChatBody {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  [field: string]: unknown;
}

export const chatBodySchema = Joi.object({
  model: Joi.string().min(1).max(256).required(),
  messages: Joi.array()
    .min(1)
    .items(Joi.object({ role: Joi.string().min(1).max(64).required() }).unknown(true))
    .required(),
  stream: Joi.boolean().strict(),
  max_tokens: Joi.number().integer().min(1).allow(null),
  max_completion_tokens: Joi.number().integer().min(1).allow(null),
})
  .unknown(true)
  .required();

/** A joi refusal as the proxy's 400, naming the field. */
export function joiError(error: Joi.ValidationError, where: string): GatewayError {
  const detail = error.details[0];
  const field = detail && detail.path.length > 0 ? `${where}.${detail.path.join('.')}` : where;
  return new GatewayError('invalid_request', detail?.message.replace(/"/g, '') ?? error.message, field);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const stringOf = (v: unknown, max: number): boolean => typeof v === 'string' && v.length >= 1 && v.length <= max;
/** joi's `number().integer().min(1).allow(null)`, optional (joi refuses unsafe integers too). */
const tokenLimit = (v: unknown): boolean => v === undefined || v === null || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 1);

/**
 * True only for a body `chatBodySchema` accepts: each condition is one of the schema's, so a body this
 * lets through never differs from what joi would accept; anything else goes to joi, which decides.
 */
function plainlyValid(body: unknown): body is ChatBody {
  if (!isRecord(body) || !stringOf(body.model, 256)) return false;
  const { messages } = body;
  if (!Array.isArray(messages) || messages.length === 0) return false;
  for (const message of messages) if (!isRecord(message) || !stringOf(message.role, 64)) return false;
  if (body.stream !== undefined && typeof body.stream !== 'boolean') return false;
  return tokenLimit(body.max_tokens) && tokenLimit(body.max_completion_tokens);
}

/** The parsed body as a chat request, or the 400 that says which field is wrong. */
export function chatBodyOf(parsed: unknown): ChatBody {
  if (plainlyValid(parsed)) return parsed;
  const { error, value } = chatBodySchema.validate(parsed, { abortEarly: true, convert: false });
  if (error) throw joiError(error, 'body');
  return value as ChatBody;
}

/**
 * `JSON.stringify(body)` with `messages` given already serialised: the same text, with each value
 * serialised once (a parsed JSON body holds only JSON values, so key order and output match).
 */
function stringifyWithMessages(body: ChatBody, messagesJson: string): string {
  let out = '{';
  for (const key of Object.keys(body)) {
    const json = key === 'messages' ? messagesJson : JSON.stringify(body[key]);
    if (json === undefined) continue;
    out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${json}`;
  }
  return `${out}}`;
}

/**
 * The outgoing body with the briefing added as injection.ts withBriefing places it, the same text
 * as `JSON.stringify({ ...body, messages: withBriefing(body.messages, briefing) })`, from
 * `messagesJson` (`JSON.stringify(body.messages)`, which the budget already needed): the
 * conversation is serialised once, not twice.
 */
export function bodyWithBriefing(body: ChatBody, messagesJson: string, briefing: string): string {
  const added = JSON.stringify({ role: 'system', content: briefing });
  const at = briefingIndex(body.messages);
  let messages: string;
  if (body.messages.length === 0) messages = `[${added}]`;
  else if (at === 0) messages = `[${added},${messagesJson.slice(1)}`;
  else {
    // The leading messages serialise to a prefix of messagesJson: the briefing goes right after it.
    const lead = JSON.stringify(body.messages.slice(0, at));
    messages = `${lead.slice(0, -1)},${added}${messagesJson.slice(lead.length - 1)}`;
  }
  return stringifyWithMessages(body, messages);
}
