// Search over the ingested docs (every source: the filesystem ingester and each docs pack) and
// one document's sections by path. A doc hit is a record the doc manifest knows, so a record
// merely shaped like a doc section (captured by hand) is not reported as a document.
import type { Sql } from '../db/connect.js';
import { searchRecords, type SearchDeps } from './search.js';

export const DOC_SHAPES = ['docSection', 'architecturePrinciple'];

/** How many hits are looked at when one pack's are picked out (its records hold no filterable mark). */
const CODE_POOL = 100;

export interface DocHit {
  id: string;
  path: string;
  heading: string;
  section_key: string;
  text: string;
  score: number;
  /** 'fs' for the filesystem ingester, 'pack:<code>' for a docs pack. */
  source: string;
}

export interface DocSectionView {
  id: string;
  heading: string;
  section_key: string;
  text: string;
}

const str = (x: unknown) => (typeof x === 'string' ? x : '');

async function manifestSources(sql: Sql, workspaceId: string, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await sql<{ node_id: string; source: string }[]>`
    select node_id, source from doco.doc_manifest where workspace_id = ${workspaceId} and node_id = any(${ids})`;
  return new Map(rows.map((r) => [r.node_id, r.source]));
}

/** Hybrid search (dense + BM25 + full text) restricted to doc sections; `code` keeps one pack's. */
export async function searchDocs(
  deps: SearchDeps,
  workspaceId: string,
  input: { query: string; limit: number; code?: string | undefined },
): Promise<{ results: DocHit[] }> {
  const pool = input.code ? CODE_POOL : Math.min(CODE_POOL, input.limit * 2);
  const { results } = await searchRecords(
    deps,
    workspaceId,
    { q: input.query, limit: pool, text_chars: 2400 },
    { shapes: DOC_SHAPES, nodeTypes: ['reference'] },
  );
  const sources = await manifestSources(
    deps.sql,
    workspaceId,
    results.map((r) => r.id),
  );
  const wanted = input.code ? `pack:${input.code}` : undefined;
  const hits: DocHit[] = [];
  for (const r of results) {
    const source = sources.get(r.id);
    if (!source || (wanted && source !== wanted)) continue;
    const p = r.source.pointer;
    hits.push({
      id: r.id,
      path: str(p.path),
      heading: str(p.heading),
      section_key: str(p.section_key),
      text: r.text,
      score: r.score,
      source,
    });
    if (hits.length === input.limit) break;
  }
  return { results: hits };
}

/** The live sections of one document, in the order they were first ingested; undefined when none. */
export async function readDocument(
  sql: Sql,
  workspaceId: string,
  path: string,
): Promise<{ path: string; source: string; sections: DocSectionView[] } | undefined> {
  const rows = await sql<(DocSectionView & { source: string })[]>`
    select n.id, coalesce(n.body->'pointer'->>'heading', n.title) as heading, m.section_key, n.prose as text, m.source
      from doco.doc_manifest m join doco.nodes n on n.id = m.node_id
     where m.workspace_id = ${workspaceId} and m.path = ${path} and n.lifecycle <> 'retired'
     order by n.created_at, n.id`;
  if (!rows.length) return undefined;
  return { path, source: rows[0]!.source, sections: rows.map(({ source: _s, ...s }) => s) };
}
