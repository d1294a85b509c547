// The brief's seed retrievers (DESIGN §4 step 1), each an independent ranked list of record
// ids, at most 100: vector (+ the store's BM25 as its hybrid twin), Postgres full text on the
// ask's ten longest words, exact `touching` matches in the touches index, and glossary terms.
import type { Sql } from '../db/connect.js';
import type { Embedder } from '../providers/embedder.js';
import type { StoreFilter, VectorStore } from './vector-store.js';

export interface SeedList {
  name: 'vector' | 'bm25' | 'fulltext' | 'touches' | 'glossary';
  ids: string[];
  /** Why a record is on this list, when the list knows better than "similar to the ask". */
  because: Map<string, string>;
}

export const SEED_LIMIT = 100;

const uniqueIds = (ids: string[], limit = SEED_LIMIT) => [...new Set(ids)].slice(0, limit);

export async function vectorSeeds(deps: { embedder: Embedder; store: VectorStore }, workspaceId: string, about: string, filter?: StoreFilter, limit = SEED_LIMIT): Promise<SeedList[]> {
  const [vector] = await deps.embedder.embed([about], 'query');
  // Several chunks of one record may hit: ask for more chunks than records wanted.
  const { dense, sparse } = await deps.store.search({ tenant: workspaceId, vector: vector!, text: about, limit: limit * 3, ...(filter ? { filter } : {}) });
  return [
    { name: 'vector', ids: uniqueIds(dense.map((h) => h.nodeId), limit), because: new Map() },
    { name: 'bm25', ids: uniqueIds(sparse.map((h) => h.nodeId), limit), because: new Map() },
  ];
}

/** The ask's ten longest distinct words, as a Postgres OR query. */
export function fulltextQuery(about: string): string {
  const words = [...new Set(about.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 3))];
  return words
    .sort((a, b) => b.length - a.length || a.localeCompare(b))
    .slice(0, 10)
    .join(' | ');
}

/**
 * Postgres full text over the ask's ten longest words, OR-ed. Words in more than a fifth of the
 * records (by the planner's statistics on search_tsv) are dropped first: they discriminate
 * nothing, and ranking every record they match is what makes full text slow on a large
 * workspace. Ranked by ts_rank (term frequency), which costs a quarter of ts_rank_cd.
 */
export async function fulltextSeeds(sql: Sql, workspaceId: string, about: string, filter?: { nodeTypes?: string[]; collectionIds?: string[]; shapes?: string[] }, limit = SEED_LIMIT): Promise<SeedList> {
  const words = fulltextQuery(about);
  if (!words) return { name: 'fulltext', ids: [], because: new Map() };
  const rows = await sql<{ id: string }[]>`
    with lexemes as (
      select distinct l.lexeme from unnest(to_tsvector('english', ${words.replace(/ \| /g, ' ')})) as l
    ), common as (
      select e.elem, e.freq
        from pg_stats s, unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) as e(elem, freq)
       where s.schemaname = 'doco' and s.tablename = 'nodes' and s.attname = 'search_tsv'
    ), kept as (
      select l.lexeme from lexemes l left join common c on c.elem = l.lexeme where coalesce(c.freq, 0) < 0.2
    ), q as (
      select coalesce(
        (select string_agg(quote_literal(lexeme), ' | ') from kept),
        (select string_agg(quote_literal(lexeme), ' | ') from lexemes))::tsquery as q
    )
    select n.id from doco.nodes n, q
     where n.workspace_id = ${workspaceId} and n.node_type <> 'principal' and q.q is not null and n.search_tsv @@ q.q
       ${filter?.nodeTypes ? sql`and n.node_type = any(${filter.nodeTypes})` : sql``}
       ${filter?.collectionIds ? sql`and n.collection_id = any(${filter.collectionIds})` : sql``}
       ${filter?.shapes ? sql`and coalesce(n.body->>'shape', '') = any(${filter.shapes})` : sql``}
     order by ts_rank(n.search_tsv, q.q) desc, n.updated_at desc
     limit ${limit}`;
  return { name: 'fulltext', ids: rows.map((r) => r.id), because: new Map() };
}

/** A touched path also matches records naming one of its folders or a path it ends with. */
export function pathVariants(path: string): string[] {
  const clean = path.trim().replace(/^(\.{1,2}\/|\/)+/, '').replace(/\/+$/, '');
  if (!clean) return [];
  const parts = clean.split('/').filter(Boolean);
  const variants = new Set<string>();
  for (let i = 0; i < parts.length; i++) variants.add(parts.slice(i).join('/')); // the path and its suffixes
  for (let i = parts.length - 1; i >= 1; i--) variants.add(parts.slice(0, i).join('/')); // its folders
  return [...variants];
}

type TouchKind = 'path' | 'url' | 'record' | 'issue';

function touchLookups(touching: string): { kind: TouchKind; values: string[] }[] {
  const t = touching.trim();
  if (/^([\w.-]+\/[\w.-]+)?#\d+$/.test(t)) return [{ kind: 'issue', values: [t] }];
  if (/^https?:\/\//i.test(t)) {
    const gh = t.match(/^https?:\/\/github\.com\/([\w.-]+)\/([\w.-]+)\/(?:pull|issues)\/(\d+)/i);
    const blob = t.match(/^https?:\/\/[^/]+\/[\w.-]+\/[\w.-]+(?:\/-)?\/(?:blob|tree)\/[^/]+\/([^?#]+)/i);
    return [
      { kind: 'url', values: [t] },
      ...(gh ? [{ kind: 'issue' as const, values: [`${gh[1]}/${gh[2]}#${gh[3]}`] }] : []),
      ...(blob ? [{ kind: 'path' as const, values: pathVariants(blob[1]!) }] : []),
    ];
  }
  if (/^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/.test(t)) return [{ kind: 'record', values: [t] }];
  return [{ kind: 'path', values: pathVariants(t) }];
}

export async function touchSeeds(sql: Sql, workspaceId: string, touching: string[], limit = SEED_LIMIT): Promise<SeedList> {
  const because = new Map<string, string>();
  const ranked: { id: string; exact: boolean; length: number }[] = [];
  for (const t of touching) {
    for (const { kind, values } of touchLookups(t)) {
      if (!values.length) continue;
      const rows = await sql<{ node_id: string; value: string }[]>`
        select node_id, value from doco.touches where workspace_id = ${workspaceId} and kind = ${kind} and value = any(${values})`;
      for (const r of rows) {
        const exact = r.value === values[0];
        ranked.push({ id: r.node_id, exact, length: r.value.length });
        if (!because.has(r.node_id)) because.set(r.node_id, `touches ${r.value}${exact || kind !== 'path' ? '' : ` (${t})`}`);
      }
    }
  }
  ranked.sort((a, b) => Number(b.exact) - Number(a.exact) || b.length - a.length);
  return { name: 'touches', ids: uniqueIds(ranked.map((r) => r.id), limit), because };
}

export async function glossarySeeds(sql: Sql, workspaceId: string, about: string, limit = SEED_LIMIT): Promise<SeedList> {
  const rows = await sql<{ term: string; node_ids: string[] }[]>`
    select term, node_ids from doco.glossary where workspace_id = ${workspaceId} and strpos(lower(${about}), lower(term)) > 0`;
  const because = new Map<string, string>();
  const ids: string[] = [];
  const lower = about.toLowerCase();
  for (const { term, node_ids } of rows.sort((a, b) => b.term.length - a.term.length)) {
    const escaped = term.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    if (!new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, 'u').test(lower)) continue;
    for (const id of node_ids) {
      ids.push(id);
      if (!because.has(id)) because.set(id, `defines the glossary term '${term}'`);
    }
  }
  return { name: 'glossary', ids: uniqueIds(ids, limit), because };
}
