// The review queue: drafting and queued records, newest first, with who proposed them and the
// source of that first write (a person sending an agent's draft on is not its author), their
// verdicts under the collection's policies today, and what a supersede would replace (a
// `replaces` edge they already carry, with who proposed it, or the active record of
// the same type in the same collection whose text holds every word of its title: an AND match
// the full-text index answers quickly, where an OR match would rank thousands of rows). Beside
// them, the relations waiting for review (readPendingEdges), counted for the overview too.
import type { Sql, Db } from '../../../db/connect.js';
import { listCollections } from '../../../graph/collections.js';
import { deterministicVerdicts } from '../../../graph/policies.js';
import { type Verdict } from '../../../graph/verdicts.js';

/** Records per page of the queue (GitHub's pull-request list shows 25). */
export const QUEUE_PAGE = 25;

export interface QueuedRecord {
  id: string;
  node_type: string;
  lifecycle: 'drafting' | 'queued';
  title: string;
  prose: string;
  body: Record<string, unknown>;
  version: number;
  updated_at: Date;
  collection: string;
  author: string | null;
  source: string;
  verdicts: Verdict[];
  /** For `how: 'edge'`, who proposed that relation (not always the record's author). */
  replaces: { id: string; title: string; how: 'edge' | 'similar'; by?: string | null } | undefined;
}

/**
 * A page of the queue, or with `only` that one record alone (none when it is not in review in this
 * workspace); `total` counts the whole queue either way.
 */
export async function readQueue(
  deps: { sql: Sql; db: Db },
  workspaceId: string,
  page = 1,
  only?: string,
): Promise<{ records: QueuedRecord[]; total: number }> {
  const [rows, [count], collections] = await Promise.all([
    deps.sql<Omit<QueuedRecord, 'verdicts' | 'replaces'>[]>`
      select n.id, n.node_type, n.lifecycle, n.title, n.prose, n.body, n.version, n.updated_at, c.slug as collection,
             p.title as author, cs.source
        from doco.nodes n
        join doco.collections c on c.id = n.collection_id
        join doco.node_versions first on first.node_id = n.id and first.version = 1
        join doco.changesets cs on cs.id = first.changeset_id
        left join doco.nodes p on p.id = first.principal_id
       where n.workspace_id = ${workspaceId} and n.lifecycle in ('drafting', 'queued')
         ${only === undefined ? deps.sql`` : deps.sql`and n.id = ${only}`}
       order by n.updated_at desc, n.id desc
       limit ${QUEUE_PAGE} offset ${only === undefined ? (page - 1) * QUEUE_PAGE : 0}`,
    deps.sql<
      { n: number }[]
    >`select count(*)::int as n from doco.nodes where workspace_id = ${workspaceId} and lifecycle in ('drafting', 'queued')`,
    listCollections(deps.db, workspaceId),
  ]);
  const replaced = await replacementTargets(
    deps.sql,
    rows.map((r) => r.id),
  );
  const bySlug = new Map(collections.map((c) => [c.slug, c]));
  const records = rows.map((r) => {
    const collection = bySlug.get(r.collection)!;
    const verdicts = [
      ...deterministicVerdicts({ target: r.id, collection, node_type: r.node_type, title: r.title, prose: r.prose, body: r.body }),
      ...collection.policies
        .filter((p) => p.kind === 'judge' && (!p.node_types || p.node_types.includes(r.node_type)))
        .map((p): Verdict => ({ policy: p.id, target: r.id, outcome: 'not_judged', reason: 'judged when written; not re-judged here' })),
    ];
    return { ...r, verdicts, replaces: replaced.get(r.id) };
  });
  return { records, total: count!.n };
}

async function replacementTargets(sql: Sql, ids: string[]): Promise<Map<string, NonNullable<QueuedRecord['replaces']>>> {
  if (!ids.length) return new Map();
  const rows = await sql<{ for_id: string; id: string; title: string; how: 'edge' | 'similar'; by: string | null }[]>`
    select e.from_id as for_id, r.id, r.title, 'edge' as how, p.title as by
      from doco.edges e join doco.nodes r on r.id = e.to_id
      left join doco.nodes p on p.id = doco.edge_author(e.id)
     where e.from_id = any(${ids}) and e.edge_type = 'replaces' and e.lifecycle <> 'retired'
    union all
    select q.id, s.id, s.title, 'similar', null
      from doco.nodes q
     cross join lateral (
       select r.id, r.title from doco.nodes r
        where r.workspace_id = q.workspace_id and r.collection_id = q.collection_id and r.node_type = q.node_type
          and r.lifecycle = 'active' and r.id <> q.id
          and r.search_tsv @@ plainto_tsquery('english', q.title)
        order by ts_rank(r.search_tsv, plainto_tsquery('english', q.title)) desc, r.updated_at desc
        limit 1) s
     where q.id = any(${ids})`;
  const out = new Map<string, NonNullable<QueuedRecord['replaces']>>();
  // A `replaces` edge the record already carries wins over a guess.
  for (const r of rows)
    if (r.how === 'edge' || !out.has(r.for_id))
      out.set(r.for_id, { id: r.id, title: r.title, how: r.how, ...(r.how === 'edge' ? { by: r.by } : {}) });
  return out;
}

/** Relations listed at most: an agent's `relate`s wait here until a person approves or rejects them. */
export const EDGES_SHOWN = 50;

export interface PendingEdge {
  id: string;
  edge_type: string;
  lifecycle: 'drafting' | 'queued';
  version: number;
  updated_at: Date;
  author: string | null;
  source: string;
  from: { id: string; title: string; lifecycle: string };
  to: { id: string; title: string; lifecycle: string };
}

/**
 * Drafting and queued edges, newest first, with both records' titles and lifecycles (an edge is
 * approved only once both are active, or retired for a `replaces` edge's target: sql/lifecycle.sql).
 */
export async function readPendingEdges(sql: Sql, workspaceId: string): Promise<{ edges: PendingEdge[]; total: number }> {
  const [rows, total] = await Promise.all([
    sql<
      (Omit<PendingEdge, 'from' | 'to'> & {
        from_id: string;
        from_title: string;
        from_lifecycle: string;
        to_id: string;
        to_title: string;
        to_lifecycle: string;
      })[]
    >`
      select e.id, e.edge_type, e.lifecycle, e.version, e.updated_at, p.title as author, cs.source,
             f.id as from_id, f.title as from_title, f.lifecycle as from_lifecycle,
             t.id as to_id, t.title as to_title, t.lifecycle as to_lifecycle
        from doco.edges e
        join doco.nodes f on f.id = e.from_id
        join doco.nodes t on t.id = e.to_id
        join doco.edge_versions first on first.edge_id = e.id and first.version = 1
        join doco.changesets cs on cs.id = first.changeset_id
        left join doco.nodes p on p.id = first.principal_id
       where e.workspace_id = ${workspaceId} and e.lifecycle in ('drafting', 'queued')
       order by e.updated_at desc, e.id desc
       limit ${EDGES_SHOWN}`,
    countPendingEdges(sql, workspaceId),
  ]);
  return {
    edges: rows.map(({ from_id, from_title, from_lifecycle, to_id, to_title, to_lifecycle, ...e }) => ({
      ...e,
      from: { id: from_id, title: from_title, lifecycle: from_lifecycle },
      to: { id: to_id, title: to_title, lifecycle: to_lifecycle },
    })),
    total,
  };
}

/** How many relations wait for review (edges_review, migration 0037). */
export async function countPendingEdges(sql: Sql, workspaceId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from doco.edges where workspace_id = ${workspaceId} and lifecycle in ('drafting', 'queued')`;
  return row!.n;
}
