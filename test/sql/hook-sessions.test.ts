// doco.prune_hook_sessions: idle sessions go with their sent items; each principal keeps its latest in each checkout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { insertNode, sqlWorkspace, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;
let agent = '';
let other = '';

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'hooks');
  agent = await insertNode(t.sql, ws, { type: 'principal', collection: ws.people, title: 'agent:claude-code@shop' });
  other = await insertNode(t.sql, ws, { type: 'principal', collection: ws.people, title: 'agent:codex@shop' });
});
afterAll(async () => t.drop());

const session = (id: string, cwd: string, daysAgo: number, principal = agent) => t.sql`
  insert into doco.hook_sessions (workspace_id, principal_id, session_id, agent, cwd, started_at, last_seen_at)
  values (${ws.id}, ${principal}, ${id}, 'claude-code', ${cwd}, now() - make_interval(days => ${daysAgo}), now() - make_interval(days => ${daysAgo}))`;

describe('prune_hook_sessions', () => {
  it("drops idle sessions and their sent items, keeping each principal's latest in each checkout and recent ones", async () => {
    await session('old-a', '/repo/a', 60);
    await session('older-a', '/repo/a', 90);
    await session('recent-a', '/repo/a', 2);
    await session('only-b', '/repo/b', 120);
    // Another agent's last session in the same checkout is its own latest: kept.
    await session('other-a', '/repo/a', 100, other);
    await t.sql`insert into doco.hook_sent (workspace_id, principal_id, session_id, node_id, version)
      values (${ws.id}, ${agent}, 'old-a', 'rule_x', 1), (${ws.id}, ${agent}, 'recent-a', 'rule_x', 1)`;
    const [{ pruned }] = (await t.sql`select doco.prune_hook_sessions() as pruned`) as unknown as [{ pruned: number }];
    expect(pruned).toBe(2);
    const left = await t.sql`select session_id from doco.hook_sessions where workspace_id = ${ws.id} order by session_id`;
    expect(left.map((r) => r.session_id)).toEqual(['only-b', 'other-a', 'recent-a']);
    const sent = await t.sql`select session_id from doco.hook_sent where workspace_id = ${ws.id}`;
    expect(sent.map((r) => r.session_id)).toEqual(['recent-a']);
  });
});

describe('the sessions a principal keeps', () => {
  it('are its 200 newest, their sent items going with the rest; other principals keep theirs', async () => {
    const many = await insertNode(t.sql, ws, { type: 'principal', collection: ws.people, title: 'agent:gemini@flood' });
    await session('theirs', '/repo/z', 400, other);
    // A read token's session starts, each in a checkout of its own, oldest first.
    const sent = (id: string) => t.sql`
      insert into doco.hook_sent (workspace_id, principal_id, session_id, node_id, version) values (${ws.id}, ${many}, ${id}, 'rule_x', 1)`;
    for (let i = 0; i < 205; i++) {
      await session(`s${i}`, `/made-up/${i}`, 300 - i, many);
      if (i === 0 || i === 204) await sent(`s${i}`);
    }
    const kept = await t.sql<{ session_id: string }[]>`
      select session_id from doco.hook_sessions where workspace_id = ${ws.id} and principal_id = ${many} order by last_seen_at`;
    expect(kept).toHaveLength(200);
    expect(kept[0]!.session_id).toBe('s5');
    const left = await t.sql`select session_id from doco.hook_sent where workspace_id = ${ws.id} and principal_id = ${many}`;
    expect(left.map((r) => r.session_id)).toEqual(['s204']);
    expect(await t.sql`select 1 from doco.hook_sessions where session_id = 'theirs'`).toHaveLength(1);
  });
});
