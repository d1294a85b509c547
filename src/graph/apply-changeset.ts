// The write path: a changeset of up to 50 operations, planned, judged, then applied in one
// statement (all or nothing: write-operations.ts). Capture and relate are one-operation changesets.
import { sql } from 'kysely';
import type { Db } from '../db/connect.js';
import type { Source } from '../db/schema.js';
import { fromDatabaseError } from '../db/sqlstate.js';
import { AppError } from '../errors.js';
import type { PolicyJudge } from '../providers/judge.js';
import { refuseSecretsInChangeset } from './secrets-guard.js';
import { newId } from '../lib/ids.js';
import { carryOverBody } from './carry-over.js';
import { mapLimited } from '../lib/map-limited.js';
import { blocksDuplicates, startDuplicateGuard, type DuplicateGuardRun } from './duplicate-guard.js';
import {
  claimFingerprints,
  duplicateVerdicts,
  NO_DUPLICATE_CHECK,
  refuseBlockedDuplicates,
  type ClaimDraft,
  type DuplicateIndex,
} from './duplicates.js';
import { deriveContent, planChangeset, type ChangesetPlan } from './plan-changeset.js';
import { deterministicVerdicts, judgedVerdicts } from './policies.js';
import { type Verdict } from './verdicts.js';
import { isEdgeId, type EdgeView, type NodeView } from './read-nodes.js';
import type { ChangesetInput, Operation } from './schemas.js';
import { newChangeset, openChangeset } from './open-changeset.js';
import { inOperation, writeOperations, type OperationRow } from './write-operations.js';

export interface WriteContext {
  workspaceId: string;
  principalId: string;
  source: Source;
}

export interface WriteDeps {
  db: Db;
  judge: PolicyJudge;
  /** The vector index, for the near-duplicate check; without it only exact duplicates are found. */
  store?: DuplicateIndex['store'];
  embedder?: DuplicateIndex['embedder'];
  /** Benchmarks only: the write path without the duplicate guard, to measure what it costs. */
  skipDuplicateGuard?: boolean;
}

export interface OperationResult {
  op: Operation['op'];
  alias?: string;
  id: string;
  kind: 'node' | 'edge';
}

export interface ChangesetResult {
  changeset_id: string;
  results: OperationResult[];
  aliases: Record<string, string>;
  nodes: NodeView[];
  edges: EdgeView[];
  /**
   * Live edges this changeset retired because a record they connect was superseded or retired
   * (a supersede does not carry the old record's edges to its replacement: relate it again).
   * Present only when the changeset supersedes or retires a record.
   */
  retired_edges?: { id: string; edge_type: string; from: string; to: string }[];
  verdicts: Verdict[];
}

export async function applyChangeset(deps: WriteDeps, ctx: WriteContext, input: ChangesetInput): Promise<ChangesetResult> {
  // Every interface's writes pass here: a credential refuses the whole changeset before it is
  // planned, shown to the judge (a hosted model) or written.
  refuseSecretsInChangeset(input);
  const plan = await planChangeset(deps.db, ctx.workspaceId, input);
  const index = deps.store && deps.embedder ? { store: deps.store, embedder: deps.embedder } : undefined;
  // The ids the records get, known before the duplicate check so it can leave them out.
  const newIds = new Map(
    input.operations.flatMap((op, i) => (op.op === 'create' || op.op === 'supersede' ? [[i, newId(op.node_type)] as const] : [])),
  );
  // Beside the judge, and for a create that can only warn beside the transaction too.
  const guard = deps.skipDuplicateGuard
    ? undefined
    : startDuplicateGuard(deps.db, index, ctx.workspaceId, input, plan, [...newIds.values()]);
  try {
    return await judgeAndWrite(deps, ctx, input, plan, newIds, guard);
  } catch (err) {
    // A refused or failed write still waits for its check: no query outlives the request.
    await guard?.settled;
    throw err;
  }
}

async function judgeAndWrite(
  deps: WriteDeps,
  ctx: WriteContext,
  input: ChangesetInput,
  plan: ChangesetPlan,
  newIds: Map<number, string>,
  guard: DuplicateGuardRun | undefined,
): Promise<ChangesetResult> {
  const policyVerdicts = await judgeDrafts(deps.judge, plan);
  const blocked = policyVerdicts.filter((v) => v.outcome === 'block');
  if (blocked.length) {
    throw new AppError('policy_blocked', `blocked by policy ${blocked[0]!.policy}: ${blocked[0]!.reason}`, { verdicts: policyVerdicts });
  }
  const checkedBefore = await guard?.beforeWrite;
  if (checkedBefore) refuseBlockedDuplicates(checkedBefore.findings, [...policyVerdicts, ...duplicateVerdicts(checkedBefore)]);
  // A create that must not duplicate: the check above read committed records; this one, under
  // a lock held until commit, also catches an identical write committing meanwhile.
  const blockingCreates = input.operations.flatMap((op, i) =>
    op.op === 'create' && guard && blocksDuplicates(input, plan, i)
      ? [{ operation: i, node_type: op.node_type, collectionId: plan.collectionOf.get(i)!.id, ...plan.contentOf.get(i)! }]
      : [],
  );

  const { changesetId, aliases, results, written } = await writeChangeset(deps.db, ctx, input, plan, newIds, blockingCreates);

  // Verdicts named records before they existed ("$alias", or "operations[i]" for a create
  // without an alias): name them by their new ids now.
  const byId = new Map(Object.entries(aliases).map(([a, id]) => [`$${a}`, id]));
  results.forEach((r, i) => {
    if (r.op === 'create' || r.op === 'supersede') byId.set(`operations[${i}]`, r.id);
  });
  const nameOf = (ref: string) => byId.get(ref) ?? ref;
  const duplicates = checkedBefore ?? (guard ? await guard.afterWrite() : NO_DUPLICATE_CHECK);
  const nodeIds = [...new Set(results.filter((r) => r.kind === 'node').map((r) => r.id))];
  return {
    changeset_id: changesetId,
    results,
    aliases,
    nodes: nodeIds.map((id) => written.nodes.get(id)!),
    edges: results.filter((r) => r.kind === 'edge').map((r) => written.edges.get(r.id)!),
    ...(retiresRecords(input)
      ? { retired_edges: (await edgesRetiredBy(deps.db, ctx.workspaceId, changesetId)).filter((e) => !edgesRetiredByName(input).has(e.id)) }
      : {}),
    verdicts: [...policyVerdicts.map((v) => ({ ...v, target: nameOf(v.target) })), ...duplicateVerdicts(duplicates, nameOf)],
  };
}

/**
 * Chooses every id (so aliases resolve before anything is written), then writes. A changeset
 * that supersedes no committed record and has no create that must not duplicate (every
 * capture): one statement, no transaction around it. Otherwise the changeset is opened and its
 * locks taken first, in the transaction the statement then runs in.
 */
async function writeChangeset(
  db: Db,
  ctx: WriteContext,
  input: ChangesetInput,
  plan: ChangesetPlan,
  newIds: Map<number, string>,
  blockingCreates: ClaimDraft[],
) {
  const changeset = newChangeset({
    workspaceId: ctx.workspaceId,
    actorId: ctx.principalId,
    source: ctx.source,
    summary: input.summary ?? null,
  });
  const aliases: Record<string, string> = {};
  input.operations.forEach((op, i) => {
    if ((op.op === 'create' || op.op === 'supersede') && op.alias) aliases[op.alias] = newIds.get(i)!;
  });
  const resolve = (ref: string) => (ref.startsWith('$') ? aliases[ref.slice(1)]! : ref);
  const edgeIds = new Map(
    input.operations.flatMap((op, i) => (op.op === 'relate' || op.op === 'supersede' ? [[i, newId('edge')] as const] : [])),
  );
  const results: OperationResult[] = input.operations.map((op, i) => {
    const id = op.op === 'relate' ? edgeIds.get(i)! : op.op === 'create' || op.op === 'supersede' ? newIds.get(i)! : resolve(op.target);
    const alias = (op.op === 'create' || op.op === 'supersede') && op.alias ? { alias: op.alias } : {};
    return { op: op.op, ...alias, id, kind: op.op === 'relate' || isEdgeId(id) ? 'edge' : 'node' };
  });
  const rowsWith = (carried: Map<number, Record<string, unknown>>) =>
    input.operations.map((op, i) => operationRow(plan, i, op, results[i]!.id, edgeIds.get(i), resolve, carried.get(i)));
  // A supersede of a record written earlier in this changeset carries over what the plan saw
  // (no one else can see that record yet); one of a committed record, what it reads under lock.
  const supersedes = input.operations.flatMap((op, i) => (op.op === 'supersede' && !op.target.startsWith('$') ? [i] : []));
  const carriedInPlan = new Map(
    input.operations.flatMap((op, i) =>
      op.op === 'supersede' && op.target.startsWith('$') ? [[i, plan.contentOf.get(i)!.body] as const] : [],
    ),
  );
  const written =
    supersedes.length === 0 && blockingCreates.length === 0
      ? await writeOperations(db, changeset, rowsWith(carriedInPlan), input.operations)
      : await db.transaction().execute(async (trx) => {
          await openChangeset(trx, changeset);
          await claimFingerprints(trx, ctx.workspaceId, blockingCreates);
          const carried = new Map(carriedInPlan);
          for (const i of supersedes) {
            const op = input.operations[i] as Extract<Operation, { op: 'supersede' }>;
            try {
              carried.set(i, await claimForSupersede(trx, ctx, resolve(op.target), deriveContent(op).body));
            } catch (err) {
              const appErr = err instanceof AppError ? err : fromDatabaseError(err);
              throw appErr ? inOperation(appErr, i, op) : err;
            }
          }
          return writeOperations(trx, changeset, rowsWith(carried), input.operations);
        });
  return { changesetId: changeset.id, aliases, results, written };
}

/** A 50-record changeset must not open 50 model calls at once. */
const JUDGE_CONCURRENCY = 4;

async function judgeDrafts(judge: PolicyJudge, plan: ChangesetPlan): Promise<Verdict[]> {
  const deterministic = plan.drafts.flatMap(deterministicVerdicts);
  // A deterministic block needs no judge: refuse before spending a model call.
  if (deterministic.some((v) => v.outcome === 'block')) return deterministic;
  const judged = (await mapLimited(plan.drafts, JUDGE_CONCURRENCY, (d) => judgedVerdicts(judge, d))).flat();
  return [...deterministic, ...judged];
}

/** A transaction is a Kysely instance too. */
type Trx = Db;

/** Operation i as doco.apply_operations takes it; `carried` is a supersede's body with what it carries over. */
function operationRow(
  plan: ChangesetPlan,
  i: number,
  op: Operation,
  id: string,
  edgeId: string | undefined,
  resolve: (ref: string) => string,
  carried: Record<string, unknown> | undefined,
): OperationRow {
  switch (op.op) {
    case 'create':
    case 'supersede': {
      const content = plan.contentOf.get(i)!;
      const common = {
        id,
        collection_id: plan.collectionOf.get(i)!.id,
        node_type: op.node_type,
        title: content.title,
        prose: content.prose,
      };
      if (op.op === 'create') return { op: 'create', ...common, lifecycle: op.lifecycle ?? 'active', body: content.body };
      return { op: 'supersede', ...common, lifecycle: 'active', body: carried!, old_id: resolve(op.target), edge_id: edgeId! };
    }
    case 'relate':
      return {
        op: 'relate',
        edge_id: edgeId!,
        from: resolve(op.from),
        to: resolve(op.to),
        edge_type: op.edge_type,
        lifecycle: op.lifecycle ?? 'active',
      };
    case 'append':
      return { op: 'append', id, prose: op.prose.trim() };
    case 'activate':
    case 'queue':
    case 'retire':
      return {
        op: 'lifecycle',
        id,
        lifecycle: op.op === 'activate' ? 'active' : op.op === 'queue' ? 'queued' : 'retired',
        ...(op.version !== undefined ? { version: op.version } : {}),
      };
  }
}

/**
 * Takes the record a supersede retires (the lock its retire takes anyway, sql/lifecycle.sql), so
 * a concurrent supersede of it waits here, then finds it retired and is refused; returns the
 * body the replacement carries over, read under that lock.
 */
async function claimForSupersede(
  trx: Trx,
  ctx: WriteContext,
  oldId: string,
  restated: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  await sql`select doco.lock_record_lifecycle(${oldId}, true)`.execute(trx);
  // A statement after the wait: under READ COMMITTED it sees what the other writer committed.
  const old = await trx
    .selectFrom('doco.nodes')
    .select(['lifecycle', 'body'])
    .where('id', '=', oldId)
    .where('workspace_id', '=', ctx.workspaceId)
    .executeTakeFirst();
  if (!old) throw new AppError('not_found', `record ${oldId} does not exist in this workspace`, { id: oldId });
  if (old.lifecycle === 'retired')
    throw new AppError('lifecycle_violation', `${oldId} is already retired and cannot be superseded`, { id: oldId });
  return carryOverBody(old.body, restated);
}

const retiresRecords = (input: ChangesetInput) =>
  input.operations.some((op) => op.op === 'supersede' || (op.op === 'retire' && !isEdgeId(op.target)));

/** Edges a changeset retires by their own ids: not ones a record's retirement took with it. */
const edgesRetiredByName = (input: ChangesetInput) =>
  new Set(input.operations.flatMap((op) => (op.op === 'retire' && isEdgeId(op.target) ? [op.target] : [])));

/** The edges a record's retirement in this changeset took with it (a `replaces` edge pointing at a retired record stays live). */
async function edgesRetiredBy(db: Db, workspaceId: string, changesetId: string) {
  const rows = await db
    .selectFrom('doco.edges')
    .select(['id', 'edge_type', 'from_id', 'to_id'])
    .where('workspace_id', '=', workspaceId)
    .where('changeset_id', '=', changesetId)
    .where('lifecycle', '=', 'retired')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: r.id, edge_type: r.edge_type, from: r.from_id, to: r.to_id }));
}
