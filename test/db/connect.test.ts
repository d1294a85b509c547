// Kysely's queries are prepared like postgres.js's own tagged templates, but for a statement
// with many parameters (a long `in (…)` list), which is left unprepared so that one query shape
// does not become one kept statement per list length.
import { sql, type Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREPARED_PARAMETERS_MAX } from '../../src/db/connect.js';
import type { Database } from '../../src/db/schema.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => {
  await t.drop();
});

/** How many statements this transaction's connection prepared that read `table` (this query left out). */
async function preparedReading(trx: Transaction<Database>, table: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from pg_prepared_statements
     where statement like ${`%from "doco"."${table}"%`} and statement not like '%pg_prepared_statements%'`.execute(trx);
  return rows[0]!.n;
}

describe('the Kysely handle', () => {
  it('prepares a query once per connection and runs it again from the prepared statement', async () => {
    await t.db.transaction().execute(async (trx) => {
      // One connection for the whole transaction: what it prepared is visible in pg_prepared_statements.
      for (let i = 0; i < 3; i++) {
        const rows = await trx.selectFrom('doco.workspaces').select('id').where('slug', '=', `prepared-marker-${i}`).execute();
        expect(rows).toEqual([]);
      }
      // The value is a parameter: three calls, one statement.
      expect(await preparedReading(trx, 'workspaces')).toBe(1);
    });
  });

  it(`leaves a statement of more than ${PREPARED_PARAMETERS_MAX} parameters unprepared, and still answers it`, async () => {
    await t.db.transaction().execute(async (trx) => {
      const few = Array.from({ length: PREPARED_PARAMETERS_MAX }, (_, i) => `few-${i}`);
      const many = Array.from({ length: PREPARED_PARAMETERS_MAX + 1 }, (_, i) => `many-${i}`);
      expect(await trx.selectFrom('doco.collections').select('id').where('slug', 'in', few).execute()).toEqual([]);
      expect(await trx.selectFrom('doco.nodes').select('id').where('id', 'in', many).execute()).toEqual([]);
      expect(await preparedReading(trx, 'collections')).toBe(1);
      expect(await preparedReading(trx, 'nodes')).toBe(0);
    });
  });
});
