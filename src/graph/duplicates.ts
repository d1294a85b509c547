// The near-duplicate guard (DESIGN §5, issue 13): a create very close to an active record of
// its type that shares its collection or a touch gets a possible_duplicate verdict suggesting
// supersede; with on_duplicate "block" (or the collection's `duplicates = 'block'`) the
// changeset is refused as conflict. One index lookup (BM25 on the draft's longest words) and
// one SQL query per created record: the SQL side also finds exact duplicates by normalised-text
// hash and records the index has not drained yet, so a capture repeated a moment later counts.
import { sql } from 'kysely';
import type { Db } from '../db/connect.js';
import { AppError } from '../errors.js';
import { jaccard, lookupText, NEAR_DUPLICATE_SIMILARITY, recordText, shingles } from '../search/near-duplicate.js';
import type { VectorStore } from '../search/vector-store.js';
import type { ChangesetPlan } from './plan-changeset.js';
import { mapLimited } from './map-limited.js';
import type { Verdict } from './policies.js';
import type { ChangesetInput } from './schemas.js';

export type DuplicateMode = 'warn' | 'block';

export interface DuplicateCandidate {
  id: string;
  title: string;
  collection: string;
  /** Word-shingle Jaccard similarity of title and prose (1 for the same normalised text). */
  similarity: number;
  match: 'exact' | 'near';
  /** Why it is comparable: the same collection, or the touches both name. */
  same_collection: boolean;
  shared_touches: string[];
}

export interface DuplicateFinding {
  /** The draft: "$alias" or "operations[i]". */
  target: string;
  operation: number;
  candidate: DuplicateCandidate;
  block: boolean;
}

/** The index, when this process has one (the CLI writes without: it checks exact duplicates only). */
export interface DuplicateIndex {
  store: VectorStore;
  embedder: { dimensions: number };
}

const INDEX_HITS = 10;
const LOOKUP_CONCURRENCY = 4;

interface CandidateRow {
  id: string;
  title: string;
  prose: string;
  collection: string;
  exact: boolean;
  same_collection: boolean;
  shared_touches: string[];
}

/** The most similar active record of each created record's type, where it is near-identical. */
export async function findDuplicates(db: Db, index: DuplicateIndex | undefined, workspaceId: string, input: ChangesetInput, plan: ChangesetPlan): Promise<{ findings: DuplicateFinding[]; verdicts: Verdict[] }> {
  const requested: DuplicateMode = input.on_duplicate ?? 'warn';
  const creates = input.operations.flatMap((op, i) => (op.op === 'create' ? [{ op, i }] : []));
  if (creates.length === 0) return { findings: [], verdicts: [] };
  // A few creates at a time: a 30-record changeset should not wait for 30 lookups in a row.
  const perCreate = await mapLimited(creates, LOOKUP_CONCURRENCY, async ({ op, i }) => {
    const collection = plan.collectionOf.get(i)!;
    const content = plan.contentOf.get(i)!;
    const target = op.alias ? `$${op.alias}` : `operations[${i}]`;
    const text = recordText(content);
    const verdicts: Verdict[] = [];
    const hits = index ? await indexHits(index, workspaceId, op.node_type, text, verdicts, target) : [];
    const rows = await sql<CandidateRow>`
      select * from doco.duplicate_candidates(${workspaceId}, ${op.node_type}, ${collection.id}, ${content.title}, ${content.prose},
        ${JSON.stringify(content.body)}::jsonb, ${hits}::text[])`.execute(db);
    const candidate = bestCandidate(text, rows.rows);
    if (!candidate) return { verdicts, finding: undefined };
    const block = requested === 'block' || collection.duplicates === 'block';
    verdicts.push(duplicateVerdict(target, op.node_type, candidate, block));
    return { verdicts, finding: { target, operation: i, candidate, block } };
  });
  return { findings: perCreate.flatMap((r) => (r.finding ? [r.finding] : [])), verdicts: perCreate.flatMap((r) => r.verdicts) };
}

async function indexHits(index: DuplicateIndex, workspaceId: string, nodeType: string, text: string, verdicts: Verdict[], target: string): Promise<string[]> {
  const query = lookupText(text);
  if (!query) return [];
  try {
    // BM25 alone: no query vector, so a hosted embedder is not called on every write.
    const { sparse } = await index.store.search({
      tenant: workspaceId, vector: new Float32Array(index.embedder.dimensions), text: query, limit: INDEX_HITS, sparseOnly: true, alone: true, filter: { nodeTypes: [nodeType] },
    });
    return [...new Set(sparse.map((h) => h.nodeId))];
  } catch (err) {
    // The write does not depend on the index: exact duplicates are still found by SQL.
    verdicts.push({ policy: 'possible_duplicate', target, outcome: 'not_judged', reason: `near-duplicates not checked, the index failed: ${(err as Error).message}` });
    return [];
  }
}

function bestCandidate(text: string, rows: CandidateRow[]): DuplicateCandidate | undefined {
  const mine = shingles(text);
  let best: DuplicateCandidate | undefined;
  for (const row of rows) {
    const similarity = row.exact ? 1 : jaccard(mine, shingles(recordText(row)));
    if (similarity < NEAR_DUPLICATE_SIMILARITY || (best && best.similarity >= similarity)) continue;
    best = {
      id: row.id, title: row.title, collection: row.collection, similarity: Math.round(similarity * 1000) / 1000,
      match: row.exact ? 'exact' : 'near', same_collection: row.same_collection, shared_touches: row.shared_touches,
    };
  }
  return best;
}

function duplicateVerdict(target: string, nodeType: string, c: DuplicateCandidate, block: boolean): Verdict {
  const why = c.same_collection ? `in the same collection (${c.collection})` : `touching ${c.shared_touches.join(', ')}`;
  const how = c.match === 'exact' ? 'says the same as' : `is ${Math.round(c.similarity * 100)}% like`;
  return {
    policy: 'possible_duplicate', target, outcome: block ? 'block' : 'warn',
    reason: `this ${nodeType} ${how} ${c.id} ("${c.title}"), ${why}: supersede ${c.id} instead of adding a second one`,
    duplicate_of: c, suggest: { op: 'supersede', target: c.id },
  };
}

/** Refuses the changeset when a finding blocks: nothing has been written yet. */
export function refuseBlockedDuplicates(findings: DuplicateFinding[], verdicts: Verdict[]): void {
  const blocked = findings.find((f) => f.block);
  if (!blocked) return;
  const c = blocked.candidate;
  throw new AppError('conflict', `operations[${blocked.operation}] (create) ${c.match === 'exact' ? 'says the same as' : 'is very close to'} ${c.id} ("${c.title}"): supersede it instead`, {
    operation: blocked.operation, duplicate_of: c, suggest: { op: 'supersede', target: c.id }, verdicts,
  });
}

/**
 * Inside the writing transaction, for a blocking create: locks the draft's fingerprint until
 * commit and refuses it if an identical record committed meanwhile (two identical concurrent
 * captures: the second waits for the first, then sees it).
 */
export async function claimFingerprint(trx: Db, workspaceId: string, i: number, draft: { node_type: string; collectionId: string; title: string; prose: string; body: Record<string, unknown> }): Promise<void> {
  const { rows } = await sql<{ id: string | null }>`
    select doco.claim_text_fingerprint(${workspaceId}, ${draft.node_type}, ${draft.collectionId}, ${draft.title}, ${draft.prose}, ${JSON.stringify(draft.body)}::jsonb) as id`.execute(trx);
  const id = rows[0]?.id;
  if (id) throw new AppError('conflict', `operations[${i}] (create) says the same as ${id}, written a moment ago: supersede it instead`, { operation: i, duplicate_of: { id, match: 'exact' }, suggest: { op: 'supersede', target: id } });
}
