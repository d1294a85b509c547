// Shared helpers for the SQL-rule tests: everything goes through plain SQL, as a psql user
// would write it (no app code), so the triggers and functions of sql/*.sql are what is tested.
import type postgres from 'postgres';
import { expect } from 'vitest';

/** A pool or a transaction: the helpers work inside `sql.begin()` too. */
export type Sql = postgres.Sql | postgres.TransactionSql;

/** The first row of a result, which must be there. */
export function one<T>(rows: readonly T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error('expected a row, got none');
  return row;
}

export interface SqlWorkspace {
  id: string;
  constitution: string;
  people: string;
}

/** `doco.ensure_workspace(slug)`, then the ids of its two bootstrap collections. */
export async function sqlWorkspace(sql: Sql, slug: string): Promise<SqlWorkspace> {
  const { id } = one(await sql<{ id: string }[]>`select doco.ensure_workspace(${slug}) as id`);
  const collection = async (slug: string) =>
    one(await sql<{ id: string }[]>`select id from doco.collections where workspace_id = ${id} and slug = ${slug}`).id;
  return { id, constitution: await collection('constitution'), people: await collection('people') };
}

/** Prose with no touches in it, for records whose text does not matter. */
export const DEFAULT_PROSE = 'Stands as written.';

export interface NodeSpec {
  type?: string;
  title?: string;
  prose?: string;
  body?: Record<string, unknown>;
  lifecycle?: 'drafting' | 'queued' | 'active' | 'retired';
  collection?: string;
}

/**
 * Inserts one record (default: an active rule in the constitution, with prose, since the
 * constitution's template requires a rule's prose) and returns its id.
 */
export async function insertNode(sql: Sql, ws: SqlWorkspace, spec: NodeSpec = {}): Promise<string> {
  const type = spec.type ?? 'rule';
  const { id } = one(
    await sql<{ id: string }[]>`
    insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose, body)
    values (doco.new_id(${type}), ${ws.id}, ${spec.collection ?? ws.constitution}, ${type},
            ${spec.lifecycle ?? 'active'}, ${spec.title ?? 'A record'}, ${spec.prose ?? DEFAULT_PROSE},
            ${JSON.stringify(spec.body ?? {})}::text::jsonb)
    returning id`,
  );
  return id;
}

/** Inserts one edge (default: active relates_to) and returns its id. */
export async function insertEdge(
  sql: Sql,
  ws: SqlWorkspace,
  from: string,
  to: string,
  type = 'relates_to',
  lifecycle = 'active',
): Promise<string> {
  const { id } = one(
    await sql<{ id: string }[]>`
    insert into doco.edges (id, workspace_id, from_id, to_id, edge_type, lifecycle)
    values (doco.new_id('edge'), ${ws.id}, ${from}, ${to}, ${type}, ${lifecycle})
    returning id`,
  );
  return id;
}

export async function nodeRow(sql: Sql, id: string) {
  return one(await sql`select * from doco.nodes where id = ${id}`);
}

export async function edgeRow(sql: Sql, id: string) {
  return one(await sql`select * from doco.edges where id = ${id}`);
}

/** Awaits a statement that must fail, and asserts its SQLSTATE. Returns the error message. */
export async function expectSqlState(statement: PromiseLike<unknown>, code: string): Promise<string> {
  let caught: unknown;
  try {
    await statement;
  } catch (err) {
    caught = err;
  }
  expect(caught, `expected SQLSTATE ${code}, but the statement succeeded`).toBeDefined();
  const { code: actual, message } = caught as { code?: string; message?: string };
  expect({ code: actual, message }).toMatchObject({ code });
  return message ?? '';
}

class Rollback extends Error {}

/**
 * Runs `work` in a transaction with `session_replication_role = replica` (ordinary triggers and
 * foreign-key checks off, as an attacker with superuser rights could), returns what `check`
 * reads inside that transaction, then rolls everything back so later tests see an intact graph.
 */
export async function whileTampered<T>(
  sql: postgres.Sql,
  work: (tx: Sql) => PromiseLike<unknown>,
  check: (tx: Sql) => PromiseLike<T>,
): Promise<T> {
  let result: T | undefined;
  try {
    await sql.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      await work(tx);
      await tx`set local session_replication_role = origin`;
      result = await check(tx);
      throw new Rollback();
    });
  } catch (err) {
    if (!(err instanceof Rollback)) throw err;
  }
  return result as T;
}

export async function verifyChains(sql: Sql) {
  return sql<{ kind: string; id: string; version: number; problem: string }[]>`
    select kind, id, version, problem from doco.verify_chains()`;
}

/**
 * Makes a connection's statistics reach the views: the flush happens when the backend goes idle
 * after `pg_stat_force_next_flush()`, after the answer was sent, so a reader on another
 * connection could look before it; a second round trip on this one waits for it to be done
 * (on a loaded machine the counts of the previous call otherwise landed in the window measured).
 */
export async function flushStats(conn: postgres.ReservedSql): Promise<void> {
  await conn`select pg_stat_force_next_flush()`;
  await conn`select 1`;
}

/**
 * Rows read so far (sequential and index scans, as the statistics views count them) from the
 * doco schema's tables, or from one of them. A connection's counts reach the views once it is
 * idle after `select pg_stat_force_next_flush()`.
 */
export async function rowsRead(sql: Sql, table?: string): Promise<number> {
  const row = one(
    await sql<{ n: string }[]>`
    select coalesce(sum(coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)), 0) as n
      from pg_stat_user_tables where schemaname = 'doco' and (${table ?? null}::text is null or relname = ${table ?? null})`,
  );
  return Number(row.n);
}

/**
 * Keeps autovacuum off the doco schema's tables of a test's own database: a plan test measures
 * what runs on statistics taken while the tables were small, and not since (an analysis mid-test
 * would hide a plan that reads every row).
 */
export async function withoutAutovacuum(sql: Sql): Promise<void> {
  const tables = await sql<{ name: string }[]>`select tablename as name from pg_tables where schemaname = 'doco'`;
  for (const { name } of tables) await sql.unsafe(`alter table doco.${name} set (autovacuum_enabled = false)`);
}
