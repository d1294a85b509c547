// A postgres.js transaction whose connection closed while its callback was still running, as the
// index drain's can be (it embeds and writes the vector store inside its transaction) when the
// primary stops: its backend is ended with pg_terminate_backend, as a fast stop ends every
// backend, and the callback goes on only when the test says (fix 7 of scripts/patch-postgres.cjs).
import type postgres from 'postgres';
import { expect } from 'vitest';
import { isBrokenConnection } from '../../src/db/read-replica.js';

/** A promise's outcome without throwing: 'resolved', or what it rejected with. */
export const settle = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => 'resolved',
    (err: unknown) => err,
  );

export const tick = () => new Promise((r) => setTimeout(r, 20));

/** A gate the test opens. */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

/**
 * Begins a transaction on `sql`, ends its backend through `admin` and waits for begin() to reject;
 * returns the function that lets the callback go on with `rest`.
 */
export async function deadTransaction(
  admin: postgres.Sql,
  sql: postgres.Sql,
  rest: (tx: postgres.TransactionSql) => Promise<unknown>,
): Promise<() => void> {
  const g = gate();
  let pid = 0;
  const begun = settle(
    sql.begin(async (tx) => {
      pid = (await tx<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
      await g.opened;
      return rest(tx);
    }),
  );
  while (!pid) await tick();
  await admin`select pg_terminate_backend(${pid})`;
  expect(isBrokenConnection(await begun), 'begin() rejects at the close').toBe(true);
  return g.open;
}
