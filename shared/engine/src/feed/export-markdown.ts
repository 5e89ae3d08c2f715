/** The markdown export of a card: the four answers of spec 2.1 in one document. */
import type { WorkProductWithEvidence } from '@sous/store';

export function exportMarkdown(card: WorkProductWithEvidence): string {
  const lines = [`# ${card.title}`, '', card.summary, ''];
  const whyNow = card.details['why_now'];
  if (typeof whyNow === 'string' && whyNow !== '') lines.push('## Why now', '', whyNow, '');
  lines.push('## Evidence', '');
  for (const e of card.evidence) {
    const where = e.lineStart === null ? e.path : e.lineEnd !== null && e.lineEnd !== e.lineStart ? `${e.path}:${e.lineStart}-${e.lineEnd}` : `${e.path}:${e.lineStart}`;
    const facts = [e.commit ? `commit ${e.commit.slice(0, 12)}` : '', e.contentHash ? `sha256 ${e.contentHash.slice(0, 12)}` : ''].filter(Boolean).join(', ');
    lines.push(`- \`${where}\`: ${e.note}${facts ? ` (${facts})` : ''}`);
  }
  lines.push('', '## Details', '', card.body, '');
  const action = card.details['action'];
  if (typeof action === 'string' && action !== '') lines.push('## Safe action', '', action, '');
  if (card.state === 'stale') lines.push(`> Stale: ${card.stateReason ?? 'the evidence changed'}`, '');
  lines.push(`_Prepared by Sous (${card.kind}, card ${card.id})._`, '');
  return lines.join('\n');
}
