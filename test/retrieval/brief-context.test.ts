// The brief's three small reads in one statement (src/retrieval/brief-context.ts): the
// constitution, the glossary terms the ask names and the index's size read together are what
// each read on its own gives, field for field (the constitution's rows pass through JSON there).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBriefContext } from '../../src/retrieval/brief-context.js';
import { loadConstitution, searchedTokens } from '../../src/retrieval/candidates.js';
import { glossarySeeds } from '../../src/retrieval/retrievers.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let empty: TestWorkspace;
const providers = localProviders();

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'context');
  empty = await makeWorkspace(t, 'context-empty');
  const api = makeApp(t, undefined, providers);
  const post = async (path: string, body: unknown) => {
    const res = await api.call('POST', `/api/v1${path}`, ws.writeToken, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { node: { id: string } };
  };
  await post('/collections', { slug: 'terms', template: 'glossary', goal: 'What our words mean' });
  for (const [title, prose] of [
    ['Refunds need two approvers', 'Every refund above 500 EUR needs a second approver, in the “finance” group.'],
    ['No secrets in logs', 'Never log a token, a key or a password; redact them at the boundary.'],
    ['Migrations are numbered', `Schema changes are new numbered migrations. ${'Never edit one already applied. '.repeat(80)}`],
  ])
    await post('/capture', { collection: 'constitution', node_type: 'rule', title, prose });
  await post('/capture', {
    collection: 'terms',
    node_type: 'reference',
    title: 'Chargeback',
    prose: 'A payment the card network reverses.',
  });
  await post('/capture', {
    collection: 'terms',
    node_type: 'reference',
    title: 'Refund window',
    prose: 'The 30 days a refund may be asked in.',
  });
  await drainAll(t.sql, providers);
  // A rank for one rule, so the order and a non-zero PageRank pass through too.
  const [first] = await t.sql<
    { id: string }[]
  >`select id from doco.nodes where workspace_id = ${ws.id} and node_type = 'rule' order by id limit 1`;
  await t.sql`insert into doco.node_ranks (node_id, pagerank) values (${first!.id}, 0.25) on conflict (node_id) do update set pagerank = 0.25`;
});
afterAll(async () => t.drop());

describe('the brief context', () => {
  it('reads the constitution, the glossary terms the ask names and the index size as the three reads do', async () => {
    const about = 'How long is the refund window for a chargeback?';
    const context = await loadBriefContext(t.sql, ws.id, about);
    const constitution = await loadConstitution(t.sql, ws.id);
    expect(constitution).toHaveLength(3);
    expect(context.constitution).toEqual(constitution);
    expect(context.constitution[0]!.pagerank).toBe(0.25);
    expect(context.constitution[0]!.updated_at).toBeInstanceOf(Date);
    const glossary = await glossarySeeds(t.sql, ws.id, about);
    expect(glossary.ids).toHaveLength(2);
    expect(context.glossary).toEqual(glossary);
    expect(context.searched).toBeGreaterThan(0);
    expect(context.searched).toBe(await searchedTokens(t.sql, ws.id));
  });

  it('gives none of each for a workspace with nothing', async () => {
    const context = await loadBriefContext(t.sql, empty.id, 'anything at all');
    expect(context).toEqual({ constitution: [], glossary: { name: 'glossary', ids: [], scores: [], because: new Map() }, searched: 0 });
  });

  it('as of a time, reads the constitution as it stood then', async () => {
    const before = new Date(Date.now() - 3_600_000);
    const context = await loadBriefContext(t.sql, ws.id, 'chargeback', before);
    expect(context.constitution).toEqual([]);
    expect(context.glossary.ids).toHaveLength(1);
  });
});
