// When the duplicate check runs against the write it guards. A check whose findings can only
// warn (no create blocks) and that nothing else in the changeset can change the outcome of
// (creates and relates only) runs beside the writing transaction and is read after commit, so
// a capture does not wait for it; otherwise it is read before anything is written, since a
// blocking finding must refuse the changeset.
import type { Db } from '../db/connect.js';
import type { DuplicateIndex } from './duplicate-candidates.js';
import { findDuplicates, NO_DUPLICATE_CHECK, type DuplicateCheck } from './duplicates.js';
import type { ChangesetPlan } from './plan-changeset.js';
import type { ChangesetInput } from './schemas.js';

export interface DuplicateGuardRun {
  /** The check, when it must be read before the write (it may refuse it); undefined when it runs beside it. */
  beforeWrite: Promise<DuplicateCheck> | undefined;
  /** The check, read once the write committed. */
  afterWrite(): Promise<DuplicateCheck>;
  /** Resolves when the check is over, however it ended (a refused write waits for it too). */
  settled: Promise<void>;
}

/** Ops that cannot change which records a create duplicates: they touch no record's text or lifecycle. */
const OVERLAPPABLE = new Set(['create', 'relate']);

export function blocksDuplicates(input: ChangesetInput, plan: ChangesetPlan, i: number): boolean {
  return input.on_duplicate === 'block' || plan.collectionOf.get(i)!.duplicates === 'block';
}

/**
 * Starts the check. `newIds` are the ids the changeset's creates will get: a check beside the
 * transaction may run after it committed, and must not find the changeset's own records.
 */
export function startDuplicateGuard(
  db: Db,
  index: DuplicateIndex | undefined,
  workspaceId: string,
  input: ChangesetInput,
  plan: ChangesetPlan,
  newIds: string[],
): DuplicateGuardRun {
  const creates = input.operations.flatMap((op, i) => (op.op === 'create' ? [i] : []));
  if (creates.length === 0) return { beforeWrite: undefined, afterWrite: async () => NO_DUPLICATE_CHECK, settled: Promise.resolve() };
  const besideWrite = input.operations.every((op) => OVERLAPPABLE.has(op.op)) && !creates.some((i) => blocksDuplicates(input, plan, i));
  const checking = findDuplicates(db, index, workspaceId, input, plan, newIds);
  // Read later, or only waited for when a policy refuses the changeset first: not an unhandled rejection meanwhile.
  const settled = checking.then(
    () => {},
    () => {},
  );
  if (!besideWrite) return { beforeWrite: checking, afterWrite: () => checking, settled };
  return {
    beforeWrite: undefined,
    settled,
    // The records are written by now: a failed check is a verdict, not a failed write.
    afterWrite: () =>
      checking.catch(() => ({
        findings: [],
        unchecked: creates.map((i) => {
          const op = input.operations[i]!;
          const target = op.op === 'create' && op.alias ? `$${op.alias}` : `operations[${i}]`;
          return {
            policy: 'possible_duplicate',
            target,
            outcome: 'not_judged' as const,
            reason: 'near-duplicates not checked: the check failed after the write',
          };
        }),
      })),
  };
}
