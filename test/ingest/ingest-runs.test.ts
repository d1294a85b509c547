// doco.doc_ingest_runs says how each run ended: finished, failed (with its error), or abandoned
// when the process running it stopped mid-run (here: its connection cut, as a kill -9 does; the
// crash suite kills a real `doco ingest-docs`). A run still going is never marked abandoned.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ABANDONED_ERROR, startRun } from '../../src/ingest/docs/runs.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { ingestTree, makeTree, prose, removeTree, writeTree } from '../helpers/docs.js';

let t: TestDb;
let ws: TestWorkspace;
let root: string;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'runs');
  root = await makeTree({ 'docs/a.md': `# A\n\n## One\n\n${prose('one')}\n\n## Two\n\n${prose('two')}` });
});
afterAll(async () => {
  await t.drop();
  await removeTree(root);
});

const runRow = async (id: number) =>
  (
    await t.sql<{ status: string; error: string | null; finished: boolean }[]>`
    select status, error, finished_at is not null as finished from doco.doc_ingest_runs where id = ${id}`
  )[0];

/** A run started on a connection of its own, as another process would. */
async function runElsewhere() {
  const other = postgres(t.url, { max: 1, onnotice: () => {} });
  const conn = await other.reserve();
  const id = await startRun(conn, { workspaceId: ws.id, principalId: ws.principalId, source: 'fs' }, root, undefined);
  const pid = (await conn<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
  return {
    id,
    /** What a kill -9 does to the run: its connection is gone, and with it the run's lock. */
    async cut() {
      await t.sql`select pg_terminate_backend(${pid})`;
      await waitUntilGone(pid);
      conn.release();
      await other.end({ timeout: 1 });
    },
    async end() {
      conn.release();
      await other.end({ timeout: 1 });
    },
  };
}

async function waitUntilGone(pid: number) {
  for (let i = 0; i < 200; i++) {
    const rows = await t.sql`select 1 from pg_stat_activity where pid = ${pid}`;
    if (!rows.length) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`backend ${pid} never went away`);
}

describe('ingest runs', () => {
  it('a finished run says finished', async () => {
    const report = await ingestTree(t, ws, root);
    expect(await runRow(report.run_id)).toEqual({ status: 'finished', error: null, finished: true });
  });

  it('a run whose process stopped mid-run is marked abandoned by the next run, which completes', async () => {
    const dead = await runElsewhere();
    await dead.cut();
    expect(await runRow(dead.id)).toEqual({ status: 'running', error: null, finished: false });

    const next = await ingestTree(t, ws, root);
    expect(await runRow(dead.id)).toEqual({ status: 'abandoned', error: ABANDONED_ERROR, finished: false });
    expect(await runRow(next.run_id)).toEqual({ status: 'finished', error: null, finished: true });
  });

  it('a run still going is left running, however many runs start meanwhile', async () => {
    const live = await runElsewhere();
    try {
      for (let i = 0; i < 3; i++) await ingestTree(t, ws, root);
      expect(await runRow(live.id)).toEqual({ status: 'running', error: null, finished: false });
    } finally {
      await live.end();
    }
    // Its process ended without finishing it: now it is abandoned.
    await ingestTree(t, ws, root);
    expect((await runRow(live.id))!.status).toBe('abandoned');
  });

  it('a run that fails says failed, with its error', async () => {
    // An unknown principal: the run's first write fails on its foreign key.
    const stranger = { ...ws, principalId: 'principal_01JZZZZZZZZZZZZZZZZZZZZZZZ' };
    await writeTree(root, { 'docs/a.md': `# A\n\n## One\n\n${prose('one changed')}\n\n## Two\n\n${prose('two')}` });
    await expect(ingestTree(t, stranger, root)).rejects.toThrow();
    const [row] = await t.sql<{ status: string; error: string | null; finished: boolean }[]>`
      select status, error, finished_at is not null as finished from doco.doc_ingest_runs order by id desc limit 1`;
    expect(row).toMatchObject({ status: 'failed', finished: true });
    expect(row!.error).toBeTruthy();
  });
});
