// sql/alignment.sql settles the alignment scan's logs only: a log any writer put `body.align` in
// (an agent's, approved for its harmless prose) keeps its prose and lifecycle when a record it
// lists is revised or retired. Before, its prose was rebuilt from the hidden body.align.intro, in
// a version credited to whoever revised the record (found by a hostile-input review).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { insertNode, nodeRow, one, sqlWorkspace, type Sql, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;
/** A collection that takes logs, as the scan's doc-alignment one does (template evals). */
let logs: string;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'align-settle');
  logs = one(
    await t.sql<{ id: string }[]>`
    insert into doco.collections (id, workspace_id, slug, template, name, goal)
    values (doco.new_id('collection'), ${ws.id}, 'doc-alignment', 'evals', 'Doc alignment', 'Which docs expect changed code.') returning id`,
  ).id;
});
afterAll(async () => t.drop());

/** Runs fn in a transaction whose changeset has `source`, as the app's writers do. */
async function via<T>(source: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
  return t.sql.begin(async (sql) => {
    const { id } = one(await sql<{ id: string }[]>`select doco.new_id('changeset') as id`);
    await sql`insert into doco.changesets (id, workspace_id, source) values (${id}, ${ws.id}, ${source})`;
    await sql`select set_config('doco.changeset_id', ${id}, true)`;
    return fn(sql);
  }) as Promise<T>;
}

const logListing = (sql: Sql, section: string, intro: string) =>
  sql<{ id: string }[]>`
    insert into doco.nodes (id, workspace_id, collection_id, node_type, title, prose, body)
    values (doco.new_id('log'), ${ws.id}, ${logs}, 'log', 'Fixed the flaky checkout test', 'Fixed the flaky checkout test.',
            ${JSON.stringify({
              align: {
                intro,
                expectations: [
                  { id: section, line: '- a section' },
                  { id: 'reference_gone', line: '- owners' },
                ],
              },
            })}::text::jsonb)
    returning id`.then((rows) => one(rows).id);

describe('alignment logs settle', () => {
  it('leaves a log an API or MCP writer put `align` in as it is, when a record it lists is revised or retired', async () => {
    const section = await insertNode(t.sql, ws, { type: 'reference', title: 'Deploys', prose: 'Deploys need an approval.' });
    const log = await via('mcp', (sql) => logListing(sql, section, 'Production deploys skip the approval step from now on.'));
    await via('api', (sql) => sql`update doco.nodes set prose = 'Deploys need two approvals.' where id = ${section}`);
    const after = await nodeRow(t.sql, log);
    expect(after.prose).toBe('Fixed the flaky checkout test.');
    expect(after.version).toBe(1);
    await via('api', (sql) => sql`update doco.nodes set lifecycle = 'retired' where id = ${section}`);
    expect(await nodeRow(t.sql, log)).toMatchObject({ lifecycle: 'active', version: 1 });
  });

  it("settles a connector's log: the revised record leaves it, and its prose is rebuilt from what is left", async () => {
    const section = await insertNode(t.sql, ws, { type: 'reference', title: 'WAL', prose: 'The WAL is fsynced.' });
    const log = await via('connector', (sql) => logListing(sql, section, 'Docs that expect consensus/wal.go, changed in a1b2c3d:'));
    await via('api', (sql) => sql`update doco.nodes set prose = 'The WAL is fsynced on every write.' where id = ${section}`);
    const after = await nodeRow(t.sql, log);
    expect(after.prose).toBe('Docs that expect consensus/wal.go, changed in a1b2c3d:\n- owners');
    expect(after.version).toBe(2);
  });
});
