import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t.drop());

describe('migrate', () => {
  it('changes nothing when run again', async () => {
    const before = await t.sql`select name, checksum, applied_at from doco.migrations order by name`;
    const report = await migrate(t.sql, { connectionString: t.url });
    expect(report).toEqual({ applied: [], sqlReapplied: false });
    const after = await t.sql`select name, checksum, applied_at from doco.migrations order by name`;
    expect(after).toEqual(before);
  });
});
