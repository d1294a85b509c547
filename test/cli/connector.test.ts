// `doco connector add|list|remove` through the built binary on a test database: the contract
// names (add github --installation-id N --repo OWNER/NAME --workspace SLUG, add slack --team-id T
// [--channel C]… --workspace SLUG), the first sweep
// queued with the add, status in list --json, bad input refused with exit 2 and nothing stored.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_ONLY, runDoco } from '../helpers/cli.js';
import { ensureWorkspace } from '../../src/auth/workspaces.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  t = await createTestDb();
  // A connector fills a workspace that exists (connector add never makes one).
  for (const slug of ['team-a', 'team-b']) await ensureWorkspace(t.sql, slug);
  home = await mkdtemp(path.join(os.tmpdir(), 'doco-cli-connector-'));
  env = {
    DATABASE_URL: t.url,
    DOCO_HOME: home,
    ...LOCAL_ONLY,
    DOCO_WORKSPACE: 'default',
    DOCO_LOG_LEVEL: 'warn',
    GITHUB_WEBHOOK_SECRET: 'cli-test-secret-value',
  };
});
afterAll(async () => {
  await t.drop();
  await rm(home, { recursive: true, force: true });
});

const doco = (args: string[]) => runDoco(['connector', ...args], { env, timeoutMs: 60_000 });

describe('doco connector (built)', () => {
  it('add github makes the connector in the named workspace and queues its first sweep', async () => {
    const res = await doco(['add', 'github', '--installation-id', '42', '--repo', 'Octo-Org/Billing', '--workspace', 'team-a', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out).toMatchObject({
      kind: 'github',
      workspace: 'team-a',
      routing_key: '42',
      target: 'octo-org/billing',
      last_sync_at: null,
      state: {},
    });
    const jobs = await t.sql<
      { task: string; payload: { connectorId: string } }[]
    >`select k.identifier as task, j.payload from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id`;
    expect(jobs).toEqual([{ task: 'connectors__sweep', payload: { connectorId: out.id } }]);
  });

  it('refuses bad input with exit 2 and stores nothing', async () => {
    for (const args of [
      ['add', 'github', '--installation-id', 'x', '--repo', 'a/b'],
      ['add', 'github', '--installation-id', '7', '--repo', 'no-slash'],
      ['add', 'github', '--repo', 'a/b'],
      ['add', 'gitlab', '--installation-id', '7', '--repo', 'a/b'],
    ]) {
      const res = await doco(args);
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(2);
    }
    expect((await t.sql`select id from doco.connectors`).length).toBe(1);
    const dup = await doco(['add', 'github', '--installation-id', '42', '--repo', 'octo-org/billing', '--workspace', 'team-a']);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain('"conflict"');
  });

  it('list shows status (never a secret); remove drops it', async () => {
    const listed = await doco(['list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const { connectors } = JSON.parse(listed.stdout);
    expect(connectors).toHaveLength(1);
    expect(listed.stdout).not.toContain('cli-test-secret-value');
    const text = await doco(['list']);
    expect(text.stdout).toMatch(/github {2}42 octo-org\/billing {2}workspace=team-a {2}active\n {2}last sync: never/);
    const nobody = await doco(['list', '--workspace', 'nobody', '--json']);
    expect(nobody.code, nobody.stderr).toBe(2);
    expect(nobody.stdout).toBe('');
    expect(nobody.stderr).toMatch(/^doco: no workspace "nobody" here \(the workspaces: team-a, team-b\)\. [^\n]*\n$/);
    const removed = await doco(['remove', connectors[0].id]);
    expect(removed.code, removed.stderr).toBe(0);
    expect((await doco(['remove', connectors[0].id])).code).toBe(1);
    expect((await t.sql`select id from doco.connectors`).length).toBe(0);
  });
  it('add slack makes one connector per --channel (or one for every channel), all or none', async () => {
    const res = await doco([
      'add',
      'slack',
      '--team-id',
      'T0ACME',
      '--channel',
      'C0BILLING',
      '--channel',
      'C0REFUNDS',
      '--workspace',
      'team-a',
      '--json',
    ]);
    expect(res.code, res.stderr).toBe(0);
    const { connectors } = JSON.parse(res.stdout);
    expect(
      connectors.map(
        (c: { kind: string; routing_key: string; target: string; workspace: string }) =>
          `${c.kind} ${c.routing_key} ${c.target} ${c.workspace}`,
      ),
    ).toEqual(['slack T0ACME C0BILLING team-a', 'slack T0ACME C0REFUNDS team-a']);
    // The team is team-a's now: another workspace is refused without learning whose it is.
    const elsewhere = await doco(['add', 'slack', '--team-id', 'T0ACME', '--channel', 'C0OTHER', '--workspace', 'team-b']);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('"forbidden"');
    expect(elsewhere.stderr).toContain("this deployment's Slack team T0ACME is not available to this workspace");
    expect(elsewhere.stderr).not.toContain('team-a');
    const all = await doco(['add', 'slack', '--team-id', 'T0ACME', '--workspace', 'team-a', '--json']);
    expect(all.code, all.stderr).toBe(0);
    expect(JSON.parse(all.stdout)).toMatchObject({ kind: 'slack', routing_key: 'T0ACME', target: '', config: { all_channels: true } });
    for (const args of [
      ['add', 'slack', '--channel', 'C0X'],
      ['add', 'slack', '--team-id', 'acme'],
      ['add', 'slack', '--team-id', 'T0ACME', '--channel', '#general'],
      ['add', 'slack', '--team-id', 'T0ACME', '--repo', 'a/b'],
    ]) {
      const bad = await doco(args);
      expect(bad.code, `${args.join(' ')}: ${bad.stderr}`).toBe(2);
    }
    // One channel already there: the new one is not added either.
    const dup = await doco([
      'add',
      'slack',
      '--team-id',
      'T0ACME',
      '--channel',
      'C0NEW',
      '--channel',
      'C0BILLING',
      '--workspace',
      'team-a',
    ]);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain('"conflict"');
    const slack = await t.sql<{ target: string }[]>`select target from doco.connectors where kind = 'slack' order by target`;
    expect(slack.map((r) => r.target)).toEqual(['', 'C0BILLING', 'C0REFUNDS']);
  }, 180_000);
});
