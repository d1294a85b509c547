// Candidates' text remembered by record version (src/retrieval/prose-cache.ts): a text read once
// is given again only to a row of the same version, so a record whose text changed (through the
// API or through psql) is read anew and every brief sends its current text; the memory is per
// database handle and bounded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Brief } from '../../src/brief/types.js';
import { connect } from '../../src/db/connect.js';
import { loadCandidateMeta, loadProseAhead, withProse } from '../../src/retrieval/candidates.js';
import { isTextOf, PROSE_REMEMBERED, recalled, remember } from '../../src/retrieval/prose-cache.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const providers = localProviders();
const ids: string[] = [];

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'prose-cache');
  api = makeApp(t, undefined, providers);
  await api.call('POST', '/api/v1/collections', ws.writeToken, { slug: 'docs', template: 'documentation', goal: 'Docs' });
  for (const topic of ['refund ledger', 'payout schedule']) {
    const res = await api.call('POST', '/api/v1/capture', ws.writeToken, {
      collection: 'docs',
      node_type: 'reference',
      title: `The ${topic}`,
      prose: `The ${topic} closes every night at midnight.`,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    ids.push((res.body as { node: { id: string } }).node.id);
  }
  await drainAll(t.sql, providers);
});
afterAll(async () => t.drop());

const setProse = (id: string, prose: string) => t.sql`update doco.nodes set prose = ${prose} where id = ${id}`;

describe('candidates’ text remembered by version', () => {
  it('gives a remembered text only to a row of the version it was read at', async () => {
    const before = await loadCandidateMeta(t.sql, ws.id, ids);
    expect((await withProse(t.sql, ws.id, ids, before)).get(ids[0]!)!.prose).toBe('The refund ledger closes every night at midnight.');
    // A psql write: the hash chain's trigger gives the record its next version.
    await setProse(ids[0]!, 'The refund ledger closes at noon now.');
    const ahead = await loadProseAhead(t.sql, ws.id, ids);
    // Read ahead of the rows, the remembered text is handed out with its version…
    expect(ahead.get(ids[0]!)).toMatchObject({ prose: 'The refund ledger closes every night at midnight.', version: 1 });
    const after = await loadCandidateMeta(t.sql, ws.id, ids);
    expect(after.get(ids[0]!)!.version).toBe(2);
    // …and is no text of the row as it is now; the other record's still is.
    expect(isTextOf(ahead.get(ids[0]!), after.get(ids[0]!)!)).toBe(false);
    expect(isTextOf(ahead.get(ids[1]!), after.get(ids[1]!)!)).toBe(true);
    expect((await withProse(t.sql, ws.id, ids, after)).get(ids[0]!)!.prose).toBe('The refund ledger closes at noon now.');
    expect(recalled(t.sql, ids[0]!)).toMatchObject({ prose: 'The refund ledger closes at noon now.', version: 2 });
  });

  it('a brief sends a record’s current text, brief after brief', async () => {
    const briefText = async () => {
      const res = await api.call('POST', '/api/v1/brief', ws.readToken, { about: 'when does the payout schedule close?' });
      expect(res.status).toBe(200);
      return Object.values((res.body as Brief).tiers)
        .flat()
        .find((i) => i.id === ids[1])?.text;
    };
    expect(await briefText()).toContain('closes every night at midnight');
    await setProse(ids[1]!, 'The payout schedule closes every Friday at five.');
    await drainAll(t.sql, providers);
    expect(await briefText()).toContain('closes every Friday at five');
  });

  it('remembers per database handle, and at most PROSE_REMEMBERED texts', async () => {
    const other = connect(t.url);
    try {
      expect(recalled(other.sql, ids[0]!)).toBeUndefined();
      const entry = { prose: 'x', version: 1, updatedAt: 0 };
      remember(other.sql, 'first', entry);
      for (let i = 0; i < PROSE_REMEMBERED; i++) remember(other.sql, `id${i}`, entry);
      expect(recalled(other.sql, 'first')).toBeUndefined();
      expect(recalled(other.sql, `id${PROSE_REMEMBERED - 1}`)).toBe(entry);
    } finally {
      await other.close();
    }
  });
});
