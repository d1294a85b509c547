// graphile-worker's connections (src/db/worker-pool.ts): a connection Postgres drops under the
// pool is reported, not a crash, and migrate() has ended its connections when it returns, so a
// CLI that stops its embedded cluster right after cannot be killed by their errors.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkerPool } from '../../src/db/worker-pool.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t.drop());

/** Ends every connection to the test database but postgres.js's, as a stopping Postgres would. */
const terminateOthers = () => t.sql`
  select pg_terminate_backend(pid) from pg_stat_activity
   where datname = current_database() and pid <> pg_backend_pid() and application_name <> 'postgres.js'`;

describe('makeWorkerPool', () => {
  it('reports a connection lost while idle and drops it, and the pool serves again', async () => {
    const errors: string[] = [];
    const pool = makeWorkerPool(t.url, { onError: (err) => errors.push(err.message) });
    try {
      const client = await pool.connect();
      client.release();
      await terminateOthers();
      for (let i = 0; i < 100 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(errors[0]).toMatch(/terminating connection/);
      const { rows } = await pool.query<{ one: number }>('select 1 as one');
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });
});

describe('migrate', () => {
  it('leaves no graphile-worker connection that Postgres stopping could crash the process with', async () => {
    // In a child process, so a crash is an exit code: migrate, then at once end every other
    // connection, twenty times. graphile-worker's own pool (before worker-pool.ts) was still
    // closing then, its error listeners already removed, and the process died.
    const script = `
      import postgres from 'postgres';
      import { connect } from ${JSON.stringify(path.join(ROOT, 'dist/src/db/connect.js'))};
      import { migrate } from ${JSON.stringify(path.join(ROOT, 'dist/src/db/migrate.js'))};
      const url = ${JSON.stringify(t.url)};
      const { sql, close } = connect(url);
      const admin = postgres(url, { max: 1, onnotice: () => {} });
      for (let i = 0; i < 20; i++) {
        await migrate(sql, { connectionString: url });
        await admin\`select pg_terminate_backend(pid) from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and application_name <> 'postgres.js'\`;
        await new Promise((r) => setTimeout(r, 30));
      }
      await admin.end();
      await close();
      console.log('ok');`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(err).toBe('');
    expect({ code, out: out.trim() }).toEqual({ code: 0, out: 'ok' });
  }, 60_000);
});
