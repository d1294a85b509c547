// The near-duplicate guard (docs/writes.md, "Near-duplicates"): a create very close to an active record of
// its type that shares its collection or a touch, or to an earlier create of the same
// changeset, gets a possible_duplicate verdict; with on_duplicate "block" (or the collection's
// `duplicates = 'block'`) the changeset is refused as conflict. One index lookup per create and
// one SQL query per changeset (duplicate-candidates.ts): the SQL side also finds exact
// duplicates by normalised-text hash and the records the index has not drained yet, so a
// capture repeated a moment later counts.
import { sql } from 'kysely';
import type { Db } from '../db/connect.js';
import { AppError } from '../errors.js';
import { jaccard, NEAR_DUPLICATE_SIMILARITY, normalisedWords, recordText, SHINGLE_WORDS, shingleKeys } from '../text/near-duplicate.js';
import {
  lookUpDrafts,
  readCandidates,
  readWholeTexts,
  type CandidateText,
  type DuplicateIndex,
  type GuardDraft,
} from './duplicate-candidates.js';
import type { ChangesetPlan } from './plan-changeset.js';
import type { DuplicateCandidate, Verdict } from './verdicts.js';
import type { ChangesetInput } from './schemas.js';

export type { DuplicateIndex } from './duplicate-candidates.js';
export type DuplicateMode = 'warn' | 'block';

export interface DuplicateFinding {
  /** The draft: "$alias" or "operations[i]". */
  target: string;
  operation: number;
  node_type: string;
  candidate: DuplicateCandidate;
  block: boolean;
}

export interface DuplicateCheck {
  findings: DuplicateFinding[];
  /** Creates the index could not check (their exact duplicates were still looked for). */
  unchecked: Verdict[];
}

export const NO_DUPLICATE_CHECK: DuplicateCheck = { findings: [], unchecked: [] };

/** The most similar candidate of each created record, where it is near-identical. */
export async function findDuplicates(
  db: Db,
  index: DuplicateIndex | undefined,
  workspaceId: string,
  input: ChangesetInput,
  plan: ChangesetPlan,
  exclude: string[] = [],
): Promise<DuplicateCheck> {
  const drafts = guardDrafts(input, plan);
  if (drafts.length === 0) return NO_DUPLICATE_CHECK;
  const looked = await lookUpDrafts(index, workspaceId, drafts);
  const { texts, pairs } = await readCandidates(
    db,
    workspaceId,
    drafts,
    looked.map((l) => l.ids),
    exclude,
  );
  // One word numbering for every text of this check: shingles compared as numbers.
  const dictionary = new Map<string, number>();
  const mine = drafts.map((d) => shingleKeys(recordText(d), dictionary));
  await readWholeWhereUnsettled(
    db,
    workspaceId,
    texts,
    pairs.map((p) => ({ id: p.id, exact: p.exact, draftShingles: mine[p.draft]!.size })),
    dictionary,
  );
  const theirs = new Map([...texts.values()].map((t) => [t.id, shingleKeys(recordText(t), dictionary)]));

  const best: Array<DuplicateCandidate | undefined> = drafts.map(() => undefined);
  const offer = (i: number, c: DuplicateCandidate) => {
    const held = best[i];
    if (c.similarity >= NEAR_DUPLICATE_SIMILARITY && (!held || c.similarity > held.similarity)) best[i] = c;
  };
  for (const p of pairs) {
    const t = texts.get(p.id)!;
    // A prefix still cut here was settled as too unlike: its Jaccard is below the bar too.
    const similarity = p.exact ? 1 : jaccard(mine[p.draft]!, theirs.get(p.id)!);
    offer(p.draft, {
      id: t.id,
      title: t.title,
      collection: t.collection,
      similarity: round3(similarity),
      match: p.exact ? 'exact' : 'near',
      same_collection: p.same_collection,
      shared_touches: p.shared_touches,
    });
  }
  // Earlier creates of the same changeset: a record already written wins a tie (it is the one
  // to supersede).
  // Pairs whose sizes alone keep them under the bar (Jaccard is at most the smaller set's size over
  // the larger's), or under the best found already, are not compared, and the event loop gets a turn
  // between drafts: 50 long creates compared pair by pair held it 1.2 to 6.6 s (a hostile review).
  const words = drafts.map((d) => normalisedWords(recordText(d)).join(' '));
  for (const [j, d] of drafts.entries()) {
    if (j > 0) await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < j; i++) {
      const e = drafts[i]!;
      if (e.node_type !== d.node_type || e.collectionId !== d.collectionId) continue;
      const exact = words[i] === words[j];
      if (!exact) {
        const [a, b] = [mine[j]!.size, mine[i]!.size];
        const bound = Math.max(a, b) === 0 ? 1 : Math.min(a, b) / Math.max(a, b);
        if (bound < NEAR_DUPLICATE_SIMILARITY || bound <= (best[j]?.similarity ?? 0)) continue;
      }
      const similarity = exact ? 1 : jaccard(mine[j]!, mine[i]!);
      offer(j, {
        id: e.target,
        title: e.title,
        collection: e.collection,
        similarity: round3(similarity),
        match: exact ? 'exact' : 'near',
        same_collection: true,
        shared_touches: [],
        operation: e.operation,
      });
    }
  }

  const requested: DuplicateMode = input.on_duplicate ?? 'warn';
  const findings = drafts.flatMap((d, i) => {
    const candidate = best[i];
    if (!candidate) return [];
    const block = requested === 'block' || plan.collectionOf.get(d.operation)!.duplicates === 'block';
    return [{ target: d.target, operation: d.operation, node_type: d.node_type, candidate, block }];
  });
  const unchecked = drafts.flatMap((d, i) => {
    const failed = looked[i]!.failed;
    return failed === undefined
      ? []
      : [
          {
            policy: 'possible_duplicate',
            target: d.target,
            outcome: 'not_judged' as const,
            reason: `near-duplicates not checked, the index failed: ${failed}`,
          },
        ];
  });
  return { findings, unchecked };
}

function guardDrafts(input: ChangesetInput, plan: ChangesetPlan): GuardDraft[] {
  return input.operations.flatMap((op, i) => {
    if (op.op !== 'create') return [];
    const collection = plan.collectionOf.get(i)!;
    const content = plan.contentOf.get(i)!;
    return [
      {
        operation: i,
        target: op.alias ? `$${op.alias}` : `operations[${i}]`,
        node_type: op.node_type,
        collectionId: collection.id,
        collection: collection.slug,
        ...content,
      },
    ];
  });
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * A cut candidate is settled by its prefix when the prefix alone has more shingles than a
 * near-identical record of the draft could (Jaccard ≤ |draft| / |candidate|); otherwise its
 * whole prose is read, so the comparison is never made on part of a text.
 */
async function readWholeWhereUnsettled(
  db: Db,
  workspaceId: string,
  texts: Map<string, CandidateText>,
  pairs: Array<{ id: string; exact: boolean; draftShingles: number }>,
  dictionary: Map<string, number>,
): Promise<void> {
  const prefixShingles = new Map<string, number>();
  const unsettled = new Set<string>();
  for (const p of pairs) {
    const t = texts.get(p.id)!;
    if (!t.truncated || p.exact || unsettled.has(p.id)) continue;
    let n = prefixShingles.get(p.id);
    if (n === undefined) {
      // The last word may be cut: without it the prefix's shingles are all the record's.
      const words = normalisedWords(recordText(t)).slice(0, -1);
      n = words.length > SHINGLE_WORDS ? shingleKeys(words.join(' '), dictionary).size : 0;
      prefixShingles.set(p.id, n);
    }
    if (n * NEAR_DUPLICATE_SIMILARITY <= p.draftShingles) unsettled.add(p.id);
  }
  for (const [id, prose] of await readWholeTexts(db, workspaceId, [...unsettled]))
    texts.set(id, { ...texts.get(id)!, prose, truncated: false });
}

/**
 * The possible_duplicate verdicts, naming records by `nameOf` (after commit, a create of the
 * same changeset by its new id). A candidate created in the same changeset gets no `suggest`:
 * the remedy is to write one of the two, not to supersede.
 */
export function duplicateVerdicts(check: DuplicateCheck, nameOf: (ref: string) => string = (ref) => ref): Verdict[] {
  const found = check.findings.map((f) => duplicateVerdict(f, nameOf));
  return [...check.unchecked.map((v) => ({ ...v, target: nameOf(v.target) })), ...found];
}

function duplicateVerdict(f: DuplicateFinding, nameOf: (ref: string) => string): Verdict {
  const c = { ...f.candidate, id: nameOf(f.candidate.id) };
  const how = c.match === 'exact' ? 'says the same as' : `is ${Math.round(c.similarity * 100)}% like`;
  const verdict = { policy: 'possible_duplicate', target: nameOf(f.target), outcome: f.block ? ('block' as const) : ('warn' as const) };
  if (c.operation !== undefined) {
    return {
      ...verdict,
      reason: `this ${f.node_type} ${how} ${c.id} ("${c.title}"), created earlier in this changeset: write one of them`,
      duplicate_of: c,
    };
  }
  const why = c.same_collection ? `in the same collection (${c.collection})` : `touching ${c.shared_touches.join(', ')}`;
  return {
    ...verdict,
    reason: `this ${f.node_type} ${how} ${c.id} ("${c.title}"), ${why}: supersede ${c.id} instead of adding a second one`,
    duplicate_of: c,
    suggest: { op: 'supersede', target: c.id },
  };
}

/** Refuses the changeset when a finding blocks: nothing has been written yet. */
export function refuseBlockedDuplicates(findings: DuplicateFinding[], verdicts: Verdict[]): void {
  const blocked = findings.find((f) => f.block);
  if (!blocked) return;
  const c = blocked.candidate;
  const how = c.match === 'exact' ? 'says the same as' : 'is very close to';
  if (c.operation !== undefined) {
    throw new AppError(
      'conflict',
      `operations[${blocked.operation}] (create) ${how} operations[${c.operation}] (${c.id}, "${c.title}") in the same changeset: write one of them`,
      {
        operation: blocked.operation,
        duplicate_of: c,
        verdicts,
      },
    );
  }
  throw new AppError('conflict', `operations[${blocked.operation}] (create) ${how} ${c.id} ("${c.title}"): supersede it instead`, {
    operation: blocked.operation,
    duplicate_of: c,
    suggest: { op: 'supersede', target: c.id },
    verdicts,
  });
}

export interface ClaimDraft {
  operation: number;
  node_type: string;
  collectionId: string;
  title: string;
  prose: string;
  body: Record<string, unknown>;
}

/**
 * Inside the writing transaction, for the blocking creates: locks their fingerprints until
 * commit and refuses the changeset if an identical record committed meanwhile (two identical
 * concurrent captures: the second waits for the first, then sees it). One round trip.
 */
export async function claimFingerprints(trx: Db, workspaceId: string, drafts: ClaimDraft[]): Promise<void> {
  if (drafts.length === 0) return;
  const payload = drafts.map((d) => ({
    node_type: d.node_type,
    collection_id: d.collectionId,
    title: d.title,
    prose: d.prose,
    body: d.body,
  }));
  const { rows } = await sql<{
    draft: number;
    id: string;
  }>`select * from doco.claim_text_fingerprints(${workspaceId}, ${JSON.stringify(payload)}::text::jsonb)`.execute(trx);
  const first = rows[0];
  if (!first) return;
  const i = drafts[first.draft - 1]!.operation;
  throw new AppError('conflict', `operations[${i}] (create) says the same as ${first.id}, written a moment ago: supersede it instead`, {
    operation: i,
    duplicate_of: { id: first.id, match: 'exact' },
    suggest: { op: 'supersede', target: first.id },
  });
}
