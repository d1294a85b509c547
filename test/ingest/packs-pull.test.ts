// Pulling docs packs end to end against a registering service on loopback: ingest under
// 'pack:<code>' with source_kind docs_pack, an unchanged pack costs a fetch and a hash compare
// (no embedding, no version, no run), a changed pack touches only its changed sections and reaps
// only its own, a failed fetch changes nothing but last_error, delete and the start-up re-pull.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestDocSections } from '../../src/ingest/docs/ingest.js';
import { splitMarkdown } from '../../src/ingest/docs/sections.js';
import { deletePackDocs } from '../../src/ingest/packs/delete.js';
import { pullDocsPack } from '../../src/ingest/packs/pull.js';
import { findPack, registerPack, registrationMark, removePackRow } from '../../src/ingest/packs/registry.js';
import { queueAllPackPulls } from '../../src/ingest/packs/queue.js';
import { startWorker } from '../../src/jobs/worker.js';
import { makeLog } from '../../src/lib/log.js';
import { indexKeeper } from '../../src/indexing/index-keeper.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { countingEmbedder } from '../helpers/counting-embedder.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { deadBaseUrl, LOOPBACK_PACK_HOSTS, markdown, openapi, startPackService, type PackService } from '../helpers/pack-service.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let billing: PackService;
let payments: PackService;
const embedder = countingEmbedder();
const providers = localProviders({ embedder });
// The pack services listen on 127.0.0.1: listed (DOCO_PACK_HOSTS=127.0.0.1), as an operator lists its private services.
const deps = () => ({ sql: t.sql, db: t.db, packHosts: LOOPBACK_PACK_HOSTS });

const INVOICE_TOPICS = ['Numbering', 'Voiding', 'Currencies', 'Taxes', 'Discounts', 'Due dates'];
const billingPack = (topics = INVOICE_TOPICS, salt: Record<string, string> = {}) => ({
  format: 1,
  code: 'billing',
  files: [
    { path: 'docs/invoices.md', content: markdown('Invoices', topics, salt) },
    { path: 'docs/refunds.mdx', content: `import { Note } from './note';\n\n${markdown('Refunds', ['Partial refunds', 'Chargebacks'])}` },
  ],
  openapi,
});
const paymentsPack = {
  format: 1,
  code: 'payments',
  files: [{ path: 'docs/cards.md', content: markdown('Cards', ['Tokenisation', 'Declines']) }],
};

/** Live records of one source, by section key. */
async function live(source: string) {
  return t.sql<{ section_key: string; node_id: string; version: number; kind: string }[]>`
    select m.section_key, m.node_id, n.version, n.body->>'source_kind' as kind
      from doco.doc_manifest m join doco.nodes n on n.id = m.node_id
     where m.workspace_id = ${ws.id} and m.source = ${source} and n.lifecycle <> 'retired' order by m.section_key`;
}
const count = async (table: string) => (await t.sql.unsafe(`select count(*)::int as n from ${table}`))[0]!.n as number;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'packs');
  billing = await startPackService(billingPack());
  payments = await startPackService(paymentsPack);
  await registerPack(t.sql, ws.id, 'billing', billing.baseUrl);
  await registerPack(t.sql, ws.id, 'payments', payments.baseUrl);
  // The filesystem ingester's docs, in the same workspace and collection.
  const guide = splitMarkdown('docs/guide.md', markdown('Guide', ['Setup', 'Numbering'])).sections;
  await ingestDocSections(deps(), {
    workspaceId: ws.id,
    principalId: ws.principalId,
    source: 'fs',
    root: '/repo',
    files: [{ path: 'docs/guide.md', sections: guide }],
  });
});
afterAll(async () => {
  await Promise.all([billing.close(), payments.close()]);
  await t.drop();
});

describe('pulling a docs pack', () => {
  it('ingests the pack under its code, the OpenAPI document as {code}-openapi, with source_kind docs_pack', async () => {
    const result = await pullDocsPack(deps(), ws.id, 'billing');
    expect(result.outcome).toBe('ingested');
    expect((await pullDocsPack(deps(), ws.id, 'payments')).outcome).toBe('ingested');
    const rows = await live('pack:billing');
    expect(result.outcome === 'ingested' && result.report.created).toBe(rows.length);
    expect(new Set(rows.map((r) => r.kind))).toEqual(new Set(['docs_pack']));
    expect(rows.map((r) => r.section_key)).toContain('billing:docs/invoices.md#numbering');
    expect(rows.map((r) => r.section_key)).toContain('billing:docs/refunds.mdx#chargebacks');
    expect(rows.filter((r) => r.section_key.startsWith('billing-openapi#')).map((r) => r.section_key)).toEqual([
      'billing-openapi#get-invoices-id',
      'billing-openapi#intro',
      'billing-openapi#post-invoices',
      'billing-openapi#schema-invoice',
    ]);
    expect((await live('fs')).map((r) => r.kind)).toEqual(['doc', 'doc', 'doc']);
    const pack = await findPack(t.sql, ws.id, 'billing');
    expect(pack?.last_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(pack?.last_error).toBeNull();
    await drainAll(t.sql, providers);
    expect(embedder.documents).toBeGreaterThan(0);
  });

  it('re-pulls an unchanged pack with one fetch and a hash compare: no run, no version, no embedding', async () => {
    embedder.reset();
    const before = {
      versions: await count('doco.node_versions'),
      runs: await count('doco.doc_ingest_runs'),
      fetches: billing.fetches,
      pack: await findPack(t.sql, ws.id, 'billing'),
    };
    const result = await pullDocsPack(deps(), ws.id, 'billing');
    expect(result.outcome).toBe('unchanged');
    await drainAll(t.sql, providers);
    expect(embedder.documents).toBe(0);
    expect(await count('doco.node_versions')).toBe(before.versions);
    expect(await count('doco.doc_ingest_runs')).toBe(before.runs);
    expect(billing.fetches).toBe(before.fetches + 1);
    const after = await findPack(t.sql, ws.id, 'billing');
    expect(after?.last_hash).toBe(before.pack?.last_hash);
    expect(Date.parse(after!.last_fetched_at!)).toBeGreaterThan(Date.parse(before.pack!.last_fetched_at!));
  });

  it('updates only the changed sections of a changed pack and retires the removed, within its own code', async () => {
    const others = { fs: await live('fs'), payments: await live('pack:payments') };
    const old = await live('pack:billing');
    billing.pack = billingPack([...INVOICE_TOPICS.filter((x) => x !== 'Voiding'), 'Credits'], { Numbering: 'now gapless per series ' });
    embedder.reset();
    const result = await pullDocsPack(deps(), ws.id, 'billing');
    if (result.outcome !== 'ingested') throw new Error(`expected an ingest, got ${result.outcome}`);
    expect([result.report.created, result.report.updated, result.report.reap]).toEqual([
      1,
      1,
      { outcome: 'reaped', reason: null, count: 1 },
    ]);
    expect(result.report.skipped).toBe(old.length - 2);
    const voiding = old.find((r) => r.section_key === 'billing:docs/invoices.md#voiding')!;
    const [retired] = await t.sql`select lifecycle from doco.nodes where id = ${voiding.node_id}`;
    expect(retired!.lifecycle).toBe('retired');
    const now = await live('pack:billing');
    expect(now.find((r) => r.section_key.endsWith('#numbering'))!.version).toBe(
      old.find((r) => r.section_key.endsWith('#numbering'))!.version + 1,
    );
    expect({ fs: await live('fs'), payments: await live('pack:payments') }).toEqual(others);
    await drainAll(t.sql, providers);
    expect(embedder.documents).toBeGreaterThan(0);
    expect(embedder.embedded.every((text) => text.includes('now gapless per series') || text.includes('Credits'))).toBe(true);
  });

  it('records why an unreachable pack failed, and retires nothing', async () => {
    const before = { rows: await live('pack:billing'), pack: await findPack(t.sql, ws.id, 'billing') };
    await registerPack(t.sql, ws.id, 'billing', await deadBaseUrl());
    const result = await pullDocsPack(deps(), ws.id, 'billing', { timeoutMs: 5_000 });
    expect(result.outcome).toBe('failed');
    const after = await findPack(t.sql, ws.id, 'billing');
    expect(after?.last_error).toMatch(
      /^could not fetch http:\/\/127\.0\.0\.1:\d+\/api\/v1\/system\/docs\/pack \(unreachable, too slow, or refused/,
    );
    expect(result.outcome === 'failed' && result.detail).toBe('ECONNREFUSED');
    expect([after?.last_hash, after?.last_fetched_at]).toEqual([before.pack?.last_hash, before.pack?.last_fetched_at]);
    expect(await live('pack:billing')).toEqual(before.rows);
    await registerPack(t.sql, ws.id, 'billing', billing.baseUrl);
    expect((await pullDocsPack(deps(), ws.id, 'billing')).outcome).toBe('unchanged');
    expect((await findPack(t.sql, ws.id, 'billing'))?.last_error).toBeNull();
  });

  it('drops the hash when the reap was refused, so the next pull ingests again', async () => {
    const kept = billing.pack;
    billing.pack = {
      format: 1,
      code: 'billing',
      files: [{ path: 'docs/invoices.md', content: markdown('Invoices', ['Numbering'], { Numbering: 'now gapless per series ' }) }],
    };
    const result = await pullDocsPack(deps(), ws.id, 'billing');
    expect(result.outcome === 'ingested' && result.report.reap.outcome).toBe('refused');
    const after = await findPack(t.sql, ws.id, 'billing');
    expect(after?.last_hash).toBeNull();
    expect(after?.last_error).toMatch(/^stale sections kept: the reap was refused \(.*more than a quarter/);
    expect((await pullDocsPack(deps(), ws.id, 'billing')).outcome).toBe('ingested');
    billing.pack = kept;
    const back = await pullDocsPack(deps(), ws.id, 'billing');
    expect(back.outcome === 'ingested' && [back.report.created, back.report.updated, back.report.reap.outcome]).toEqual([
      0,
      0,
      'nothing_to_reap',
    ]);
    expect((await pullDocsPack(deps(), ws.id, 'billing')).outcome).toBe('unchanged');
  });

  it('deletes one code: its records retired, its manifest and registration gone, the rest untouched', async () => {
    const others = { fs: await live('fs'), payments: await live('pack:payments') };
    const ids = (await live('pack:billing')).map((r) => r.node_id);
    expect(await deletePackDocs(deps(), ws.id, 'billing')).toEqual({ retired: ids.length });
    const states = await t.sql<{ lifecycle: string }[]>`select distinct lifecycle from doco.nodes where id = any(${ids})`;
    expect(states.map((s) => s.lifecycle)).toEqual(['retired']);
    expect(await live('pack:billing')).toEqual([]);
    expect(await t.sql`select 1 from doco.doc_manifest where source = 'pack:billing'`).toHaveLength(0);
    expect(await findPack(t.sql, ws.id, 'billing')).toBeUndefined();
    expect({ fs: await live('fs'), payments: await live('pack:payments') }).toEqual(others);
    expect((await pullDocsPack(deps(), ws.id, 'billing')).outcome).toBe('unregistered');
  });
});

describe('the start-up re-pull', () => {
  it('queues a pull of every registered pack, which the worker runs without embedding an unchanged one', async () => {
    const log = makeLog('silent');
    const before = {
      fetches: payments.fetches,
      pack: await findPack(t.sql, ws.id, 'payments'),
      versions: await count('doco.node_versions'),
    };
    embedder.reset();
    const worker = await startWorker({
      connectionString: t.url,
      sql: t.sql,
      log,
      cron: false,
      packHosts: LOOPBACK_PACK_HOSTS,
      ...providers,
      keeper: indexKeeper(providers.store, log),
    });
    try {
      expect(await queueAllPackPulls(t.sql)).toBe(1);
      for (let i = 0; i < 300 && (await t.sql`select 1 from graphile_worker.jobs where task_identifier = 'docs__pack_pull'`).length; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await t.sql`select 1 from graphile_worker.jobs where task_identifier = 'docs__pack_pull'`).toHaveLength(0);
    } finally {
      await worker.stop();
    }
    const after = await findPack(t.sql, ws.id, 'payments');
    expect(payments.fetches).toBe(before.fetches + 1);
    expect(Date.parse(after!.last_fetched_at!)).toBeGreaterThan(Date.parse(before.pack!.last_fetched_at!));
    await drainAll(t.sql, providers);
    expect(embedder.documents).toBe(0);
    expect(await count('doco.node_versions')).toBe(before.versions);
  });
});

describe('a registration made while a delete runs', () => {
  it('survives the delete with its hash cleared, so its pull ingests the retired docs again', async () => {
    const mark = await registrationMark(t.sql, ws.id, 'payments');
    await registerPack(t.sql, ws.id, 'payments', payments.baseUrl);
    await removePackRow(t.sql, ws.id, 'payments', mark);
    expect(await findPack(t.sql, ws.id, 'payments')).toMatchObject({ code: 'payments', last_hash: null });
    await removePackRow(t.sql, ws.id, 'payments', await registrationMark(t.sql, ws.id, 'payments'));
    expect(await findPack(t.sql, ws.id, 'payments')).toBeUndefined();
  });
});
