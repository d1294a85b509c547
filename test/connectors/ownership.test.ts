// One owner per deployment credential, through POST /api/v1/connectors (docs/connectors.md,
// "Who owns a connector"). The Notion integration, the Drive account and a Slack team are the
// deployment's: the workspace that adds a connector on one holds it, and another workspace's
// attempt is 403 with a message that names neither the holder nor its connector and reads the same
// however the holder holds it. Before, the second workspace got 409 "a notion connector for
// integration already exists" (and a Drive connector with other folders, or a Slack channel of a
// team another workspace copies whole, was simply added).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { Gate, installGate } from '../helpers/race.js';

let t: TestDb;
let a: TestWorkspace;
let b: TestWorkspace;
let api: ReturnType<typeof makeApp>;

beforeAll(async () => {
  t = await createTestDb();
  a = await makeWorkspace(t, 'own-a');
  b = await makeWorkspace(t, 'own-b');
  api = makeApp(t);
});
beforeEach(async () => {
  await t.sql`delete from doco.connectors`;
});
afterAll(async () => t.drop());

const add = (ws: TestWorkspace, body: Record<string, unknown>) => api.call('POST', '/api/v1/connectors', ws.writeToken, body);
const rows = () => t.sql<{ workspace: string; kind: string; target: string }[]>`
  select w.slug as workspace, c.kind, c.target from doco.connectors c join doco.workspaces w on w.id = c.workspace_id order by c.created_at, c.id`;

/** Another workspace's attempt on a credential held: 403, naming only the credential. */
const refusalOf = (credential: string) => ({
  status: 403,
  body: {
    error: {
      code: 'forbidden',
      message: `this deployment's ${credential} is not available to this workspace: whoever runs this Doco deployment decides which workspace it serves`,
    },
  },
});
const NOTION_REFUSAL = refusalOf('Notion integration');

describe('the Notion integration', () => {
  it("is the adding workspace's; another workspace is refused without learning who holds it", async () => {
    const added = await add(a, { kind: 'notion' });
    expect(added.status).toBe(201);
    const refused = await add(b, { kind: 'notion', collection: 'wiki' });
    expect(refused).toMatchObject(NOTION_REFUSAL);
    const text = JSON.stringify(refused.body);
    for (const leak of [a.slug, a.id, added.body.connector.id, 'already exists']) expect(text).not.toContain(leak);
    expect(refused.body.error.details ?? {}).toEqual({});
    // The same words however the holder holds it (paused, or re-added).
    await t.sql`update doco.connectors set status = 'paused'`;
    expect(await add(b, { kind: 'notion' })).toEqual(refused);
    expect(await rows()).toEqual([{ workspace: 'own-a', kind: 'notion', target: '' }]);
    // The holder's own second one is still its own conflict.
    expect((await add(a, { kind: 'notion' })).status).toBe(409);
  });

  it('is free again once its holder removes its connector', async () => {
    const added = await add(a, { kind: 'notion' });
    expect((await api.call('DELETE', `/api/v1/connectors/${added.body.connector.id}`, a.writeToken)).status).toBe(200);
    expect((await add(b, { kind: 'notion' })).status).toBe(201);
    expect(await add(a, { kind: 'notion' })).toMatchObject(NOTION_REFUSAL);
  });

  it('two workspaces adding it at once: exactly one wins', async () => {
    await installGate(t.sql, 'doco.connectors');
    const gate = await Gate.close(t.sql);
    const calls = [a, b, a, b, a, b].map((ws) => add(ws, { kind: 'notion' }));
    await gate.waitForWaiters(() => calls.length);
    await gate.open();
    const results = await Promise.all(calls);
    await t.sql`drop trigger _000_test_gate on doco.connectors`;
    const won = results.filter((r) => r.status === 201);
    expect(won).toHaveLength(1);
    const winner = won[0]!.body.connector.workspace;
    for (const r of results.filter((r) => r.status !== 201)) {
      // The winner's own others are conflicts; the other workspace's are the one refusal.
      if (r.status === 409) expect(r.body.error.code).toBe('conflict');
      else expect(r).toMatchObject(NOTION_REFUSAL);
    }
    const loser = winner === 'own-a' ? b : a;
    expect(await add(loser, { kind: 'notion' })).toMatchObject(NOTION_REFUSAL);
    expect((await rows()).map((r) => r.workspace)).toEqual([winner]);
  });
});

describe('the Drive account', () => {
  it("is the adding workspace's whatever folders another asks for", async () => {
    expect((await add(a, { kind: 'drive', folders: ['folderA0001'] })).status).toBe(201);
    expect((await add(a, { kind: 'drive', folders: ['folderB0002'] })).status).toBe(201);
    for (const body of [{ kind: 'drive' }, { kind: 'drive', folders: ['folderC0003'] }, { kind: 'drive', folders: ['folderA0001'] }]) {
      expect(await add(b, body)).toMatchObject(refusalOf('Google Drive account'));
    }
    expect((await rows()).map((r) => r.workspace)).toEqual(['own-a', 'own-a']);
  });
});

describe('a Slack team', () => {
  it("is the adding workspace's, team-wide or one channel at a time", async () => {
    expect((await add(a, { kind: 'slack', team_id: 'T0ACME' })).status).toBe(201);
    expect((await add(a, { kind: 'slack', team_id: 'T0ACME', channel: 'C0BILLING' })).status).toBe(201);
    const teamWide = await add(b, { kind: 'slack', team_id: 'T0ACME' });
    // A channel of its own would take that channel's events from the team-wide connector.
    const oneChannel = await add(b, { kind: 'slack', team_id: 'T0ACME', channel: 'C0PAYOUTS' });
    const taken = await add(b, { kind: 'slack', team_id: 'T0ACME', channel: 'C0BILLING' });
    const refusal = refusalOf('Slack team T0ACME');
    for (const r of [teamWide, oneChannel, taken]) expect(r).toMatchObject(refusal);
    expect(oneChannel).toEqual(taken);
    // Another team is another workspace's to take.
    expect((await add(b, { kind: 'slack', team_id: 'T0OTHER' })).status).toBe(201);
    expect((await rows()).map((r) => `${r.workspace} ${r.kind} ${r.target}`)).toEqual([
      'own-a slack ',
      'own-a slack C0BILLING',
      'own-b slack ',
    ]);
  });
});

describe('a GitHub App installation', () => {
  it("is the first adding workspace's: another workspace cannot read its repositories, nor learn which it holds", async () => {
    // The App's key makes a token for any installation id: unclaimed, workspace b read a's private repositories.
    expect((await add(a, { kind: 'github', installation_id: 7, repo: 'octo/a' })).status).toBe(201);
    expect((await add(a, { kind: 'github', installation_id: 7, repo: 'octo/a-too' })).status).toBe(201);
    const refusal = refusalOf('GitHub App installation 7');
    // A repository the holder has and one it has not read alike: no "already exists".
    expect(await add(b, { kind: 'github', installation_id: 7, repo: 'octo/a' })).toMatchObject(refusal);
    expect(await add(b, { kind: 'github', installation_id: 7, repo: 'octo/secret' })).toMatchObject(refusal);
    // Another installation is another workspace's to take.
    expect((await add(b, { kind: 'github', installation_id: 8, repo: 'other/app' })).status).toBe(201);
    expect((await rows()).filter((r) => r.kind === 'github').map((r) => `${r.workspace} ${r.target}`)).toEqual([
      'own-a octo/a',
      'own-a octo/a-too',
      'own-b other/app',
    ]);
  });
});
