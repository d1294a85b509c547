// graphile-worker tasks and their crontab. A task is (payload, helpers) => Promise; it throws
// to be retried.
import type { Task, TaskList } from 'graphile-worker';
import type { PackHosts } from '../config/pack-hosts.js';
import type { Db, Sql } from '../db/connect.js';
import type { Embedder } from '../providers/embedder.js';
import type { CrashHook } from '../lib/crash-point.js';
import type { Log } from '../lib/log.js';
import { drainOutbox } from '../indexing/drain.js';
import type { GithubClient } from '../connectors/github/client.js';
import type { DriveClient } from '../connectors/drive/client.js';
import type { NotionClient } from '../connectors/notion/client.js';
import type { SlackClient } from '../connectors/slack/client.js';
import { connectorCrontab, connectorDelivery, connectorRequeue, connectorSweep } from './connector-tasks.js';
import { DELIVERY_TASK, REQUEUE_TASK, SWEEP_TASK } from '../connectors/queue.js';
import { CATCH_UP_TASK, derivationsCatchUp } from './derivation-tasks.js';
import { DOCS_INGEST_TASK, docsCrontab, docsIngest, type DocsJobConfig } from './docs-tasks.js';
import { packPull } from './pack-tasks.js';
import { PACK_PULL_TASK } from '../ingest/packs/queue.js';
import type { IndexKeeper } from '../indexing/index-keeper.js';
import type { VectorStore } from '../providers/vector/port.js';

export interface JobDeps {
  sql: Sql;
  embedder: Embedder;
  store: VectorStore;
  keeper: IndexKeeper;
  log: Log;
  /** The query builder over `sql`; tasks that need one make it when absent. */
  db?: Db;
  /** Where the doc ingester's job walks, and for which workspace. */
  docs?: DocsJobConfig;
  /** DOCO_PACK_HOSTS, for docs-pack pulls; unset: the default host policy alone. */
  packHosts?: PackHosts;
  /** The GitHub App client, when GITHUB_APP_ID and its key are set. */
  github?: GithubClient;
  /** The Notion and Drive clients, when NOTION_TOKEN / a Google credential is set. */
  notion?: NotionClient;
  drive?: DriveClient;
  /** The Slack Web API client, when SLACK_BOT_TOKEN is set. */
  slack?: SlackClient;
  /** The crash suite's hook (src/lib/crash-point.ts). */
  crash?: CrashHook;
  /** DOCO_BRIEFS_KEEP_DAYS: stored briefs older than this go (briefs__prune); 0 or unset keeps them all. */
  briefsKeepDays?: number;
}

/**
 * Recomputes PageRank for every collection whose live edges changed since the last sweep, one
 * collection a statement, so a write marking another collection dirty never waits for the rest
 * (sql/pagerank.sql, doco.pagerank_sweep_one). At most as many as were dirty when it began: a
 * collection written to all along is not swept over and over in one run.
 */
export const pagerankSweep =
  (deps: JobDeps): Task =>
  async (_payload, helpers) => {
    const [count] = await deps.sql<{ n: number }[]>`select count(*)::int as n from doco.pagerank_dirty`;
    let swept = 0;
    for (let i = 0; i < (count?.n ?? 0); i++) {
      const [row] = await deps.sql<{ collection: string | null }[]>`select doco.pagerank_sweep_one() as collection`;
      if (!row?.collection) break;
      swept++;
    }
    if (swept > 0) helpers.logger.info(`PageRank recomputed for ${swept} collection(s)`);
  };

/** Indexes what the outbox holds: chunks, embeddings, the vector store. */
export const outboxDrain =
  (deps: JobDeps): Task =>
  async (_payload, helpers) => {
    const report = await drainOutbox(deps);
    // Orphan points the sweep removed change the index too: unsaved, a clean stop's snapshot kept them.
    if (report.chunksEmbedded || report.chunksRemoved || report.orphansRemoved) deps.keeper.changed(report.maxSeq);
    if (report.records || report.failedRecords) {
      helpers.logger.info(
        `indexed ${report.records} record(s): ${report.chunksEmbedded} chunk(s) embedded, ${report.chunksUnchanged} unchanged, ${report.chunksRemoved} removed, ${report.failedRecords} failed`,
      );
    }
  };

/** Forgets agent sessions idle for 30 days (each checkout's latest stays). */
export const hooksPrune =
  (deps: JobDeps): Task =>
  async (_payload, helpers) => {
    const [row] = await deps.sql<{ pruned: number }[]>`select doco.prune_hook_sessions() as pruned`;
    if (row && row.pruned > 0) helpers.logger.info(`pruned ${row.pruned} idle hook session(s)`);
  };

/** Forgets webhook delivery ids older than 30 days. */
export const connectorsPrune =
  (deps: JobDeps): Task =>
  async (_payload, helpers) => {
    const [row] = await deps.sql<{ pruned: number }[]>`select doco.prune_connector_deliveries() as pruned`;
    if (row && row.pruned > 0) helpers.logger.info(`pruned ${row.pruned} old webhook delivery id(s)`);
  };

/** Stored briefs, per call at most this many: each call is its own transaction, and a first prune of a year's briefs is long. */
const PRUNE_BRIEFS_AT_ONCE = 5000;

/** Deletes stored briefs older than DOCO_BRIEFS_KEEP_DAYS (none when it is 0), oldest first. */
export const briefsPrune =
  (deps: JobDeps): Task =>
  async (_payload, helpers) => {
    const days = deps.briefsKeepDays ?? 0;
    if (days <= 0) return;
    let pruned = 0;
    for (;;) {
      const [row] = await deps.sql<{ pruned: number }[]>`
        select doco.prune_briefs(make_interval(days => ${days}), ${PRUNE_BRIEFS_AT_ONCE}) as pruned`;
      pruned += row?.pruned ?? 0;
      if ((row?.pruned ?? 0) < PRUNE_BRIEFS_AT_ONCE) break;
    }
    if (pruned > 0) helpers.logger.info(`pruned ${pruned} stored brief(s) older than ${days} days`);
  };

export function buildTaskList(deps: JobDeps): TaskList {
  return {
    pagerank__sweep: pagerankSweep(deps),
    hooks__prune: hooksPrune(deps),
    connectors__prune: connectorsPrune(deps),
    briefs__prune: briefsPrune(deps),
    outbox__drain: outboxDrain(deps),
    [CATCH_UP_TASK]: derivationsCatchUp(deps),
    [DOCS_INGEST_TASK]: docsIngest(deps),
    [PACK_PULL_TASK]: packPull(deps),
    [DELIVERY_TASK]: connectorDelivery(deps),
    [SWEEP_TASK]: connectorSweep(deps),
    [REQUEUE_TASK]: connectorRequeue(deps),
  };
}

/** Cron entries (graphile-worker crontab format). */
export const CRONTAB = [
  '* * * * * pagerank__sweep ?max=1&jobKey=pagerank__sweep&jobKeyMode=preserve_run_at',
  '* * * * * outbox__drain ?max=1&jobKey=outbox__drain&jobKeyMode=preserve_run_at',
  '17 3 * * * hooks__prune ?max=1&jobKey=hooks__prune',
  '27 3 * * * connectors__prune ?max=1&jobKey=connectors__prune',
  '37 3 * * * briefs__prune ?max=1&jobKey=briefs__prune',
  // Queued at start when pending; hourly too, for sql/ applied while the workers ran (`doco migrate` during a deploy).
  '41 * * * * derivations__catch_up ?max=1&jobKey=derivations__catch_up',
].join('\n');

/** The crontab for these deps: CRONTAB, each connector kind's sweep, and the doc ingester's entry when a docs root is set. */
export const crontabFor = (deps: JobDeps): string => [CRONTAB, ...connectorCrontab(), ...docsCrontab(deps.docs)].join('\n');
