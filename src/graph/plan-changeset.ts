// Checks a changeset before anything is written: aliases resolve, targets exist in the
// workspace, lifecycle moves go forward, and the record each create/supersede/append leaves
// behind is known, so policies can judge it outside the writing transaction. An edge is a
// target of activate, queue and retire only (a person approving an agent's relation: the
// review queue), and never an end of a relate nor a record to append to or supersede.
import type { Db } from '../db/connect.js';
import { AppError } from '../errors.js';
import { carryOverBody } from './carry-over.js';
import { getCollection, type CollectionView } from './collections.js';
import { LIMITS } from './limits.js';
import type { RecordDraft } from './policies.js';
import { findEdgeLifecycles, findNodes, isEdgeId } from './read-nodes.js';
import type { ChangesetInput, Operation } from './schemas.js';

const RANK = { drafting: 0, queued: 1, active: 2, retired: 3 } as const;
type Lifecycle = keyof typeof RANK;

interface RecordState {
  collection: CollectionView;
  node_type: string;
  lifecycle: Lifecycle;
  title: string;
  prose: string;
  body: Record<string, unknown>;
}

export interface ChangesetPlan {
  defaultCollection: CollectionView | undefined;
  /** Collections by slug, for the ops that create records. */
  collections: Map<string, CollectionView>;
  /** The collection each create/supersede op writes into, by op index. */
  collectionOf: Map<number, CollectionView>;
  /** The derived title/prose/body each create/supersede op writes, by op index (a supersede's body with what it carries over). */
  contentOf: Map<number, { title: string; prose: string; body: Record<string, unknown> }>;
  drafts: RecordDraft[];
}

const where = (i: number, op: Operation) => `operations[${i}] (${op.op})`;

/** The operations that may name an edge. */
const LIFECYCLE_OPS = new Set<Operation['op']>(['activate', 'queue', 'retire']);

/** title/prose may sit inside body, as in the seed's example; a missing title comes from the prose. */
export function deriveContent(input: { title?: string; prose?: string; body?: Record<string, unknown> }) {
  const body = { ...(input.body ?? {}) };
  const bodyTitle = typeof body.title === 'string' ? body.title : undefined;
  const bodyProse = typeof body.prose === 'string' ? body.prose : undefined;
  if (bodyTitle !== undefined) delete body.title;
  if (bodyProse !== undefined) delete body.prose;
  const prose = (input.prose ?? bodyProse ?? '').trim();
  const title = input.title ?? bodyTitle?.trim() ?? titleFromProse(prose);
  return { title, prose, body };
}

function titleFromProse(prose: string): string {
  const first = prose.split(/(?<=[.!?])\s|\n/)[0]?.trim() ?? '';
  if (first.length <= 120) return first;
  return `${first.slice(0, 119).replace(/\s+\S*$/, '')}…`;
}

function aliasOf(ref: string) {
  return ref.startsWith('$') ? ref.slice(1) : undefined;
}

export async function planChangeset(db: Db, workspaceId: string, input: ChangesetInput): Promise<ChangesetPlan> {
  const ops = input.operations;
  // 1. Aliases: each defined once, each used only after the op that defines it.
  const defined = new Set<string>();
  ops.forEach((op, i) => {
    for (const ref of refsOf(op)) {
      const alias = aliasOf(ref);
      if (alias && !defined.has(alias)) {
        throw new AppError('validation_failed', `${where(i, op)}: alias $${alias} names nothing created earlier in this changeset`, {
          operation: i,
          alias,
        });
      }
    }
    if ((op.op === 'create' || op.op === 'supersede') && op.alias) {
      if (defined.has(op.alias))
        throw new AppError('validation_failed', `${where(i, op)}: alias ${op.alias} is defined twice`, { operation: i });
      defined.add(op.alias);
    }
  });

  // 2. Every id named must be a record of this workspace, or an edge of it that a lifecycle op moves.
  const ids = [...new Set(ops.flatMap(refsOf).filter((r) => !r.startsWith('$')))];
  const [nodes, edges] = await Promise.all([
    findNodes(
      db,
      workspaceId,
      ids.filter((id) => !isEdgeId(id)),
    ),
    findEdgeLifecycles(db, workspaceId, ids.filter(isEdgeId)),
  ]);
  const found = new Map(nodes.map((n) => [n.id, n]));
  const edgeState = new Map(edges.map((e) => [e.id, e.lifecycle as Lifecycle]));
  ops.forEach((op, i) => {
    for (const ref of refsOf(op)) {
      if (isEdgeId(ref) && !LIFECYCLE_OPS.has(op.op))
        throw new AppError('validation_failed', `${where(i, op)}: ${ref} is an edge; only activate, queue and retire take an edge`, {
          operation: i,
          id: ref,
        });
      if (!ref.startsWith('$') && !found.has(ref) && !edgeState.has(ref)) {
        const what = isEdgeId(ref) ? 'edge' : 'record';
        throw new AppError('not_found', `${where(i, op)}: ${what} ${ref} does not exist in this workspace`, { operation: i, id: ref });
      }
    }
  });

  const collections = new Map<string, CollectionView>();
  const loadCollection = async (slug: string) => {
    let c = collections.get(slug);
    if (!c) {
      c = await getCollection(db, workspaceId, slug);
      collections.set(slug, c);
    }
    return c;
  };
  const defaultCollection = input.collection ? await loadCollection(input.collection) : undefined;

  // 3. Walk the ops over a simulated state of every record they touch.
  const state = new Map<string, RecordState>();
  for (const n of found.values()) {
    state.set(n.id, {
      collection: await loadCollection(n.collection),
      node_type: n.node_type,
      lifecycle: n.lifecycle as Lifecycle,
      title: n.title,
      prose: n.prose,
      body: n.body,
    });
  }
  const plan: ChangesetPlan = { defaultCollection, collections, collectionOf: new Map(), contentOf: new Map(), drafts: [] };
  const stateOf = (ref: string) => state.get(ref)!;

  ops.forEach((op, i) => {
    const label = where(i, op);
    switch (op.op) {
      case 'create':
      case 'supersede': {
        let collection = defaultCollection;
        const content = deriveContent(op);
        if (op.op === 'supersede') {
          const old = stateOf(op.target);
          if (old.lifecycle === 'retired')
            throw new AppError('lifecycle_violation', `${label}: ${op.target} is already retired and cannot be superseded`, {
              operation: i,
            });
          collection ??= old.collection;
          old.lifecycle = 'retired';
          try {
            content.body = carryOverBody(old.body, content.body);
          } catch (err) {
            throw err instanceof AppError ? new AppError(err.code, `${label}: ${err.message}`, { operation: i }) : err;
          }
        }
        if (!collection) throw new AppError('validation_failed', `${label}: collection is required to create a record`, { operation: i });
        if (!content.title) throw new AppError('validation_failed', `${label}: a record needs a title or prose`, { operation: i });
        // title/prose taken from body get the same limits as the top-level fields, before SQL or the judge sees them.
        if (content.title.length > LIMITS.titleChars)
          throw new AppError('validation_failed', `${label}: the title must be at most ${LIMITS.titleChars} characters`, { operation: i });
        if (content.prose.length > LIMITS.proseChars)
          throw new AppError('validation_failed', `${label}: the prose must be at most ${LIMITS.proseChars} characters`, { operation: i });
        const lifecycle: Lifecycle = op.op === 'create' ? (op.lifecycle ?? 'active') : 'active';
        const ref = op.alias ? `$${op.alias}` : `operations[${i}]`;
        state.set(ref, { collection, node_type: op.node_type, lifecycle, ...content });
        plan.collectionOf.set(i, collection);
        plan.contentOf.set(i, content);
        plan.drafts.push({ target: ref, collection, node_type: op.node_type, ...content });
        break;
      }
      case 'append': {
        const rec = stateOf(op.target);
        if (rec.lifecycle === 'retired')
          throw new AppError('lifecycle_violation', `${label}: ${op.target} is retired, and retired is final`, { operation: i });
        rec.prose = rec.prose ? `${rec.prose}\n\n${op.prose.trim()}` : op.prose.trim();
        if (rec.prose.length > LIMITS.proseChars)
          throw new AppError('validation_failed', `${label}: the prose would exceed ${LIMITS.proseChars} characters`, { operation: i });
        plan.drafts = plan.drafts.filter((d) => d.target !== op.target);
        plan.drafts.push({
          target: op.target,
          collection: rec.collection,
          node_type: rec.node_type,
          title: rec.title,
          prose: rec.prose,
          body: rec.body,
        });
        break;
      }
      case 'activate':
      case 'queue':
      case 'retire': {
        const rec = edgeState.has(op.target) ? undefined : stateOf(op.target);
        const from = rec ? rec.lifecycle : edgeState.get(op.target)!;
        const to: Lifecycle = op.op === 'activate' ? 'active' : op.op === 'queue' ? 'queued' : 'retired';
        if (RANK[to] < RANK[from]) {
          throw new AppError(
            'lifecycle_violation',
            `${label}: ${op.target} cannot move back from ${from} to ${to}: lifecycle only moves forward`,
            { operation: i },
          );
        }
        if (rec) rec.lifecycle = to;
        else edgeState.set(op.target, to);
        break;
      }
      case 'relate':
        if (op.from === op.to)
          throw new AppError('validation_failed', `${label}: an edge needs two different records, not ${op.from} to itself`, {
            operation: i,
          });
        break;
    }
  });
  return plan;
}

export function refsOf(op: Operation): string[] {
  switch (op.op) {
    case 'create':
      return [];
    case 'relate':
      return [op.from, op.to];
    default:
      return [op.target];
  }
}
