// The brief's seed retrievers (docs/brief.md, step 1), each an independent ranked list of record
// ids, at most 100: vector (+ the store's BM25 as its hybrid twin), Postgres full text on the
// ask's ten longest words, exact `touching` matches in the touches index, and glossary terms.
import type { Sql } from '../db/connect.js';
import type { Embedder } from '../providers/embedder.js';
import type { StoreFilter, StoreTimings, VectorStore } from '../providers/vector/port.js';
import { droppedLexemes } from './fulltext-stats.js';
import { PROPOSAL_LIFECYCLES } from './item.js';

export { FULLTEXT_MAX_MATCHES } from './fulltext-stats.js';

export interface SeedList {
  name: 'vector' | 'bm25' | 'fulltext' | 'touches' | 'glossary' | 'clauses' | 'code_terms';
  ids: string[];
  /** The retriever's own score for each of `ids` (best first): BM25, cosine, ts_rank, a touch's strength. */
  scores: number[];
  /** Why a record is on this list, when the list knows better than "similar to the ask". */
  because: Map<string, string>;
  /** What went wrong on the way while the list still came back (the store's warnings). */
  warnings?: string[];
  /** The store's own steps, when it times them (the vector list only: one search serves both lists). */
  storeTimings?: StoreTimings;
  /**
   * What each record is on the list for, as its text names it: code_terms, the identifier (its
   * rarest, as `because` names it); touches, the path or value its strongest touch holds.
   */
  named?: Map<string, string>;
}

export const SEED_LIMIT = 100;

const uniqueIds = (ids: string[], limit = SEED_LIMIT) => [...new Set(ids)].slice(0, limit);

/** Hits of several chunks per record, best first → one entry per record at its best chunk's score. */
function bestPerRecord(hits: { nodeId: string; score: number }[], limit = SEED_LIMIT): { ids: string[]; scores: number[] } {
  const ids: string[] = [];
  const scores: number[] = [];
  const seen = new Set<string>();
  for (const h of hits) {
    if (seen.has(h.nodeId)) continue;
    seen.add(h.nodeId);
    ids.push(h.nodeId);
    scores.push(h.score);
    if (ids.length === limit) break;
  }
  return { ids, scores };
}

/**
 * The vector index's two lists for an ask: dense (vector) and BM25 hits, best chunk per record.
 * `signal` (a brief's deadline) ends the query's embedding request when the step is cut.
 */
export function indexSeeds(
  deps: { embedder: Embedder; store: VectorStore },
  workspaceId: string,
  about: string,
  filter?: StoreFilter,
  limit = SEED_LIMIT,
  signal?: AbortSignal,
): Promise<SeedList[]> {
  return storeSeeds(deps, workspaceId, about, filter, limit, false, signal);
}

/** The vector index's BM25 hits alone: no query vector is made (a hosted embedder would charge for one). */
export async function bm25Seeds(
  deps: { embedder: Embedder; store: VectorStore },
  workspaceId: string,
  about: string,
  filter?: StoreFilter,
  limit = SEED_LIMIT,
): Promise<SeedList> {
  const [bm25] = await storeSeeds(deps, workspaceId, about, filter, limit, true);
  return bm25!;
}

async function storeSeeds(
  deps: { embedder: Embedder; store: VectorStore },
  workspaceId: string,
  about: string,
  filter: StoreFilter | undefined,
  limit: number,
  sparseOnly: boolean,
  signal?: AbortSignal,
): Promise<SeedList[]> {
  const [vector] = sparseOnly ? [new Float32Array(deps.embedder.dimensions)] : await deps.embedder.embed([about], 'query', signal);
  // Several chunks of one record may hit: ask for more chunks than records wanted. Twice as
  // many, not three times: the same seeds on every eval set (one MRR moved by 0.001), and BM25's
  // pruning stops sooner with a higher k-th score (p95 14 -> 11 ms at 197k chunks).
  const { dense, sparse, warnings, timings } = await deps.store.search({
    tenant: workspaceId,
    vector: vector!,
    text: about,
    limit: limit * 2,
    sparseOnly,
    ...(filter ? { filter } : {}),
  });
  return [
    ...(sparseOnly
      ? []
      : [
          {
            name: 'vector' as const,
            ...bestPerRecord(dense, limit),
            because: new Map<string, string>(),
            ...(warnings?.length ? { warnings } : {}),
            ...(timings ? { storeTimings: timings } : {}),
          },
        ]),
    { name: 'bm25', ...bestPerRecord(sparse, limit), because: new Map() },
  ];
}

/** The ask's ten longest distinct words, as a Postgres OR query. */
export function fulltextQuery(about: string): string {
  const words = [
    ...new Set(
      about
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((w) => w.length >= 3),
    ),
  ];
  return words
    .sort((a, b) => b.length - a.length || a.localeCompare(b))
    .slice(0, 10)
    .join(' | ');
}

/**
 * Postgres full text over the ask's ten longest words, OR-ed. Words in more than a fifth of the
 * records (by the planner's statistics on search_tsv) are dropped first: they discriminate
 * nothing. So are words the statistics put in more than FULLTEXT_MAX_MATCHES rows, even when
 * nothing else is left: ranking every record they match is what made full text grow with a large
 * workspace (docs/eval.md, "Issue 29: the full-text bound and the index's ids"), and a seed list
 * drawn from thousands of near ties says less than BM25's list of the same word. Ranked by
 * ts_rank (term frequency), which costs a quarter of ts_rank_cd. The statistics are read at most
 * once a minute (fulltext-stats.ts). The query is built once (materialized): inlined, Postgres
 * planned its lookups three times and cast the query text to a tsquery again for every row it
 * ranked (9 against 2.9 ms at 10k records).
 */
export async function fulltextSeeds(
  sql: Sql,
  workspaceId: string,
  about: string,
  filter?: { nodeTypes?: string[]; collectionIds?: string[]; shapes?: string[] },
  limit = SEED_LIMIT,
  opts: { approvedOnly?: boolean } = {},
): Promise<SeedList> {
  const words = fulltextQuery(about);
  if (!words) return { name: 'fulltext', ids: [], scores: [], because: new Map() };
  const { tooMany, common } = await droppedLexemes(sql);
  const rows = await sql<{ id: string; rank: number }[]>`
    with lexemes as (
      select distinct l.lexeme from unnest(to_tsvector('english', ${words.replace(/ \| /g, ' ')})) as l
       where l.lexeme <> all(${tooMany}::text[])
    ), q as materialized (
      select coalesce(
        (select string_agg(quote_literal(lexeme), ' | ') from lexemes where lexeme <> all(${common}::text[])),
        (select string_agg(quote_literal(lexeme), ' | ') from lexemes))::tsquery as q
    )
    select n.id, ts_rank(n.search_tsv, q.q) as rank from doco.nodes n, q
     where n.workspace_id = ${workspaceId} and n.node_type <> 'principal' and q.q is not null and n.search_tsv @@ q.q
       ${filter?.nodeTypes ? sql`and n.node_type = any(${filter.nodeTypes})` : sql``}
       ${filter?.collectionIds ? sql`and n.collection_id = any(${filter.collectionIds})` : sql``}
       ${filter?.shapes ? sql`and coalesce(n.body->>'shape', '') = any(${filter.shapes})` : sql``}
       ${opts.approvedOnly ? sql`and n.lifecycle <> all(${[...PROPOSAL_LIFECYCLES]})` : sql``}
     order by rank desc, n.updated_at desc, n.id
     limit ${limit}`;
  return { name: 'fulltext', ids: rows.map((r) => r.id), scores: rows.map((r) => r.rank), because: new Map() };
}

/** A touched path also matches records naming one of its folders or a path it ends with. */
export function pathVariants(path: string): string[] {
  const clean = path
    .trim()
    .replace(/^(\.{1,2}\/|\/)+/, '')
    .replace(/\/+$/, '');
  if (!clean) return [];
  const parts = clean.split('/').filter(Boolean);
  const n = parts.length;
  const variants = new Set<string>([parts.join('/')]); // the path
  const add = (variant: string) => variant.length <= MAX_TOUCH_CHARS && variants.add(variant);
  for (let i = Math.max(1, n - MAX_VARIANT_PARTS); i < n; i++) add(parts.slice(i).join('/')); // its suffixes
  for (let i = Math.min(n - 1, MAX_VARIANT_PARTS); i >= 1; i--) add(parts.slice(0, i).join('/')); // its folders
  return [...variants];
}

/** The longest value a touch holds (sql/touches.sql): a longer variant would match nothing. */
const MAX_TOUCH_CHARS = 500;
/**
 * A path's suffixes and folders looked up, at most this many of each: the deepest ones a real
 * tree holds. All of them was O(segments²) characters: 100 touched paths of 500 segments each
 * held a brief for seconds, and the server's other requests with it.
 */
export const MAX_VARIANT_PARTS = 24;

type TouchKind = 'path' | 'url' | 'record' | 'issue';

/**
 * The variants a brief looks a touched path up by: pathVariants less the top folder of a path
 * three or more deep. `pkg` of pkg/ha/ha_tracker.go, or `src` of src/billing/refund.ts, is the top
 * of most of the repository: a section naming it says nothing of this file, yet it was sent as
 * "touches pkg" (seen in 6 of 12 edit briefs over the Cortex docs). Measured: Cortex's edit asks'
 * sent in full at 4,000 tokens 0.792 → 0.819, nothing else moved (docs/eval.md).
 */
function touchedPathVariants(path: string): string[] {
  const variants = pathVariants(path);
  const parts = variants[0]?.split('/') ?? [];
  return parts.length >= 3 ? variants.filter((v) => v !== parts[0]) : variants;
}

function touchLookups(touching: string): { kind: TouchKind; values: string[] }[] {
  const t = touching.trim();
  if (/^([\w.-]+\/[\w.-]+)?#\d+$/.test(t)) return [{ kind: 'issue', values: [t] }];
  if (/^https?:\/\//i.test(t)) {
    const gh = t.match(/^https?:\/\/github\.com\/([\w.-]+)\/([\w.-]+)\/(?:pull|issues)\/(\d+)/i);
    const blob = t.match(/^https?:\/\/[^/]+\/[\w.-]+\/[\w.-]+(?:\/-)?\/(?:blob|tree)\/[^/]+\/([^?#]+)/i);
    return [
      { kind: 'url', values: [t] },
      ...(gh ? [{ kind: 'issue' as const, values: [`${gh[1]}/${gh[2]}#${gh[3]}`] }] : []),
      ...(blob ? [{ kind: 'path' as const, values: touchedPathVariants(blob[1]!) }] : []),
    ];
  }
  if (/^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/.test(t)) return [{ kind: 'record', values: [t] }];
  return [{ kind: 'path', values: touchedPathVariants(t) }];
}

/**
 * How strongly a touches row bears on what was touched: the path itself (or the record, issue or
 * URL) is strong evidence; a path the touched one ends with (a doc naming state/validation.go
 * for node/state/validation.go) nearly as strong, a bare file name less; a folder weak, and the
 * weaker the further up it is — a doc naming `types/` is about many files besides this one.
 */
export const TOUCH_STRENGTH = { exact: 1, suffix: 0.8, fileName: 0.5, folder: 0.25 } as const;

function touchStrength(kind: TouchKind, touched: string, value: string): number {
  if (kind !== 'path' || value === touched) return TOUCH_STRENGTH.exact;
  const depth = touched.split('/').length;
  const valueDepth = value.split('/').length;
  if (touched.endsWith(`/${value}`)) return valueDepth > 1 ? TOUCH_STRENGTH.suffix : TOUCH_STRENGTH.fileName;
  return TOUCH_STRENGTH.folder * (valueDepth / Math.max(1, depth - 1));
}

/**
 * A touch a record names only among its links (doco.touches.links_only, sql/touches.sql: a
 * reference definition its prose does not use, a list of links, a References section) is weak
 * evidence when there is stronger: another record names the same path in its prose or a
 * heading, or the ask has several concerns, whose own words find what each needs. It then
 * weighs this share of its strength (as much as a bare file name; a prose mention of a path the
 * touched one ends with weighs more), and being under 1 it is not lifted by the touch floor
 * (src/brief/touch-floor.ts). Alone, for a single-concern ask, it counts in full: a references
 * list is then the docs' only tie to the file. 0.25, 0.5 and 0.8 measured the same (docs/eval.md,
 * "Touch evidence by where the path appears").
 */
export const LINKS_ONLY_SHARE = 0.5;

/** `multiPart`: the ask has several concerns (src/retrieval/clauses.ts). */
export async function touchSeeds(
  sql: Sql,
  workspaceId: string,
  touching: string[],
  multiPart = false,
  limit = SEED_LIMIT,
): Promise<SeedList> {
  const because = new Map<string, string>();
  const named = new Map<string, string>();
  const strength = new Map<string, number>();
  const lookups = touching.flatMap((t) => touchLookups(t).flatMap((l) => (l.values.length ? [{ t, ...l }] : [])));
  // One statement for every path the ask touches, not one each.
  const found = lookups.length
    ? await sql<{ node_id: string; kind: TouchKind; value: string; links_only: boolean }[]>`
        select node_id, kind, value, links_only from doco.touches
         where workspace_id = ${workspaceId} and kind = any(${[...new Set(lookups.map((l) => l.kind))]}) and value = any(${[...new Set(lookups.flatMap((l) => l.values))]})`
    : [];
  for (const { t, kind, values } of lookups) {
    const wanted = new Set(values);
    const rows = found.filter((r) => r.kind === kind && wanted.has(r.value));
    const inProse = new Set(rows.filter((r) => !r.links_only).map((r) => r.value));
    for (const r of rows) {
      const weak = r.links_only && (multiPart || inProse.has(r.value));
      const s = touchStrength(kind, values[0]!, r.value) * (weak ? LINKS_ONLY_SHARE : 1);
      if (s <= (strength.get(r.node_id) ?? 0)) continue;
      strength.set(r.node_id, s);
      named.set(r.node_id, r.value);
      because.set(r.node_id, `touches ${r.value}${r.value === values[0] || kind !== 'path' ? '' : ` (${t})`}`);
    }
  }
  const ranked = [...strength.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, limit);
  return { name: 'touches', ids: ranked.map(([id]) => id), scores: ranked.map(([, s]) => s), because, named };
}

/** A glossary term and the records that define it. */
export interface GlossaryRow {
  term: string;
  node_ids: string[];
}

/** The glossary terms whose text the ask holds (a coarse filter: glossaryList keeps whole words only). */
export const glossaryRowsNamedBy = (sql: Sql, workspaceId: string, about: string) => sql`
  select term, node_ids from doco.glossary where workspace_id = ${workspaceId} and strpos(lower(${about}), lower(term)) > 0`;

export async function glossarySeeds(sql: Sql, workspaceId: string, about: string, limit = SEED_LIMIT): Promise<SeedList> {
  const rows = await sql<GlossaryRow[]>`${glossaryRowsNamedBy(sql, workspaceId, about)}`;
  return glossaryList(rows, about, limit);
}

/** The records defining a term the ask names as a whole word (or phrase), longest term first. */
export function glossaryList(rows: readonly GlossaryRow[], about: string, limit = SEED_LIMIT): SeedList {
  const because = new Map<string, string>();
  const ids: string[] = [];
  const lower = about.toLowerCase();
  for (const { term, node_ids } of [...rows].sort((a, b) => b.term.length - a.term.length)) {
    const escaped = term.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    if (!new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, 'u').test(lower)) continue;
    for (const id of node_ids) {
      ids.push(id);
      if (!because.has(id)) because.set(id, `defines the glossary term '${term}'`);
    }
  }
  const unique = uniqueIds(ids, limit);
  return { name: 'glossary', ids: unique, scores: unique.map(() => 1), because };
}
