// Kept comments follow the remote's order (sql/connectors.sql, tg_connector_item_comments__remote_order;
// migration 0028): through plain SQL, as psql would write it, an update older than the comment's
// remote_updated_at is skipped, a tombstone refuses its own time and older, a deletion never moves
// the time back, and a write with no remote time is not checked.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { expectSqlState, sqlWorkspace, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'comment-order');
});
beforeEach(async () => {
  await t.sql`delete from doco.connector_item_comments`;
});
afterAll(async () => t.drop());

const T1 = '2026-05-01T10:00:00Z';
const T2 = '2026-05-01T10:05:00Z';
const T3 = '2026-05-01T10:10:00Z';

interface Kept {
  body: string;
  deleted: boolean;
  remote_updated_at: Date | null;
}
const kept = async () =>
  (
    await t.sql<Kept[]>`select body, deleted, remote_updated_at from doco.connector_item_comments
                         where workspace_id = ${ws.id} and kind = 'github' and external_id = 'o/r#1' and comment_id = 'comment-1'`
  )[0];
const insert = (body: string, at: string | null, deleted = false) =>
  t.sql`insert into doco.connector_item_comments (workspace_id, kind, external_id, comment_id, author, body, deleted, remote_updated_at)
        values (${ws.id}, 'github', 'o/r#1', 'comment-1', ${deleted ? '' : 'ana'}, ${body}, ${deleted}, ${at})`;
/** An update as psql would write it; its count is how many rows it changed. */
const update = (body: string, at: string | null, deleted = false) =>
  t.sql`update doco.connector_item_comments set body = ${body}, author = ${deleted ? '' : 'ana'}, deleted = ${deleted}, remote_updated_at = ${at}
         where workspace_id = ${ws.id} and comment_id = 'comment-1'`;
/** The upsert the app writes, as one statement. */
const upsert = (body: string, at: string | null) =>
  t.sql`insert into doco.connector_item_comments as c (workspace_id, kind, external_id, comment_id, author, body, remote_updated_at)
        values (${ws.id}, 'github', 'o/r#1', 'comment-1', 'ana', ${body}, ${at})
        on conflict (workspace_id, kind, external_id, comment_id) do update
          set author = excluded.author, body = excluded.body, deleted = false, remote_updated_at = excluded.remote_updated_at
        returning body`;

describe('a kept comment', () => {
  it('refuses an update older than its remote time: the row stays as it was, the statement counts none', async () => {
    await insert('v2', T2);
    expect((await update('v1', T1)).count).toBe(0);
    expect(await upsert('v1', T1)).toHaveLength(0);
    expect(await kept()).toEqual({ body: 'v2', deleted: false, remote_updated_at: new Date(T2) });
  });

  it('takes an update of the same time or newer', async () => {
    await insert('v1', T1);
    expect((await update('v1, again', T1)).count).toBe(1);
    expect(await upsert('v2', T2)).toEqual([{ body: 'v2' }]);
    expect(await kept()).toEqual({ body: 'v2', deleted: false, remote_updated_at: new Date(T2) });
  });

  it('takes a write with no remote time, as before the rule, and keeps the time it knew', async () => {
    await insert('v2', T2);
    expect((await update('from a source with no time', null)).count).toBe(1);
    expect(await kept()).toEqual({ body: 'from a source with no time', deleted: false, remote_updated_at: new Date(T2) });
    // Nor is the time it knew forgotten by a write that names none.
    expect((await update('v2', null)).count).toBe(1);
    expect((await kept())!.remote_updated_at).toEqual(new Date(T2));
  });

  it('with no remote time (kept before the rule, or from a source with none) takes any write, and its time from then on', async () => {
    await insert('v0', null);
    expect(await upsert('v1', T1)).toHaveLength(1);
    expect(await kept()).toEqual({ body: 'v1', deleted: false, remote_updated_at: new Date(T1) });
    expect(await upsert('v0', '2026-04-01T00:00:00Z')).toHaveLength(0);
  });

  it('an update of its text alone (no time named) is taken', async () => {
    await insert('v2', T2);
    expect((await t.sql`update doco.connector_item_comments set body = 'fixed by hand' where comment_id = 'comment-1'`).count).toBe(1);
    expect((await kept())!.body).toBe('fixed by hand');
  });
});

describe('a tombstone', () => {
  it('refuses a write of its own time or older, whose text would bring the deleted comment back', async () => {
    await insert('', T2, true);
    expect((await update('v2', T2)).count).toBe(0);
    expect((await update('v1', T1)).count).toBe(0);
    expect(await upsert('v1', T1)).toHaveLength(0);
    expect(await kept()).toEqual({ body: '', deleted: true, remote_updated_at: new Date(T2) });
  });

  it('is laid at the later of the deletion time and the kept one: a deletion never moves the time back', async () => {
    await insert('v3', T3);
    expect((await update('', T1, true)).count).toBe(1);
    expect(await kept()).toEqual({ body: '', deleted: true, remote_updated_at: new Date(T3) });
    expect((await update('v2', T2)).count).toBe(0);
    // A deletion that names no time takes the kept one too.
    await update('', null, true);
    expect((await kept())!.remote_updated_at).toEqual(new Date(T3));
  });

  it('holds no text', async () => {
    await expectSqlState(insert('still here', T1, true), '23514');
    await insert('', T1, true);
    await expectSqlState(t.sql`update doco.connector_item_comments set body = 'back' where comment_id = 'comment-1'`, '23514');
  });

  it('takes a write newer than its deletion (GitHub and Slack never send one) and one with no time, as before the rule', async () => {
    await insert('', T2, true);
    expect((await update('v3', T3)).count).toBe(1);
    await update('', T3, true);
    expect((await update('from a source with no time', null)).count).toBe(1);
    expect(await kept()).toEqual({ body: 'from a source with no time', deleted: false, remote_updated_at: new Date(T3) });
  });
});
