// What comes back with every write (its verdicts): each policy's outcome for each record, and
// for a possible duplicate, the record it is very close to. Shared by the policies, the
// duplicate guard and every interface that reports them.
export type VerdictOutcome = 'pass' | 'warn' | 'block' | 'not_judged';

export interface Verdict {
  policy: string;
  /** The record the verdict is about: its id, or "$alias" / "operations[i]" before it exists. */
  target: string;
  outcome: VerdictOutcome;
  reason: string;
  /** possible_duplicate only: the record this one is very close to. */
  duplicate_of?: DuplicateCandidate;
  /** possible_duplicate only: what to do instead. */
  suggest?: { op: 'supersede'; target: string };
}

export interface DuplicateCandidate {
  /** The record's id; for an earlier create of the same changeset, its new id (its "$alias" or "operations[i]" while nothing is written). */
  id: string;
  title: string;
  collection: string;
  /** Word-shingle Jaccard similarity of title and prose (1 for the same normalised text). */
  similarity: number;
  match: 'exact' | 'near';
  /** Why it is comparable: the same collection, or the touches both name. */
  same_collection: boolean;
  shared_touches: string[];
  /** Set when the candidate is an earlier create of the same changeset: its operation index. */
  operation?: number;
}
