// A postgres.js transaction whose connection closed sends nothing more (fix 7 of
// scripts/patch-postgres.cjs). Its begin() rejects at the close, but its callback may still be
// running (the index drain embeds and writes the vector store inside its transaction); before
// the fix, each later statement went to the same connection object, which the pool had
// reconnected meanwhile. One pool connection (max 1) makes the reconnected connection the one
// the dead transaction had, and its backend is ended by pg_terminate_backend, as a primary's
// fast stop ends every backend.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBrokenConnection } from '../../src/db/read-replica.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { deadTransaction as dead, gate, settle, tick } from '../helpers/dead-transaction.js';

let t: TestDb;
const deadTransaction = (sql: postgres.Sql, rest: (tx: postgres.TransactionSql) => Promise<unknown>) => dead(t.sql, sql, rest);
beforeAll(async () => {
  t = await createTestDb();
  await t.sql`create table after_close (id int primary key)`;
});
afterAll(() => t.drop());

describe('a transaction whose connection closed', () => {
  it('runs no later statement of its own on the reconnected connection', async () => {
    const sql = postgres(t.url, { max: 1, onnotice: () => {} });
    try {
      let late: unknown;
      const open = await deadTransaction(sql, async (tx) => {
        late = await settle(tx`insert into after_close (id) values (1)`);
      });
      await sql`select 1`; // the pool reconnects the connection
      open();
      while (late === undefined) await tick();
      expect(isBrokenConnection(late), String(late)).toBe(true);
      expect(await t.sql`select id from after_close where id = 1`).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it("never ends another transaction: its scope's ROLLBACK does not reach the transaction that holds the connection now", async () => {
    const sql = postgres(t.url, { max: 1, onnotice: () => {} });
    try {
      const open = await deadTransaction(sql, async () => {
        throw new Error('the callback fails after the close'); // its scope then sends ROLLBACK
      });
      const hold = gate();
      let inserted = false;
      const next = sql.begin(async (tx) => {
        await tx`insert into after_close (id) values (2)`;
        inserted = true;
        await hold.opened;
      });
      while (!inserted) await tick();
      open();
      await tick();
      hold.open();
      await next; // acknowledged: its insert must be there
      expect(await t.sql`select id from after_close where id = 2`).toEqual([{ id: 2 }]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it("never answers a pool query with its statement's result, sent while the reconnected connection asks for its array types", async () => {
    let types: (() => void) | undefined;
    const sql = postgres(t.url, {
      max: 1,
      onnotice: () => {},
      // Every new connection first asks for the array types: the dead callback goes on then.
      debug: (_connection, query) => void (/typarray/.test(query) && types?.()),
    });
    try {
      const open = await deadTransaction(sql, (tx) => tx`select 'the dead transaction' as said`);
      types = open;
      expect(await sql`select 'the pool' as said`).toEqual([{ said: 'the pool' }]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('fails a statement it had queued behind its busy connection, rather than leaving it waiting for ever', async () => {
    const sql = postgres(t.url, { max: 1, onnotice: () => {} });
    try {
      let pid = 0;
      let queued: Promise<unknown> | undefined;
      const begun = settle(
        sql.begin(async (tx) => {
          pid = (await tx<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
          // A statement with a parameter, not yet prepared on this connection, is described
          // first: the connection is busy until it answers, and the next statement waits in line.
          void settle(tx`select pg_sleep(30), ${1}::int`);
          queued = settle(tx`select ${2}::int as n`);
          return queued;
        }),
      );
      while (!pid || !queued) await tick();
      await t.sql`select pg_terminate_backend(${pid})`;
      expect(isBrokenConnection(await begun)).toBe(true);
      const outcome = await Promise.race([queued, new Promise((r) => setTimeout(() => r('still waiting after 5 s'), 5000))]);
      expect(isBrokenConnection(outcome), String(outcome)).toBe(true);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });
});
