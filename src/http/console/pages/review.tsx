// GET /review (the queue) and POST /review: approve (activate), queue a draft for review (drafting
// → queued: forward, like every lifecycle move), reject (retire), or approve as the replacement of
// what it would supersede; one record or the selected ones, each post one changeset with source
// `ui` by the signed-in principal. Relations waiting for review (an agent's `relate`) are listed
// beside the records and approved or rejected the same way: an edge's id in place of a record's.
// A page shows proposals whole up to REVIEW_PAGE_CHARS; a larger one is reviewed alone
// (GET /review?id=ID).
import { Hono } from 'hono';
import * as v from 'valibot';
import type { WriteDeps } from '../../../graph/apply-changeset.js';
import type { Sql } from '../../../db/connect.js';
import { AppError } from '../../../errors.js';
import { RecordIdSchema } from '../../../graph/schemas.js';
import { parseInput } from '../../../lib/validate.js';
import { changeset } from '../../../graph/writes.js';
import { LIMITS } from '../../../graph/limits.js';
import { EDGES_SHOWN, QUEUE_PAGE, readPendingEdges, readQueue, type PendingEdge, type QueuedRecord } from '../data/review.js';
import { isEdgeId } from '../../../graph/read-nodes.js';
import type { ConsoleEnv } from '../env.js';
import { listOf, readForm } from '../form.js';
import { sendPage } from '../render.js';
import { checkCsrf, requireSession } from '../session.js';
import { Page } from '../views/layout.js';
import { BodyFields } from '../views/body-fields.js';
import { Box, clip, CsrfField, Empty, Folded, Lifecycle, Pill, RecordLink, Time, TypePill, PageNav } from '../views/ui.js';

const ACTIONS = ['approve', 'queue', 'reject'] as const;
type Action = (typeof ACTIONS)[number] | 'replace';
const OP_OF = { approve: 'activate', queue: 'queue', reject: 'retire' } as const;
const DONE: Record<Action, string> = {
  approve: 'Approved',
  queue: 'Queued for review',
  reject: 'Rejected (retired)',
  replace: 'Approved as a replacement',
};

const ID = RecordIdSchema;
/**
 * The version the page showed: what a person approves is what they read. An agent may revise its
 * own proposal while the page is open; approving it then is refused (409), not made live unread.
 */
const VERSION = v.pipe(v.string(), v.regex(/^[1-9]\d{0,8}$/, 'must be the version the page showed: reload the page'), v.transform(Number));
/**
 * One record's button, "approve ID VERSION", "queue ID VERSION", "reject ID VERSION" or "replace
 * ID VERSION OLD_ID", read into named fields (buttonFields) so a refusal names the field:
 * "record must be a record id: …".
 */
const OneSchema = v.variant(
  'action',
  [
    v.strictObject({ action: v.picklist(ACTIONS), record: ID, version: VERSION }),
    v.strictObject({ action: v.literal('replace'), record: ID, version: VERSION, replaces: ID }),
  ],
  `must be one of ${ACTIONS.join(', ')}, replace`,
);
function buttonFields(value: string): Record<string, string | undefined> {
  const [action, record, version, ...rest] = value.trim().split(/\s+/);
  const fields: Record<string, string | undefined> = { action, record, version };
  if (action === 'replace') fields.replaces = rest.shift();
  if (rest.length) fields.extra = rest.join(' ');
  return fields;
}
/** A selected record or relation, "ID@VERSION" (its checkbox's value). */
const SELECTED = v.pipe(
  v.string(),
  v.regex(/@[1-9]\d{0,8}$/, 'must be a record id and the version the page showed (ID@VERSION): reload the page'),
  v.transform((s) => {
    const at = s.lastIndexOf('@');
    return at < 0 ? { id: s, version: '' } : { id: s.slice(0, at), version: s.slice(at + 1) };
  }),
  v.object({ id: ID, version: VERSION }),
);
const BulkSchema = v.object({
  action: v.picklist(ACTIONS, `must be one of ${ACTIONS.join(', ')}`),
  ids: v.pipe(
    v.array(SELECTED),
    v.minLength(1, 'select at least one record'),
    v.maxLength(LIMITS.operationsPerChangeset, `select at most ${LIMITS.operationsPerChangeset} records`),
  ),
});
const PageSchema = v.pipe(v.string(), v.regex(/^[1-9]\d{0,5}$/, 'must be a page number (1, 2, …)'), v.transform(Number));
const DoneSchema = v.object({
  done: v.picklist([...ACTIONS, 'replace']),
  n: v.pipe(v.string(), v.regex(/^\d{1,3}$/)),
  e: v.optional(v.pipe(v.string(), v.regex(/^\d{1,3}$/))),
  cs: v.pipe(v.string(), v.regex(/^changeset_[0-9A-HJKMNP-TV-Z]{26}$/)),
});

/**
 * The most characters of proposals' text and bodies a page of the queue shows whole. Past it, a
 * proposal is listed by its title with a link to review it alone: what a person approves is what
 * the page holds, so a proposal is never shown cut beside an Approve button, and 25 of an agent's
 * largest proposals (100,000 characters of prose and 256 KiB of body each) made a 9 MB page.
 */
export const REVIEW_PAGE_CHARS = 400_000;

/** Characters HTML escapes into five or six: each one counts six. */
const ESCAPED = /[<>&"']/g;
const htmlLength = (text: string) => text.length + 5 * (text.match(ESCAPED)?.length ?? 0);
/** The markup a body field is drawn with beside its value, about (views/body-fields.tsx). */
const FIELD_MARKUP = 120;

/**
 * About what a proposal puts on the page, in characters: its text and its body's fields as HTML
 * writes them (escaped, a field's markup counted). Counting the text alone let proposals of
 * `"<&>` and bodies of 4,000 fields make a page twice the budget (a hostile review).
 */
function sizeOf(r: QueuedRecord): number {
  const fields = Object.keys(r.body).length;
  return htmlLength(r.title) + htmlLength(r.prose) + htmlLength(JSON.stringify(r.body)) + FIELD_MARKUP * fields;
}

/** "1 record(s)", "2 relation(s)", or both. */
const doneCount = (records: number, relations: number) =>
  [records || !relations ? `${records} record(s)` : '', relations ? `${relations} relation(s)` : ''].filter(Boolean).join(' and ');

/**
 * The changeset a review action makes. `replacing`: for each `replaces` relation in `ids`, the
 * record it replaces while that is still active; approving the relation retires it, as a
 * supersede does (approved alone, the replaced record stayed in force, and no one could supersede
 * it again). `edge`: for `replace`, the relation the record already carries to `old`.
 */
function operationsFor(
  action: Action,
  ids: string[],
  versions: Map<string, number>,
  old: string | undefined,
  edge: { id: string; lifecycle: string } | undefined,
  replacing: Map<string, string>,
) {
  // What is approved or queued is the version the page showed; a rejection retires whatever is there.
  const seen = (target: string) => (action === 'reject' ? {} : { version: versions.get(target)! });
  // Records first: a relation is approved once both its records are (in the same changeset too).
  if (action !== 'replace') {
    const ops: { op: 'activate' | 'queue' | 'retire'; target: string; version?: number }[] = [
      ...ids.filter((id) => !isEdgeId(id)),
      ...ids.filter(isEdgeId),
    ].map((target) => ({ op: OP_OF[action], target, ...seen(target) }));
    if (action === 'approve') for (const target of new Set(replacing.values())) ops.push({ op: 'retire', target });
    return ops;
  }
  const [target] = ids as [string];
  return [
    { op: 'activate' as const, target, ...seen(target) },
    // The relation it carries is approved with it: left queued, it waited for a second approval.
    ...(!edge
      ? [{ op: 'relate' as const, from: target, to: old!, edge_type: 'replaces' as const }]
      : edge.lifecycle === 'active'
        ? []
        : [{ op: 'activate' as const, target: edge.id }]),
    { op: 'retire' as const, target: old! },
  ];
}

/**
 * Review acts on records under review only: another workspace's id is not found, and a record
 * already active or retired (or a queued one sent "back", which the forward-only lifecycle
 * refuses) is a lifecycle violation, before any changeset is opened.
 */
async function checkInReview(sql: Sql, workspaceId: string, ids: string[], action: Action): Promise<Map<string, string>> {
  if (action === 'replace' && isEdgeId(ids[0]!))
    throw new AppError('validation_failed', `${ids[0]} is a relation: only a record replaces another`);
  const rows = await sql<{ id: string; lifecycle: string; replaces: string | null }[]>`
    select id, lifecycle, null as replaces from doco.nodes where workspace_id = ${workspaceId} and id = any(${ids})
    union all
    select e.id, e.lifecycle, case when e.edge_type = 'replaces' and t.lifecycle = 'active' then t.id end
      from doco.edges e join doco.nodes t on t.id = e.to_id
     where e.workspace_id = ${workspaceId} and e.id = any(${ids})`;
  const found = new Map(rows.map((r) => [r.id, r.lifecycle]));
  for (const id of ids) {
    const lifecycle = found.get(id);
    if (!lifecycle) throw new AppError('not_found', `${isEdgeId(id) ? 'relation' : 'record'} ${id} does not exist in this workspace`);
    if (lifecycle !== 'drafting' && lifecycle !== 'queued')
      throw new AppError('lifecycle_violation', `${id} is ${lifecycle}, not under review`);
    if (action === 'queue' && lifecycle !== 'drafting')
      throw new AppError(
        'lifecycle_violation',
        `${id} is already queued: the lifecycle only moves forward (drafting → queued → active → retired)`,
      );
  }
  return new Map(rows.flatMap((r) => (r.replaces ? [[r.id, r.replaces] as const] : [])));
}

/** A record's or a relation's own buttons: approve, queue a draft for review, reject. */
function ReviewButtons({ id, version, lifecycle }: { id: string; version: number; lifecycle: 'drafting' | 'queued' }) {
  return (
    <div class="actions">
      <button class="primary" type="submit" name="one" value={`approve ${id} ${version}`}>
        Approve
      </button>
      {lifecycle === 'drafting' ? (
        <button type="submit" name="one" value={`queue ${id} ${version}`}>
          Queue for review
        </button>
      ) : null}
      <button class="danger" type="submit" name="one" value={`reject ${id} ${version}`}>
        Reject
      </button>
    </div>
  );
}

/** `whole`: the proposal is shown whole, with its buttons; else by its title, with a link to review it alone. */
function Item({ r, whole }: { r: QueuedRecord; whole: boolean }) {
  return (
    <article class="review-item" aria-labelledby={`t-${r.id}`}>
      <div class="check">
        {whole ? (
          <input type="checkbox" name="ids" value={`${r.id}@${r.version}`} id={`sel-${r.id}`} aria-label={`Select ${r.title || r.id}`} />
        ) : null}
      </div>
      <div>
        <h3 id={`t-${r.id}`}>
          <RecordLink id={r.id} title={r.title || r.id} />
        </h3>
        <div class="meta">
          <TypePill value={r.node_type} />
          <Lifecycle value={r.lifecycle} />
          <span>
            in <code>{r.collection}</code>
          </span>
          <span>by {r.author ?? 'unknown'}</span>
          <span>
            via <code>{r.source}</code>
          </span>
          <span>
            v{r.version} · <Time d={r.updated_at} />
          </span>
        </div>
        {whole ? (
          <>
            {/* Whole, the long parts folded: what a person approves is what the page holds. */}
            <div class="prose">
              <Folded text={r.prose} shown={1600} />
            </div>
            <BodyFields body={r.body} full />
            <ReviewButtons id={r.id} version={r.version} lifecycle={r.lifecycle} />
          </>
        ) : (
          <p class="small muted">
            {`${sizeOf(r).toLocaleString('en')} characters, more than this page shows beside the others: `}
            <a href={`/review?id=${r.id}`}>review it alone</a>.
          </p>
        )}
      </div>
      <aside class="side" aria-label="Verdicts and replacement">
        <h3>Verdicts</h3>
        <ul class="verdicts">
          {r.verdicts.map((vd) => (
            <li>
              <Pill kind={vd.outcome} /> <code>{vd.policy}</code> <span class="small muted">{vd.reason}</span>
            </li>
          ))}
        </ul>
        {r.replaces && whole ? (
          <div style="margin-top:12px">
            <h3>A supersede would replace</h3>
            <p>
              <RecordLink id={r.replaces.id} title={r.replaces.title} />{' '}
              <span class="small muted">
                {r.replaces.how === 'edge'
                  ? `(its replaces relation, proposed by ${r.replaces.by ?? 'unknown'})`
                  : `(closest active ${r.node_type} in ${r.collection})`}
              </span>
            </p>
            <button type="submit" name="one" value={`replace ${r.id} ${r.version} ${r.replaces.id}`}>
              Approve, replacing it
            </button>
          </div>
        ) : null}
      </aside>
    </article>
  );
}

/** A relation waiting for review: its records, approvable once both are in force. */
function EdgeItem({ e }: { e: PendingEdge }) {
  const waitsFor = [e.from, e.to].filter(
    (r) => r.lifecycle !== 'active' && !(e.edge_type === 'replaces' && r === e.to && r.lifecycle === 'retired'),
  );
  // Proposed before sql/lifecycle.sql refused new edges to retired records.
  const retired = waitsFor.find((r) => r.lifecycle === 'retired');
  return (
    <article class="review-item" aria-labelledby={`t-${e.id}`}>
      <div class="check">
        <input type="checkbox" name="ids" value={`${e.id}@${e.version}`} id={`sel-${e.id}`} aria-label={`Select the relation ${e.id}`} />
      </div>
      <div>
        <h3 id={`t-${e.id}`}>
          <RecordLink id={e.from.id} title={e.from.title || e.from.id} /> <code>{e.edge_type}</code>{' '}
          <RecordLink id={e.to.id} title={e.to.title || e.to.id} />
        </h3>
        <div class="meta">
          <Lifecycle value={e.lifecycle} />
          <span>by {e.author ?? 'unknown'}</span>
          <span>
            via <code>{e.source}</code>
          </span>
          <span>
            <code>{e.id}</code> · <Time d={e.updated_at} />
          </span>
        </div>
        {e.edge_type === 'replaces' && e.to.lifecycle === 'active' ? (
          <p class="small muted">
            Approving it retires {e.to.title || e.to.id}: {e.from.title || e.from.id} takes its place, as a supersede does.
          </p>
        ) : null}
        {retired ? (
          <p class="small muted">It can never go live: {retired.title || retired.id} is retired. Reject it.</p>
        ) : waitsFor.length ? (
          <p class="small muted">
            Approvable once {waitsFor.map((r) => `${r.title || r.id} (${r.lifecycle})`).join(' and ')} {waitsFor.length > 1 ? 'are' : 'is'}{' '}
            active: approve {waitsFor.length > 1 ? 'them' : 'it'} first, or select both.
          </p>
        ) : null}
        <ReviewButtons id={e.id} version={e.version} lifecycle={e.lifecycle} />
      </div>
    </article>
  );
}

export function reviewPage(deps: WriteDeps & { sql: Sql }) {
  const app = new Hono<ConsoleEnv>();

  app.get('/review', requireSession(deps.sql, { scope: 'read' }), async (c) => {
    const session = c.get('session');
    const page = parseInput(PageSchema, c.req.query('page') ?? '1', 'page');
    const only = c.req.query('id') === undefined ? undefined : parseInput(ID, c.req.query('id'), 'id');
    const [{ records, total }, relations] = await Promise.all([
      readQueue(deps, session.workspaceId, page, only),
      only === undefined ? readPendingEdges(deps.sql, session.workspaceId) : { edges: [], total: 0 },
    ]);
    if (only !== undefined && !records.length) throw new AppError('not_found', `${only} is not in this workspace's review queue`);
    const pages = Math.max(1, Math.ceil(total / QUEUE_PAGE));
    // Whole while the page holds at most REVIEW_PAGE_CHARS of proposals; the first always.
    let room = REVIEW_PAGE_CHARS;
    const whole = records.map((r, i) => {
      const fits = i === 0 || sizeOf(r) <= room;
      if (fits) room -= sizeOf(r);
      return fits;
    });
    const done = v.safeParse(DoneSchema, c.req.query());
    return sendPage(
      c,
      <Page title="Review" section="/review" session={session} csrf={c.get('csrf')}>
        <div class="page-head">
          <div>
            <h1>Review queue</h1>
            <p class="sub">
              {only === undefined ? (
                <>
                  {total} drafting or queued record(s), newest first{pages > 1 ? ` (page ${page} of ${pages})` : ''}. Approving activates;
                  rejecting retires.
                </>
              ) : (
                <>
                  One of {total} drafting or queued record(s), shown alone. <a href="/review">The whole queue</a>.
                </>
              )}
            </p>
          </div>
        </div>
        {done.success ? (
          <p class="notice" role="status">
            {DONE[done.output.done]}: {doneCount(Number(done.output.n), Number(done.output.e ?? 0))} in <code>{done.output.cs}</code>.
          </p>
        ) : null}
        <form method="post" action="/review">
          <CsrfField token={c.get('csrf')} />
          <Box
            title="Queue"
            id="queue"
            flush
            actions={
              records.length || relations.total ? (
                <>
                  <label for="bulk" class="small muted" style="margin:0">
                    With selected:
                  </label>
                  <select id="bulk" name="action" style="width:auto">
                    <option value="approve">Approve</option>
                    <option value="queue">Queue drafts for review</option>
                    <option value="reject">Reject</option>
                  </select>
                  <button type="submit">Apply to selected</button>
                </>
              ) : null
            }
          >
            {records.length ? (
              records.map((r, i) => <Item r={r} whole={whole[i]!} />)
            ) : (
              <Empty>Nothing to review: no drafting or queued records.</Empty>
            )}
          </Box>
          {relations.total ? (
            <Box title={`Relations (${relations.total})`} id="relations" flush>
              {relations.total > EDGES_SHOWN ? (
                <p class="small muted" style="margin:8px 12px">
                  The {EDGES_SHOWN} newest of {relations.total}.
                </p>
              ) : null}
              {relations.edges.map((e) => (
                <EdgeItem e={e} />
              ))}
            </Box>
          ) : null}
        </form>
        {only === undefined ? <PageNav path="/review" page={page} pages={pages} style="margin-top:12px" /> : null}
      </Page>,
    );
  });

  app.post('/review', requireSession(deps.sql, { scope: 'write' }), async (c) => {
    const form = await readForm(c);
    checkCsrf(c, form);
    let action: Action;
    let ids: string[];
    let old: string | undefined;
    const versions = new Map<string, number>();
    if (form.one !== undefined) {
      const one = parseInput(OneSchema, buttonFields(String(Array.isArray(form.one) ? form.one[0] : form.one)), "the record's button");
      action = one.action;
      ids = [one.record];
      versions.set(one.record, one.version);
      old = one.action === 'replace' ? one.replaces : undefined;
    } else {
      const bulk = parseInput(BulkSchema, { action: form.action, ids: [...new Set(listOf(form.ids))] }, 'the selection');
      action = bulk.action;
      for (const s of bulk.ids) versions.set(s.id, s.version);
      ids = [...versions.keys()];
    }
    const session = c.get('session');
    const replacing = await checkInReview(deps.sql, session.workspaceId, ids, action);
    const [edge] = old
      ? await deps.sql<{ id: string; lifecycle: string }[]>`
          select id, lifecycle from doco.edges
           where workspace_id = ${session.workspaceId} and from_id = ${ids[0]!} and to_id = ${old} and edge_type = 'replaces' and lifecycle <> 'retired'`
      : [];
    const result = await changeset(
      deps,
      { workspaceId: session.workspaceId, principalId: session.principalId, source: 'ui' },
      {
        summary: `console review: ${action} ${ids.length} record(s) or relation(s)`,
        operations: operationsFor(action, ids, versions, old, edge, replacing),
      },
    );
    const relations = ids.filter(isEdgeId).length;
    return c.redirect(
      `/review?done=${action}&n=${ids.length - relations}${relations ? `&e=${relations}` : ''}&cs=${result.changeset_id}`,
      303,
    );
  });

  return app;
}
