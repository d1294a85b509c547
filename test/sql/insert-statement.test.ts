// A statement that inserts many records (the doc ingester's batches, a psql `insert … select`)
// gets for every row what a row at a time gets: its first version in the hash chain, its
// touches and its outbox entry, written once per statement from the transition table
// (sql/hash_chain.sql, touches.sql, outbox.sql).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { insertNode, one, sqlWorkspace, verifyChains, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'bulk');
});
afterAll(async () => t.drop());

interface Spec {
  title: string;
  prose: string;
  body?: Record<string, unknown>;
}

const newId = async () => one(await t.sql<{ id: string }[]>`select doco.new_id('rule') as id`).id;

/** One insert statement for all the specs, their ids given; returns the ids in order. */
async function insertMany(ids: string[], specs: Spec[]): Promise<string[]> {
  const rows = specs.map((s, i) => ({ id: ids[i], title: s.title, prose: s.prose, body: s.body ?? {} }));
  await t.sql`
    insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose, body)
    select r.id, ${ws.id}, ${ws.constitution}, 'rule', 'active', r.title, r.prose, r.body
      from rows from (jsonb_to_recordset(${JSON.stringify(rows)}::text::jsonb) as (id text, title text, prose text, body jsonb))
           with ordinality as r(id, title, prose, body, ord)
     order by r.ord`;
  return ids;
}

async function touchesOf(id: string) {
  return t.sql<{ kind: string; value: string; links_only: boolean; inherited_from: string | null }[]>`
    select kind, value, links_only, inherited_from from doco.touches where node_id = ${id} order by kind, value`;
}

describe('a multi-row insert', () => {
  it('writes each row its first version, its touches and its outbox entry, as single inserts do', async () => {
    const [a, b, c] = [await newId(), await newId(), await newId()];
    const specs: Spec[] = [
      // Names itself (never a touch of its own) and the next record, a path and an issue.
      { title: 'Refunds', prose: `See ${a} and ${b}: app/routes/billing.tsx changed in acme/shop#12.` },
      // A list of links under a references heading: its touches are links-only.
      {
        title: 'Further reading',
        prose: 'Refunds are idempotent.\n\n## See also\n\n- [Guide](docs/guide.md)\n- https://example.com/x',
        body: { touch_paths: ['bin/deploy'] },
      },
      { title: 'Plain', prose: 'Names nothing at all.' },
    ];
    const before = one(await t.sql<{ n: string }[]>`select coalesce(max(id), 0)::text as n from doco.outbox`).n;
    await insertMany([a, b, c], specs);

    // The hash chain: one version each, equal to the row, and an intact chain.
    const versions = await t.sql`
      select v.node_id, v.version, v.hash = n.hash as same from doco.node_versions v join doco.nodes n on n.id = v.node_id
       where v.node_id in ${t.sql([a, b, c])} order by v.node_id`;
    expect(versions.map((v) => [v.node_id, v.version, v.same])).toEqual([a, b, c].sort().map((id) => [id, 1, true]));
    expect(await verifyChains(t.sql)).toEqual([]);

    // The outbox: one entry per record, in the order the statement inserted them.
    const queued = await t.sql<{ node_id: string }[]>`select node_id from doco.outbox where id > ${before} order by id`;
    expect(queued.map((q) => q.node_id)).toEqual([a, b, c]);

    // Touches: what a single-row insert of the same text derives, and what the update path's
    // re-derivation (the row trigger, replacing them) finds again.
    expect((await touchesOf(a)).map((x) => [x.kind, x.value])).toEqual([
      ['issue', '#12'],
      ['issue', 'acme/shop#12'],
      ['path', 'app/routes/billing.tsx'],
      ['record', b],
    ]);
    expect((await touchesOf(b)).filter((x) => x.links_only).map((x) => x.value)).toEqual(['https://example.com/x', 'docs/guide.md'].sort());
    expect(await touchesOf(c)).toEqual([]);
    for (const [i, id] of [a, b, c].entries()) {
      const single = await insertNode(t.sql, ws, { ...specs[i]!, prose: specs[i]!.prose.replaceAll(id, 'itself') });
      const strip = (rows: Awaited<ReturnType<typeof touchesOf>>) => rows.filter((x) => !(x.kind === 'record' && x.value === id));
      expect(await touchesOf(single)).toEqual(strip(await touchesOf(id)));
      const inserted = await touchesOf(id);
      await t.sql`update doco.nodes set title = title, prose = prose, body = body where id = ${id}`;
      expect(await touchesOf(id)).toEqual(inserted);
    }
  });

  it('queues no principal, as the row trigger never did', async () => {
    const { n: before } = one(await t.sql<{ n: string }[]>`select count(*)::text as n from doco.outbox`);
    await t.sql`
      insert into doco.nodes (id, workspace_id, collection_id, node_type, title)
      select doco.new_id('principal'), ${ws.id}, ${ws.people}, 'principal', 'bulk-' || g from generate_series(1, 3) g`;
    expect(one(await t.sql<{ n: string }[]>`select count(*)::text as n from doco.outbox`).n).toBe(before);
    expect(await verifyChains(t.sql)).toEqual([]);
  });

  it('writes nothing for a statement that inserts no row', async () => {
    const count = async () =>
      one(
        await t.sql<
          { n: string }[]
        >`select (select count(*) from doco.node_versions) + (select count(*) from doco.outbox) + (select count(*) from doco.touches) as n`,
      ).n;
    const before = await count();
    await t.sql`
      insert into doco.nodes (id, workspace_id, collection_id, node_type, title, prose)
      select doco.new_id('rule'), ${ws.id}, ${ws.constitution}, 'rule', 'never', 'never' where false`;
    expect(await count()).toBe(before);
  });
});
