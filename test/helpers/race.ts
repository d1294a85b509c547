// Forcing two transactions to overlap, so a race test fails when the guard is missing instead
// of passing by luck: sessions on their own connections whose statements can be left running
// while we wait for Postgres to report them blocked on a lock, and a gate that holds every
// writer of a table at its first insert until the test lets them all go at once.
import type postgres from 'postgres';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type Outcome = { ok: true; rows: unknown[] } | { ok: false; code: string | undefined; message: string };

/** A statement left running: its outcome, which never rejects. */
export function started(query: PromiseLike<readonly unknown[]>): Promise<Outcome> {
  return Promise.resolve(query).then(
    (rows) => ({ ok: true as const, rows: [...rows] }),
    (err: { code?: string; message?: string }) => ({ ok: false as const, code: err.code, message: err.message ?? String(err) }),
  );
}

/** One connection of its own, for a hand-driven transaction (begin, statements, commit). */
export class Session {
  private constructor(
    readonly conn: postgres.ReservedSql,
    readonly pid: number,
    private readonly pool: postgres.Sql,
  ) {}

  static async open(pool: postgres.Sql): Promise<Session> {
    const conn = await pool.reserve();
    const [row] = await conn<{ pid: number }[]>`select pg_backend_pid() as pid`;
    return new Session(conn, row!.pid, pool);
  }

  /**
   * Waits until the statement finished or this session's backend waits on a lock: either way
   * the statement has reached the point where another transaction's order matters.
   */
  async blockedOrDone(outcome: Promise<Outcome>): Promise<'blocked' | 'done'> {
    let done = false;
    void outcome.then(() => (done = true));
    for (;;) {
      if (done) return 'done';
      const [row] = await this.pool<{ w: string | null }[]>`select wait_event_type as w from pg_stat_activity where pid = ${this.pid}`;
      if (row?.w === 'Lock') return 'blocked';
      await sleep(2);
    }
  }

  /** Ends whatever transaction a failed test left open. */
  async reset(): Promise<void> {
    await this.conn`rollback`.catch(() => undefined);
  }

  async end(): Promise<void> {
    await this.reset();
    this.conn.release();
  }
}

const GATE_KEY = 91_001;

/** Makes every insert into `table` wait on an advisory lock while a Gate is closed (this test database only). */
export async function installGate(pool: postgres.Sql, table: string): Promise<void> {
  await pool.unsafe(`
    create or replace function public.test_gate() returns trigger language plpgsql as $$
    begin perform pg_advisory_xact_lock_shared(${GATE_KEY}); return new; end $$;
    create or replace trigger _000_test_gate before insert on ${table} for each row execute function public.test_gate();`);
}

export class Gate {
  private constructor(
    private readonly conn: postgres.ReservedSql,
    private readonly pool: postgres.Sql,
  ) {}

  static async close(pool: postgres.Sql): Promise<Gate> {
    const conn = await pool.reserve();
    await conn`select pg_advisory_lock(${GATE_KEY})`;
    return new Gate(conn, pool);
  }

  /** Waits until n writers are held at the gate (n is asked again each time: writers may answer without reaching it). */
  async waitForWaiters(n: () => number): Promise<void> {
    for (;;) {
      const [row] = await this.pool<{ n: number }[]>`
        select count(*)::int as n from pg_locks
         where locktype = 'advisory' and not granted and classid = 0 and objid = ${GATE_KEY} and objsubid = 1
           and database = (select oid from pg_database where datname = current_database())`;
      if (row!.n >= n()) return;
      await sleep(2);
    }
  }

  async open(): Promise<void> {
    await this.conn`select pg_advisory_unlock(${GATE_KEY})`;
    this.conn.release();
  }
}
