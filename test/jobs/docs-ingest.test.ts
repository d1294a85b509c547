// The doc ingester as a graphile-worker job: `docs__ingest` on demand (the configured root, or
// one in the payload), the cron entry present only when DOCO_DOCS_ROOT is set, and a refused
// reap logged as a warning and kept in doco.doc_ingest_runs.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { parseCrontab, type TimestampDigest } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_INGEST_TASK } from '../../src/jobs/docs-tasks.js';
import { crontabFor } from '../../src/jobs/tasks.js';
import { startWorker, type RunningWorker } from '../../src/jobs/worker.js';
import { makeLog } from '../../src/lib/log.js';
import { indexKeeper } from '../../src/indexing/index-keeper.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { makeTree, prose, removeTree } from '../helpers/docs.js';
import { localProviders } from '../helpers/search.js';

let t: TestDb;
let root: string;
let other: string;
let worker: RunningWorker;
const lines: string[] = [];
const log = makeLog('info', (l) => lines.push(l));
const providers = localProviders();
const jobDeps = { ...providers, keeper: indexKeeper(providers.store, log) };

beforeAll(async () => {
  t = await createTestDb();
  root = await makeTree({ 'docs/a.md': `# A\n\n## One\n\n${prose('a one')}\n\n## Two\n\n${prose('a two')}` });
  other = await makeTree({ 'CLAUDE.md': `# Agents\n\n## Rules\n\n${prose('agent')}` });
  worker = await startWorker({
    connectionString: t.url,
    sql: t.sql,
    db: t.db,
    docs: { root, workspace: 'jobs-docs' },
    log,
    cron: false,
    ...jobDeps,
  });
});
afterAll(async () => {
  await worker.stop();
  await t.drop();
  await Promise.all([removeTree(root), removeTree(other)]);
});

/** Polls (no timing asserted) until the predicate holds; fails after a generous bound. */
async function until<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met in time');
}

const finishedRuns = async (after: number) =>
  t.sql<
    {
      id: number;
      root: string;
      created: number;
      reap_outcome: string;
      reap_reason: string | null;
      workspace: string;
      actor: string | null;
    }[]
  >`
    select r.id::int, r.root, r.created, r.reap_outcome, r.reap_reason, w.slug as workspace,
           (select n.title from doco.changesets cs join doco.nodes n on n.id = cs.actor_id where cs.workspace_id = r.workspace_id and cs.source = 'ingest' order by cs.created_at limit 1) as actor
      from doco.doc_ingest_runs r join doco.workspaces w on w.id = r.workspace_id
     where r.id > ${after} and r.finished_at is not null order by r.id`;
const oneRun = (after: number) => until(async () => (await finishedRuns(after))[0]);
const lastRunId = async () => (await t.sql<{ id: number }[]>`select coalesce(max(id), 0)::int as id from doco.doc_ingest_runs`)[0]!.id;

describe('the docs__ingest job', () => {
  it('is in the crontab, every 10 minutes, only when a docs root is configured', () => {
    const withRoot = parseCrontab(crontabFor({ ...jobDeps, sql: t.sql, log, docs: { root: '/srv/repo', workspace: 'default' } }));
    const entry = withRoot.find((i) => i.task === DOCS_INGEST_TASK);
    expect(
      parseCrontab(crontabFor({ ...jobDeps, sql: t.sql, log, docs: { root: undefined, workspace: 'default' } })).some(
        (i) => i.task === DOCS_INGEST_TASK,
      ),
    ).toBe(false);
    expect(parseCrontab(crontabFor({ ...jobDeps, sql: t.sql, log })).some((i) => i.task === DOCS_INGEST_TASK)).toBe(false);
    const tenPast = new Date(Date.UTC(2030, 0, 1, 9, 10));
    const elevenPast = new Date(Date.UTC(2030, 0, 1, 9, 11));
    const digest = (d: Date): TimestampDigest => ({
      min: d.getUTCMinutes(),
      hour: d.getUTCHours(),
      date: d.getUTCDate(),
      month: d.getUTCMonth() + 1,
      dow: d.getUTCDay(),
    });
    expect(entry!.match(digest(tenPast))).toBe(true);
    expect(entry!.match(digest(elevenPast))).toBe(false);
  });

  it('ingests the configured root into the configured workspace, as the docs-ingest principal', async () => {
    const after = await lastRunId();
    await worker.runner.addJob(DOCS_INGEST_TASK, {});
    const run = await oneRun(after);
    expect(run).toMatchObject({ root, created: 2, reap_outcome: 'nothing_to_reap', workspace: 'jobs-docs', actor: 'docs-ingest' });
  });

  it('takes the root and workspace from the payload', async () => {
    const after = await lastRunId();
    await worker.runner.addJob(DOCS_INGEST_TASK, { root: other, workspace: 'jobs-other' });
    expect(await oneRun(after)).toMatchObject({ root: other, created: 1, workspace: 'jobs-other' });
  });

  it('logs a refused reap as a warning and keeps it in doco.doc_ingest_runs', async () => {
    await rm(path.join(root, 'docs'), { recursive: true });
    const after = await lastRunId();
    lines.length = 0;
    await worker.runner.addJob(DOCS_INGEST_TASK, {});
    const run = await oneRun(after);
    expect(run.reap_outcome).toBe('refused');
    expect(run.reap_reason).toMatch(/no documents/);
    const warning = await until(async () => lines.find((l) => / warn  .*reap refused/.test(l)));
    expect(warning).toContain(run.reap_reason!);
  });
});
