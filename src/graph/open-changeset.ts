// Opens a changeset in a transaction: its row, and the setting the version triggers read to stamp
// every version with it, by the SQL function that owns both (doco.open_changeset,
// sql/apply_changeset.sql). One function for either library's transaction: the write path's
// Kysely transaction (apply-changeset.ts, which opens it before taking its locks), and the
// postgres.js transactions of writers that write rows themselves (the doc ingester's batches, a
// connector's items).
import { Kysely, sql as kyselySql } from 'kysely';
import type { TransactionSql } from 'postgres';
import type { Db, Sql } from '../db/connect.js';
import type { Source } from '../db/schema.js';
import { newId } from '../lib/ids.js';

/** A changeset's row as doco.open_changeset and doco.apply_operations take it. */
export interface ChangesetRow {
  id: string;
  workspace_id: string;
  actor_id: string;
  source: Source;
  summary: string | null;
}

/** A new changeset's row, its id chosen here. */
export function newChangeset(c: { workspaceId: string; actorId: string; source: Source; summary: string | null }): ChangesetRow {
  return { id: newId('changeset'), workspace_id: c.workspaceId, actor_id: c.actorId, source: c.source, summary: c.summary };
}

/** Opens `changeset` for the rest of the transaction `tx` (a postgres.js or a Kysely one). */
export async function openChangeset(tx: Sql | TransactionSql | Db, changeset: ChangesetRow): Promise<void> {
  const row = JSON.stringify(changeset);
  if (tx instanceof Kysely) await kyselySql`select doco.open_changeset(${row}::text::jsonb)`.execute(tx);
  else await tx`select doco.open_changeset(${row}::text::jsonb)`;
}
