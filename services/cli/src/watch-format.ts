/**
 * How `sous watch` prints one engine event (docs/cli.md#watch): a time, a sign and one plain line,
 * with ANSI colours only when asked (stdout is a terminal and NO_COLOR is unset).
 */

type Colour = 'green' | 'yellow' | 'red' | 'cyan' | 'dim' | 'bold';

const CODES: Record<Colour, [number, number]> = { green: [32, 39], yellow: [33, 39], red: [31, 39], cyan: [36, 39], dim: [2, 22], bold: [1, 22] };

/** True when `sous watch` should colour its lines: a terminal, and no NO_COLOR (https://no-color.org). */
export function wantsColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && (env['NO_COLOR'] ?? '') === '';
}

function paint(colour: Colour | undefined, text: string, on: boolean): string {
  if (!on || colour === undefined) return text;
  const [open, close] = CODES[colour];
  return `\x1b[${open}m${text}\x1b[${close}m`;
}

/** Strips control characters a title could carry, so a line can never drive the terminal. */
function plain(value: unknown): string {
  return String(value ?? '').replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

/** One event as a line a person reads; `colour` adds ANSI colours. */
export function formatEvent(type: string, data: Record<string, unknown>, colour = false): string {
  const s = (k: string): string => plain(data[k]);
  const at = typeof data['at'] === 'string' ? (data['at'] as string).slice(11, 19) : '        ';
  let text: string;
  let tint: Colour | undefined;
  switch (type) {
    case 'hello':
      return paint('bold', `watching ${s('workspace')} (Ctrl-C to stop)`, colour);
    case 'cycle.started':
      [text, tint] = [`  cycle started (${s('trigger')})`, 'dim'];
      break;
    case 'cycle.finished':
      [text, tint] = [`  cycle finished in ${s('duration_ms')} ms: ${s('candidates')} candidates, ${s('landed')} landed, ${s('stale')} stale`, 'dim'];
      break;
    case 'cycle.deferred':
      [text, tint] = [`  cycle deferred: ${s('reason')}`, 'yellow'];
      break;
    case 'card.landed':
      [text, tint] = [`+ ${s('kind')}: ${s('title')} (${s('id')})`, 'green'];
      break;
    case 'card.stale':
      [text, tint] = [`~ stale ${s('id')}: ${s('reason')}`, 'yellow'];
      break;
    case 'card.superseded':
      [text, tint] = [`~ superseded ${s('id')} by ${s('by')}`, 'yellow'];
      break;
    case 'card.dismissed':
      [text, tint] = [`- dismissed ${s('id')}`, 'red'];
      break;
    case 'card.feedback':
      [text, tint] = [`  feedback ${s('value')} on ${s('id')}`, 'cyan'];
      break;
    case 'deep_run.started':
      [text, tint] = [`» deep-run ${s('session')} started (${s('preset')}), stops by ${s('deadline')}`, 'bold'];
      break;
    case 'deep_run.step':
      [text, tint] = [`  deep-run step ${s('step')}: ${s('calls')} model calls, $${Number(data['spend_usd'] ?? 0).toFixed(4)}, ${s('produced')} cards`, 'dim'];
      break;
    case 'deep_run.ended':
      [text, tint] = [`« deep-run ${s('session')} ${s('state')} (${s('reason')})`, 'bold'];
      break;
    default:
      [text, tint] = [`  ${plain(type)}`, undefined];
  }
  return `${paint('dim', at, colour)} ${paint(tint, text, colour)}`;
}
