// `derivations__catch_up`: re-derives every record's touches after an upgrade changed the SQL
// that derives them (sql/derivations.sql marks the catch-up pending when sql/ is applied; the
// worker queues this job at start). Step by step, each its own transaction, so writes go on.
import type { Task } from 'graphile-worker';
import type { Sql } from '../db/connect.js';
import type { Log } from '../lib/log.js';

export const CATCH_UP_TASK = 'derivations__catch_up';

/** The derivations sql/derivations.sql knows. */
export const DERIVATIONS = ['touches'] as const;

/**
 * Records re-derived per step (one transaction, holding their rows): about 800 records/s on the
 * bench's 100k records, so a write to one of them waits at most ~0.13 s.
 */
const STEP_RECORDS = 100;
/** A step that found a record held by a write waits this long before trying again. */
const HELD_RETRY_MS = 1000;
/** Consecutive held steps before the job gives up and lets graphile-worker retry it later. */
const HELD_TRIES = 30;

const lockNotAvailable = (err: unknown) => (err as { code?: string }).code === '55P03';

/** Runs every pending catch-up to its end; returns how many records each took up (a record a write held counts twice). */
export async function catchUpDerivations(
  sql: Sql,
  opts: { stepRecords?: number; heldRetryMs?: number } = {},
): Promise<Record<string, number>> {
  const done: Record<string, number> = {};
  for (const name of DERIVATIONS) {
    let total = 0;
    let held = 0;
    for (;;) {
      try {
        const [row] = await sql<{ n: number }[]>`select doco.rederive_step(${name}, ${opts.stepRecords ?? STEP_RECORDS}) as n`;
        held = 0;
        if (!row || row.n === 0) break;
        total += row.n;
      } catch (err) {
        if (!lockNotAvailable(err) || ++held >= HELD_TRIES) throw err;
        await new Promise((r) => setTimeout(r, opts.heldRetryMs ?? HELD_RETRY_MS));
      }
    }
    if (total) done[name] = total;
  }
  return done;
}

export const derivationsCatchUp =
  (deps: { sql: Sql }): Task =>
  async (_payload, helpers) => {
    for (const [name, n] of Object.entries(await catchUpDerivations(deps.sql))) {
      helpers.logger.info(`${name} re-derived for ${n} record(s): the functions that derive them changed`);
    }
  };

/** Queues the catch-up when one is pending (the worker calls this at start, after migrations). */
export async function queueCatchUpIfPending(sql: Sql, log: Log, addJob: (task: string, key: string) => Promise<unknown>): Promise<void> {
  const pending = await sql<{ name: string }[]>`select name from doco.derivations where pending is not null`;
  if (!pending.length) return;
  log.info(`re-deriving ${pending.map((p) => p.name).join(', ')} in the background: the functions that derive them changed`);
  await addJob(CATCH_UP_TASK, CATCH_UP_TASK);
}
