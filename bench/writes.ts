// The write-path benchmark: capture latency, a 50-operation changeset, and hash-chain
// verification speed, over real HTTP on the embedded defaults.
import { startBenchDoco, type BenchDoco } from './harness.js';
import { percentile, round, timeIt } from './stats.js';

const CAPTURES = 400;
const CHANGESETS = 60;
const VERIFY_VERSIONS = 100_000;

const prose = (i: number) =>
  `Decision ${i}: refunds go back to the card that paid, never as store credit. The billing page (app/routes/billing-${i % 50}.tsx) shows the refund button only to owners; see #${200 + (i % 30)} and docs/billing/refunds.md for the flow.`;

async function measureCaptures(doco: BenchDoco): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < CAPTURES + 20; i++) {
    const [ms, res] = await timeIt(() => doco.post('/api/v1/capture', { collection: 'decisions', node_type: 'decision', prose: prose(i), body: { question: `How do refunds work, case ${i}?` } }));
    if (res.status !== 201) throw new Error(`capture failed: ${JSON.stringify(res.body)}`);
    if (i >= 20) samples.push(ms); // the first requests warm the pool and the JIT
  }
  return samples;
}

/** 30 creates and 20 relates among them: the 50-operation limit, used in full. */
async function measureChangesets(doco: BenchDoco): Promise<number[]> {
  const samples: number[] = [];
  for (let round = 0; round < CHANGESETS + 5; round++) {
    const operations: unknown[] = [];
    for (let i = 0; i < 30; i++) operations.push({ op: 'create', alias: `r${i}`, node_type: 'decision', prose: prose(round * 100 + i) });
    for (let i = 0; i < 20; i++) operations.push({ op: 'relate', from: `$r${i + 1}`, to: `$r${i % 5}`, edge_type: i % 2 ? 'supports' : 'relates_to' });
    const [ms, res] = await timeIt(() => doco.post('/api/v1/changeset', { collection: 'decisions', operations }));
    if (res.status !== 201) throw new Error(`changeset failed: ${JSON.stringify(res.body)}`);
    if (round >= 5) samples.push(ms);
  }
  return samples;
}

/** Fills the version tables up to VERIFY_VERSIONS through the real triggers, then times verify. */
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
  const [totals] = await doco.sql<{ total: number }[]>`select ((select count(*) from doco.node_versions) + (select count(*) from doco.edge_versions))::int as total`;
  const total = totals!.total;
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const [ms, broken] = await timeIt(() => doco.sql`select * from doco.verify_chains()`);
    if (broken.length) throw new Error(`verify found ${broken.length} broken links in an untouched database`);
    runs.push(ms);
  }
  return (percentile(runs, 50) / 1000) * (100_000 / Number(total));
}

export async function writesSuite(log: (line: string) => void): Promise<Record<string, number>> {
  const doco = await startBenchDoco();
  try {
    const res = await doco.post('/api/v1/collections', { slug: 'decisions', template: 'product-decisions', goal: 'Benchmark decisions' });
    if (res.status !== 201) throw new Error(`collection: ${JSON.stringify(res.body)}`);
    log(`capture × ${CAPTURES}…`);
    const captures = await measureCaptures(doco);
    log(`changeset of 50 operations × ${CHANGESETS}…`);
    const changesets = await measureChangesets(doco);
    const verify = await measureVerify(doco, log);
    return {
      capture_p50_ms: round(percentile(captures, 50)),
      capture_p95_ms: round(percentile(captures, 95)),
      changeset50_p50_ms: round(percentile(changesets, 50)),
      changeset50_p95_ms: round(percentile(changesets, 95)),
      verify_s_per_100k_versions: round(verify, 3),
    };
  } finally {
    await doco.stop();
  }
}
