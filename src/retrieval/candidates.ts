// Loading the records the retrievers found, and the standing orders every brief carries.
import type { Sql } from '../db/connect.js';
import { cutText } from '../lib/well-formed.js';
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
 * The body as stored when it is small (as every body Doco writes is), else the bounded fields
 * retrieval reads (doco.candidate_body, sql/candidates.sql): a body may hold 256 KiB, and every
 * candidate's was loaded, its pointer of 240 KB sent whole in every search result and brief item
 * (a hostile review). pg_column_size reads the stored size without unpacking it; projecting every
 * body cost a 10k brief ~1.5 ms. A small stored body may still unpack large (text that compresses
 * well): boundedBody cuts what it holds as the projection does.
 */
const SMALL_BODY_BYTES = 2048;
const metaColumns = (sql: Sql) => sql`
  n.id, n.node_type, n.lifecycle, n.title,
  case when pg_column_size(n.body) <= ${SMALL_BODY_BYTES} then n.body else doco.candidate_body(n.body) end as body,
  coalesce(r.pagerank, 0) as pagerank, n.version, n.updated_at, c.slug as collection, c.template`;

/** A pointer's fields kept, and each string's characters, when it is too large to send as written. */
const POINTER_FIELDS = 20;
const POINTER_TEXT_CHARS = 500;
const HEADINGS = 10;
const HEADING_CHARS = 300;

const smallValue = (v: unknown) =>
  typeof v === 'string'
    ? v.length <= POINTER_TEXT_CHARS
    : typeof v !== 'object' || v === null || JSON.stringify(v).length <= POINTER_TEXT_CHARS;

/**
 * A pointer as written when it is small; else its first 20 string, number and true/false fields
 * in key order, strings cut to 500 characters with "…" (as doco.bounded_pointer cuts one).
 */
export function boundedPointer(pointer: unknown): Record<string, unknown> | undefined {
  if (!pointer || typeof pointer !== 'object' || Array.isArray(pointer)) return undefined;
  const entries = Object.entries(pointer);
  if (entries.length <= POINTER_FIELDS && entries.every(([k, v]) => k.length <= 100 && smallValue(v)))
    return pointer as Record<string, unknown>;
  const kept = entries
    .filter(([k, v]) => k.length <= 100 && (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, POINTER_FIELDS)
    .map(([k, v]) => [k, typeof v === 'string' && v.length > POINTER_TEXT_CHARS ? `${cutText(v, POINTER_TEXT_CHARS - 1)}…` : v]);
  return Object.fromEntries(kept);
}

/** The row, its body cut as the projection cuts it (in place: most bodies need nothing). */
function withBoundedBody<T extends CandidateMeta>(row: T): T {
  row.body = boundedBody(row.body);
  return row;
}

/** The body of a candidate loaded whole, cut as the projection cuts: its pointer and its heading path. */
function boundedBody(body: Record<string, unknown>): Record<string, unknown> {
  const pointer = boundedPointer(body.pointer);
  const headings = body.heading_path;
  const longHeadings =
    Array.isArray(headings) && (headings.length > HEADINGS || headings.some((h) => typeof h === 'string' && h.length > HEADING_CHARS));
  if (pointer === body.pointer && !longHeadings) return body;
  const out: Record<string, unknown> = { ...body };
  if (pointer === undefined) delete out.pointer;
  else out.pointer = pointer;
  if (longHeadings)
    out.heading_path = (headings as unknown[]).slice(0, HEADINGS).map((h) => (typeof h === 'string' ? cutText(h, HEADING_CHARS) : h));
  return out;
}
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
  return new Map(rows.map((r) => [r.id, withBoundedBody(r)]));
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
  const rows = await sql<CandidateRow[]>`
    select ${columns(sql)} from ${joined(sql)}
     where n.workspace_id = ${workspaceId} and c.template = 'constitution' and n.lifecycle = 'active' and n.node_type <> 'principal'
     order by pagerank desc, n.updated_at desc, n.id limit ${limit}`;
  return rows.map(withBoundedBody);
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
  rows.map((r) => withBoundedBody({ ...r, updated_at: new Date(r.updated_at) }));

/** Tokens the workspace's index holds (characters / 4): the receipt's "searched" figure. */
export async function searchedTokens(sql: Sql, workspaceId: string): Promise<number> {
  const [row] = await sql<
    { chars: string | null }[]
  >`select sum(chars)::text as chars from doco.index_stats where workspace_id = ${workspaceId}`;
  return tokensOfChars(row?.chars);
}

export const tokensOfChars = (chars: string | null | undefined) => Math.round(Number(chars ?? 0) / 4);
