// The connectors benchmark (docs/connectors.md), on the embedded defaults; `--only github|slack` runs one
// part (the Slack part is bench/connectors-slack.ts). GitHub: webhook ack
// latency over HTTP (signed pull_request deliveries, recorded and queued, not processed), the
// first sweep of a repository of 1,000 PRs with 10 files each from the loopback fake (then its
// indexing), and reruns with nothing new (0 records written; the second rerun all 304s). The
// Notion and Drive part is in connectors-docs.ts. `--only=github,notion,drive` picks the parts.
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { GithubClient } from '../src/connectors/github/client.js';
import type { ConnectorDeps } from '../src/connectors/kind.js';
import { parseAddConnector } from '../src/connectors/registry.js';
import { sweepConnectors } from '../src/connectors/run.js';
import { addConnector } from '../src/connectors/store.js';
import { makeLog } from '../src/lib/log.js';
import { drainOutbox } from '../src/indexing/drain.js';
import { FakeGithub } from '../test/helpers/fake-github.js';
import { docsConnectorFigures } from './connectors-docs.js';
import { slackConnectorFigures } from './connectors-slack.js';
import { startBenchDoco } from './harness.js';
import { percentile, round, timeIt } from './stats.js';

const PRS = 1_000;
const FILES = 10;
const ACKS = 300;
const SECRET = 'bench-webhook-secret';
const REPO = 'bench-org/monolith';

export async function connectorsSuite(log: (line: string) => void, args: string[] = []): Promise<Record<string, number>> {
  const picked = args
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const only = new Set(picked ?? ['github', 'slack', 'notion', 'drive']);
  return {
    ...(only.has('github') ? await githubFigures(log) : {}),
    ...(only.has('slack') ? await slackConnectorFigures(log) : {}),
    ...(await docsConnectorFigures(log, only)),
  };
}

async function githubFigures(log: (line: string) => void): Promise<Record<string, number>> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const gh = new FakeGithub({ publicKey, appId: '1', installationId: 7 }, REPO);
  const origin = await gh.start();
  for (let n = 1; n <= PRS; n++) {
    gh.pulls.set(n, {
      number: n,
      title: `Change ${n} to the billing module`,
      body: `This pull request changes part ${n} of billing. `.repeat(4),
      state: n % 3 ? 'open' : 'closed',
      merged: n % 3 === 0,
      updated_at: new Date(Date.UTC(2026, 10, 1) + n * 60_000).toISOString(),
      head: { ref: `change-${n}` },
      base: { ref: 'main' },
      files: Array.from({ length: FILES }, (_, i) => `services/billing/part${n % 50}/file${i}.ts`),
    });
  }
  const doco = await startBenchDoco({ githubWebhookSecret: SECRET });
  try {
    const connector = await addConnector(doco.sql, doco.workspaceId, parseAddConnector({ kind: 'github', installation_id: 7, repo: REPO }));
    const deps: ConnectorDeps = {
      sql: doco.sql,
      db: doco.db,
      log: makeLog('warn'),
      github: new GithubClient({ apiUrl: origin, appId: '1', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() }),
    };

    const acks: number[] = [];
    for (let i = 0; i < ACKS; i++) {
      const body = JSON.stringify({
        action: 'edited',
        number: (i % PRS) + 1,
        pull_request: gh.pullJson(gh.pulls.get((i % PRS) + 1)!),
        repository: { full_name: REPO },
        installation: { id: 7 },
      });
      const started = performance.now();
      const res = await fetch(`${doco.baseUrl}/webhooks/github`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'pull_request',
          'x-github-delivery': `bench-${i}`,
          'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
        },
        body,
      });
      await res.arrayBuffer();
      acks.push(performance.now() - started);
      if (res.status !== 202) throw new Error(`webhook answered ${res.status}`);
    }
    // The queued deliveries are not the subject here: drop their jobs so nothing else runs.
    await doco.sql`delete from graphile_worker._private_jobs`;
    log(`webhook ack: p50 ${percentile(acks, 50).toFixed(1)} ms, p95 ${percentile(acks, 95).toFixed(1)} ms over ${ACKS}`);

    const changesets = async () =>
      (await doco.sql<{ n: number }[]>`select count(*)::int as n from doco.changesets where source = 'connector'`)[0]!.n;
    const [sweepMs, [first]] = await timeIt(() => sweepConnectors(deps, { connectorId: connector.id }));
    if (!first?.ok) throw new Error(`sweep failed: ${first?.error}`);
    const [indexMs, drained] = await timeIt(() =>
      drainOutbox({ sql: doco.sql, log: makeLog('warn'), ...doco.providers }, { batchSize: 500 }),
    );
    log(
      `first sweep: ${first.report!.items.created} records from ${gh.requests.length} API calls in ${(sweepMs / 1000).toFixed(1)} s; indexed ${drained.chunksEmbedded} chunks in ${(indexMs / 1000).toFixed(1)} s`,
    );

    const before = await changesets();
    gh.requests.length = 0;
    const [rerunMs, [rerun]] = await timeIt(() => sweepConnectors(deps, { connectorId: connector.id }));
    const rerunCalls = gh.requests.length;
    gh.requests.length = 0;
    const [rerun2Ms, [rerun2]] = await timeIt(() => sweepConnectors(deps, { connectorId: connector.id }));
    const written = (await changesets()) - before;
    log(
      `rerun: ${rerunCalls} API calls in ${(rerunMs / 1000).toFixed(2)} s; second rerun: ${gh.requests.length} calls (${gh.requests.filter((r) => r.status === 304).length} × 304) in ${(rerun2Ms / 1000).toFixed(2)} s; ${written} changesets written`,
    );
    if (!rerun?.ok || !rerun2?.ok) throw new Error('a rerun failed');
    return {
      webhook_ack_p50_ms: round(percentile(acks, 50), 1),
      webhook_ack_p95_ms: round(percentile(acks, 95), 1),
      backfill_prs: first.report!.items.created,
      backfill_sweep_s: round(sweepMs / 1000),
      backfill_index_s: round(indexMs / 1000),
      rerun_s: round(rerunMs / 1000),
      rerun_api_calls: rerunCalls,
      rerun2_s: round(rerun2Ms / 1000),
      rerun_records_written:
        written +
        rerun!.report!.items.created +
        rerun!.report!.items.updated +
        rerun2!.report!.items.created +
        rerun2!.report!.items.updated,
    };
  } finally {
    await doco.stop();
    await gh.stop();
  }
}
