// A changeset opened on a raw postgres.js transaction, for writers that write rows themselves
// rather than through applyChangeset (the doc ingester's batches, a connector's items): its row,
// and the setting the version triggers read to stamp every version with it.
import type { TransactionSql } from 'postgres';
import type { Sql } from '../db/connect.js';
import type { Source } from '../db/schema.js';
import { newId } from './ids.js';

export async function openChangeset(tx: Sql | TransactionSql, c: { workspaceId: string; actorId: string; source: Source; summary: string }): Promise<void> {
  await tx`
    with cs as (
      insert into doco.changesets (id, workspace_id, actor_id, source, summary)
      values (${newId('changeset')}, ${c.workspaceId}, ${c.actorId}, ${c.source}, ${c.summary})
      returning id)
    select set_config('doco.changeset_id', (select id from cs), true)`;
}
