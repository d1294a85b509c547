// One record for its page: the record, its edges with the other end's title, every version with
// the source and actor of its changeset, its chain check, its touches and the briefs that sent it.
import type { Db, Sql } from '../../../db/connect.js';
import { edgesOfNode, getNode, listNodeVersions, type EdgeView, type NodeVersionView, type NodeView } from '../../../graph/read-nodes.js';
import { EDGES_PAGE, VERSIONS_PAGE } from '../../../graph/limits.js';
import { verifyRecordChain } from './chain.js';

/** How many of the workspace's newest briefs the page looks through for those that sent the record. */
export const BRIEFS_LOOKED_AT = 5000;

export interface RecordPage {
  node: NodeView;
  author: string | null;
  edges: (EdgeView & { direction: 'out' | 'in'; other: string; other_title: string | null; other_lifecycle: string | null })[];
  /** One page of the history (newest first on the page), with the version before it for its diff. */
  versions: (NodeVersionView & { actor: string | null })[];
  previous: NodeVersionView | undefined;
  /** The record's links in all: `edges` holds the first EDGES_PAGE.max of them. */
  edge_count: number;
  version_count: number;
  /** The `before` that reads the older versions; null when the page reaches version 1. */
  before: number | null;
  chain: { version: number; problem: string }[];
  touches: { kind: string; value: string }[];
  briefs: { id: string; created_at: Date; about: string; principal: string | null }[];
}

export async function readRecord(
  deps: { db: Db; sql: Sql },
  workspaceId: string,
  id: string,
  history: { before?: number } = {},
): Promise<RecordPage> {
  const node = await getNode(deps.db, workspaceId, id);
  const [edgesPage, page, chain, touches, briefs] = await Promise.all([
    edgesOfNode(deps.db, workspaceId, id, { limit: EDGES_PAGE.max }),
    listNodeVersions(deps.db, workspaceId, id, { ...history, limit: VERSIONS_PAGE.max, withPrevious: true }),
    verifyRecordChain(deps.sql, id),
    deps.sql<
      RecordPage['touches']
    >`select kind, value from doco.touches where node_id = ${id} and workspace_id = ${workspaceId} order by kind, value limit 200`,
    // Among the newest briefs only: every brief is kept, one for each prompt and edit of every
    // agent, so a scan of them all grew with the workspace's age (and with any agent's asking).
    deps.sql<RecordPage['briefs']>`
      select b.id, b.created_at, b.request->>'about' as about, p.title as principal
        from (select id, created_at, request, principal_id, item_ids from doco.briefs
               where workspace_id = ${workspaceId} order by created_at desc limit ${BRIEFS_LOOKED_AT}) b
        left join doco.nodes p on p.id = b.principal_id
       where ${id}::text = any(b.item_ids)
       order by b.created_at desc limit 20`,
  ]);
  const edges = edgesPage.edges;
  const names = await titlesOf(deps.sql, workspaceId, [
    ...edges.map((e) => (e.from === id ? e.to : e.from)),
    ...page.versions.map((v) => v.actor_id).filter((x): x is string => !!x),
    ...(node.principal_id ? [node.principal_id] : []),
  ]);
  return {
    node,
    author: node.principal_id ? (names.get(node.principal_id)?.title ?? null) : null,
    edges: edges.map((e) => {
      const other = e.from === id ? e.to : e.from;
      return {
        ...e,
        direction: e.from === id ? 'out' : 'in',
        other,
        other_title: names.get(other)?.title ?? null,
        other_lifecycle: names.get(other)?.lifecycle ?? null,
      };
    }),
    versions: page.versions.map((v) => ({ ...v, actor: v.actor_id ? (names.get(v.actor_id)?.title ?? null) : null })),
    edge_count: edgesPage.edge_count,
    previous: page.previous,
    version_count: page.version_count,
    before: page.before,
    chain,
    touches,
    briefs,
  };
}

async function titlesOf(sql: Sql, workspaceId: string, ids: string[]): Promise<Map<string, { title: string; lifecycle: string }>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  const rows = await sql<{ id: string; title: string; lifecycle: string }[]>`
    select id, title, lifecycle from doco.nodes where workspace_id = ${workspaceId} and id = any(${unique})`;
  return new Map(rows.map((r) => [r.id, { title: r.title, lifecycle: r.lifecycle }]));
}
