// One hop over the graph (docs/brief.md, step 2): the top 40 seeds bring up to 5 neighbours each over
// live edges (150 at most), and a retired record brings the record that replaced it.
import type { Sql } from '../db/connect.js';
import { edgesAsOf } from './as-of.js';

export const HOP_SEEDS = 40;
export const HOP_PER_SEED = 5;
export const HOP_MAX = 150;

export interface HopResult {
  ids: string[];
  because: Map<string, string>;
  /** retired id → the id that replaced it */
  replacements: Map<string, string>;
  /** Each hopped id → the best-ranked seed that brought it (a replacement: the record it replaced). */
  via: Map<string, string>;
}

/**
 * Needs only the seed order (a replaces edge points at a retired record), so it can run while
 * the seeds' rows load. With `asOf`, over the edges as they stood then.
 */
export async function hop(sql: Sql, workspaceId: string, seeds: string[], asOf?: Date): Promise<HopResult> {
  const top = seeds.slice(0, HOP_SEEDS);
  const because = new Map<string, string>();
  const ids: string[] = [];
  const replacements = new Map<string, string>();
  const via = new Map<string, string>();
  if (top.length === 0) return { ids, because, replacements, via };

  const [replacing, edges] = asOf ? await edgesAsOf(sql, workspaceId, seeds, top, asOf) : await liveEdges(sql, workspaceId, seeds, top);
  for (const r of replacing) replacements.set(r.to_id, r.from_id);
  // Each seed's first HOP_PER_SEED edges, newest first (the edges' order).
  const bySeed = new Map<string, { other: string; edge_type: string }[]>(top.map((s) => [s, []]));
  for (const e of edges) {
    for (const [seed, other] of [
      [e.from_id, e.to_id],
      [e.to_id, e.from_id],
    ] as const) {
      const list = bySeed.get(seed);
      if (list && list.length < HOP_PER_SEED) list.push({ other, edge_type: e.edge_type });
    }
  }
  // In seed order: a replacement stands where its retired record ranked, so a retired record
  // found far down does not put its successor at the head of the hop list.
  seeds.forEach((seed, rank) => {
    const replacement = replacements.get(seed);
    if (replacement) {
      ids.push(replacement);
      because.set(replacement, `replaces ${seed}`);
      if (!via.has(replacement)) via.set(replacement, seed);
    }
    if (rank >= HOP_SEEDS) return;
    for (const { other, edge_type } of bySeed.get(seed) ?? []) {
      if (ids.length >= HOP_MAX) break;
      ids.push(other);
      if (!because.has(other)) because.set(other, `linked to ${seed} (${edge_type})`);
      if (!via.has(other)) via.set(other, seed);
    }
  });
  return { ids: [...new Set(ids)], because, replacements, via };
}

/** The most edges the hop reads in one go before it asks for each seed's newest few alone. */
const EDGE_ROWS_READ = 2000;

/**
 * The `replaces` edges into `seeds`, and the other live edges touching `top`, newest first: one
 * statement, since each round trip to Postgres costs the brief more than either lookup does. More
 * than EDGE_ROWS_READ of them (a record with 20,000 live edges sent them all, 22 s of one brief: a
 * hostile review), and the hop asks again for each seed's newest HOP_PER_SEED alone; that
 * statement costs a 10k brief 0.4 ms more than this one, so it is not the first asked.
 */
async function liveEdges(sql: Sql, workspaceId: string, seeds: string[], top: string[]) {
  const all = await sql<{ from_id: string; to_id: string; edge_type: string }[]>`
    select from_id, to_id, edge_type from (
      select from_id, to_id, edge_type, updated_at from doco.edges
       where workspace_id = ${workspaceId} and edge_type = 'replaces' and lifecycle = 'active' and to_id = any(${seeds})
      union all
      select from_id, to_id, edge_type, updated_at from doco.edges
       where workspace_id = ${workspaceId} and lifecycle = 'active' and edge_type <> 'replaces'
         and (from_id = any(${top}) or to_id = any(${top}))) e
     order by updated_at desc, from_id, to_id, edge_type
     limit ${EDGE_ROWS_READ + 1}`;
  const rows = all.length <= EDGE_ROWS_READ ? all : await newestPerSeed(sql, workspaceId, seeds, top);
  return [rows.filter((e) => e.edge_type === 'replaces'), rows.filter((e) => e.edge_type !== 'replaces')] as const;
}

/** liveEdges' answer with each of `top`'s newest HOP_PER_SEED edges only (what the hop reads of them). */
function newestPerSeed(sql: Sql, workspaceId: string, seeds: string[], top: string[]) {
  return sql<{ from_id: string; to_id: string; edge_type: string }[]>`
    with touching as (
      select from_id, to_id, edge_type, updated_at from doco.edges
       where workspace_id = ${workspaceId} and lifecycle = 'active' and edge_type <> 'replaces'
         and (from_id = any(${top}) or to_id = any(${top}))
    ), ranked as (
      select t.from_id, t.to_id, t.edge_type, t.updated_at,
             row_number() over (partition by s.seed order by t.updated_at desc, t.from_id, t.to_id, t.edge_type) as n
        from touching t, lateral (values (t.from_id), (t.to_id)) as s(seed)
       where s.seed = any(${top})
    )
    select from_id, to_id, edge_type from (
      select from_id, to_id, edge_type, updated_at from doco.edges
       where workspace_id = ${workspaceId} and edge_type = 'replaces' and lifecycle = 'active' and to_id = any(${seeds})
      union
      select from_id, to_id, edge_type, updated_at from ranked where n <= ${HOP_PER_SEED}) e
     order by updated_at desc, from_id, to_id, edge_type`;
}
