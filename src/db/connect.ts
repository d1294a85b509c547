// One postgres.js pool and the Kysely instance over it, built once in the composition root.
import { Kysely } from 'kysely';
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

export function connect(url: string, opts: { max?: number } = {}): DbHandles {
  const sql = postgres(url, {
    max: opts.max ?? 10,
    onnotice: () => {},
    connection: { application_name: 'doco' },
  });
  const db = new Kysely<Database>({ dialect: new PostgresJSDialect({ postgres: sql }) });
  return {
    sql,
    db,
    async close() {
      await db.destroy();
      await sql.end({ timeout: 5 });
    },
  };
}
