// The read replica (DATABASE_READ_URL, docs/replica.md): a second pool that briefs and searches
// read from while it keeps up with the primary. A check on an interval, never a request, measures
// its lag; while it is down or lags past the bound, reads go to the primary, and the log says so
// once per change of state, not once per request.
import type { Log } from '../lib/log.js';
import { connect, type Db, type DbHandles, type Sql } from './connect.js';

/** Where a read goes: a pool and the Kysely handle over it, and which of the two databases that is. */
export interface Reader {
  sql: Sql;
  db: Db;
  from: 'replica' | 'primary';
}

/** `ok`: reads go to the replica; `lagging` or `down`: to the primary. */
export type ReplicaState = 'ok' | 'lagging' | 'down';

/** What /readyz and the console's overview show of the replica. */
export interface ReplicaStatus {
  reading_from: 'replica' | 'primary';
  state: ReplicaState;
  /** When the state last changed (or the first check ran). */
  since: string;
  /** Whether DATABASE_READ_URL is a standby (in recovery); null until it has answered. */
  standby: boolean | null;
  /** How far its replay trails the primary's WAL; null while unknown, and for a server that is not a standby. */
  lag_bytes: number | null;
  lag_ms: number | null;
  max_lag_ms: number;
  checked_at: string | null;
}

export interface ReadRoute {
  readonly primary: Reader;
  /** Where a read that may trail the primary (by at most the lag bound) goes now. */
  reader(): Reader;
  /**
   * Where a read that must see everything the primary had written at `lsn` goes: the replica
   * once it has replayed that far (waiting at most READ_AFTER_WAIT_MS), else the primary.
   */
  readerAfter(lsn: string): Promise<Reader>;
  /**
   * A read on the replica threw `err`: whether to send it again to the primary (a broken
   * connection, or a query cancelled by the replay). A broken connection also makes reads fall
   * back until a check finds the replica well again.
   */
  failed(err: unknown): boolean;
  status(): ReplicaStatus;
  /** Stops the checks and closes the replica's pool (the primary's belongs to the caller). */
  close(): Promise<void>;
}

export interface ReplicaOptions {
  url: string;
  maxLagMs: number;
  log: Log;
  checkEveryMs?: number;
  waitMs?: number;
}

/** How often the lag is measured. */
export const CHECK_EVERY_MS = 1000;
/** How long a read after the caller's write waits for the replica to replay it. */
export const READ_AFTER_WAIT_MS = 2000;
/** A replica that has not answered a check by then is down. */
const CHECK_TIMEOUT_MS = 3000;
const POLL_MS = 20;

/** Errors of a connection that broke or could not be made (Node's, postgres.js's, SQLSTATE classes 08 and 57P, too many connections). */
const BROKEN =
  /^(E(CONNREFUSED|CONNRESET|TIMEDOUT|HOSTUNREACH|NETUNREACH|NOTFOUND|AI_AGAIN|PIPE)|CONNECTION_(CLOSED|ENDED|DESTROYED)|CONNECT_TIMEOUT|08...|57P0[123]|53300)$/;
const codeOf = (err: unknown) => String((err as { code?: unknown })?.code ?? '');
export const isBrokenConnection = (err: unknown) => BROKEN.test(codeOf(err));
/** A standby cancels a query whose rows the replay must remove (SQLSTATE 40001, 40P01 "conflict with recovery"). */
export const isRecoveryConflict = (err: unknown) => /^40(001|P01)$/.test(codeOf(err));

/** An LSN (`16/B374D848`) as a number of bytes: exact up to 2^53, some 9 PB of WAL. */
export function lsnBytes(lsn: string): number {
  const [hi, lo] = lsn.split('/');
  return Number((BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`));
}

interface ReplayRow {
  standby: boolean;
  replay_lsn: string | null;
  replay_age_ms: number | null;
}

interface Measured {
  standby: boolean;
  lagBytes: number | null;
  lagMs: number | null;
}

/**
 * A standby's lag in milliseconds: 0 when it has replayed all the primary had written, else the
 * smaller of two bounds that both hold: what it lacks was written after its last replayed commit
 * (`replayAgeMs`), and after it was last seen caught up (`sinceCaughtUpMs`). The first alone
 * grows while an idle primary commits nothing; null when neither is known yet.
 */
export function lagMsOf(lagBytes: number | null, replayAgeMs: number | null, sinceCaughtUpMs: number | null): number | null {
  if (lagBytes === 0) return 0;
  const bounds = [replayAgeMs, sinceCaughtUpMs].filter((b): b is number => b !== null);
  return lagBytes === null || !bounds.length ? null : Math.max(0, Math.round(Math.min(...bounds)));
}

/**
 * Opens the replica's pool and checks it once before answering, so the first request already
 * knows where to read; then every `checkEveryMs`.
 */
export async function openReadReplica(primary: DbHandles, opts: ReplicaOptions): Promise<ReadRoute> {
  const { log, maxLagMs } = opts;
  const waitMs = opts.waitMs ?? READ_AFTER_WAIT_MS;
  const replica = connect(opts.url, { name: 'doco-read', connectTimeoutS: CHECK_TIMEOUT_MS / 1000 });
  const onPrimary: Reader = { sql: primary.sql, db: primary.db, from: 'primary' };
  const onReplica: Reader = { sql: replica.sql, db: replica.db, from: 'replica' };
  let state: ReplicaState | undefined;
  let since = new Date();
  let measured: Measured | undefined;
  let checkedAt: Date | undefined;
  /** When a check last found the replica replayed up to the primary's position read just before. */
  let caughtUpAt: number | undefined;
  let closed = false;

  const lagText = (m: Measured) => (m.lagBytes === null ? 'an unknown distance' : `${m.lagBytes} bytes, ${m.lagMs ?? '?'} ms`);
  const enter = (next: ReplicaState, why: string) => {
    if (next === state) return;
    const first = state === undefined;
    state = next;
    since = new Date();
    if (next === 'ok' && first) log.info(`briefs and searches read from DATABASE_READ_URL (${why})`);
    else if (next === 'ok') log.warn(`read replica back (${why}): briefs and searches read from it again`);
    else log.warn(`read replica ${why}: briefs and searches read from the primary until it ${next === 'down' ? 'answers' : 'catches up'}`);
  };

  const measure = async (): Promise<void> => {
    const started = Date.now();
    let primaryLsn: string;
    try {
      const [position] = await primary.sql<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`;
      primaryLsn = position!.lsn;
    } catch (err) {
      // The primary is the other process's problem (/readyz answers 503): the replica keeps its state.
      log.debug(`read replica check skipped: the primary did not answer (${(err as Error).message})`);
      return;
    }
    const late = setTimeout(() => enter('down', `did not answer within ${CHECK_TIMEOUT_MS} ms`), CHECK_TIMEOUT_MS);
    let row: ReplayRow;
    try {
      const rows = await replica.sql<ReplayRow[]>`
        select pg_is_in_recovery() as standby, pg_last_wal_replay_lsn()::text as replay_lsn,
               (extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8 as replay_age_ms`;
      row = rows[0]!;
    } catch (err) {
      measured = undefined;
      enter('down', `unreachable (${(err as Error).message})`);
      return;
    } finally {
      clearTimeout(late);
      checkedAt = new Date();
    }
    if (!row.standby) {
      // Not in recovery (the primary itself, or a copy kept some other way): nothing to measure.
      if (state === undefined)
        log.warn(
          'DATABASE_READ_URL is not a standby (pg_is_in_recovery() is false): its lag cannot be measured, and a read after a write goes to the primary',
        );
      measured = { standby: false, lagBytes: null, lagMs: null };
      enter('ok', 'not a standby');
      return;
    }
    const lagBytes = row.replay_lsn === null ? null : Math.max(0, lsnBytes(primaryLsn) - lsnBytes(row.replay_lsn));
    if (lagBytes === 0) caughtUpAt = started;
    const lagMs = lagMsOf(lagBytes, row.replay_age_ms, caughtUpAt === undefined ? null : Date.now() - caughtUpAt);
    measured = { standby: true, lagBytes, lagMs };
    // Back only within half the bound, so a lag hovering at the bound does not flap.
    const within = lagMs !== null && lagMs <= (state === 'ok' || state === undefined ? maxLagMs : maxLagMs / 2);
    enter(
      within ? 'ok' : 'lagging',
      within ? `${lagText(measured)} behind` : `lags ${lagText(measured)} (DOCO_READ_MAX_LAG_MS=${maxLagMs})`,
    );
  };

  let inflight: Promise<void> | undefined;
  const check = () => {
    if (closed || inflight) return inflight;
    inflight = measure().finally(() => (inflight = undefined));
    return inflight;
  };
  await check();
  const timer = setInterval(() => void check(), opts.checkEveryMs ?? CHECK_EVERY_MS);
  timer.unref();

  const usable = () => !closed && state === 'ok';
  const failed = (err: unknown): boolean => {
    if (isBrokenConnection(err)) {
      measured = undefined;
      enter('down', `unreachable (${(err as Error).message})`);
      return true;
    }
    return isRecoveryConflict(err);
  };
  return {
    primary: onPrimary,
    reader: () => (usable() ? onReplica : onPrimary),
    async readerAfter(lsn) {
      if (!usable() || !measured?.standby) return onPrimary;
      const until = Date.now() + waitMs;
      for (;;) {
        try {
          const [row] = await replica.sql<{ replayed: boolean | null }[]>`select pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn as replayed`;
          if (row?.replayed) return onReplica;
        } catch (err) {
          failed(err);
          return onPrimary;
        }
        if (Date.now() + POLL_MS > until || !usable()) return onPrimary;
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    },
    failed,
    status: () => ({
      reading_from: usable() ? 'replica' : 'primary',
      state: state ?? 'down',
      since: since.toISOString(),
      standby: measured?.standby ?? null,
      lag_bytes: measured?.lagBytes ?? null,
      lag_ms: measured?.lagMs ?? null,
      max_lag_ms: maxLagMs,
      checked_at: checkedAt?.toISOString() ?? null,
    }),
    async close() {
      closed = true;
      clearInterval(timer);
      await inflight;
      // Not replica.close(): postgres.js waits out its whole end timeout (5 s there) for a
      // connection that broke under a query, which a replica down at shutdown has. The pool
      // first, as in connect.ts: Kysely's destroy alone waits for queued queries forever.
      await replica.sql.end({ timeout: 1 });
      await replica.db.destroy();
    },
  };
}
