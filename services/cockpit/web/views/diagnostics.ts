import { getJson, postJson, message } from '../api.js';
import { ago, announce, el, fill, kv, type Child } from '../dom.js';
import type { Job, Status } from '../types.js';

/** Scalars of an object as rows (the daemon's diagnostic objects grow fields; show what is there). */
function rows(obj: Record<string, unknown> | null | undefined): Array<[string, Child]> {
  if (!obj) return [];
  return Object.entries(obj)
    .filter(([, v]) => v === null || typeof v !== 'object' || Array.isArray(v))
    .map(([k, v]) => [k.replace(/_/g, ' '), v === null ? '—' : Array.isArray(v) ? v.join(', ') || '—' : String(v)]);
}

/** Files left out of the index (`skipped`) or indexed only in part (`degraded`), counted by reason. */
function coverage(c: { skipped?: Record<string, number>; degraded?: Record<string, number> } | undefined): HTMLElement {
  if (!c) return el('p', { class: 'muted' }, 'Not measured yet.');
  const line = (counts: Record<string, number> | undefined): string => {
    const entries = Object.entries(counts ?? {});
    return entries.length === 0 ? 'none' : entries.map(([reason, n]) => `${reason.replace(/_/g, ' ')}: ${n}`).join(', ');
  };
  return kv([
    ['Left out', line(c.skipped)],
    ['Indexed in part', line(c.degraded)],
  ]);
}

/** Index coverage and scope, the model backend (`GET /status`), and jobs with cancel (`GET /jobs`). */
export async function loadDiagnostics(status: Status | undefined): Promise<void> {
  if (status) {
    const i = status.index;
    const scope = i.scope as Record<string, unknown> | null | undefined;
    fill(
      'index',
      kv([['State', i.state], ['Files indexed', String(i['files_indexed'] ?? '—')], ['Watch', String(i['watch'] ?? status.watch.mode)]]),
      el('h4', {}, 'Scope (privacy.allowed_paths, excluded_patterns)'),
      scope
        ? kv([
            ['Files in the repository', String(scope['total_files'] ?? '—')],
            ['In scope', String(scope['in_scope'] ?? '—')],
            ['Excluded by scope', String(scope['out_of_scope'] ?? '—')],
            ['Code files excluded', String(scope['out_of_scope_code'] ?? '—')],
            ['Suggested globs', Array.isArray(scope['suggested_globs']) && scope['suggested_globs'].length ? (scope['suggested_globs'] as string[]).join(', ') : 'none'],
          ])
        : el('p', { class: 'muted' }, 'Not measured yet.'),
      el('h4', {}, 'Coverage'),
      coverage(i.coverage as { skipped?: Record<string, number>; degraded?: Record<string, number> } | undefined),
      el('h4', {}, 'Semantic stage'),
      kv(rows(i.semantic)),
    );
    const b = status.backend;
    fill(
      'model',
      kv([
        ['Backend', b.name],
        ['Base URL', b.base_url],
        ['Model', b.model],
        ['Reachable', b.reachable === null ? 'not checked yet' : b.reachable ? 'yes' : 'no'],
        ['Model present', b.model_present === null ? 'unknown' : b.model_present ? 'yes' : 'no'],
        ['Checked', ago(b.checked_at)],
        ['Problem', b.error ?? 'none'],
        ['Preparation', `${status.preparation.model.mode}: ${status.preparation.model.reason}`],
      ]),
    );
  }
  await jobs();
}

async function jobs(): Promise<void> {
  let list: Job[];
  try {
    list = (await getJson<{ jobs: Job[] }>('/jobs?limit=30')).jobs;
  } catch (err) {
    return void fill('jobs', el('p', { class: 'state-bad' }, message(err)));
  }
  if (list.length === 0) return void fill('jobs', el('p', { class: 'muted' }, 'No jobs yet.'));
  const cancel = (job: Job) => () =>
    postJson(`/jobs/${encodeURIComponent(job.id)}/cancel`).then(
      () => {
        announce(`Cancelled ${job.name}.`);
        void jobs();
      },
      (err) => announce(`Not cancelled: ${message(err)}`),
    );
  fill(
    'jobs',
    el(
      'table',
      {},
      el('thead', {}, el('tr', {}, ...['Job', 'State', 'Created', 'Error', ''].map((h) => el('th', { scope: 'col' }, h)))),
      el(
        'tbody',
        {},
        ...list.map((j) =>
          el(
            'tr',
            {},
            el('td', {}, j.name),
            el('td', {}, j.state),
            el('td', {}, ago(j.createdAt ?? null)),
            el('td', {}, j.error ? String(j.error) : ''),
            el('td', {}, j.state === 'queued' || j.state === 'running' ? el('button', { type: 'button', 'aria-label': `Cancel ${j.name}`, 'data-job-id': j.id, onclick: cancel(j) }, 'Cancel') : ''),
          ),
        ),
      ),
    ),
  );
}
