// The alignment scan's reads: the live ingested doc sections (`source_type = doc_expectation`
// and in doco.doc_manifest, any shape, any source) that touch a changed path, that name a
// changed identifier, or that search finds near the change.
import type { Sql } from '../db/connect.js';
import type { Embedder } from '../providers/embedder.js';
import { DOC_SHAPES } from '../retrieval/docs-search.js';
import { fuseByScore, sortByScore } from '../retrieval/fuse.js';
import { scoredSeedLists } from '../retrieval/retrieve.js';
import { fulltextSeeds, pathVariants, indexSeeds } from '../retrieval/retrievers.js';
import type { VectorStore } from '../providers/vector/port.js';

export interface SectionRow {
  id: string;
  title: string;
  prose: string;
  path: string;
  heading: string;
  section_key: string;
}

/**
 * An ingested section: active, and in the manifest of the doc ingester or the docs pack that
 * wrote it. Any writer may put `source_type` in a body: a queued record an agent dressed as a doc
 * section was reported as an expectation, and a push's log (active, the connector's) quoted the
 * heading it chose (found by a hostile-input review).
 */
const DOC_SECTION = (sql: Sql) =>
  sql`n.lifecycle = 'active' and n.node_type = 'reference' and n.body->>'source_type' = 'doc_expectation'
      and exists (select 1 from doco.doc_manifest m where m.node_id = n.id)`;

const COLUMNS = (sql: Sql) => sql`
  n.id, n.title, n.prose, coalesce(n.body->'pointer'->>'path', '') as path,
  coalesce(n.body->'pointer'->>'heading', n.title) as heading, coalesce(n.body->'pointer'->>'section_key', '') as section_key`;

export async function loadSections(sql: Sql, workspaceId: string, ids: string[]): Promise<Map<string, SectionRow>> {
  if (!ids.length) return new Map();
  const rows = await sql<
    SectionRow[]
  >`select ${COLUMNS(sql)} from doco.nodes n where n.workspace_id = ${workspaceId} and n.id = any(${ids}) and ${DOC_SECTION(sql)}`;
  return new Map(rows.map((r) => [r.id, r]));
}

export interface PathTouch {
  nodeId: string;
  /** The touched value: the path itself, a path it ends with, its file name or a folder. */
  value: string;
}

/** Doc sections whose text names the path, a path it ends with, its file name or one of its folders (a blob URL yields its path: sql/touches.sql). */
export async function pathTouches(sql: Sql, workspaceId: string, path: string): Promise<PathTouch[]> {
  const values = pathVariants(path);
  if (!values.length) return [];
  return sql<PathTouch[]>`
    select t.node_id as "nodeId", t.value from doco.touches t join doco.nodes n on n.id = t.node_id
     where t.workspace_id = ${workspaceId} and t.kind = 'path' and t.value = any(${values}) and ${DOC_SECTION(sql)}`;
}

const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Doc sections whose title or text holds any of `spellings` (case-blind substrings; the caller checks word boundaries). */
export async function sectionsNaming(sql: Sql, workspaceId: string, spellings: string[]): Promise<SectionRow[]> {
  if (!spellings.length) return [];
  return sql<SectionRow[]>`
    select ${COLUMNS(sql)} from doco.nodes n
     where n.workspace_id = ${workspaceId} and ${DOC_SECTION(sql)}
       and (n.title || ' ' || n.prose) ilike any(${spellings.map(likePattern)})`;
}

/** How many live doc sections there are: a name most of them hold tells nothing. */
export async function countSections(sql: Sql, workspaceId: string): Promise<number> {
  const [row] = await sql<
    { n: number }[]
  >`select count(*)::int as n from doco.nodes n where n.workspace_id = ${workspaceId} and ${DOC_SECTION(sql)}`;
  return row?.n ?? 0;
}

export interface Neighbour {
  nodeId: string;
  /** Its fused score as a share of the best neighbour's: 0–1. */
  share: number;
}

/** The doc sections hybrid search (BM25 + dense + full text, the brief's own retrievers) puts nearest a text describing the change. */
export async function semanticNeighbours(
  deps: { sql: Sql; embedder: Embedder; store: VectorStore },
  workspaceId: string,
  text: string,
  limit: number,
): Promise<Neighbour[]> {
  if (!text.trim()) return [];
  const filter = { shapes: DOC_SHAPES, nodeTypes: ['reference'] };
  const [vector, fulltext] = await Promise.all([
    indexSeeds(deps, workspaceId, text, filter, limit * 3),
    fulltextSeeds(deps.sql, workspaceId, text, filter, limit * 3),
  ]);
  const scores = fuseByScore(scoredSeedLists([...vector, fulltext]));
  // A dense hit alone is no evidence: every text has a nearest vector. A neighbour needs some
  // word in common with the change (BM25 or full text found it), so an unrelated change finds nothing.
  const lexical = new Set([...vector.filter((l) => l.name === 'bm25'), fulltext].flatMap((l) => l.ids));
  const order = sortByScore(scores)
    .filter((id) => lexical.has(id))
    .slice(0, limit);
  const top = Math.max(1e-9, ...order.map((id) => scores.get(id) ?? 0));
  return order.map((id) => ({ nodeId: id, share: (scores.get(id) ?? 0) / top }));
}
