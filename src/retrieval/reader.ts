// Which database a brief or a search reads (docs/replica.md): the read replica (DATABASE_READ_URL)
// while it keeps up, else the primary; asked `after_changeset`, the replica only once it has
// replayed everything the primary had written when the request came, so a client's own write
// is always in the answer.
import * as v from 'valibot';
import type { Db, Sql } from '../db/connect.js';
import { isBrokenConnection, type Reader, type ReadRoute } from '../db/read-replica.js';
import { AppError } from '../errors.js';

/** The `changeset_id` a write answered: a brief or search asked after it sees that write. */
export const AfterChangesetSchema = v.pipe(
  v.string(),
  v.regex(/^changeset_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be the changeset_id a write answered, such as changeset_01K…'),
);

export interface ReadingDeps {
  /** The primary: where the brief is stored, and where every read goes without a replica. */
  sql: Sql;
  db: Db;
  /** DATABASE_READ_URL's route (src/db/read-replica.ts); unset, everything reads the primary. */
  reads?: ReadRoute;
}

/**
 * Where the primary's WAL stood when this request came: a position past the commit of the named
 * changeset (its write had answered before). Insert rather than write position: with
 * synchronous_commit off, a commit answers before its WAL is written. A changeset the workspace
 * does not hold is refused, replica or not, so the same request answers alike everywhere.
 */
async function positionAfter(sql: Sql, workspaceId: string, changesetId: string): Promise<string> {
  const [row] = await sql<{ lsn: string; known: boolean }[]>`
    select pg_current_wal_insert_lsn()::text as lsn,
           exists (select 1 from doco.changesets where id = ${changesetId} and workspace_id = ${workspaceId}) as known`;
  if (!row?.known) throw new AppError('not_found', `after_changeset: no changeset ${changesetId} in this workspace`);
  return row.lsn;
}

/**
 * Runs `read` on the database the request should read (only reads: what it writes goes to
 * `deps.sql` outside it). A read whose connection broke is sent once more to the primary: the
 * replica went down between two checks (reads fall back from now on), or one of the primary's
 * connections was cut. So a replica going away never fails a request.
 */
export async function readingFrom<T>(
  deps: ReadingDeps,
  workspaceId: string,
  afterChangeset: string | undefined,
  read: (reader: Reader) => Promise<T>,
): Promise<T> {
  const lsn = afterChangeset === undefined ? undefined : await positionAfter(deps.sql, workspaceId, afterChangeset);
  const { reads } = deps;
  const primary: Reader = reads?.primary ?? { sql: deps.sql, db: deps.db, from: 'primary' };
  const reader = !reads ? primary : lsn === undefined ? reads.reader() : await reads.readerAfter(lsn);
  try {
    return await read(reader);
  } catch (err) {
    if (!(reader.from === 'replica' && reads ? reads.failed(err) : isBrokenConnection(err))) throw err;
    return read(primary);
  }
}
