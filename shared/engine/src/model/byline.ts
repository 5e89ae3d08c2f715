/**
 * The line that marks text the model wrote (rationales, briefs, draft prompts, angles): readers see
 * whose words they are, and the engine tells a card with model text from one without.
 */
export const MODEL_MARK = '_Written by ';

/** Whether `body` holds text the model wrote. */
export function modelWrote(body: string): boolean {
  return body.includes(MODEL_MARK);
}
