// The connections graphile-worker runs on (its migrations, the job runner), on a pool Doco owns
// and ends itself. Given a connection string, graphile-worker 0.17 makes its own pool and, on
// release, removes that pool's error listeners before ending it without waiting: a client still
// closing when Postgres stops (the CLI stops its embedded cluster right after) then received
// "terminating connection due to administrator command" with no listener, and node crashed the
// process (seen as a failed `doco reindex` under load).
import pg from 'pg';

export interface WorkerPoolOptions {
  max?: number;
  /** A connection lost under the pool (Postgres stopping, a terminated backend): pg drops the client. */
  onError?: (err: Error) => void;
}

export function makeWorkerPool(connectionString: string, opts: WorkerPoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString, max: opts.max ?? 10, application_name: 'doco-worker' });
  const onError = (err: Error) => opts.onError?.(err);
  // Both listeners, as graphile-worker asks of a pool it is given: an idle client's error reaches
  // the pool, a checked-out client's reaches the client (the next query fails with it too).
  pool.on('error', onError);
  pool.on('connect', (client) => client.on('error', onError));
  return pool;
}
