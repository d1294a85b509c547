// Docs packs driven by NATS (docs/docs-pack.md), against a real nats-server on loopback and the real
// worker: service.register ingests the pack, a repeated registration costs one fetch and no
// embedding, a malformed message is a warning while the subscription lives on, gateway_online
// re-pulls, service.unregister retires the docs, and a nats-server killed and restarted is
// reconnected to with the subscriptions restored. The registering service is a loopback fake.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPack } from '../../src/ingest/packs/registry.js';
import type { RunningWorker } from '../../src/jobs/worker.js';
import { startNatsSubscriber, type NatsSubscriber } from '../../src/nats/subscriber.js';
import type { Log } from '../../src/lib/log.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { startTestWorker } from '../helpers/connector-worker.js';
import { countingEmbedder } from '../helpers/counting-embedder.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { waitFor } from '../helpers/doco-process.js';
import { natsConfig, NatsServer, publish, stopAllNatsServers } from '../helpers/nats-server.js';
import { LOOPBACK_PACK_HOSTS, markdown, startPackService, type PackService } from '../helpers/pack-service.js';
import { localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let billing: PackService;
let nats: NatsServer;
let worker: RunningWorker;
let subscriber: NatsSubscriber;
const embedder = countingEmbedder();
const providers = localProviders({ embedder });
const lines: { level: string; msg: string }[] = [];
const log: Log = {
  debug: () => {},
  info: (msg) => lines.push({ level: 'info', msg }),
  warn: (msg) => lines.push({ level: 'warn', msg }),
  error: (msg) => lines.push({ level: 'error', msg }),
};
/** The subscriber's warnings (the worker's own, if any, are not what these tests are about). */
const warnings = () => lines.filter((l) => l.level === 'warn' && l.msg.startsWith('NATS')).map((l) => l.msg);

const TOPICS = ['Numbering', 'Voiding', 'Currencies'];
const billingPack = (topics = TOPICS) => ({
  format: 1,
  code: 'billing',
  files: [{ path: 'docs/invoices.md', content: markdown('Invoices', topics) }],
});
const registration = () =>
  JSON.stringify({ code: 'billing', base_url: billing.baseUrl, capabilities: ['http', 'docs_pack'], version: '1.0.0' });

const liveSections = async () =>
  (
    await t.sql<{ section_key: string }[]>`
    select m.section_key from doco.doc_manifest m join doco.nodes n on n.id = m.node_id
     where m.workspace_id = ${ws.id} and m.source = 'pack:billing' and n.lifecycle <> 'retired' order by 1`
  ).map((r) => r.section_key);
const pendingJobs = async () => (await t.sql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs`)[0]!.n;
const outboxBacklog = async () => (await t.sql<{ n: number }[]>`select count(*)::int as n from doco.outbox`)[0]!.n;
const versions = async () => (await t.sql<{ n: number }[]>`select count(*)::int as n from doco.node_versions`)[0]!.n;
/** Every job done and the outbox drained into the index: what the worker was given is finished. */
const settled = () =>
  waitFor(
    'the worker to finish its jobs and drain the outbox',
    async () => (await pendingJobs()) === 0 && (await outboxBacklog()) === 0,
    60_000,
  );
/** Waits until the subscriber has handled `n` more messages than `from`. */
const handled = (from: number, n = 1) =>
  waitFor(`${n} NATS message(s) to be handled`, () => subscriber.state().handled >= from + n, 30_000);

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'nats');
  billing = await startPackService(billingPack());
  nats = await NatsServer.start();
  // The registering service listens on 127.0.0.1: listed, as an operator lists a private service.
  worker = await startTestWorker(t, providers, log, { packHosts: LOOPBACK_PACK_HOSTS });
  subscriber = startNatsSubscriber({
    sql: t.sql,
    db: t.db,
    log,
    workspaceId: ws.id,
    packHosts: LOOPBACK_PACK_HOSTS,
    config: natsConfig([nats.url]),
  });
  await subscriber.subscribed;
});
afterAll(async () => {
  await subscriber?.stop();
  await worker?.stop();
  await stopAllNatsServers();
  await billing?.close();
  await t?.drop();
});

describe('docs packs by NATS', () => {
  it('ingests a pack when its service registers with the docs_pack capability', async () => {
    const from = subscriber.state().handled;
    await publish(nats, 'service.register', registration());
    await handled(from);
    await waitFor('the pack to be ingested', async () => !!(await findPack(t.sql, ws.id, 'billing'))?.last_hash);
    await settled();
    expect(await liveSections()).toEqual([
      'billing:docs/invoices.md#currencies',
      'billing:docs/invoices.md#intro',
      'billing:docs/invoices.md#numbering',
      'billing:docs/invoices.md#voiding',
    ]);
    expect(billing.fetches).toBe(1);
    expect(embedder.documents).toBeGreaterThan(0);
  });

  it('costs one fetch and no embedding when an unchanged pack registers again', async () => {
    await settled();
    embedder.reset();
    const before = {
      fetches: billing.fetches,
      fetchedAt: (await findPack(t.sql, ws.id, 'billing'))!.last_fetched_at!,
      versions: await versions(),
    };
    const from = subscriber.state().handled;
    await publish(nats, 'service.register', registration());
    await handled(from);
    await waitFor(
      'the re-registered pack to be fetched',
      async () => (await findPack(t.sql, ws.id, 'billing'))!.last_fetched_at !== before.fetchedAt,
    );
    await settled();
    expect(billing.fetches).toBe(before.fetches + 1);
    expect(embedder.documents).toBe(0);
    expect(await versions()).toBe(before.versions);
  });

  it('drops malformed messages with a warning, and the subscription still works: gateway_online re-pulls a changed pack', async () => {
    const from = { handled: subscriber.state().handled, warnings: warnings().length };
    await publish(nats, 'service.register', '{"code": "billing", "base_url": ');
    await publish(
      nats,
      'service.register',
      JSON.stringify({ code: 'billing', base_url: 'file:///etc/passwd', capabilities: ['docs_pack'] }),
    );
    await publish(nats, 'service.unregister', JSON.stringify([{ code: 'billing' }]));
    await publish(nats, 'gateway_online', 'online!');
    await handled(from.handled, 4);
    expect(warnings().slice(from.warnings)).toEqual([
      expect.stringMatching(/^NATS service\.register: dropped a malformed message: the message is not JSON/),
      expect.stringMatching(/^NATS service\.register: dropped a malformed message: base_url must be an http\(s\) URL/),
      'NATS service.unregister: dropped a malformed message: the message must be a JSON object',
      expect.stringMatching(/^NATS gateway_online: dropped a malformed message: the message is not JSON/),
    ]);
    expect(await findPack(t.sql, ws.id, 'billing')).toMatchObject({ base_url: billing.baseUrl });
    // A good message after the garbage is handled: the pack has changed, and is pulled again.
    billing.pack = billingPack([...TOPICS, 'Refunds']);
    const fetches = billing.fetches;
    await publish(nats, 'gateway_online', '');
    await waitFor('the changed pack to be ingested', async () => (await liveSections()).includes('billing:docs/invoices.md#refunds'));
    await settled();
    expect(billing.fetches).toBe(fetches + 1);
  });

  it('retires the docs of a service that unregisters', async () => {
    const from = subscriber.state().handled;
    await publish(nats, 'service.unregister', JSON.stringify({ code: 'billing' }));
    await handled(from);
    expect(await liveSections()).toEqual([]);
    expect(await findPack(t.sql, ws.id, 'billing')).toBeUndefined();
    const [retired] = await t.sql<
      { n: number }[]
    >`select count(*)::int as n from doco.nodes where body->>'source_kind' = 'docs_pack' and lifecycle = 'retired'`;
    expect(retired!.n).toBe(5);
  });

  it('reconnects to a nats-server killed and restarted, resubscribes, and handles the next registration', async () => {
    const connections = subscriber.state().connections;
    await nats.kill();
    await waitFor('the subscriber to notice the server is gone', () => !subscriber.state().subscribed);
    expect(warnings().some((w) => /^NATS: disconnected from .*; reconnecting with backoff$/.test(w))).toBe(true);
    await nats.restart();
    await waitFor(
      'the subscriber to reconnect and resubscribe',
      () => subscriber.state().subscribed && subscriber.state().connections === connections + 1,
    );
    // The client's own reconnect did it (its backoff handler in use), not a fresh connection.
    expect(lines.some((l) => /^NATS: reconnected to .*; subscriptions restored$/.test(l.msg))).toBe(true);
    expect(warnings().some((w) => /connecting afresh/.test(w))).toBe(false);
    const from = subscriber.state().handled;
    await publish(nats, 'service.register', registration());
    await handled(from);
    await waitFor('the pack to be ingested again', async () => (await liveSections()).length === 5);
    await settled();
  });
});
