// Records and edges as they stood at a time (a brief's `as_of`, docs/brief.md), read from the
// append-only version rows: a record's state at T is its last version recorded at or before
// T; one with no such version did not exist yet. Retrieval still finds candidates with the
// current index; these hand out what each candidate said, its tier inputs and its lifecycle
// then. Only an as_of brief calls them: the everyday brief reads doco.nodes as before.
import type { Sql } from '../db/connect.js';
import { CANDIDATE_TEXT_CHARS, type CandidateRow } from './candidates.js';

/** A record's version at T, shaped as loadCandidates shapes a current row (pagerank is today's: no history is kept). */
const versionColumns = (sql: Sql) => sql`
  v.node_id as id, v.node_type, v.lifecycle, v.title, left(v.prose, ${CANDIDATE_TEXT_CHARS}) as prose, doco.candidate_body(v.body) as body, coalesce(r.pagerank, 0) as pagerank, v.version,
  v.recorded_at as updated_at, c.slug as collection, c.template`;

export async function loadCandidatesAsOf(sql: Sql, workspaceId: string, ids: string[], asOf: Date): Promise<Map<string, CandidateRow>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<CandidateRow[]>`
    select distinct on (v.node_id) ${versionColumns(sql)}
      from doco.node_versions v
      left join doco.node_ranks r on r.node_id = v.node_id
      join doco.collections c on c.id = v.collection_id
     where v.workspace_id = ${workspaceId} and v.node_id = any(${ids}) and v.recorded_at <= ${asOf} and v.node_type <> 'principal'
     order by v.node_id, v.version desc`;
  return new Map(rows.map((r) => [r.id, r]));
}

/** The constitution's records active at T: the standing orders of a brief as of T. */
export async function loadConstitutionAsOf(sql: Sql, workspaceId: string, asOf: Date, limit = 50): Promise<CandidateRow[]> {
  return sql<CandidateRow[]>`
    select * from (
      select distinct on (v.node_id) ${versionColumns(sql)}
        from doco.node_versions v
        left join doco.node_ranks r on r.node_id = v.node_id
        join doco.collections c on c.id = v.collection_id
       where v.workspace_id = ${workspaceId} and v.recorded_at <= ${asOf}
         and v.node_id in (
           select cv.node_id from doco.node_versions cv join doco.collections cc on cc.id = cv.collection_id
            where cc.workspace_id = ${workspaceId} and cc.template = 'constitution')
       order by v.node_id, v.version desc) at_t
     where template = 'constitution' and lifecycle = 'active' and node_type <> 'principal'
     order by pagerank desc, updated_at desc, id limit ${limit}`;
}

/** Edges live at T touching `top`, and `replaces` edges live at T into `seeds`, for the hop. */
export async function edgesAsOf(sql: Sql, workspaceId: string, seeds: string[], top: string[], asOf: Date) {
  const rows = await sql<{ from_id: string; to_id: string; edge_type: string }[]>`
    select from_id, to_id, edge_type from (
      select distinct on (v.edge_id) v.from_id, v.to_id, v.edge_type, v.lifecycle, v.recorded_at
        from doco.edge_versions v
       where v.workspace_id = ${workspaceId} and v.recorded_at <= ${asOf}
         and (v.to_id = any(${seeds}) or v.from_id = any(${top}))
       order by v.edge_id, v.version desc) at_t
     where lifecycle = 'active'
     order by recorded_at desc`;
  const replacing = rows.filter((e) => e.edge_type === 'replaces' && seeds.includes(e.to_id));
  const edges = rows.filter((e) => e.edge_type !== 'replaces' && (top.includes(e.from_id) || top.includes(e.to_id)));
  return [replacing, edges] as const;
}

/**
 * For candidates that did not exist at T, the records they replaced (following `replaces` back,
 * nearest first) that did and were not yet retired: the current index holds a replacement, not
 * the retired record it stands for, so without this a brief as of T would miss what stood then.
 */
export async function predecessorsAsOf(sql: Sql, workspaceId: string, absent: string[], asOf: Date): Promise<Map<string, CandidateRow>> {
  if (absent.length === 0) return new Map();
  const chain = await sql<{ start_id: string; id: string; depth: number }[]>`
    with recursive chain (start_id, id, depth) as (
      select s, s, 0 from unnest(${absent}::text[]) as s
      union all
      select chain.start_id, e.to_id, chain.depth + 1
        from chain join doco.edges e on e.from_id = chain.id and e.edge_type = 'replaces' and e.workspace_id = ${workspaceId}
       where chain.depth < 20)
    select start_id, id, depth from chain where depth > 0 order by start_id, depth`;
  const rows = await loadCandidatesAsOf(sql, workspaceId, [...new Set(chain.map((c) => c.id))], asOf);
  const found = new Map<string, CandidateRow>();
  for (const c of chain) {
    const row = rows.get(c.id);
    if (!found.has(c.start_id) && row && row.lifecycle !== 'retired') found.set(c.start_id, row);
  }
  return found;
}
