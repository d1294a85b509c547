// Versions and the hash chain of sql/hash_chain.sql, through plain SQL: a version row per content
// change, prev_hash links, append-only version tables, immutable columns, and
// doco.verify_chains() naming the first broken link after tampering that bypassed the triggers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import {
  DEFAULT_PROSE,
  expectSqlState,
  insertEdge,
  insertNode,
  nodeRow,
  one,
  sqlWorkspace,
  verifyChains,
  whileTampered,
  type SqlWorkspace,
} from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;
let other: SqlWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'chain');
  other = await sqlWorkspace(t.sql, 'chain-other');
});
afterAll(async () => t.drop());

const nodeVersions = (id: string) => t.sql`
  select version, title, prose, lifecycle, hash, prev_hash,
         doco.chain_hash(prev_hash, doco.node_version_doc(v)) as recomputed
    from doco.node_versions v where node_id = ${id} order by version`;
const edgeVersions = (id: string) => t.sql`
  select version, lifecycle, hash, prev_hash, doco.chain_hash(prev_hash, doco.edge_version_doc(v)) as recomputed
    from doco.edge_versions v where edge_id = ${id} order by version`;

/** A rule with three versions (v1 'one', v2 'two', v3 'three'). */
async function threeVersions(): Promise<string> {
  const id = await insertNode(t.sql, ws, { title: 'one' });
  await t.sql`update doco.nodes set title = 'two' where id = ${id}`;
  await t.sql`update doco.nodes set title = 'three' where id = ${id}`;
  return id;
}

describe('version rows', () => {
  it('writes version 1 on insert and one more per content change, each linked to the last', async () => {
    // A principal, which both bootstrap collections accept, so it can move between them.
    const id = await insertNode(t.sql, ws, { type: 'principal', title: 'v1', prose: 'p' });
    await t.sql`update doco.nodes set title = 'v2' where id = ${id}`;
    await t.sql`update doco.nodes set prose = 'p3' where id = ${id}`;
    await t.sql`update doco.nodes set body = '{"q": "why"}' where id = ${id}`;
    await t.sql`update doco.nodes set collection_id = ${ws.people} where id = ${id}`;
    await t.sql`update doco.nodes set lifecycle = 'retired' where id = ${id}`;
    const versions = await nodeVersions(id);
    expect(versions.map((v) => v.version)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(versions[0]!.prev_hash).toBeNull();
    for (let i = 0; i < versions.length; i++) {
      expect(versions[i]!.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(versions[i]!.hash).toBe(versions[i]!.recomputed);
      if (i > 0) expect(versions[i]!.prev_hash).toBe(versions[i - 1]!.hash);
    }
    expect(new Set(versions.map((v) => v.hash)).size).toBe(6);
    const row = await nodeRow(t.sql, id);
    expect(row).toMatchObject({ version: 6, hash: versions[5]!.hash, prev_hash: versions[4]!.hash });
  });

  it('writes no version for a PageRank refresh or an update that changes nothing', async () => {
    const id = await insertNode(t.sql, ws, { title: 'steady' });
    const before = await nodeRow(t.sql, id);
    // PageRank lives beside the record (migration 0024): a refresh does not touch its row at all.
    await t.sql`insert into doco.node_ranks (node_id, pagerank) values (${id}, 3.5)`;
    await t.sql`update doco.nodes set title = 'steady', prose = ${DEFAULT_PROSE} where id = ${id}`;
    expect(await nodeRow(t.sql, id)).toEqual(before);
    expect((await nodeVersions(id)).length).toBe(1);
  });

  it('computes version and hash itself: values a writer supplies are overwritten', async () => {
    const { id } = one(
      await t.sql`
      insert into doco.nodes (id, workspace_id, collection_id, node_type, title, prose, version, hash, prev_hash)
      values (doco.new_id('rule'), ${ws.id}, ${ws.constitution}, 'rule', 'forged', 'Forged.', 41, 'abc', 'def') returning id`,
    );
    await t.sql`update doco.nodes set title = 'forged again', version = 99, hash = 'x', prev_hash = null where id = ${id}`;
    const versions = await nodeVersions(id);
    expect(versions.map((v) => [v.version, v.hash === v.recomputed])).toEqual([
      [1, true],
      [2, true],
    ]);
    expect(versions[0]!.prev_hash).toBeNull();
    expect(versions[1]!.prev_hash).toBe(versions[0]!.hash);
    expect(await nodeRow(t.sql, id)).toMatchObject({ version: 2, hash: versions[1]!.hash });
  });

  it('versions edges on insert and on each lifecycle change', async () => {
    const a = await insertNode(t.sql, ws);
    const b = await insertNode(t.sql, ws);
    const e = await insertEdge(t.sql, ws, a, b, 'supports', 'drafting');
    await t.sql`update doco.edges set lifecycle = 'active' where id = ${e}`;
    await t.sql`update doco.edges set lifecycle = 'active' where id = ${e}`; // no change, no version
    await t.sql`update doco.edges set lifecycle = 'retired' where id = ${e}`;
    const versions = await edgeVersions(e);
    expect(versions.map((v) => [v.version, v.lifecycle])).toEqual([
      [1, 'drafting'],
      [2, 'active'],
      [3, 'retired'],
    ]);
    expect(versions[0]!.prev_hash).toBeNull();
    for (let i = 0; i < versions.length; i++) {
      expect(versions[i]!.hash).toBe(versions[i]!.recomputed);
      if (i > 0) expect(versions[i]!.prev_hash).toBe(versions[i - 1]!.hash);
    }
  });
});

describe('append-only and immutable', () => {
  it('refuses update, delete and truncate of version rows (DC002)', async () => {
    const a = await insertNode(t.sql, ws);
    const b = await insertNode(t.sql, ws);
    const e = await insertEdge(t.sql, ws, a, b);
    await expectSqlState(t.sql`update doco.node_versions set title = 'rewritten' where node_id = ${a}`, 'DC002');
    await expectSqlState(t.sql`delete from doco.node_versions where node_id = ${a}`, 'DC002');
    await expectSqlState(t.sql`truncate doco.node_versions`, 'DC002');
    await expectSqlState(t.sql`update doco.edge_versions set lifecycle = 'retired' where edge_id = ${e}`, 'DC002');
    await expectSqlState(t.sql`delete from doco.edge_versions where edge_id = ${e}`, 'DC002');
    await expectSqlState(t.sql`truncate doco.edge_versions`, 'DC002');
    const n = one(await t.sql`select title from doco.node_versions where node_id = ${a}`);
    expect(n.title).toBe('A record');
    const ev = one(await t.sql`select lifecycle from doco.edge_versions where edge_id = ${e}`);
    expect(ev.lifecycle).toBe('active');
  });

  it('refuses a version inserted by hand, even one hashed on top of the chain (DC002); the record goes on', async () => {
    const a = await insertNode(t.sql, ws);
    const b = await insertNode(t.sql, ws);
    const e = await insertEdge(t.sql, ws, a, b);
    // Version 2 as a writer could compute it: the record's row with new text, chained on version 1.
    await expectSqlState(
      t.sql`
        with f as (select (doco.node_as_version(n)).* from doco.nodes n where n.id = ${a}),
             v as (select f.node_id, f.version + 1 as version, f.workspace_id, f.collection_id, f.node_type, f.lifecycle,
                          'Forged' as title, f.prose, f.body, f.principal_id, f.changeset_id, now() as recorded_at, f.hash as prev_hash
                     from f)
        insert into doco.node_versions (node_id, version, workspace_id, collection_id, node_type, lifecycle, title, prose, body,
                                        principal_id, changeset_id, recorded_at, hash, prev_hash)
        select node_id, version, workspace_id, collection_id, node_type, lifecycle, title, prose, body, principal_id, changeset_id,
               recorded_at, doco.chain_hash(prev_hash, doco.node_version_doc(row(v.node_id, v.version, v.workspace_id, v.collection_id,
               v.node_type, v.lifecycle, v.title, v.prose, v.body, v.principal_id, v.changeset_id, v.recorded_at, null, v.prev_hash)::doco.node_versions)),
               prev_hash
          from v`,
      'DC002',
    );
    await expectSqlState(
      t.sql`
        insert into doco.edge_versions (edge_id, version, workspace_id, from_id, to_id, edge_type, lifecycle, principal_id, changeset_id,
                                        recorded_at, hash, prev_hash)
        select id, version + 1, workspace_id, from_id, to_id, edge_type, 'retired', principal_id, changeset_id, now(), hash, hash
          from doco.edges where id = ${e}`,
      'DC002',
    );
    // Nothing was added, and the next change writes version 2 as always.
    await t.sql`update doco.nodes set title = 'Changed' where id = ${a}`;
    expect((await nodeVersions(a)).map((v) => [v.version, v.title])).toEqual([
      [1, 'A record'],
      [2, 'Changed'],
    ]);
    await t.sql`update doco.edges set lifecycle = 'retired' where id = ${e}`;
    expect((await edgeVersions(e)).map((v) => v.version)).toEqual([1, 2]);
  });

  it('refuses update, delete and truncate of a changeset: who wrote what stays as written (DC002)', async () => {
    const a = await insertNode(t.sql, ws);
    const { changeset_id } = one(await t.sql<{ changeset_id: string }[]>`select changeset_id from doco.nodes where id = ${a}`);
    await expectSqlState(
      t.sql`update doco.changesets set source = 'ui', summary = 'approved in review' where id = ${changeset_id}`,
      'DC002',
    );
    await expectSqlState(t.sql`delete from doco.changesets where id = ${changeset_id}`, 'DC002');
    await expectSqlState(t.sql`truncate doco.changesets cascade`, 'DC002');
    expect(one(await t.sql<{ source: string }[]>`select source from doco.changesets where id = ${changeset_id}`).source).toBe('sql');
  });

  it('refuses changes to the id, type, workspace and creation time of a record (DC003)', async () => {
    const id = await insertNode(t.sql, ws);
    await expectSqlState(t.sql`update doco.nodes set id = doco.new_id('rule') where id = ${id}`, 'DC003');
    await expectSqlState(t.sql`update doco.nodes set node_type = 'idea' where id = ${id}`, 'DC003');
    await expectSqlState(
      t.sql`update doco.nodes set workspace_id = ${other.id}, collection_id = ${other.constitution} where id = ${id}`,
      'DC003',
    );
    await expectSqlState(t.sql`update doco.nodes set created_at = now() - interval '1 day' where id = ${id}`, 'DC003');
    expect(await nodeRow(t.sql, id)).toMatchObject({ id, node_type: 'rule', workspace_id: ws.id, version: 1 });
  });

  it('refuses changes to the id, endpoints, type and workspace of an edge', async () => {
    const [a, b, c] = [await insertNode(t.sql, ws), await insertNode(t.sql, ws), await insertNode(t.sql, ws)];
    const e = await insertEdge(t.sql, ws, a, b, 'supports');
    await expectSqlState(t.sql`update doco.edges set id = doco.new_id('edge') where id = ${e}`, 'DC003');
    await expectSqlState(t.sql`update doco.edges set from_id = ${c} where id = ${e}`, 'DC003');
    await expectSqlState(t.sql`update doco.edges set to_id = ${c} where id = ${e}`, 'DC003');
    await expectSqlState(t.sql`update doco.edges set edge_type = 'relates_to' where id = ${e}`, 'DC003');
    // Moving the edge to another workspace is refused by the cross-workspace check, which runs first.
    await expectSqlState(t.sql`update doco.edges set workspace_id = ${other.id} where id = ${e}`, 'DC004');
    const row = one(await t.sql`select from_id, to_id, edge_type, version from doco.edges where id = ${e}`);
    expect(row).toEqual({ from_id: a, to_id: b, edge_type: 'supports', version: 1 });
  });
});

describe('doco.verify_chains()', () => {
  it('returns no rows while every chain is intact', async () => {
    await threeVersions();
    const a = await insertNode(t.sql, ws);
    const b = await insertNode(t.sql, ws);
    await insertEdge(t.sql, ws, a, b);
    await t.sql`update doco.nodes set lifecycle = 'retired' where id = ${a}`;
    expect(await verifyChains(t.sql)).toEqual([]);
    const status = one(await t.sql`select intact, broken_links::int, first_break from doco.chain_status`);
    expect(status).toEqual({ intact: true, broken_links: 0, first_break: null });
  });

  it('names a version whose content was rewritten', async () => {
    const id = await threeVersions();
    const broken = await whileTampered(
      t.sql,
      (tx) => tx`update doco.node_versions set prose = 'tampered' where node_id = ${id} and version = 2`,
      verifyChains,
    );
    expect(broken).toEqual([{ kind: 'node', id, version: 2, problem: "hash does not match the version's content" }]);
  });

  it('lists the first broken link first', async () => {
    const id = await threeVersions();
    const broken = await whileTampered(
      t.sql,
      async (tx) => {
        await tx`update doco.node_versions set prose = 'tampered' where node_id = ${id} and version = 3`;
        await tx`update doco.node_versions set prose = 'tampered' where node_id = ${id} and version = 2`;
      },
      verifyChains,
    );
    expect(broken[0]).toEqual({ kind: 'node', id, version: 2, problem: "hash does not match the version's content" });
    // v3 is broken twice: its own content, and the record row no longer matches it.
    expect(broken.slice(1)).toEqual([
      { kind: 'node', id, version: 3, problem: "hash does not match the version's content" },
      { kind: 'node', id, version: 3, problem: 'record differs from its latest version' },
    ]);
    const status = await whileTampered(
      t.sql,
      (tx) => tx`update doco.node_versions set prose = 'tampered' where node_id = ${id} and version in (2, 3)`,
      (tx) => tx`select intact, broken_links::int, first_break from doco.chain_status`,
    );
    expect(status[0]).toEqual({ intact: false, broken_links: 3, first_break: `node ${id} v2: hash does not match the version's content` });
  });

  it('names a record row edited behind the triggers', async () => {
    const id = await threeVersions();
    const broken = await whileTampered(t.sql, (tx) => tx`update doco.nodes set title = 'sneaky' where id = ${id}`, verifyChains);
    expect(broken).toEqual([{ kind: 'node', id, version: 3, problem: 'record differs from its latest version' }]);
  });

  // verify_chains compares a record row with its latest version column by column; every column a
  // version mirrors must be in that list, so each is tampered with here on its own.
  const otherIds = (set: string) =>
    set.replace(':other_workspace', `'${other.id}'`).replace(':other_collection', `'${other.constitution}'`);
  const nodeEdits: [string, string][] = [
    ['version', 'version = 2'],
    ['workspace_id', 'workspace_id = :other_workspace'],
    ['collection_id', 'collection_id = :other_collection'],
    ['lifecycle', "lifecycle = 'retired'"],
    ['title', "title = 'sneaky'"],
    ['prose', "prose = prose || '!'"],
    ['body', 'body = body || \'{"x": 1}\''],
    ['principal_id', "principal_id = case when principal_id is null then 'principal_00000000000000000000000000' end"],
    ['changeset_id', "changeset_id = 'changeset_00000000000000000000000000'"],
    ['updated_at', "updated_at = updated_at + interval '1 microsecond'"],
    ['hash', "hash = repeat('0', 64)"],
    ['prev_hash', 'prev_hash = null'],
  ];
  it.each(nodeEdits)('names a record row whose %s was edited behind the triggers', async (column, set) => {
    const id = await threeVersions();
    const broken = await whileTampered(
      t.sql,
      (tx) => tx.unsafe(`update doco.nodes set ${otherIds(set)} where id = $1`, [id]),
      verifyChains,
    );
    // Named at the record's own version (an edited version number is the record's claim).
    const version = column === 'version' ? 2 : 3;
    expect(broken).toEqual([{ kind: 'node', id, version, problem: 'record differs from its latest version' }]);
  });

  const edgeEdits: [string, string][] = [
    ['version', 'version = 1'],
    ['workspace_id', 'workspace_id = :other_workspace'],
    ['from_id', "from_id = 'rule_00000000000000000000000000'"],
    ['to_id', "to_id = 'rule_00000000000000000000000000'"],
    ['edge_type', "edge_type = 'relates_to'"],
    ['lifecycle', "lifecycle = 'active'"],
    ['principal_id', "principal_id = case when principal_id is null then 'principal_00000000000000000000000000' end"],
    ['changeset_id', "changeset_id = 'changeset_00000000000000000000000000'"],
    ['updated_at', "updated_at = updated_at + interval '1 microsecond'"],
    ['hash', "hash = repeat('0', 64)"],
    ['prev_hash', 'prev_hash = null'],
  ];
  it.each(edgeEdits)('names an edge row whose %s was edited behind the triggers', async (column, set) => {
    const e = await insertEdge(t.sql, ws, await insertNode(t.sql, ws), await insertNode(t.sql, ws), 'supports');
    await t.sql`update doco.edges set lifecycle = 'retired' where id = ${e}`;
    const broken = await whileTampered(t.sql, (tx) => tx.unsafe(`update doco.edges set ${otherIds(set)} where id = $1`, [e]), verifyChains);
    const version = column === 'version' ? 1 : 2;
    expect(broken).toEqual([{ kind: 'edge', id: e, version, problem: 'edge differs from its latest version' }]);
  });

  it('names a rewritten prev_hash', async () => {
    const id = await threeVersions();
    const broken = await whileTampered(
      t.sql,
      (tx) => tx`update doco.node_versions set prev_hash = repeat('0', 64) where node_id = ${id} and version = 2`,
      verifyChains,
    );
    expect(broken[0]).toEqual({ kind: 'node', id, version: 2, problem: 'prev_hash does not match the previous version' });
  });

  it('names the version after a deleted middle version', async () => {
    const id = await threeVersions();
    const broken = await whileTampered(
      t.sql,
      (tx) => tx`delete from doco.node_versions where node_id = ${id} and version = 2`,
      verifyChains,
    );
    expect(broken).toEqual([{ kind: 'node', id, version: 3, problem: 'version number out of sequence' }]);
  });

  it('names a rewritten edge version', async () => {
    const a = await insertNode(t.sql, ws);
    const b = await insertNode(t.sql, ws);
    const e = await insertEdge(t.sql, ws, a, b, 'supports');
    await t.sql`update doco.edges set lifecycle = 'retired' where id = ${e}`;
    const broken = await whileTampered(
      t.sql,
      (tx) => tx`update doco.edge_versions set edge_type = 'relates_to' where edge_id = ${e} and version = 1`,
      verifyChains,
    );
    expect(broken).toEqual([{ kind: 'edge', id: e, version: 1, problem: "hash does not match the version's content" }]);
    const edited = await whileTampered(t.sql, (tx) => tx`update doco.edges set lifecycle = 'active' where id = ${e}`, verifyChains);
    expect(edited).toEqual([{ kind: 'edge', id: e, version: 2, problem: 'edge differs from its latest version' }]);
  });

  it('names a record or edge deleted behind the triggers', async () => {
    const a = await threeVersions();
    const b = await insertNode(t.sql, ws);
    const e = await insertEdge(t.sql, ws, b, a, 'supports');
    const broken = await whileTampered(
      t.sql,
      async (tx) => {
        await tx`delete from doco.edges where id = ${e}`;
        await tx`delete from doco.nodes where id = ${a}`;
      },
      verifyChains,
    );
    expect(broken).toEqual([
      { kind: 'node', id: a, version: 3, problem: 'record is missing: its versions remain but the record row is gone' },
      { kind: 'edge', id: e, version: 1, problem: 'edge is missing: its versions remain but the edge row is gone' },
    ]);
  });
});
