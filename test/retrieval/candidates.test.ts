// Loading candidates (src/retrieval/candidates.ts): retrieval ranks them without their text, and a
// brief reads the text of its pool alone, capped as a full load caps it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasProse, loadCandidateMeta, loadCandidates, loadProse, withProse } from '../../src/retrieval/candidates.js';
import { CANDIDATE_ROWS, MAX_CANDIDATE_ROWS, retrieveCandidates } from '../../src/retrieval/retrieve.js';
import { Deadline } from '../../src/lib/deadline.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
const providers = localProviders();
const ids: string[] = [];

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'candidates');
  const api = makeApp(t, undefined, providers);
  await api.call('POST', '/api/v1/collections', ws.writeToken, { slug: 'docs', template: 'documentation', goal: 'Docs' });
  for (let i = 0; i < 6; i++) {
    // Long enough to be stored compressed and to be capped at 2,000 characters.
    const prose = `Refund ledger note ${i}. ${'The ledger reconciles every refund before the nightly close. '.repeat(50)}`;
    const res = await api.call('POST', '/api/v1/capture', ws.writeToken, {
      collection: 'docs',
      node_type: 'reference',
      title: `Refund ledger ${i}`,
      prose,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    ids.push((res.body as { node: { id: string } }).node.id);
  }
  await drainAll(t.sql, providers);
});

afterAll(async () => {
  await t.drop();
});

describe('candidates without their text', () => {
  it('loads every field but the text, and the text apart, as a full load gives it', async () => {
    const full = await loadCandidates(t.sql, ws.id, ids);
    const meta = await loadCandidateMeta(t.sql, ws.id, ids);
    const prose = await loadProse(t.sql, ws.id, ids);
    expect(meta.size).toBe(ids.length);
    for (const id of ids) {
      const { prose: text, ...rest } = full.get(id)!;
      expect(hasProse(meta.get(id)!)).toBe(false);
      expect(meta.get(id)).toEqual(rest);
      expect(prose.get(id)).toBe(text);
      expect(text.length).toBe(2000);
    }
  });

  it('gives the rows asked for their text, keeping a text a row came with', async () => {
    const meta = await loadCandidateMeta(t.sql, ws.id, ids);
    meta.set(ids[0]!, { ...meta.get(ids[0]!)!, prose: 'the text it came with' } as never);
    const rows = await withProse(t.sql, ws.id, ids.slice(0, 3), meta);
    expect([...rows.keys()]).toEqual(ids.slice(0, 3));
    expect(rows.get(ids[0]!)!.prose).toBe('the text it came with');
    const full = await loadCandidates(t.sql, ws.id, ids);
    expect(rows.get(ids[1]!)).toEqual(full.get(ids[1]!));
    expect(rows.get(ids[2]!)).toEqual(full.get(ids[2]!));
  });

  it('retrieves candidates without their text but for the best seeds asked ahead', async () => {
    const keep = <T>(o: { ok: true; value: T } | { ok: false }, fallback: T) => (o.ok ? o.value : fallback);
    const ask = { about: 'refund ledger nightly close', touching: [], deadline_ms: 5000 };
    const deps = { sql: t.sql, embedder: providers.embedder, store: providers.store };
    const plain = await retrieveCandidates(deps, ws.id, ask, new Deadline(5000), keep);
    expect([...plain.rows.values()].filter(hasProse).map((r) => r.id)).toEqual(plain.constitution.map((c) => c.id));
    const ahead = await retrieveCandidates(deps, ws.id, { ...ask, textAhead: 2 }, new Deadline(5000), keep);
    const docs = [...ahead.rows.values()].filter((r) => r.collection === 'docs');
    expect(docs.length).toBe(ids.length);
    expect(docs.filter(hasProse)).toHaveLength(2);
    expect(ahead.order).toEqual(plain.order);
  });
});

describe('a brief with more candidates than it reads', () => {
  it('reads the rows of the best CANDIDATE_ROWS, in the order all of them would rank', async () => {
    const many = await makeWorkspace(t, 'candidates-many');
    const api = makeApp(t, undefined, providers);
    await api.call('POST', '/api/v1/collections', many.writeToken, { slug: 'notes', template: 'documentation', goal: 'Notes' });
    // Every record names the payout schedule; the first ones name it most.
    for (let batch = 0; batch < 4; batch++) {
      const operations = Array.from({ length: 50 }, (_, i) => {
        const n = batch * 50 + i;
        return {
          op: 'create',
          node_type: 'reference',
          title: `Payout note ${n}`,
          prose: `${'payout schedule '.repeat(n < 20 ? 3 : 1)}note ${n} about the merchant account number ${n} and its region ${n % 7}.`,
        };
      });
      const res = await api.call('POST', '/api/v1/changeset', many.writeToken, { collection: 'notes', operations });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    await drainAll(t.sql, providers);
    const keep = <T>(o: { ok: true; value: T } | { ok: false }, fallback: T) => (o.ok ? o.value : fallback);
    const deps = { sql: t.sql, embedder: providers.embedder, store: providers.store };
    const got = await retrieveCandidates(
      deps,
      many.id,
      { about: 'payout schedule', touching: [], deadline_ms: 5000 },
      new Deadline(5000),
      keep,
    );
    const found = [...got.fused.keys()].length;
    expect(found).toBeGreaterThan(CANDIDATE_ROWS);
    expect(got.rows.size).toBeLessThanOrEqual(CANDIDATE_ROWS + got.constitution.length);
    // What is handed out is what was read, best first: the records naming the schedule most lead.
    expect(got.order.every((id) => got.rows.has(id))).toBe(true);
    const best = new Set(got.order.slice(0, 20).map((id) => got.rows.get(id)!.title));
    expect([...best].filter((title) => Number(title.split(' ').pop()) < 20).length).toBeGreaterThanOrEqual(18);
  });

  it('reads further down when the best rows hold too few records the brief may use, and no further than it needs', async () => {
    const stale = await makeWorkspace(t, 'candidates-retired');
    const api = makeApp(t, undefined, providers);
    await api.call('POST', '/api/v1/collections', stale.writeToken, { slug: 'notes', template: 'documentation', goal: 'Notes' });
    const created: string[] = [];
    for (let batch = 0; batch < 4; batch++) {
      const operations = Array.from({ length: 50 }, (_, i) => {
        const n = batch * 50 + i;
        return {
          op: 'create',
          alias: `n${n}`,
          node_type: 'reference',
          title: `Payout note ${n}`,
          prose: `${'payout schedule '.repeat(n < 80 ? 3 : 1)}note ${n} about the merchant account number ${n} and its region ${n % 7}.`,
        };
      });
      const res = await api.call('POST', '/api/v1/changeset', stale.writeToken, { collection: 'notes', operations });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      created.push(...operations.map((o) => (res.body as { aliases: Record<string, string> }).aliases[o.alias]!));
    }
    await drainAll(t.sql, providers);
    // The 80 that match best are retired; the index has not caught up yet (as between a write
    // and the drain), and full text finds a retired record anyway.
    for (let from = 0; from < 80; from += 40) {
      const operations = created.slice(from, from + 40).map((id) => ({ op: 'retire', target: id }));
      const res = await api.call('POST', '/api/v1/changeset', stale.writeToken, { collection: 'notes', operations });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const keep = <T>(o: { ok: true; value: T } | { ok: false }, fallback: T) => (o.ok ? o.value : fallback);
    const deps = { sql: t.sql, embedder: providers.embedder, store: providers.store };
    const ask = { about: 'payout schedule', touching: [], deadline_ms: 5000 };
    const live = (rows: Map<string, { lifecycle: string }>) => [...rows.values()].filter((r) => r.lifecycle !== 'retired').length;
    const enough = (rows: Map<string, { lifecycle: string }>) => live(rows) >= 40;

    const first = await retrieveCandidates(deps, stale.id, ask, new Deadline(5000), keep);
    expect(first.fused.size).toBeGreaterThan(CANDIDATE_ROWS);
    expect(first.rows.size).toBeLessThanOrEqual(CANDIDATE_ROWS + first.constitution.length);
    expect(live(first.rows)).toBeLessThan(40);
    const all = await retrieveCandidates(deps, stale.id, { ...ask, rowsSuffice: () => false }, new Deadline(5000), keep);
    expect(all.rows.size).toBeGreaterThan(first.rows.size);
    expect(all.rows.size).toBeLessThanOrEqual(MAX_CANDIDATE_ROWS + all.constitution.length);
    expect(live(all.rows)).toBeGreaterThanOrEqual(40);
    const further = await retrieveCandidates(deps, stale.id, { ...ask, rowsSuffice: enough }, new Deadline(5000), keep);
    expect(live(further.rows)).toBeGreaterThanOrEqual(40);
    // Read in steps of CANDIDATE_ROWS, stopping at the first that holds enough.
    expect(further.rows.size - further.constitution.length).toBeLessThanOrEqual(2 * CANDIDATE_ROWS);
    expect(further.order.filter((id) => further.rows.get(id)!.lifecycle !== 'retired')).toEqual(
      all.order.filter((id) => all.rows.get(id)!.lifecycle !== 'retired').slice(0, live(further.rows)),
    );

    // A brief's pool is its first 60 live records: it reads past the first rows to find them,
    // and sends the notes still in force.
    const res = await api.call('POST', '/api/v1/brief', stale.readToken, { about: 'payout schedule', budget: 4000 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const body = res.body as { tiers: Record<string, { title: string; lifecycle: string }[]>; stats: { candidates: number } };
    expect(body.stats.candidates).toBeGreaterThan(CANDIDATE_ROWS + first.constitution.length);
    const items = Object.values(body.tiers).flat();
    const notes = items.filter((i) => i.title.startsWith('Payout note '));
    expect(notes.length).toBeGreaterThanOrEqual(10);
    expect(notes.every((i) => i.lifecycle !== 'retired' && Number(i.title.split(' ').pop()) >= 80)).toBe(true);
  });
});
