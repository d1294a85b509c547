// The connectors benchmark, Slack part (docs/connectors.md), on the embedded defaults: Events API ack
// latency over HTTP (signed message events, recorded and queued, not processed), the first sync
// of a channel of 5,000 messages in 500 threads from the loopback fake (then its indexing), and
// a rerun with nothing new (0 records written).
import { createHmac } from 'node:crypto';
import { SlackClient } from '../src/connectors/slack/client.js';
import type { ConnectorDeps } from '../src/connectors/kind.js';
import { parseAddConnector } from '../src/connectors/registry.js';
import { sweepConnectors } from '../src/connectors/run.js';
import { addConnector } from '../src/connectors/store.js';
import { makeLog } from '../src/lib/log.js';
import { drainOutbox } from '../src/indexing/drain.js';
import { FakeSlack } from '../test/helpers/fake-slack.js';
import { startBenchDoco } from './harness.js';
import { percentile, round, timeIt } from './stats.js';

const THREADS = 500;
const PER_THREAD = 10; // the root and nine replies
const ACKS = 300;
const SECRET = 'bench-signing-secret';
const TOKEN = 'xoxb-bench-token';
const TEAM = 'T0BENCH';
const CHANNEL = 'C0BENCH';

export async function slackConnectorFigures(log: (line: string) => void): Promise<Record<string, number>> {
  const slack = new FakeSlack({ teamId: TEAM, token: TOKEN });
  const apiUrl = await slack.start();
  slack.addChannel(CHANNEL, 'bench');
  for (let n = 1; n <= THREADS; n++) {
    const root = slack.post(CHANNEL, `Thread ${n}: how should part ${n % 50} of billing handle refunds? `.repeat(2), {
      user: `U${n % 20}`,
    });
    for (let r = 1; r < PER_THREAD; r++)
      slack.post(CHANNEL, `Reply ${r} on thread ${n}: check services/billing/part${n % 50}/refund${r}.ts first.`, {
        user: `U${(n + r) % 20}`,
        threadTs: root,
      });
  }
  const doco = await startBenchDoco({ slackSigningSecret: SECRET });
  try {
    const connector = await addConnector(doco.sql, doco.workspaceId, parseAddConnector({ kind: 'slack', team_id: TEAM, channel: CHANNEL }));
    const deps: ConnectorDeps = { sql: doco.sql, db: doco.db, log: makeLog('warn'), slack: new SlackClient({ apiUrl, token: TOKEN }) };

    const acks: number[] = [];
    for (let i = 0; i < ACKS; i++) {
      const body = JSON.stringify({
        type: 'event_callback',
        team_id: TEAM,
        event_id: `EvBENCH${i}`,
        event_time: Math.floor(Date.now() / 1000),
        event: {
          type: 'message',
          channel: CHANNEL,
          channel_type: 'channel',
          user: 'U1',
          text: `message ${i}`,
          ts: `1800000000.${String(i).padStart(6, '0')}`,
        },
      });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const started = performance.now();
      const res = await fetch(`${doco.baseUrl}/webhooks/slack/events`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-slack-request-timestamp': timestamp,
          'x-slack-signature': `v0=${createHmac('sha256', SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`,
        },
        body,
      });
      const answer = (await res.json()) as { queued?: boolean };
      acks.push(performance.now() - started);
      if (res.status !== 200 || !answer.queued) throw new Error(`the events endpoint answered ${res.status} ${JSON.stringify(answer)}`);
    }
    // The queued events are not the subject here: drop their jobs so nothing else runs.
    await doco.sql`delete from graphile_worker._private_jobs`;
    log(`slack event ack: p50 ${percentile(acks, 50).toFixed(1)} ms, p95 ${percentile(acks, 95).toFixed(1)} ms over ${ACKS}`);

    const records = async () =>
      (
        await doco.sql<
          { n: number }[]
        >`select count(*)::int as n from doco.node_versions v join doco.nodes n on n.id = v.node_id where n.body->>'source_kind' = 'slack'`
      )[0]!.n;
    slack.requests.length = 0;
    const [syncMs, [first]] = await timeIt(() => sweepConnectors(deps, { connectorId: connector.id }));
    if (!first?.ok) throw new Error(`sync failed: ${first?.error}`);
    const calls = slack.requests.length;
    const [indexMs, drained] = await timeIt(() =>
      drainOutbox({ sql: doco.sql, log: makeLog('warn'), ...doco.providers }, { batchSize: 500 }),
    );
    log(
      `first sync: ${first.report!.items.created} thread records (${THREADS * PER_THREAD} messages) from ${calls} API calls in ${(syncMs / 1000).toFixed(1)} s; indexed ${drained.chunksEmbedded} chunks in ${(indexMs / 1000).toFixed(1)} s`,
    );

    const before = await records();
    slack.requests.length = 0;
    const [rerunMs, [rerun]] = await timeIt(() => sweepConnectors(deps, { connectorId: connector.id }));
    if (!rerun?.ok) throw new Error(`the rerun failed: ${rerun?.error}`);
    const written = (await records()) - before;
    log(`rerun: ${slack.requests.length} API calls in ${(rerunMs / 1000).toFixed(2)} s; ${written} record versions written`);
    return {
      slack_ack_p50_ms: round(percentile(acks, 50), 1),
      slack_ack_p95_ms: round(percentile(acks, 95), 1),
      slack_backfill_threads: first.report!.items.created,
      slack_backfill_messages: THREADS * PER_THREAD,
      slack_backfill_api_calls: calls,
      slack_backfill_sync_s: round(syncMs / 1000),
      slack_backfill_index_s: round(indexMs / 1000),
      slack_rerun_s: round(rerunMs / 1000),
      slack_rerun_api_calls: slack.requests.length,
      slack_rerun_records_written: written,
    };
  } finally {
    await doco.stop();
    await slack.stop();
  }
}
