// Who answers for an embedded cluster's life. The postmaster runs in its own process group, so
// it outlives a `doco` process killed with -9; whoever attaches next must know whether the
// cluster still has an owner. Two advisory locks on one connection to the cluster's `postgres`
// database say it, and Postgres frees both when that connection dies, however the process ends:
// - the owner lock (exclusive): held by the process that stops the cluster when it exits;
// - the presence lock (shared): held by every Doco process attached, so an owner leaving while
//   others still work leaves the cluster running for them (the last to leave stops it).
import postgres from 'postgres';
import { processRunning } from './process-alive.js';

/** First key of the two-key advisory locks below: "pgo". */
const LEASE_CLASS = 0x70676f;
const OWNER_KEY = 1;
const PRESENCE_KEY = 2;

/** A killed owner's backend can linger for a moment after its process is gone: wait that long for it. */
const DEAD_OWNER_GRACE_MS = 5_000;

export interface ClusterLease {
  /** Whether this process holds the owner lock. */
  readonly owner: boolean;
  /** Takes the owner lock if nobody holds it (the owner stopped or was killed); true when this process owns the cluster now. */
  claim(): Promise<boolean>;
  /** How many other Doco processes are attached to the cluster now. */
  others(): Promise<number>;
  /** Drops both locks (closes the connection). */
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Attaches to the cluster at `adminUrl` (its `postgres` database: advisory locks are per
 * database) and takes ownership unless a live process holds it.
 */
export async function openLease(adminUrl: string): Promise<ClusterLease> {
  // One connection for the process's lifetime: no idle or lifetime recycling, which would drop the locks.
  const sql = postgres(adminUrl, {
    max: 1,
    idle_timeout: 0,
    max_lifetime: 0,
    onnotice: () => {},
    connection: { application_name: `doco lease pid=${process.pid}` },
  });
  let owner = false;
  const tryOwner = async () => {
    const [row] = await sql<{ ok: boolean }[]>`select pg_try_advisory_lock(${LEASE_CLASS}, ${OWNER_KEY}) as ok`;
    owner = row!.ok;
    return owner;
  };
  /** The OS pid of the process holding the owner lock, from its connection's application_name. */
  const holderPid = async (): Promise<number | undefined> => {
    const [row] = await sql<{ name: string }[]>`
      select a.application_name as name from pg_locks l join pg_stat_activity a on a.pid = l.pid
       where l.locktype = 'advisory' and l.classid = ${LEASE_CLASS} and l.objid = ${OWNER_KEY} and l.objsubid = 2 and l.granted
         and l.database = (select oid from pg_database where datname = current_database())`;
    const pid = /pid=(\d+)/.exec(row?.name ?? '')?.[1];
    return pid ? Number(pid) : undefined;
  };
  try {
    await sql`select pg_advisory_lock_shared(${LEASE_CLASS}, ${PRESENCE_KEY})`;
    // The owner lock held by a process that is gone means its backend has not noticed yet: wait for it, briefly.
    const deadline = Date.now() + DEAD_OWNER_GRACE_MS;
    while (!(await tryOwner()) && Date.now() < deadline) {
      const pid = await holderPid();
      if (pid !== undefined && processRunning(pid)) break; // a live owner: attach beside it
      await sleep(50);
    }
  } catch (err) {
    await sql.end({ timeout: 1 });
    throw err;
  }
  return {
    get owner() {
      return owner;
    },
    async claim() {
      return owner || tryOwner();
    },
    async others() {
      const [row] = await sql<{ n: number }[]>`
        select count(*)::int as n from pg_locks
         where locktype = 'advisory' and classid = ${LEASE_CLASS} and objid = ${PRESENCE_KEY} and objsubid = 2 and granted
           and database = (select oid from pg_database where datname = current_database()) and pid <> pg_backend_pid()`;
      return row!.n;
    },
    async close() {
      await sql.end({ timeout: 1 });
    },
  };
}
