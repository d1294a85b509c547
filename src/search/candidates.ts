// Loading the records the retrievers found, and the standing orders every brief carries.
import type { Sql } from '../db/connect.js';

export interface CandidateRow {
  id: string;
  node_type: string;
  lifecycle: string;
  title: string;
  prose: string;
  body: Record<string, unknown>;
  pagerank: number;
  version: number;
  updated_at: Date;
  collection: string;
  template: string;
}

/** Prose is capped: a brief shows at most 1,200 characters of an item and reranks on 2,000. */
const columns = (sql: Sql) => sql`
  n.id, n.node_type, n.lifecycle, n.title, left(n.prose, 2000) as prose, n.body, n.pagerank, n.version, n.updated_at, c.slug as collection, c.template`;

export async function loadCandidates(sql: Sql, workspaceId: string, ids: string[]): Promise<Map<string, CandidateRow>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<CandidateRow[]>`
    select ${columns(sql)} from doco.nodes n join doco.collections c on c.id = n.collection_id
     where n.workspace_id = ${workspaceId} and n.id = any(${ids}) and n.node_type <> 'principal'`;
  return new Map(rows.map((r) => [r.id, r]));
}

/** The constitution's active records: standing orders, in every brief. */
export async function loadConstitution(sql: Sql, workspaceId: string, limit = 50): Promise<CandidateRow[]> {
  return sql<CandidateRow[]>`
    select ${columns(sql)} from doco.nodes n join doco.collections c on c.id = n.collection_id
     where n.workspace_id = ${workspaceId} and c.template = 'constitution' and n.lifecycle = 'active' and n.node_type <> 'principal'
     order by n.pagerank desc, n.updated_at desc limit ${limit}`;
}

/** Tokens the workspace's index holds (characters / 4): the receipt's "searched" figure. */
export async function searchedTokens(sql: Sql, workspaceId: string): Promise<number> {
  const [row] = await sql<{ chars: string }[]>`select chars::text from doco.index_stats where workspace_id = ${workspaceId}`;
  return Math.round(Number(row?.chars ?? 0) / 4);
}
