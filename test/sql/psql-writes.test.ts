// Writing from psql (sql/changesets.sql, ids.sql, workspaces.sql): a write that names no
// changeset gets one made for it (source 'sql'), ids are minted in SQL, and a workspace is
// bootstrapped with its constitution and people collections.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { expectSqlState, insertEdge, insertNode, nodeRow, one, sqlWorkspace, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;
let other: SqlWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'psql');
  other = await sqlWorkspace(t.sql, 'psql-other');
});
afterAll(async () => t.drop());

const CROCKFORD_ID = /^rule_[0-9A-HJKMNP-TV-Z]{26}$/;
const changeset = async (id: string) => one(await t.sql`select * from doco.changesets where id = ${id}`);

describe('changesets for direct SQL writes', () => {
  it('makes a changeset with source sql for an insert that names none', async () => {
    expect(await t.sql`select nullif(current_setting('doco.changeset_id', true), '') as s`).toEqual([{ s: null }]);
    const { id, changeset_id, txid } = one(
      await t.sql`
      insert into doco.nodes (id, workspace_id, collection_id, node_type, title, prose)
      values (doco.new_id('rule'), ${ws.id}, ${ws.constitution}, 'rule', 'Written from psql', 'Obeyed everywhere.')
      returning id, changeset_id, txid_current()::text as txid`,
    );
    expect(changeset_id).toMatch(/^changeset_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(await changeset(changeset_id)).toMatchObject({ workspace_id: ws.id, source: 'sql', actor_id: null, txid });
    const version = one(await t.sql`select changeset_id from doco.node_versions where node_id = ${id}`);
    expect(version.changeset_id).toBe(changeset_id);
  });

  it('makes one changeset per transaction, shared by its writes, and a new one per transaction', async () => {
    const [first, second] = await t.sql.begin(async (tx) => {
      const a = await insertNode(tx, ws, { title: 'one' });
      const b = await insertNode(tx, ws, { title: 'two' });
      await tx`update doco.nodes set prose = 'edited' where id = ${a}`;
      await insertEdge(tx, ws, a, b);
      return [a, b];
    });
    const rows = await t.sql`
      select changeset_id from doco.node_versions where node_id in (${first}, ${second})
      union all select changeset_id from doco.edge_versions where from_id = ${first}`;
    expect(rows.length).toBe(4);
    expect(new Set(rows.map((r) => r.changeset_id)).size).toBe(1);

    await t.sql`update doco.nodes set prose = 'again' where id = ${first}`;
    const next = (await nodeRow(t.sql, first)).changeset_id;
    expect(next).not.toBe(one(rows).changeset_id);
    expect(await changeset(next)).toMatchObject({ source: 'sql', workspace_id: ws.id });
  });

  it('makes a changeset per workspace when one transaction writes to two', async () => {
    const [mine, theirs] = await t.sql.begin(async (tx) => [
      await insertNode(tx, ws, { title: 'mine' }),
      await insertNode(tx, other, { title: 'theirs' }),
      await insertNode(tx, ws, { title: 'mine again' }),
    ]);
    const a = await changeset((await nodeRow(t.sql, mine)).changeset_id);
    const b = await changeset((await nodeRow(t.sql, theirs)).changeset_id);
    expect(a).toMatchObject({ workspace_id: ws.id, source: 'sql' });
    expect(b).toMatchObject({ workspace_id: other.id, source: 'sql', txid: a.txid });
    const { n } = one(await t.sql`select count(*)::int as n from doco.changesets where txid = ${a.txid}`);
    expect(n).toBe(2);
  });

  it('uses the changeset named by doco.changeset_id, and its actor', async () => {
    const person = await insertNode(t.sql, ws, { type: 'principal', title: 'Dee', collection: ws.people });
    const id = await t.sql.begin(async (tx) => {
      const { cs } = one(
        await tx`
        insert into doco.changesets (id, workspace_id, actor_id, source, summary)
        values (doco.new_id('changeset'), ${ws.id}, ${person}, 'cli', 'named') returning id as cs`,
      );
      await tx`select set_config('doco.changeset_id', ${cs}, true)`;
      return insertNode(tx, ws, { title: 'With a named changeset' });
    });
    const row = await nodeRow(t.sql, id);
    expect(await changeset(row.changeset_id)).toMatchObject({ source: 'cli', summary: 'named' });
    expect(row.principal_id).toBe(person);
  });

  it('refuses a doco.changeset_id that does not exist or belongs to another workspace (DC004)', async () => {
    const { cs } = one(
      await t.sql`
      insert into doco.changesets (id, workspace_id, source) values (doco.new_id('changeset'), ${other.id}, 'cli') returning id as cs`,
    );
    for (const named of [cs, 'changeset_01K8Z3QH5Y2V4XJ7B9C0D1E2F3']) {
      await expectSqlState(
        t.sql.begin(async (tx) => {
          await tx`select set_config('doco.changeset_id', ${named}, true)`;
          await insertNode(tx, ws, { title: 'refused' });
        }),
        'DC004',
      );
    }
    const { n } = one(await t.sql`select count(*)::int as n from doco.nodes where title = 'refused'`);
    expect(n).toBe(0);
  });
});

describe('doco.new_id', () => {
  it('mints <type>_<ULID> ids that the nodes table accepts', async () => {
    const before = Date.now();
    const { id } = one(await t.sql`select doco.new_id('rule') as id`);
    const after = Date.now();
    expect(id).toMatch(CROCKFORD_ID);
    // The first 10 characters are the millisecond time, in Crockford base32.
    const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    const ms = [...id.slice(5, 15)].reduce((acc: number, ch: string) => acc * 32 + alphabet.indexOf(ch), 0);
    expect(ms).toBeGreaterThanOrEqual(before - 1000);
    expect(ms).toBeLessThanOrEqual(after + 1000);
    await t.sql`
      insert into doco.nodes (id, workspace_id, collection_id, node_type, title, prose)
      values (${id}, ${ws.id}, ${ws.constitution}, 'rule', 'Minted in SQL', 'Obeyed everywhere.')`;
    expect((await nodeRow(t.sql, id)).id).toBe(id);
  });

  it('mints distinct ids whose random part varies, for any prefix', async () => {
    const rows = await t.sql<{ id: string }[]>`select doco.new_id('rule') as id from generate_series(1, 500)`;
    const ids = rows.map((r) => r.id);
    for (const id of ids) expect(id).toMatch(CROCKFORD_ID);
    expect(new Set(ids).size).toBe(500);
    expect(new Set(ids.map((id) => id.slice(15))).size).toBe(500);
    const { e } = one(await t.sql`select doco.new_id('edge') as e`);
    expect(e).toMatch(/^edge_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('orders ids minted later after ids minted earlier', async () => {
    const { a } = one(await t.sql`select doco.new_id('rule') as a`);
    await new Promise((r) => setTimeout(r, 5));
    const { b } = one(await t.sql`select doco.new_id('rule') as b`);
    expect(a < b).toBe(true);
  });
});

describe('doco.ensure_workspace', () => {
  it('creates the workspace with its constitution and people collections', async () => {
    const { id } = one(await t.sql`select doco.ensure_workspace('x') as id`);
    const workspace = one(await t.sql`select slug, name from doco.workspaces where id = ${id}`);
    expect(workspace).toEqual({ slug: 'x', name: 'x' });
    const cols = await t.sql`
      select c.slug, c.template, c.goal = tp.default_goal as default_goal
        from doco.collections c join doco.templates tp on tp.slug = c.template
       where c.workspace_id = ${id} order by c.slug`;
    expect(cols).toEqual([
      { slug: 'constitution', template: 'constitution', default_goal: true },
      { slug: 'people', template: 'team-directory', default_goal: true },
    ]);
  });

  it('is idempotent: the same id, and no second set of collections', async () => {
    const counts = async () =>
      (
        await t.sql`
      select (select count(*) from doco.workspaces)::int as w, (select count(*) from doco.collections)::int as c`
      )[0];
    const { id: first } = one(await t.sql`select doco.ensure_workspace('y') as id`);
    const before = await counts();
    const { id: again } = one(await t.sql`select doco.ensure_workspace('y') as id`);
    const { id: inTx } = one(await t.sql.begin((tx) => tx`select doco.ensure_workspace('y') as id`));
    expect(again).toBe(first);
    expect(inTx).toBe(first);
    expect(await counts()).toEqual(before);
  });

  it('refuses a slug that is not a valid workspace slug', async () => {
    await expectSqlState(t.sql`select doco.ensure_workspace('Not A Slug')`, '23514');
  });
});
