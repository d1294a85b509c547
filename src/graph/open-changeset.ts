// A changeset opened on a raw postgres.js transaction, for writers that write rows themselves
// rather than through applyChangeset (the doc ingester's batches, a connector's items): its row,
// and the setting the version triggers read to stamp every version with it, by the same SQL
// function the write path's transactions use (sql/apply_changeset.sql).
import type { TransactionSql } from 'postgres';
import type { Sql } from '../db/connect.js';
import type { Source } from '../db/schema.js';
import { newId } from '../lib/ids.js';

export async function openChangeset(tx: Sql | TransactionSql, c: { workspaceId: string; actorId: string; source: Source; summary: string }): Promise<void> {
  const changeset = { id: newId('changeset'), workspace_id: c.workspaceId, actor_id: c.actorId, source: c.source, summary: c.summary };
  await tx`select doco.open_changeset(${JSON.stringify(changeset)}::text::jsonb)`;
}
