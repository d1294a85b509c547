// Loading the records the retrievers found, and the standing orders every brief carries.
import type { Sql } from '../db/connect.js';
import { isTextOf, recalled, remember, type VersionedProse } from './prose-cache.js';

/** A candidate as retrieval ranks it: everything but its text. */
export interface CandidateMeta {
  id: string;
  node_type: string;
  lifecycle: string;
  title: string;
  /** What retrieval reads of the body: shape, source_kind, source_type, adr_status, heading_path and pointer, bounded. */
  body: Record<string, unknown>;
  pagerank: number;
  version: number;
  updated_at: Date;
  collection: string;
  template: string;
}

/** A candidate with its text, for what reads it: the reranker, the because line, the items sent. */
export interface CandidateRow extends CandidateMeta {
  prose: string;
}

/**
 * Of the body, the bounded fields retrieval reads (doco.candidate_body, sql/candidates.sql): a body
 * may hold 256 KiB, and a pointer of 240 KB went out whole in every search result and brief item.
 */
const metaColumns = (sql: Sql) => sql`
  n.id, n.node_type, n.lifecycle, n.title, doco.candidate_body(n.body) as body, coalesce(r.pagerank, 0) as pagerank, n.version, n.updated_at, c.slug as collection, c.template`;
/** A record with its collection and its PageRank (migration 0024: a record without a rank row scores 0). */
const joined = (sql: Sql) => sql`
  doco.nodes n join doco.collections c on c.id = n.collection_id left join doco.node_ranks r on r.node_id = n.id`;
/**
 * Prose is capped: a brief shows at most 1,200 characters of an item and reranks on 2,000. A text
 * this long may have been cut here, so what is sent of its end is marked cut (brief/budget.ts).
 */
export const CANDIDATE_TEXT_CHARS = 2000;
const columns = (sql: Sql) => sql`${metaColumns(sql)}, left(n.prose, ${CANDIDATE_TEXT_CHARS}) as prose`;

async function loadRows<T extends CandidateMeta>(sql: Sql, workspaceId: string, ids: string[], withText: boolean): Promise<Map<string, T>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<T[]>`
    select ${withText ? columns(sql) : metaColumns(sql)} from ${joined(sql)}
     where n.workspace_id = ${workspaceId} and n.id = any(${ids}) and n.node_type <> 'principal'`;
  return new Map(rows.map((r) => [r.id, r]));
}

export const loadCandidates = (sql: Sql, workspaceId: string, ids: string[]) => loadRows<CandidateRow>(sql, workspaceId, ids, true);

/**
 * The candidates without their text. Retrieval ranks a few hundred records of which a brief
 * reads the text of at most its pool: prose is stored compressed, and decompressing every
 * candidate's was most of what loading them cost.
 */
export const loadCandidateMeta = (sql: Sql, workspaceId: string, ids: string[]) => loadRows<CandidateMeta>(sql, workspaceId, ids, false);

/** Reads the text of `ids` (capped as loadCandidates caps it) with the version it is of, and remembers it (prose-cache.ts). */
async function readProse(sql: Sql, workspaceId: string, ids: string[]): Promise<Map<string, VersionedProse>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<{ id: string; prose: string; version: number; updated_at: Date }[]>`
    select n.id, left(n.prose, ${CANDIDATE_TEXT_CHARS}) as prose, n.version, n.updated_at
      from doco.nodes n where n.workspace_id = ${workspaceId} and n.id = any(${ids})`;
  const out = new Map<string, VersionedProse>();
  for (const r of rows) {
    const entry = { prose: r.prose, version: r.version, updatedAt: r.updated_at.getTime() };
    remember(sql, r.id, entry);
    out.set(r.id, entry);
  }
  return out;
}

/** The text of candidates loaded without it, capped as loadCandidates caps it. */
export async function loadProse(sql: Sql, workspaceId: string, ids: string[]): Promise<Map<string, string>> {
  return new Map([...(await readProse(sql, workspaceId, ids))].map(([id, e]) => [id, e.prose]));
}

/**
 * The text of `ids` before their rows are read (beside the hop): what is remembered, at whatever
 * version, and the rest read now. Each holds the version it is of: give a row a text only when
 * isTextOf says it is that row's (a write may come between); withProse reads what is left.
 */
export async function loadProseAhead(sql: Sql, workspaceId: string, ids: string[]): Promise<Map<string, VersionedProse>> {
  const out = new Map<string, VersionedProse>();
  const unknown: string[] = [];
  for (const id of ids) {
    const hit = recalled(sql, id);
    if (hit) out.set(id, hit);
    else unknown.push(id);
  }
  for (const [id, entry] of await readProse(sql, workspaceId, unknown)) out.set(id, entry);
  return out;
}

/** Whether a candidate came with its text (the constitution, a brief as of a time). */
export const hasProse = (row: CandidateMeta): row is CandidateRow => typeof (row as Partial<CandidateRow>).prose === 'string';

/**
 * The rows of `ids` with their text: those that came with it as they are, the others' loaded.
 * A record gone since it was ranked keeps an empty text.
 */
export async function withProse(
  sql: Sql,
  workspaceId: string,
  ids: string[],
  rows: Map<string, CandidateMeta>,
): Promise<Map<string, CandidateRow>> {
  const known = new Map<string, string>();
  const missing: string[] = [];
  for (const id of ids) {
    const row = rows.get(id)!;
    if (hasProse(row)) continue;
    const hit = recalled(sql, id);
    if (isTextOf(hit, row)) known.set(id, hit.prose);
    else missing.push(id);
  }
  for (const [id, entry] of await readProse(sql, workspaceId, missing)) known.set(id, entry.prose);
  return new Map(
    ids.map((id) => {
      const row = rows.get(id)!;
      return [id, hasProse(row) ? row : { ...row, prose: known.get(id) ?? '' }];
    }),
  );
}

/** The constitution's active records: standing orders, in every brief. */
export async function loadConstitution(sql: Sql, workspaceId: string, limit = 50): Promise<CandidateRow[]> {
  return sql<CandidateRow[]>`
    select ${columns(sql)} from ${joined(sql)}
     where n.workspace_id = ${workspaceId} and c.template = 'constitution' and n.lifecycle = 'active' and n.node_type <> 'principal'
     order by pagerank desc, n.updated_at desc, n.id limit ${limit}`;
}

/**
 * The constitution's rows as loadConstitution reads them, as one JSON array: for a statement that
 * reads them beside other things (loadBriefContext). `updated_at` comes as text; constitutionFromJson
 * makes it a date again.
 */
export const constitutionJson = (sql: Sql, workspaceId: string, limit = 50) => sql`
  coalesce((select json_agg(c order by c.pagerank desc, c.updated_at desc, c.id) from (
    select ${columns(sql)} from ${joined(sql)}
     where n.workspace_id = ${workspaceId} and c.template = 'constitution' and n.lifecycle = 'active' and n.node_type <> 'principal'
     order by pagerank desc, n.updated_at desc, n.id limit ${limit}) c), '[]')`;

export const constitutionFromJson = (rows: (Omit<CandidateRow, 'updated_at'> & { updated_at: string })[]): CandidateRow[] =>
  rows.map((r) => ({ ...r, updated_at: new Date(r.updated_at) }));

/** Tokens the workspace's index holds (characters / 4): the receipt's "searched" figure. */
export async function searchedTokens(sql: Sql, workspaceId: string): Promise<number> {
  const [row] = await sql<
    { chars: string | null }[]
  >`select sum(chars)::text as chars from doco.index_stats where workspace_id = ${workspaceId}`;
  return tokensOfChars(row?.chars);
}

export const tokensOfChars = (chars: string | null | undefined) => Math.round(Number(chars ?? 0) / 4);
