// One postgres.js pool and the Kysely instance over it, built once in the composition root.
import { CompiledQuery, Kysely, type DatabaseConnection, type Driver } from 'kysely';
import { PostgresJSDialect } from 'kysely-postgres-js';
import postgres from 'postgres';
import type { Database } from './schema.js';

export type Sql = postgres.Sql;
export type Db = Kysely<Database>;

export interface DbHandles {
  sql: Sql;
  db: Db;
  close(): Promise<void>;
}

/**
 * Statements with more parameters than this are not prepared: a query's text varies with the
 * length of an `in (…)` list, and each length would be one more statement kept per connection.
 */
export const PREPARED_PARAMETERS_MAX = 32;

type Reserved = Awaited<ReturnType<Sql['reserve']>>;

/**
 * The pool as Kysely's dialect sees it, its queries prepared like the pool's own tagged
 * templates. kysely-postgres-js sends every query through `unsafe` unprepared, and postgres.js
 * then asks the server to describe a statement with parameters before running it: two round
 * trips a query (0.51 against 0.17 ms for the token lookup, measured here). Prepared, the
 * describe happens once per connection and statement. postgres.js recycles connections (its
 * max_lifetime), which bounds the statements each one keeps.
 */
function preparingPool(sql: Sql): Sql {
  const preparing = (conn: Reserved): Reserved =>
    new Proxy(conn, {
      get(target, key, receiver) {
        if (key !== 'unsafe') return Reflect.get(target, key, receiver);
        return (query: string, parameters: postgres.ParameterOrJSON<never>[] = [], options: postgres.UnsafeQueryOptions = {}) =>
          target.unsafe(query, parameters, { prepare: parameters.length <= PREPARED_PARAMETERS_MAX, ...options });
      },
    });
  return new Proxy(sql, {
    get(target, key, receiver) {
      if (key !== 'reserve') return Reflect.get(target, key, receiver);
      return async () => preparing(await target.reserve());
    },
  });
}

/**
 * kysely-postgres-js's dialect, its rollback mended: the Kysely driver it extends marks a
 * connection whose rollback failed for discard through a method only Kysely's own `pg`
 * connections have, so a transaction cut by the database going away failed with "connection[…]
 * is not a function" (a 500) instead of its connection's own error (a 503 with Retry-After).
 * postgres.js drops a broken connection itself: the rollback's error is all there is to pass on.
 */
class Dialect extends PostgresJSDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.rollbackTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(CompiledQuery.raw('rollback'));
    };
    return driver;
  }
}

/** A Kysely handle over a pool: destroying it ends the pool, so a handle made over a pool it does not own is left alone. */
export function kyselyOver(sql: Sql): Db {
  return new Kysely<Database>({ dialect: new Dialect({ postgres: preparingPool(sql) }) });
}

/**
 * Seconds before a connection that closed is opened again, after `retries` failed attempts in a
 * row across the pool: postgres.js's own grows to 10-20 s by the seventh, and a query handed to
 * such a connection waits that long even once the database is back (after a 4 s stop of the
 * primary, queries waited 8-15 s: the scale suite's requests passed its 30 s deadline). Capped at
 * 1 s, a pool is serving again within a second of the database's return.
 */
const reconnectBackoffS = (retries: number) => Math.min(0.05 * 2 ** retries, 1);

/**
 * `name`: the connection's application_name (`doco-read` for the replica's pool, so pg_stat_activity
 * tells the two apart); `connectTimeoutS`: how long a connection attempt may take (postgres.js: 30).
 */
export function connect(url: string, opts: { max?: number; name?: string; connectTimeoutS?: number } = {}): DbHandles {
  const sql = postgres(url, {
    max: opts.max ?? 10,
    onnotice: () => {},
    connection: { application_name: opts.name ?? 'doco' },
    backoff: reconnectBackoffS,
    ...(opts.connectTimeoutS ? { connect_timeout: opts.connectTimeoutS } : {}),
  });
  const db = kyselyOver(sql);
  return {
    sql,
    db,
    async close() {
      // The pool first, with its timeout: Kysely's destroy ends it with none, and that waited
      // forever for a query still queued for a connection. Its end then finds the pool ended.
      await sql.end({ timeout: 5 });
      await db.destroy();
    },
  };
}
