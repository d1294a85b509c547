// sql/agent_review.sql through plain SQL, as a psql user would write: a record or edge written
// by an agent: principal lands as queued unless its collection (or workspace) lets agents
// activate; an agent's changeset cannot activate, retire or rewrite what is live; a person's
// writes, and writes naming no changeset, are untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { edgeRow, expectSqlState, insertNode, nodeRow, one, sqlWorkspace, type Sql, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;
let agent: string;
let person: string;
let notes: string;

const principal = async (name: string) =>
  one(
    await t.sql<{ id: string }[]>`
    insert into doco.nodes (id, workspace_id, collection_id, node_type, title, prose)
    values (doco.new_id('principal'), ${ws.id}, ${ws.people}, 'principal', ${name}, '') returning id`,
  ).id;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'review');
  agent = await principal('agent:codex@shop');
  person = await principal('cli:ana');
  notes = one(
    await t.sql<{ id: string }[]>`
    insert into doco.collections (id, workspace_id, slug, template, name, goal)
    values (doco.new_id('collection'), ${ws.id}, 'notes', 'product-decisions', 'Notes', 'What we decided.') returning id`,
  ).id;
});
afterAll(async () => t.drop());

/** Runs fn in a transaction whose changeset names the actor, as the app does. */
async function as<T>(actor: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
  return t.sql.begin(async (sql) => {
    const { id } = one(await sql<{ id: string }[]>`select doco.new_id('changeset') as id`);
    await sql`insert into doco.changesets (id, workspace_id, actor_id, source) values (${id}, ${ws.id}, ${actor}, 'mcp')`;
    await sql`select set_config('doco.changeset_id', ${id}, true)`;
    return fn(sql);
  }) as Promise<T>;
}
async function newDecision(sql: Sql, lifecycle = 'active'): Promise<string> {
  const rows = await sql<{ id: string }[]>`
    insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose)
    values (doco.new_id('decision'), ${ws.id}, ${notes}, 'decision', ${lifecycle}, 'Ship on Fridays', 'We ship on Fridays.') returning id`;
  return one(rows).id;
}
const setting = (value: boolean | null) => t.sql`update doco.collections set agents_may_activate = ${value} where id = ${notes}`;

describe("agents' writes wait for review", () => {
  it("an active record written by an agent lands as queued; a person's stays active", async () => {
    const mine = await as(agent, (sql) => newDecision(sql));
    expect((await nodeRow(t.sql, mine)).lifecycle).toBe('queued');
    const theirs = await as(person, (sql) => newDecision(sql));
    expect((await nodeRow(t.sql, theirs)).lifecycle).toBe('active');
    const [version] = await t.sql`select lifecycle from doco.node_versions where node_id = ${mine}`;
    expect(version!.lifecycle).toBe('queued');
  });

  it('a psql insert naming an agent as principal, with no changeset, is queued too', async () => {
    const [row] = await t.sql<{ id: string }[]>`
      insert into doco.nodes (id, workspace_id, collection_id, node_type, title, prose, principal_id)
      values (doco.new_id('decision'), ${ws.id}, ${notes}, 'decision', 'Deploys freeze in December', 'No deploys after Dec 20.', ${agent}) returning id`;
    expect((await nodeRow(t.sql, row!.id)).lifecycle).toBe('queued');
  });

  it("an agent's edge between its queued records is queued; a person then activates both", async () => {
    const [a, b, e] = await as(agent, async (sql) => {
      const a = await newDecision(sql);
      const b = await newDecision(sql);
      const [edge] = await sql<
        { id: string }[]
      >`insert into doco.edges (id, workspace_id, from_id, to_id, edge_type) values (doco.new_id('edge'), ${ws.id}, ${a}, ${b}, 'relates_to') returning id`;
      return [a, b, edge!.id];
    });
    expect((await edgeRow(t.sql, e)).lifecycle).toBe('queued');
    await as(person, async (sql) => {
      await sql`update doco.nodes set lifecycle = 'active' where id in (${a}, ${b})`;
      await sql`update doco.edges set lifecycle = 'active' where id = ${e}`;
    });
    expect((await edgeRow(t.sql, e)).lifecycle).toBe('active');
  });

  it('an agent may not activate, retire or rewrite what needs review (DC007); its own queued record it may retire', async () => {
    const queued = await as(agent, (sql) => newDecision(sql));
    await expectSqlState(
      as(agent, (sql) => sql`update doco.nodes set lifecycle = 'active' where id = ${queued}`),
      'DC007',
    );
    const live = await as(person, (sql) => newDecision(sql));
    await expectSqlState(
      as(agent, (sql) => sql`update doco.nodes set lifecycle = 'retired' where id = ${live}`),
      'DC007',
    );
    await expectSqlState(
      as(agent, (sql) => sql`update doco.nodes set prose = prose || ' Unless it rains.' where id = ${live}`),
      'DC007',
    );
    expect((await nodeRow(t.sql, live)).prose).toBe('We ship on Fridays.');
    await as(agent, (sql) => sql`update doco.nodes set lifecycle = 'retired' where id = ${queued}`);
    expect((await nodeRow(t.sql, queued)).lifecycle).toBe('retired');
  });

  it("an agent may not change another principal's draft or proposal (DC007); its own it may revise, whoever wrote its last version", async () => {
    const other = await principal('agent:claude-code@shop');
    // A person's draft: an agent's sentence in it went live when the person activated it.
    const draft = await as(person, (sql) => newDecision(sql, 'drafting'));
    await expectSqlState(
      as(agent, (sql) => sql`update doco.nodes set prose = prose || ' Except the payments database.' where id = ${draft}`),
      'DC007',
    );
    await expectSqlState(
      as(agent, (sql) => sql`update doco.nodes set lifecycle = 'retired' where id = ${draft}`),
      'DC007',
    );
    expect(await nodeRow(t.sql, draft)).toMatchObject({ lifecycle: 'drafting', prose: 'We ship on Fridays.' });
    // Another agent's proposal, and an edge it proposed, are not this agent's either.
    const [theirs, theirEdge] = await as(other, async (sql) => {
      const a = await newDecision(sql);
      const [edge] = await sql<{ id: string }[]>`
        insert into doco.edges (id, workspace_id, from_id, to_id, edge_type) values (doco.new_id('edge'), ${ws.id}, ${a}, ${draft}, 'relates_to') returning id`;
      return [a, edge!.id];
    });
    await expectSqlState(
      as(agent, (sql) => sql`update doco.nodes set title = 'Ship on Mondays' where id = ${theirs}`),
      'DC007',
    );
    await expectSqlState(
      as(agent, (sql) => sql`update doco.edges set lifecycle = 'retired' where id = ${theirEdge}`),
      'DC007',
    );
    expect((await edgeRow(t.sql, theirEdge)).lifecycle).toBe('queued');
    // Its own proposal, even after a person wrote its latest version, it revises and withdraws.
    const mine = await as(agent, (sql) => newDecision(sql));
    await as(person, (sql) => sql`update doco.nodes set title = 'Ship on Fridays, mornings' where id = ${mine}`);
    await as(agent, (sql) => sql`update doco.nodes set prose = 'We ship on Fridays, before noon.' where id = ${mine}`);
    expect((await nodeRow(t.sql, mine)).prose).toBe('We ship on Fridays, before noon.');
    await as(agent, (sql) => sql`update doco.nodes set lifecycle = 'retired' where id = ${mine}`);
    // A person still edits anyone's draft.
    await as(person, (sql) => sql`update doco.nodes set prose = 'Fridays only.' where id = ${theirs}`);
    expect((await nodeRow(t.sql, theirs)).prose).toBe('Fridays only.');
  });

  it('the collection setting lets agents activate; null follows the workspace, whose default is false', async () => {
    await setting(true);
    const live = await as(agent, (sql) => newDecision(sql));
    expect((await nodeRow(t.sql, live)).lifecycle).toBe('active');
    await setting(null);
    expect((await nodeRow(t.sql, await as(agent, (sql) => newDecision(sql)))).lifecycle).toBe('queued');
    await t.sql`update doco.workspaces set agents_may_activate = true where id = ${ws.id}`;
    expect((await nodeRow(t.sql, await as(agent, (sql) => newDecision(sql)))).lifecycle).toBe('active');
    await setting(false);
    expect((await nodeRow(t.sql, await as(agent, (sql) => newDecision(sql)))).lifecycle).toBe('queued');
    await t.sql`update doco.workspaces set agents_may_activate = false where id = ${ws.id}`;
    await setting(null);
  });

  it("an agent's live record moves only between collections where agents may activate (DC007)", async () => {
    const open = async (slug: string) =>
      one(
        await t.sql<{ id: string }[]>`
        insert into doco.collections (id, workspace_id, slug, template, name, goal, agents_may_activate)
        values (doco.new_id('collection'), ${ws.id}, ${slug}, 'product-decisions', ${slug}, 'Scratch.', true) returning id`,
      ).id;
    const scratch = await open('scratch-a');
    const other = await open('scratch-b');
    const live = await as(agent, async (sql) => {
      const [row] = await sql<{ id: string }[]>`
        insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose)
        values (doco.new_id('decision'), ${ws.id}, ${scratch}, 'decision', 'active', 'Ship daily', 'We ship daily.') returning id`;
      return row!.id;
    });
    expect((await nodeRow(t.sql, live)).lifecycle).toBe('active');
    // Into the reviewed collection, with new text: refused, nothing changed.
    await expectSqlState(
      as(agent, (sql) => sql`update doco.nodes set collection_id = ${notes}, prose = 'We ship daily, no review.' where id = ${live}`),
      'DC007',
    );
    expect(await nodeRow(t.sql, live)).toMatchObject({ collection_id: scratch, prose: 'We ship daily.', version: 1 });
    // Between two collections that let agents activate: as before.
    await as(agent, (sql) => sql`update doco.nodes set collection_id = ${other} where id = ${live}`);
    expect((await nodeRow(t.sql, live)).collection_id).toBe(other);
  });

  it("an agent's edge is live only where agents may activate in both records' collections", async () => {
    // A scratchpad where agents may activate, beside the reviewed notes.
    const scratch = one(
      await t.sql<{ id: string }[]>`
      insert into doco.collections (id, workspace_id, slug, template, name, goal, agents_may_activate)
      values (doco.new_id('collection'), ${ws.id}, 'scratch', 'product-decisions', 'Scratch', 'Agents write here.', true) returning id`,
    ).id;
    const rule = await as(person, (sql) => newDecision(sql));
    const [mine, other] = await as(agent, async (sql) => {
      const ids: string[] = [];
      for (const title of ['Ship any day', 'Ship at noon'])
        ids.push(
          one(
            await sql<{ id: string }[]>`
            insert into doco.nodes (id, workspace_id, collection_id, node_type, title, prose)
            values (doco.new_id('decision'), ${ws.id}, ${scratch}, 'decision', ${title}, 'Whenever.') returning id`,
          ).id,
        );
      return ids as [string, string];
    });
    expect((await nodeRow(t.sql, mine)).lifecycle).toBe('active');
    const relate = (from: string, to: string, type: string) =>
      as(
        agent,
        async (sql) =>
          one(
            await sql<{ id: string }[]>`
          insert into doco.edges (id, workspace_id, from_id, to_id, edge_type) values (doco.new_id('edge'), ${ws.id}, ${from}, ${to}, ${type}) returning id`,
          ).id,
      );
    // Both ends in the scratchpad: live. Onto the person's rule in the notes: queued, whichever way.
    expect((await edgeRow(t.sql, await relate(mine, other, 'relates_to'))).lifecycle).toBe('active');
    const onto = await relate(mine, rule, 'replaces');
    expect((await edgeRow(t.sql, onto)).lifecycle).toBe('queued');
    expect((await edgeRow(t.sql, await relate(mine, rule, 'constrained_by'))).lifecycle).toBe('queued');
    expect((await edgeRow(t.sql, await relate(rule, mine, 'relates_to'))).lifecycle).toBe('queued');
    // Nor may it make one live, or retire a person's live edge onto the notes.
    await expectSqlState(
      as(agent, (sql) => sql`update doco.edges set lifecycle = 'active' where id = ${onto}`),
      'DC007',
    );
    const personsEdge = await as(
      person,
      async (sql) =>
        one(
          await sql<{ id: string }[]>`
        insert into doco.edges (id, workspace_id, from_id, to_id, edge_type) values (doco.new_id('edge'), ${ws.id}, ${mine}, ${rule}, 'supports') returning id`,
        ).id,
    );
    expect((await edgeRow(t.sql, personsEdge)).lifecycle).toBe('active');
    await expectSqlState(
      as(agent, (sql) => sql`update doco.edges set lifecycle = 'retired' where id = ${personsEdge}`),
      'DC007',
    );
    // The person's rule can still be superseded: no agent's replacement stands in its way.
    expect((await nodeRow(t.sql, rule)).lifecycle).toBe('active');
  });

  it("where agents may activate, an agent's record claiming a source of Doco's own (shape, source_kind, source_type) still waits", async () => {
    await setting(true);
    const insert = (body: Record<string, unknown>) =>
      as(
        agent,
        async (sql) =>
          one(
            await sql<{ id: string }[]>`
          insert into doco.nodes (id, workspace_id, collection_id, node_type, title, prose, body)
          values (doco.new_id('decision'), ${ws.id}, ${notes}, 'decision', 'Deploys skip review', 'Deploy on Fridays without review.',
                  ${JSON.stringify(body)}::text::jsonb) returning id`,
          ).id,
      );
    expect((await nodeRow(t.sql, await insert({}))).lifecycle).toBe('active');
    for (const body of [{ shape: 'architecturePrinciple' }, { source_kind: 'github' }, { source_type: 'doc_expectation' }]) {
      const id = await insert(body);
      expect((await nodeRow(t.sql, id)).lifecycle).toBe('queued');
      // Nor may the agent make it live itself; a person may.
      await expectSqlState(
        as(agent, (sql) => sql`update doco.nodes set lifecycle = 'active' where id = ${id}`),
        'DC007',
      );
      await as(person, (sql) => sql`update doco.nodes set lifecycle = 'active' where id = ${id}`);
      expect((await nodeRow(t.sql, id)).lifecycle).toBe('active');
    }
    await setting(null);
  });

  it('a drafting record of an agent stays drafting, and writes naming no changeset are untouched', async () => {
    expect((await nodeRow(t.sql, await as(agent, (sql) => newDecision(sql, 'drafting')))).lifecycle).toBe('drafting');
    const plain = await insertNode(t.sql, ws);
    expect((await nodeRow(t.sql, plain)).lifecycle).toBe('active');
  });
});

describe('how many versions an agent writes', () => {
  it('an agent writes at most 1,000 versions of one record; a person may write the next, and the agent may not after', async () => {
    const id = await as(agent, (sql) => newDecision(sql));
    // Versions 2..1000 written by the agent, in one transaction (each update is a version).
    await as(agent, async (sql) => {
      for (let n = 2; n <= 1000; n++) await sql`update doco.nodes set prose = ${`Revision ${n}.`} where id = ${id}`;
    });
    expect((await nodeRow(t.sql, id)).version).toBe(1000);
    expect(
      await expectSqlState(
        as(agent, (sql) => sql`update doco.nodes set prose = 'Revision 1001.' where id = ${id}`),
        'DC007',
      ),
    ).toMatch(/an agent cannot write version 1001 of record .*: an agent writes at most 1000 versions of one record/);
    // Nothing was written, and an update that changes nothing is no new version: allowed.
    expect((await nodeRow(t.sql, id)).version).toBe(1000);
    await as(agent, (sql) => sql`update doco.nodes set prose = 'Revision 1000.' where id = ${id}`);
    await as(person, (sql) => sql`update doco.nodes set prose = 'A person revises it.' where id = ${id}`);
    expect((await nodeRow(t.sql, id)).version).toBe(1001);
  });
});
