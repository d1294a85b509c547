// The write-path benchmark: capture latency, a 50-operation changeset, and hash-chain
// verification speed, over real HTTP on the embedded defaults. Captures and changesets are also
// sent, alternately in the same run, to a second server on the same database without the
// duplicate guard (`*_unguarded`), so the guard's cost is read off one run on a busy machine.
// The index is drained between rounds (untimed), so the guard's lookups find the earlier
// captures, which are near-duplicates of each other: its worst case. Last, captures among the
// ~100k records the verify benchmark bulk-wrote (`*_100k`): a large workspace, perhaps not analysed
// yet (`capture_100k_analysed`). The requests go through node:http's client (harness.ts postJson).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { checkChains } from '../src/graph/chain-checks.js';
import { buildApp } from '../src/http/app.js';
import { noJudge } from '../src/providers/judge.js';
import { makeLog } from '../src/lib/log.js';
import { drainOutbox } from '../src/indexing/drain.js';
import { postJson, startBenchDoco, type BenchDoco } from './harness.js';
import { percentile, round, timeIt } from './stats.js';

type Post = BenchDoco['post'];

/** The same Doco, served again without the duplicate guard. */
async function startUnguarded(doco: BenchDoco): Promise<{ post: Post; stop(): Promise<void> }> {
  const app = buildApp({ db: doco.db, sql: doco.sql, judge: noJudge, version: 'bench', ...doco.providers, skipDuplicateGuard: true });
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const { port } = server.address() as { port: number };
  return {
    post: postJson(`http://127.0.0.1:${port}`, doco.token),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const drain = (doco: BenchDoco) =>
  drainOutbox({ sql: doco.sql, embedder: doco.providers.embedder, store: doco.providers.store, log: makeLog('silent') });

const CAPTURES = 400;
const CHANGESETS = 60;
const VERIFY_VERSIONS = 100_000;

const prose = (i: number) =>
  `Decision ${i}: refunds go back to the card that paid, never as store credit. The billing page (app/routes/billing-${i % 50}.tsx) shows the refund button only to owners; see #${200 + (i % 30)} and docs/billing/refunds.md for the flow.`;

interface Samples {
  guarded: number[];
  unguarded: number[];
  flagged: number;
}

const flaggedIn = (body: { verdicts?: { policy: string }[] }) =>
  (body.verdicts ?? []).filter((v) => v.policy === 'possible_duplicate').length;

async function measureCaptures(doco: BenchDoco, guarded: Post, unguarded: Post): Promise<Samples> {
  const out: Samples = { guarded: [], unguarded: [], flagged: 0 };
  for (let i = 0; i < CAPTURES + 20; i++) {
    if (i % 40 === 0) await drain(doco);
    // Alternating which goes first, so neither always meets a warmer cache.
    const order = i % 2 ? (['guarded', 'unguarded'] as const) : (['unguarded', 'guarded'] as const);
    for (const which of order) {
      const send = which === 'guarded' ? guarded : unguarded;
      const [ms, res] = await timeIt(() =>
        send('/api/v1/capture', {
          collection: 'decisions',
          node_type: 'decision',
          prose: prose(i),
          body: { question: `How do refunds work, case ${i}?` },
        }),
      );
      if (res.status !== 201) throw new Error(`capture failed: ${JSON.stringify(res.body)}`);
      if (i < 20) continue; // the first requests warm the pool and the JIT
      out[which].push(ms);
      if (which === 'guarded') out.flagged += flaggedIn(res.body);
    }
  }
  return out;
}

/** 30 creates and 20 relates among them: the 50-operation limit, used in full. */
async function measureChangesets(doco: BenchDoco, guarded: Post, unguarded: Post): Promise<Samples> {
  const out: Samples = { guarded: [], unguarded: [], flagged: 0 };
  for (let round = 0; round < CHANGESETS + 5; round++) {
    if (round % 10 === 0) await drain(doco);
    const order = round % 2 ? (['guarded', 'unguarded'] as const) : (['unguarded', 'guarded'] as const);
    for (const which of order) {
      const operations: unknown[] = [];
      const base = round * 100 + (which === 'guarded' ? 0 : 50);
      for (let i = 0; i < 30; i++) operations.push({ op: 'create', alias: `r${i}`, node_type: 'decision', prose: prose(base + i) });
      for (let i = 0; i < 20; i++)
        operations.push({ op: 'relate', from: `$r${i + 1}`, to: `$r${i % 5}`, edge_type: i % 2 ? 'supports' : 'relates_to' });
      const send = which === 'guarded' ? guarded : unguarded;
      const [ms, res] = await timeIt(() => send('/api/v1/changeset', { collection: 'decisions', operations }));
      if (res.status !== 201) throw new Error(`changeset failed: ${JSON.stringify(res.body)}`);
      if (round < 5) continue;
      out[which].push(ms);
      if (which === 'guarded') out.flagged += flaggedIn(res.body);
    }
  }
  return out;
}

const SCALE_CAPTURES = 200;

/**
 * Guarded captures of the type the verify benchmark bulk-wrote (~100k records, none indexed):
 * what a capture costs in a large workspace, where a plan that reads every record of the type
 * (as the guard's once did, cached while the workspace was small) shows at once.
 */
async function measureCapturesAtScale(post: Post): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < SCALE_CAPTURES + 20; i++) {
    const [ms, res] = await timeIt(() =>
      post('/api/v1/capture', {
        collection: 'decisions',
        node_type: 'reference',
        prose: `Note ${i} about services/api/handler_${i % 100}.go: the handler retries twice, then gives up.`,
      }),
    );
    if (res.status !== 201) throw new Error(`capture failed: ${JSON.stringify(res.body)}`);
    if (i >= 20) out.push(ms);
  }
  return out;
}

/** Fills the version tables up to VERIFY_VERSIONS through the real triggers, then times verify (as `doco verify` checks). */
async function measureVerify(doco: BenchDoco, log: (l: string) => void): Promise<number> {
  const [row] = await doco.sql<{ n: number }[]>`select count(*)::int as n from doco.node_versions`;
  const n = row!.n;
  const missing = Math.max(0, VERIFY_VERSIONS - n);
  log(`writing ${missing} more record versions for the verify benchmark…`);
  const batch = 10_000;
  for (let done = 0; done < missing; done += batch) {
    const size = Math.min(batch, missing - done);
    await doco.sql`
      insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose, body)
      select doco.new_id('reference'), ${doco.workspaceId}, c.id, 'reference', 'active', 'Note ' || g, 'Bulk note ' || g || ' about services/api/handler_' || (g % 100) || '.go', '{}'::jsonb
        from generate_series(1, ${size}) g, doco.collections c
       where c.workspace_id = ${doco.workspaceId} and c.slug = 'decisions'`;
  }
  const [totals] = await doco.sql<
    { total: number }[]
  >`select ((select count(*) from doco.node_versions) + (select count(*) from doco.edge_versions))::int as total`;
  const total = totals!.total;
  // What `doco verify` runs: the chains, then the heads it keeps in its home (the first run keeps
  // them, the next two check them too).
  const home = await mkdtemp(path.join(os.tmpdir(), 'doco-bench-anchor-'));
  try {
    const runs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const [ms, broken] = await timeIt(() => checkChains(doco.sql, home));
      if (broken.length) throw new Error(`verify found ${broken.length} broken links in an untouched database`);
      runs.push(ms);
    }
    return (percentile(runs, 50) / 1000) * (100_000 / Number(total));
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

export async function writesSuite(log: (line: string) => void): Promise<Record<string, number>> {
  const doco = await startBenchDoco();
  try {
    const res = await doco.post('/api/v1/collections', { slug: 'decisions', template: 'product-decisions', goal: 'Benchmark decisions' });
    if (res.status !== 201) throw new Error(`collection: ${JSON.stringify(res.body)}`);
    const unguarded = await startUnguarded(doco);
    const guarded = doco.post;
    try {
      log(`capture × ${CAPTURES}, with and without the duplicate guard…`);
      const captures = await measureCaptures(doco, guarded, unguarded.post);
      log(`changeset of 50 operations × ${CHANGESETS}, with and without the duplicate guard…`);
      const changesets = await measureChangesets(doco, guarded, unguarded.post);
      const verify = await measureVerify(doco, log);
      log(`capture × ${SCALE_CAPTURES} among the ${VERIFY_VERSIONS.toLocaleString('en')}-odd records the verify benchmark wrote…`);
      const atScale = await measureCapturesAtScale(guarded);
      const [stats] = await doco.sql<{ analysed: boolean }[]>`
        select (last_analyze is not null or last_autoanalyze is not null) as analysed from pg_stat_user_tables where schemaname = 'doco' and relname = 'nodes'`;
      return {
        capture_p50_ms: round(percentile(captures.guarded, 50)),
        capture_p95_ms: round(percentile(captures.guarded, 95)),
        capture_unguarded_p50_ms: round(percentile(captures.unguarded, 50)),
        capture_unguarded_p95_ms: round(percentile(captures.unguarded, 95)),
        capture_flagged_duplicates: captures.flagged,
        changeset50_p50_ms: round(percentile(changesets.guarded, 50)),
        changeset50_p95_ms: round(percentile(changesets.guarded, 95)),
        changeset50_unguarded_p50_ms: round(percentile(changesets.unguarded, 50)),
        changeset50_unguarded_p95_ms: round(percentile(changesets.unguarded, 95)),
        changeset50_flagged_duplicates: changesets.flagged,
        verify_s_per_100k_versions: round(verify, 3),
        capture_p50_ms_100k: round(percentile(atScale, 50)),
        capture_p95_ms_100k: round(percentile(atScale, 95)),
        // 1 when autovacuum had analysed doco.nodes by the end (statistics the planner may have used).
        capture_100k_analysed: stats?.analysed ? 1 : 0,
      };
    } finally {
      await unguarded.stop();
    }
  } finally {
    await doco.stop();
  }
}
