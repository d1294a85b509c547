// Template rules of sql/template_rules.sql, through plain SQL: a record its collection's template
// does not allow, or one missing a field a required_fields policy names, is refused with DC006,
// on insert and on a content update, whoever writes it; lifecycle moves are not re-judged. And
// the SQL rule agrees with the app's check (src/graph/policies.ts) on every template.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_TYPES } from '../../src/db/schema.js';
import { fromDatabaseError } from '../../src/db/sqlstate.js';
import { listCollections } from '../../src/graph/collections.js';
import { deterministicVerdicts } from '../../src/graph/policies.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { expectSqlState, insertNode, nodeRow, one, sqlWorkspace, type Sql, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;
let adrs: string;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'rules');
  adrs = await sqlCollection(t.sql, ws, 'arch', 'adrs');
});
afterAll(async () => t.drop());

async function sqlCollection(sql: Sql, w: SqlWorkspace, slug: string, template: string): Promise<string> {
  return one(
    await sql<{ id: string }[]>`
    insert into doco.collections (id, workspace_id, slug, template, name, goal)
    values (doco.new_id('collection'), ${w.id}, ${slug}, ${template}, ${slug}, 'A goal') returning id`,
  ).id;
}

const count = async () => one(await t.sql<{ n: number }[]>`select count(*)::int as n from doco.nodes`).n;

describe('allowed record types', () => {
  it('refuses a type the template does not allow (DC006) and writes nothing', async () => {
    const before = await count();
    const message = await expectSqlState(insertNode(t.sql, ws, { type: 'idea', prose: 'Maybe.' }), 'DC006');
    expect(message).toBe(
      'blocked by policy allowed-types: collection constitution (template constitution) accepts rule, decision, reference, principal, not idea',
    );
    await expectSqlState(insertNode(t.sql, ws, { type: 'log', collection: adrs, prose: 'Deployed.' }), 'DC006');
    expect(await count()).toBe(before);
  });

  it('refuses moving a record into a collection that does not allow its type', async () => {
    const id = await insertNode(t.sql, ws, { prose: 'Every change is reviewed.' });
    await expectSqlState(t.sql`update doco.nodes set collection_id = ${ws.people} where id = ${id}`, 'DC006');
    expect(await nodeRow(t.sql, id)).toMatchObject({ collection_id: ws.constitution, version: 1 });
  });
});

describe('required fields', () => {
  it('refuses an adrs decision without body.question, with the policy named', async () => {
    const message = await expectSqlState(
      insertNode(t.sql, ws, { type: 'decision', collection: adrs, prose: 'We use Redis for queues.' }),
      'DC006',
    );
    expect(message).toBe('blocked by policy adr-has-question: a decision in arch needs body.question');
  });

  it('counts blank strings (as JavaScript trims them), nulls and empty arrays as missing', async () => {
    for (const question of ['', '   ', '\u00a0\n\t\u2003', null, []]) {
      await expectSqlState(insertNode(t.sql, ws, { type: 'decision', collection: adrs, prose: 'Postgres.', body: { question } }), 'DC006');
    }
    await expectSqlState(
      insertNode(t.sql, ws, { type: 'decision', collection: adrs, prose: ' \u00a0 ', body: { question: 'Where?' } }),
      'DC006',
    );
    const id = await insertNode(t.sql, ws, {
      type: 'decision',
      collection: adrs,
      prose: 'Postgres.',
      body: { question: 'Where does the graph live?' },
    });
    expect((await nodeRow(t.sql, id)).body).toEqual({ question: 'Where does the graph live?' });
  });

  it('refuses a content update that removes a required field', async () => {
    const id = await insertNode(t.sql, ws, { prose: 'Tests run before merge.' });
    await expectSqlState(t.sql`update doco.nodes set prose = '' where id = ${id}`, 'DC006');
    const adr = await insertNode(t.sql, ws, { type: 'decision', collection: adrs, prose: 'Postgres.', body: { question: 'Where?' } });
    await expectSqlState(t.sql`update doco.nodes set body = '{}' where id = ${adr}`, 'DC006');
    expect(await nodeRow(t.sql, adr)).toMatchObject({ body: { question: 'Where?' }, version: 1 });
  });

  it('does not re-judge a lifecycle move: a record written before a rule tightened can still be retired', async () => {
    const id = await insertNode(t.sql, ws, { type: 'decision', collection: adrs, prose: 'Postgres.', body: { question: 'Where?' } });
    const outcome = await t.sql.begin(async (tx) => {
      await tx`update doco.templates set policies = policies || '[{"id":"needs-owner","kind":"required_fields","fields":["body.owner"]}]' where slug = 'adrs'`;
      await expectSqlState(
        tx.savepoint((sp) => sp`update doco.nodes set prose = 'Postgres, still.' where id = ${id}`),
        'DC006',
      );
      await tx`update doco.nodes set lifecycle = 'retired' where id = ${id}`;
      const row = one(await tx<{ lifecycle: string }[]>`select lifecycle from doco.nodes where id = ${id}`);
      await tx`update doco.templates set policies = policies - (jsonb_array_length(policies) - 1) where slug = 'adrs'`;
      return row.lifecycle;
    });
    expect(outcome).toBe('retired');
  });
});

describe('the SQL rule and the app check agree', () => {
  it('maps DC006 to the API error policy_blocked (422), with the same message', async () => {
    const err = await insertNode(t.sql, ws, { type: 'decision', collection: adrs, prose: 'Redis.' }).catch((e: unknown) => e);
    const appErr = fromDatabaseError(err);
    expect({ code: appErr?.code, status: appErr?.status, message: appErr?.message }).toEqual({
      code: 'policy_blocked',
      status: 422,
      message: 'blocked by policy adr-has-question: a decision in arch needs body.question',
    });
  });

  it('on every template, every record type, with and without prose and body.question', async () => {
    const other = await sqlWorkspace(t.sql, 'rules-parity');
    const ids = new Map<string, string>([
      ['constitution', other.constitution],
      ['team-directory', other.people],
    ]);
    for (const { slug } of await t.sql<{ slug: string }[]>`select slug from doco.templates order by slug`) {
      if (!ids.has(slug)) ids.set(slug, await sqlCollection(t.sql, other, `c-${slug}`, slug));
    }
    const collections = await listCollections(t.db, other.id);
    expect(collections.length).toBe(21);
    let blocked = 0;
    let passed = 0;
    for (const collection of collections) {
      for (const nodeType of NODE_TYPES) {
        for (const prose of ['', 'Stands as written.']) {
          for (const body of [{}, { question: 'Why?' }]) {
            const draft = { target: 'x', collection, node_type: nodeType, title: 'A record', prose, body };
            const appBlocks = deterministicVerdicts(draft).find((v) => v.outcome === 'block');
            const sqlError = await t.sql
              .begin(async (tx) => {
                await insertNode(tx, other, { type: nodeType, collection: collection.id, title: `T ${nodeType}`, prose, body });
                throw new Error('rollback');
              })
              .catch((err: { code?: string; message: string }) => (err.code === 'DC006' ? err.message : undefined));
            const where = `${collection.template} ${nodeType} prose=${!!prose} body=${JSON.stringify(body)}`;
            expect(sqlError ? `blocked: ${sqlError}` : 'passes', where).toBe(
              appBlocks ? `blocked: blocked by policy ${appBlocks.policy}: ${appBlocks.reason}` : 'passes',
            );
            if (appBlocks) blocked++;
            else passed++;
          }
        }
      }
    }
    // Both outcomes occur, or the comparison proves nothing.
    expect(blocked).toBeGreaterThan(100);
    expect(passed).toBeGreaterThan(50);
  });
});
