// The write path: a changeset of up to 50 operations, planned, judged, then applied in one
// transaction (all or nothing). Capture and relate are one-operation changesets.
import { sql } from 'kysely';
import type { Db } from '../db/connect.js';
import type { EdgeType, Lifecycle, NodeType, Source } from '../db/schema.js';
import { fromDatabaseError } from '../db/sqlstate.js';
import { AppError } from '../errors.js';
import type { PolicyJudge } from '../providers/judge.js';
import { refuseSecretsInChangeset } from '../secrets/guard.js';
import { newId } from './ids.js';
import { carryOverBody } from './carry-over.js';
import { mapLimited } from './map-limited.js';
import { blocksDuplicates, startDuplicateGuard, type DuplicateGuardRun } from './duplicate-guard.js';
import { claimFingerprints, duplicateVerdicts, NO_DUPLICATE_CHECK, refuseBlockedDuplicates, type DuplicateIndex } from './duplicates.js';
import { deriveContent, planChangeset, type ChangesetPlan } from './plan-changeset.js';
import { deterministicVerdicts, judgedVerdicts, type Verdict } from './policies.js';
import { findNodes, getEdge, type EdgeView, type NodeView } from './read-nodes.js';
import type { ChangesetInput, Operation } from './schemas.js';

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
  verdicts: Verdict[];
}

export async function applyChangeset(deps: WriteDeps, ctx: WriteContext, input: ChangesetInput): Promise<ChangesetResult> {
  // Every interface's writes pass here: a credential refuses the whole changeset before it is
  // planned, shown to the judge (a hosted model) or written.
  refuseSecretsInChangeset(input);
  const plan = await planChangeset(deps.db, ctx.workspaceId, input);
  const index = deps.store && deps.embedder ? { store: deps.store, embedder: deps.embedder } : undefined;
  // The ids the records get, known before the duplicate check so it can leave them out.
  const newIds = new Map(input.operations.flatMap((op, i) => (op.op === 'create' || op.op === 'supersede' ? [[i, newId(op.node_type)] as const] : [])));
  // Beside the judge, and for a create that can only warn beside the transaction too.
  const guard = deps.skipDuplicateGuard ? undefined : startDuplicateGuard(deps.db, index, ctx.workspaceId, input, plan, [...newIds.values()]);
  try {
    return await judgeAndWrite(deps, ctx, input, plan, newIds, guard);
  } catch (err) {
    // A refused or failed write still waits for its check: no query outlives the request.
    await guard?.settled;
    throw err;
  }
}

async function judgeAndWrite(deps: WriteDeps, ctx: WriteContext, input: ChangesetInput, plan: ChangesetPlan, newIds: Map<number, string>, guard: DuplicateGuardRun | undefined): Promise<ChangesetResult> {
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
      ? [{ operation: i, node_type: op.node_type, collectionId: plan.collectionOf.get(i)!.id, ...plan.contentOf.get(i)! }] : []);

  const changesetId = newId('changeset');
  const aliases: Record<string, string> = {};
  const results: OperationResult[] = [];
  await deps.db.transaction().execute(async (trx) => {
    // One round trip: the changeset row, and the transaction-local setting its triggers read.
    await sql`
      with cs as (
        insert into doco.changesets (id, workspace_id, actor_id, source, summary)
        values (${changesetId}, ${ctx.workspaceId}, ${ctx.principalId}, ${ctx.source}, ${input.summary ?? null})
        returning id)
      select set_config('doco.changeset_id', (select id from cs), true)`.execute(trx);
    await claimFingerprints(trx, ctx.workspaceId, blockingCreates);
    const resolve = (ref: string) => (ref.startsWith('$') ? aliases[ref.slice(1)]! : ref);
    for (const [i, op] of input.operations.entries()) {
      try {
        results.push(await applyOperation(trx, ctx, plan, i, op, newIds.get(i), resolve, aliases));
      } catch (err) {
        const appErr = err instanceof AppError ? err : fromDatabaseError(err);
        if (!appErr) throw err;
        throw new AppError(appErr.code, `operations[${i}] (${op.op}): ${appErr.message}`, { operation: i, ...(appErr.details ? { cause: appErr.details } : {}) });
      }
    }
  });

  const nodeIds = [...new Set(results.filter((r) => r.kind === 'node').map((r) => r.id))];
  const edgeIds = [...new Set(results.filter((r) => r.kind === 'edge').map((r) => r.id))];
  const nodes = await findNodes(deps.db, ctx.workspaceId, nodeIds);
  const edges = await Promise.all(edgeIds.map((id) => getEdge(deps.db, ctx.workspaceId, id)));
  // Verdicts named records before they existed ("$alias", or "operations[i]" for a create
  // without an alias): name them by their new ids now.
  const byId = new Map(Object.entries(aliases).map(([a, id]) => [`$${a}`, id]));
  results.forEach((r, i) => {
    if (r.op === 'create' || r.op === 'supersede') byId.set(`operations[${i}]`, r.id);
  });
  const nameOf = (ref: string) => byId.get(ref) ?? ref;
  const duplicates = checkedBefore ?? (guard ? await guard.afterWrite() : NO_DUPLICATE_CHECK);
  return {
    changeset_id: changesetId,
    results,
    aliases,
    nodes: nodeIds.map((id) => nodes.find((n) => n.id === id)!),
    edges,
    verdicts: [...policyVerdicts.map((v) => ({ ...v, target: nameOf(v.target) })), ...duplicateVerdicts(duplicates, nameOf)],
  };
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

async function applyOperation(
  trx: Trx,
  ctx: WriteContext,
  plan: ChangesetPlan,
  i: number,
  op: Operation,
  newNodeId: string | undefined,
  resolve: (ref: string) => string,
  aliases: Record<string, string>,
): Promise<OperationResult> {
  switch (op.op) {
    case 'create':
    case 'supersede': {
      const collection = plan.collectionOf.get(i)!;
      const content = { ...plan.contentOf.get(i)! };
      const oldId = op.op === 'supersede' ? resolve(op.target) : undefined;
      if (op.op === 'supersede') content.body = await claimForSupersede(trx, ctx, oldId!, deriveContent(op).body);
      const id = newNodeId!;
      const lifecycle: Lifecycle = op.op === 'create' ? (op.lifecycle ?? 'active') : 'active';
      await trx
        .insertInto('doco.nodes')
        .values({
          id, workspace_id: ctx.workspaceId, collection_id: collection.id, node_type: op.node_type as NodeType, lifecycle,
          title: content.title, prose: content.prose, body: content.body, principal_id: ctx.principalId,
        })
        .execute();
      if (op.alias) aliases[op.alias] = id;
      if (oldId) {
        await insertEdge(trx, ctx, id, oldId, 'replaces', 'active');
        await setLifecycle(trx, ctx, oldId, 'retired');
      }
      return { op: op.op, ...(op.alias ? { alias: op.alias } : {}), id, kind: 'node' };
    }
    case 'relate': {
      const id = await insertEdge(trx, ctx, resolve(op.from), resolve(op.to), op.edge_type, op.lifecycle ?? 'active');
      return { op: 'relate', id, kind: 'edge' };
    }
    case 'append': {
      const id = resolve(op.target);
      await trx
        .updateTable('doco.nodes')
        .set({ prose: sql`case when prose = '' then ${op.prose.trim()} else prose || ${'\n\n' + op.prose.trim()} end` })
        .where('id', '=', id)
        .where('workspace_id', '=', ctx.workspaceId)
        .execute();
      return { op: 'append', id, kind: 'node' };
    }
    case 'activate':
    case 'queue':
    case 'retire': {
      const id = resolve(op.target);
      await setLifecycle(trx, ctx, id, op.op === 'activate' ? 'active' : op.op === 'queue' ? 'queued' : 'retired');
      return { op: op.op, id, kind: 'node' };
    }
  }
}

/**
 * Takes the record a supersede retires (the lock its retire takes anyway, sql/lifecycle.sql), so
 * a concurrent supersede of it waits here, then finds it retired and is refused; returns the
 * body the replacement carries over, read under that lock.
 */
async function claimForSupersede(trx: Trx, ctx: WriteContext, oldId: string, restated: Record<string, unknown>): Promise<Record<string, unknown>> {
  await sql`select doco.lock_record_lifecycle(${oldId}, true)`.execute(trx);
  // A statement after the wait: under READ COMMITTED it sees what the other writer committed.
  const old = await trx
    .selectFrom('doco.nodes')
    .select(['lifecycle', 'body'])
    .where('id', '=', oldId)
    .where('workspace_id', '=', ctx.workspaceId)
    .executeTakeFirst();
  if (!old) throw new AppError('not_found', `record ${oldId} does not exist in this workspace`, { id: oldId });
  if (old.lifecycle === 'retired') throw new AppError('lifecycle_violation', `${oldId} is already retired and cannot be superseded`, { id: oldId });
  return carryOverBody(old.body, restated);
}

async function insertEdge(trx: Trx, ctx: WriteContext, from: string, to: string, edgeType: EdgeType, lifecycle: Lifecycle): Promise<string> {
  const existing = await trx
    .selectFrom('doco.edges')
    .select('id')
    .where('from_id', '=', from)
    .where('to_id', '=', to)
    .where('edge_type', '=', edgeType)
    .where('lifecycle', '!=', 'retired')
    .executeTakeFirst();
  if (existing) throw new AppError('conflict', `a live ${edgeType} edge from ${from} to ${to} already exists (${existing.id})`, { id: existing.id });
  const id = newId('edge');
  await trx
    .insertInto('doco.edges')
    .values({ id, workspace_id: ctx.workspaceId, from_id: from, to_id: to, edge_type: edgeType, lifecycle, principal_id: ctx.principalId })
    .execute();
  return id;
}

async function setLifecycle(trx: Trx, ctx: WriteContext, id: string, lifecycle: Lifecycle): Promise<void> {
  await trx.updateTable('doco.nodes').set({ lifecycle }).where('id', '=', id).where('workspace_id', '=', ctx.workspaceId).execute();
}
