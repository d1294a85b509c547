// Two hooks of one session recording what they sent at the same time (parallel tool calls and
// subagents share a session). Found while load-testing the hooks: upserts of the same items in
// different orders deadlocked, and one hook answered 409 instead of its brief. The interleaving
// is forced on two connections, so the test fails whenever the order is not fixed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../../src/db/connect.js';
import { markSent, sentVersions, touchSession, type SessionKey } from '../../src/hooks/memory.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { Session, started } from '../helpers/race.js';

let t: TestDb;
let ws: TestWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'acme');
});
afterAll(async () => {
  await t.drop();
});

describe('session memory under concurrent hooks', () => {
  it('records overlapping items sent in opposite orders by two hooks of one session, neither aborted', async () => {
    const key: SessionKey = { workspaceId: ws.id, principalId: ws.principalId, sessionId: 'parallel-tools' };
    await touchSession(t.sql, key, 'claude-code', { cwd: '/tmp/checkout', checkout: '/tmp/checkout' });
    const other = await Session.open(t.sql); // the other hook, mid-upsert
    const hook = await Session.open(t.sql);
    try {
      for (let round = 0; round < 5; round++) {
        const [low, high] = [`decision_${round}A`, `decision_${round}B`];
        const upsertOne = (id: string) => other.conn`
          insert into doco.hook_sent (workspace_id, principal_id, session_id, node_id, version) values (${ws.id}, ${key.principalId}, ${key.sessionId}, ${id}, 1)
          on conflict (workspace_id, principal_id, session_id, node_id) do update set version = excluded.version`;
        await other.conn`begin`;
        await upsertOne(low);
        // The hook's brief lists the two the other way round. In key order it waits for `low`
        // holding nothing; in list order it would hold `high` while waiting.
        const recorded = started(
          markSent(hook.conn as unknown as Sql, key, [
            { id: high, version: 2 },
            { id: low, version: 2 },
          ]).then(() => []),
        );
        expect(await hook.blockedOrDone(recorded)).toBe('blocked');
        const otherSecond = await started(upsertOne(high)); // with list order: a lock cycle, one side aborted (40P01)
        await other.conn`commit`;
        expect(otherSecond).toEqual({ ok: true, rows: [] });
        expect(await recorded).toEqual({ ok: true, rows: [] });
        const sent = await sentVersions(t.sql, key);
        expect([sent.get(low), sent.get(high)]).toEqual([2, 2]);
      }
    } finally {
      await other.end();
      await hook.end();
    }
  });
});
