// doco.prune_hook_sessions: idle sessions go with their sent items; each checkout keeps its latest.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { sqlWorkspace, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'hooks');
});
afterAll(async () => t.drop());

const session = (id: string, cwd: string, daysAgo: number) => t.sql`
  insert into doco.hook_sessions (workspace_id, session_id, agent, cwd, started_at, last_seen_at)
  values (${ws.id}, ${id}, 'claude-code', ${cwd}, now() - make_interval(days => ${daysAgo}), now() - make_interval(days => ${daysAgo}))`;

describe('prune_hook_sessions', () => {
  it("drops idle sessions and their sent items, keeping each checkout's latest and recent ones", async () => {
    await session('old-a', '/repo/a', 60);
    await session('older-a', '/repo/a', 90);
    await session('recent-a', '/repo/a', 2);
    await session('only-b', '/repo/b', 120);
    await t.sql`insert into doco.hook_sent (workspace_id, session_id, node_id, version) values (${ws.id}, 'old-a', 'rule_x', 1), (${ws.id}, 'recent-a', 'rule_x', 1)`;
    const [{ pruned }] = (await t.sql`select doco.prune_hook_sessions() as pruned`) as unknown as [{ pruned: number }];
    expect(pruned).toBe(2);
    const left = await t.sql`select session_id from doco.hook_sessions where workspace_id = ${ws.id} order by session_id`;
    expect(left.map((r) => r.session_id)).toEqual(['only-b', 'recent-a']);
    const sent = await t.sql`select session_id from doco.hook_sent where workspace_id = ${ws.id}`;
    expect(sent.map((r) => r.session_id)).toEqual(['recent-a']);
  });
});
