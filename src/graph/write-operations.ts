// Writes a planned changeset with doco.apply_operations (sql/apply_changeset.sql): every
// operation in one statement, which returns what it wrote. A capture is then one round trip
// where it was five (begin, changeset row, insert, commit, read back), and a 50-operation
// changeset one where it was fifty-odd.
import { sql } from 'kysely';
import type { Db } from '../db/connect.js';
import { fromDatabaseError } from '../db/sqlstate.js';
import { AppError } from '../errors.js';
import type { ChangesetRow } from './open-changeset.js';
import type { EdgeView, NodeView } from './read-nodes.js';
import type { Operation } from './schemas.js';

/** One operation as the statement takes it: ids chosen, aliases resolved, content derived. */
export type OperationRow =
  | {
      op: 'create' | 'supersede';
      id: string;
      collection_id: string;
      node_type: string;
      lifecycle: string;
      title: string;
      prose: string;
      body: Record<string, unknown>;
      old_id?: string;
      edge_id?: string;
    }
  | { op: 'relate'; edge_id: string; from: string; to: string; edge_type: string; lifecycle: string }
  | { op: 'append'; id: string; prose: string }
  | { op: 'lifecycle'; id: string; lifecycle: string; version?: number };

export interface Written {
  nodes: Map<string, NodeView>;
  edges: Map<string, EdgeView>;
}

type Timestamped<T, K extends keyof T> = Omit<T, K> & { [P in K]: string };
interface WrittenJson {
  nodes: Timestamped<NodeView, 'created_at' | 'updated_at'>[];
  edges: Timestamped<EdgeView, 'updated_at'>[];
}

/**
 * Runs the statement on `db` (a transaction, when the changeset took locks first: opened there
 * by openChangeset, it is not opened again).
 */
export async function writeOperations(db: Db, changeset: ChangesetRow, rows: OperationRow[], operations: Operation[]): Promise<Written> {
  let out: WrittenJson;
  try {
    const result = await sql<{ out: WrittenJson }>`
      select doco.apply_operations(${JSON.stringify(changeset)}::text::jsonb, ${JSON.stringify(rows)}::text::jsonb) as out`.execute(db);
    out = result.rows[0]!.out;
  } catch (err) {
    throw operationError(err, operations);
  }
  return {
    nodes: new Map(out.nodes.map((n) => [n.id, { ...n, created_at: new Date(n.created_at), updated_at: new Date(n.updated_at) }])),
    edges: new Map(out.edges.map((e) => [e.id, { ...e, updated_at: new Date(e.updated_at) }])),
  };
}

/** The error of the operation that failed, named as `operations[i] (op): …`; others unchanged. */
export function operationError(err: unknown, operations: Operation[]): unknown {
  const hint = (err as { hint?: string } | null)?.hint;
  const match = hint?.match(/^operations\[(\d+)\]$/);
  const appErr = err instanceof AppError ? err : fromDatabaseError(err);
  if (!match || !appErr) return appErr ?? err;
  return inOperation(appErr, Number(match[1]), operations[Number(match[1])]!);
}

/** An error raised by operation i, saying so. */
export function inOperation(err: AppError, i: number, op: Operation): AppError {
  return new AppError(err.code, `operations[${i}] (${op.op}): ${err.message}`, {
    operation: i,
    ...(err.details ? { cause: err.details } : {}),
  });
}
