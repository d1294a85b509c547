// Receipts (a stored brief, the hooks' session memory) commit without waiting for the WAL flush
// (sql/receipts.sql); records never do. The setting must end with the receipt's transaction: a
// pooled connection that stored a brief goes on to write records, and those must wait again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { one } from './helpers.js';

let t: TestDb;

beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t.drop());

const setting = (rows: readonly { s: string }[]) => one(rows).s;

describe('doco.commit_receipt_unflushed', () => {
  it('lets only the calling transaction commit unflushed', async () => {
    const conn = await t.sql.reserve();
    try {
      // The test cluster turns synchronous commits off for speed (test/helpers/global-setup.ts); a real one has them on.
      await conn`set synchronous_commit = on`;
      expect(setting(await conn<{ s: string }[]>`select current_setting('synchronous_commit') as s`)).toBe('on');
      // In the statement that calls it (a transaction of its own), the commit does not wait.
      expect(
        setting(await conn<{ s: string }[]>`select current_setting('synchronous_commit') as s from doco.commit_receipt_unflushed()`),
      ).toBe('off');
      // The connection's next statement, and every later one, waits for the flush again.
      expect(setting(await conn<{ s: string }[]>`select current_setting('synchronous_commit') as s`)).toBe('on');
      // Inside a transaction block, until that block ends, and not after.
      await conn`begin`;
      await conn`select doco.commit_receipt_unflushed()`;
      const inside = setting(await conn<{ s: string }[]>`select current_setting('synchronous_commit') as s`);
      await conn`commit`;
      expect(inside).toBe('off');
      expect(setting(await conn<{ s: string }[]>`select current_setting('synchronous_commit') as s`)).toBe('on');
    } finally {
      conn.release();
    }
  });
});
