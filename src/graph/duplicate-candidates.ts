// The duplicate guard's reads for a whole changeset: the index's BM25 hits of every draft, then
// one SQL query (doco.duplicate_candidates_batch) for the candidates of all drafts, each
// candidate's text read once and cut to a prefix long enough to compare it or rule it out.
import { sql } from 'kysely';
import type { Db } from '../db/connect.js';
import { lookupText, NEAR_DUPLICATE_SIMILARITY } from '../text/near-duplicate.js';
import type { VectorStore } from '../providers/vector/port.js';
import { mapLimited } from '../lib/map-limited.js';

/** The index, when this process has one (the CLI writes without: it checks exact duplicates only). */
export interface DuplicateIndex {
  store: VectorStore;
  embedder: { dimensions: number };
}

/** A create the guard checks: where it writes and what it says. */
export interface GuardDraft {
  operation: number;
  /** "$alias" or "operations[i]": how verdicts name it before it exists. */
  target: string;
  node_type: string;
  collectionId: string;
  collection: string;
  title: string;
  prose: string;
  body: Record<string, unknown>;
}

/** A record that is a candidate of at least one draft: its text, perhaps cut. */
export interface CandidateText {
  id: string;
  title: string;
  prose: string;
  collection: string;
  /** The prose is a prefix: enough to rule the record out, not always to compare it. */
  truncated: boolean;
}

/** One draft's candidate, and why it is comparable. */
export interface CandidatePair {
  /** Index into the drafts. */
  draft: number;
  id: string;
  exact: boolean;
  same_collection: boolean;
  shared_touches: string[];
}

const INDEX_HITS = 10;
/** Lookups in flight at once: the embedded index answers in-process, Qdrant over HTTP. */
const LOOKUP_CONCURRENCY = 8;
/** Characters read past the length a near-identical candidate could have, for a word cut at the end. */
const PREFIX_SLACK = 256;

interface BatchRow {
  draft: number | null;
  id: string | null;
  title: string | null;
  prose: string | null;
  prose_chars: number | null;
  collection: string | null;
  collection_id: string | null;
  node_type: string | null;
  recent: boolean | null;
  exact_drafts: number[] | null;
  cross_drafts: number[] | null;
  touch_kinds: string[];
  touch_values: string[];
}

/** Each draft's index hits (record ids), or why the index could not be asked. */
export async function lookUpDrafts(
  index: DuplicateIndex | undefined,
  workspaceId: string,
  drafts: GuardDraft[],
): Promise<Array<{ ids: string[]; failed?: string }>> {
  if (!index) return drafts.map(() => ({ ids: [] }));
  return mapLimited(drafts, LOOKUP_CONCURRENCY, async (d) => {
    const query = lookupText(`${d.title}\n${d.prose}`);
    if (!query) return { ids: [] };
    try {
      // BM25 alone: no query vector, so a hosted embedder is not called on every write.
      const { sparse } = await index.store.search({
        tenant: workspaceId,
        vector: new Float32Array(index.embedder.dimensions),
        text: query,
        limit: INDEX_HITS,
        sparseOnly: true,
        alone: true,
        recordWords: true,
        filter: { nodeTypes: [d.node_type] },
      });
      return { ids: [...new Set(sparse.map((h) => h.nodeId))] };
    } catch (err) {
      // The write does not depend on the index: exact duplicates are still found by SQL.
      return { ids: [], failed: (err as Error).message };
    }
  });
}

/**
 * The candidates of every draft in one round trip, paired here: a draft's candidates are its
 * own index hits, its exact duplicates and every unindexed record of its type, kept when they
 * share its collection or a touch. A candidate's prose comes cut at the length past which it
 * could not be near-identical to the longest draft, so a long record costs a prefix.
 */
export async function readCandidates(
  db: Db,
  workspaceId: string,
  drafts: GuardDraft[],
  hits: string[][],
  exclude: string[],
): Promise<{ texts: Map<string, CandidateText>; pairs: CandidatePair[] }> {
  const longest = Math.max(...drafts.map((d) => d.title.length + 1 + d.prose.length));
  const prefixChars = Math.ceil(longest / NEAR_DUPLICATE_SIMILARITY) + PREFIX_SLACK;
  const payload = drafts.map((d, i) => ({
    node_type: d.node_type,
    collection_id: d.collectionId,
    title: d.title,
    prose: d.prose,
    body: d.body,
    ids: hits[i] ?? [],
  }));
  // As one JSON value: parsed natively, where forty rows of arrays cost the client twice as much.
  const result = await sql<{ rows: BatchRow[] }>`
    select coalesce(json_agg(b), '[]') as rows
      from doco.duplicate_candidates_batch(${workspaceId}, ${JSON.stringify(payload)}::text::jsonb, ${prefixChars}::integer, ${exclude}::text[]) b`.execute(
    db,
  );
  const rows = result.rows[0]!.rows;
  const touchesOf = (r: BatchRow) => new Map(r.touch_kinds.map((k, i) => [`${k}\t${r.touch_values[i]}`, r.touch_values[i]!]));
  const draftTouches = new Map(rows.filter((r) => r.id === null).map((r) => [r.draft! - 1, touchesOf(r)]));
  const hitSets = hits.map((h) => new Set(h));
  const texts = new Map<string, CandidateText>();
  const pairs: CandidatePair[] = [];
  for (const r of rows) {
    if (r.id === null) continue;
    const id = r.id;
    texts.set(id, { id, title: r.title!, prose: r.prose ?? '', collection: r.collection!, truncated: r.prose_chars! > prefixChars });
    const exact = new Set(r.exact_drafts!.map((d) => d - 1));
    const mine = touchesOf(r);
    drafts.forEach((d, i) => {
      // The SQL kept records of the drafts' types: an unindexed one of another type is not this draft's.
      if (r.node_type !== d.node_type || !(r.recent || exact.has(i) || hitSets[i]!.has(id))) return;
      const same = r.collection_id === d.collectionId;
      const shared = same
        ? []
        : [...(draftTouches.get(i) ?? new Map<string, string>()).keys()]
            .filter((k) => mine.has(k))
            .map((k) => mine.get(k)!)
            .sort();
      if (same || shared.length) pairs.push({ draft: i, id, exact: exact.has(i), same_collection: same, shared_touches: shared });
    });
  }
  return { texts, pairs };
}

/** The whole prose of candidates whose prefix could not settle a comparison (rare: a long, repetitive text). */
export async function readWholeTexts(db: Db, workspaceId: string, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('doco.nodes')
    .select(['id', 'prose'])
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r.prose]));
}
