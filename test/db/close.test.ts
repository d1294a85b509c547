// Closing the pool never hangs on queries still running or waiting for a connection: a command
// that fails inside withDatabase while sibling queries run (doco get did) closes and exits.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connect } from '../../src/db/connect.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t.drop());

it('ends within its timeout while a query runs and another waits for the connection', async () => {
  const handles = connect(t.url, { max: 1 });
  const running = handles.sql`select pg_sleep(60)`.catch((err: Error) => err);
  const waiting = handles.db
    .selectFrom('doco.workspaces')
    .select('id')
    .execute()
    .catch((err: Error) => err);
  await new Promise((r) => setTimeout(r, 200));
  const started = Date.now();
  const outcome = await Promise.race([handles.close().then(() => 'closed'), new Promise((r) => setTimeout(() => r('hung'), 15_000))]);
  expect(outcome).toBe('closed');
  expect(Date.now() - started).toBeLessThan(14_000);
  expect(await running).toBeInstanceOf(Error);
  await waiting;
}, 30_000);
