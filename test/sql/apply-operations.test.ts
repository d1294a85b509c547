// doco.apply_operations (sql/apply_changeset.sql), called as psql would: a changeset's row and
// its operations in one statement, the records and edges read back as written, and a failing
// operation named in the error's hint with nothing at all written, not even the changeset row.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { insertNode, nodeRow, one, sqlWorkspace, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'apply-ops');
});
afterAll(async () => t.drop());

const newId = async (prefix: string) => one(await t.sql<{ id: string }[]>`select doco.new_id(${prefix}) as id`).id;
const changesetOf = (id: string) => ({ id, workspace_id: ws.id, actor_id: null, source: 'sql', summary: 'from a test' });
const apply = (changeset: object, ops: object[]) =>
  t.sql<{ out: { nodes: Record<string, unknown>[]; edges: Record<string, unknown>[] } }[]>`
    select doco.apply_operations(${JSON.stringify(changeset)}::text::jsonb, ${JSON.stringify(ops)}::text::jsonb) as out`;
const rule = (id: string, title: string) => ({
  op: 'create',
  id,
  collection_id: ws.constitution,
  node_type: 'rule',
  lifecycle: 'active',
  title,
  prose: `${title}, always.`,
  body: {},
});

async function failure(statement: PromiseLike<unknown>): Promise<postgres.PostgresError> {
  try {
    await statement;
  } catch (err) {
    return err as postgres.PostgresError;
  }
  throw new Error('expected the statement to fail');
}

describe('doco.apply_operations', () => {
  it('writes every operation in order under one changeset and returns the rows as the tables hold them', async () => {
    const cs = await newId('changeset');
    const [a, b, e] = [await newId('rule'), await newId('rule'), await newId('edge')];
    const { out } = one(
      await apply(changesetOf(cs), [
        rule(a, 'Tests run before merge'),
        rule(b, 'Reviews need two people'),
        { op: 'relate', edge_id: e, from: a, to: b, edge_type: 'supports', lifecycle: 'active' },
        { op: 'append', id: a, prose: 'Flaky tests are fixed, not retried.' },
      ]),
    );
    const row = await nodeRow(t.sql, a);
    expect(row).toMatchObject({
      changeset_id: cs,
      version: 2,
      prose: 'Tests run before merge, always.\n\nFlaky tests are fixed, not retried.',
    });
    const returned = out.nodes.find((n) => n.id === a)!;
    expect(returned).toMatchObject({
      version: row.version,
      hash: row.hash,
      prev_hash: row.prev_hash,
      prose: row.prose,
      collection: 'constitution',
    });
    expect(new Date(returned.updated_at as string).getTime()).toBe((row.updated_at as Date).getTime());
    expect(out.nodes.map((n) => n.id).sort()).toEqual([a, b].sort());
    expect(out.edges).toEqual([
      expect.objectContaining({ id: e, from: a, to: b, edge_type: 'supports', lifecycle: 'active', changeset_id: cs }),
    ]);
    const versions =
      await t.sql`select node_id, changeset_id from doco.node_versions where node_id in (${a}, ${b}) order by node_id, version`;
    expect(new Set(versions.map((v) => v.changeset_id))).toEqual(new Set([cs]));
  });

  it('names the failing operation in the hint, keeps its SQLSTATE, and writes nothing', async () => {
    const cs = await newId('changeset');
    const [a, e] = [await newId('rule'), await newId('edge')];
    const err = await failure(
      apply(changesetOf(cs), [
        rule(a, 'Deploys happen on weekdays'),
        { op: 'relate', edge_id: e, from: a, to: 'rule_00000000000000000000000000', edge_type: 'supports', lifecycle: 'active' },
      ]),
    );
    expect({ code: err.code, hint: err.hint }).toEqual({ code: '23503', hint: 'operations[1]' });
    expect(await t.sql`select id from doco.changesets where id = ${cs}`).toEqual([]);
    expect(await t.sql`select id from doco.nodes where id = ${a}`).toEqual([]);
  });

  it('writes a run of creates as one insert: every record with its version, touches and outbox row, ids in order', async () => {
    const cs = await newId('changeset');
    const ids = await Promise.all([0, 1, 2, 3].map(() => newId('rule')));
    const e = await newId('edge');
    const late = await newId('rule');
    const operations = [
      ...ids.map((id, i) => ({ ...rule(id, `Run rule ${i}`), prose: `Run rule ${i} reads src/run/file-${i}.ts, always.` })),
      { op: 'relate', edge_id: e, from: ids[1], to: ids[0], edge_type: 'supports', lifecycle: 'active' },
      rule(late, 'A create after the run'),
    ];
    // Counted in the transaction: the statement-level trigger that writes first versions runs
    // once for the run of four and once for the create after the relate.
    const { out, versionStatements } = await t.sql.begin(async (tx) => {
      await tx`set local track_functions = 'pl'`;
      const [row] = await tx<{ out: { nodes: Record<string, unknown>[] } }[]>`
        select doco.apply_operations(${JSON.stringify(changesetOf(cs))}::text::jsonb, ${JSON.stringify(operations)}::text::jsonb) as out`;
      const [calls] = await tx<{ n: string }[]>`
        select pg_stat_get_xact_function_calls('doco.tg_nodes__record_inserted_versions'::regproc) as n`;
      return { out: row!.out, versionStatements: Number(calls!.n) };
    });
    expect(versionStatements).toBe(2);
    expect(out.nodes.map((n) => n.id).sort()).toEqual([...ids, late].sort());
    const versions =
      await t.sql`select node_id, version, changeset_id from doco.node_versions where node_id = any(${ids}) order by node_id`;
    expect(versions.map((v) => ({ ...v }))).toEqual([...ids].sort().map((id) => ({ node_id: id, version: 1, changeset_id: cs })));
    const touches = await t.sql`select node_id, value from doco.touches where node_id = any(${ids}) and kind = 'path' order by node_id`;
    expect(touches.map((r) => [r.node_id, r.value])).toEqual(
      ids.map((id, i) => [id, `src/run/file-${i}.ts`]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    );
    expect(await t.sql`select node_id from doco.outbox where node_id = any(${[...ids, late]})`).toHaveLength(5);
    // Inserted in the order given: created_at and the rows' physical order follow the operations.
    const order = await t.sql`select id from doco.nodes where id = any(${ids}) order by ctid`;
    expect(order.map((r) => r.id)).toEqual(ids);
  });

  it("queues every create of an agent's run, as one at a time would (the review trigger fires per row)", async () => {
    const agent = one(
      await t.sql<{ id: string }[]>`
        insert into doco.nodes (id, workspace_id, collection_id, node_type, title, prose)
        values (doco.new_id('principal'), ${ws.id}, ${ws.people}, 'principal', 'agent:codex@run', '') returning id`,
    ).id;
    const ids = await Promise.all([0, 1, 2].map(() => newId('rule')));
    const { out } = one(
      await apply(
        { ...changesetOf(await newId('changeset')), actor_id: agent },
        ids.map((id, i) => rule(id, `Agent rule ${i}`)),
      ),
    );
    expect(out.nodes.map((n) => [n.id, n.lifecycle]).sort()).toEqual(ids.map((id) => [id, 'queued']).sort());
    const versions = await t.sql`select lifecycle from doco.node_versions where node_id = any(${ids})`;
    expect(versions.map((v) => v.lifecycle)).toEqual(['queued', 'queued', 'queued']);
  });

  it('names the create that fails inside a run of creates, and writes nothing', async () => {
    const cs = await newId('changeset');
    const [a, b, c] = [await newId('rule'), await newId('rule'), await newId('rule')];
    // The constitution's template requires a rule's prose: the second create breaks the rule.
    const err = await failure(
      apply(changesetOf(cs), [rule(a, 'First of the run'), { ...rule(b, 'Second of the run'), prose: '' }, rule(c, 'Third of the run')]),
    );
    expect(err.hint).toBe('operations[1]');
    expect(err.code).toMatch(/^DC/);
    const again = await failure(apply(changesetOf(await newId('changeset')), [rule(a, 'One'), rule(b, 'Two'), rule(a, 'One again')]));
    expect({ code: again.code, hint: again.hint }).toEqual({ code: '23505', hint: 'operations[2]' });
    expect(await t.sql`select id from doco.changesets where id = ${cs}`).toEqual([]);
    expect(await t.sql`select id from doco.nodes where id in (${a}, ${b}, ${c})`).toEqual([]);
  });

  it('refuses a second live edge of a type with DC008, naming the edge in the way as JSON detail', async () => {
    const [a, b] = [await insertNode(t.sql, ws, { title: 'One' }), await insertNode(t.sql, ws, { title: 'Two' })];
    const first = await newId('edge');
    await apply(changesetOf(await newId('changeset')), [
      { op: 'relate', edge_id: first, from: a, to: b, edge_type: 'relates_to', lifecycle: 'active' },
    ]);
    const err = await failure(
      apply(changesetOf(await newId('changeset')), [
        { op: 'lifecycle', id: a, lifecycle: 'active' },
        { op: 'relate', edge_id: await newId('edge'), from: a, to: b, edge_type: 'relates_to', lifecycle: 'active' },
      ]),
    );
    expect({ code: err.code, hint: err.hint, detail: JSON.parse(err.detail!) }).toEqual({
      code: 'DC008',
      hint: 'operations[1]',
      detail: { id: first },
    });
    expect(err.message).toBe(`a live relates_to edge from ${a} to ${b} already exists (${first})`);
  });

  it('uses the changeset a transaction opened before it, rather than opening a second one', async () => {
    const cs = await newId('changeset');
    const a = await newId('rule');
    await t.sql.begin(async (tx) => {
      await tx`select doco.open_changeset(${JSON.stringify(changesetOf(cs))}::text::jsonb)`;
      await tx`select doco.apply_operations(${JSON.stringify(changesetOf(cs))}::text::jsonb, ${JSON.stringify([rule(a, 'Secrets stay in the vault')])}::text::jsonb)`;
    });
    expect(await t.sql`select id from doco.changesets where id = ${cs}`).toHaveLength(1);
    expect((await nodeRow(t.sql, a)).changeset_id).toBe(cs);
  });

  it('supersedes: the replacement, its replaces edge and the retired original, in one changeset', async () => {
    const old = await insertNode(t.sql, ws, { title: 'Merges need one review' });
    const [next, edge, cs] = [await newId('rule'), await newId('edge'), await newId('changeset')];
    await apply(changesetOf(cs), [{ ...rule(next, 'Merges need two reviews'), op: 'supersede', old_id: old, edge_id: edge }]);
    expect(await nodeRow(t.sql, old)).toMatchObject({ lifecycle: 'retired', changeset_id: cs });
    expect(one(await t.sql`select from_id, to_id, edge_type, lifecycle from doco.edges where id = ${edge}`)).toEqual({
      from_id: next,
      to_id: old,
      edge_type: 'replaces',
      lifecycle: 'active',
    });
  });
});
