// `doco connector add notion|drive` through the built binary on a test database: the contract
// names (add notion [--workspace SLUG], add drive [--workspace SLUG] [--folder ID]…), the first
// tick queued with the add, flags of another kind refused with exit 2 and nothing stored, and
// `list` showing Notion's verification token (for the operator to paste) and Drive's skipped files.
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
  for (const slug of ['team-n', 'team-d']) await ensureWorkspace(t.sql, slug);
  home = await mkdtemp(path.join(os.tmpdir(), 'doco-cli-docs-connector-'));
  env = {
    DATABASE_URL: t.url,
    DOCO_HOME: home,
    ...LOCAL_ONLY,
    DOCO_WORKSPACE: 'default',
    DOCO_LOG_LEVEL: 'warn',
    NOTION_TOKEN: 'ntn_cli_test_token_value',
  };
});
afterAll(async () => {
  await t.drop();
  await rm(home, { recursive: true, force: true });
});

const doco = (args: string[]) => runDoco(['connector', ...args], { env, timeoutMs: 60_000 });
const jobs = () =>
  t.sql<
    { payload: { connectorId: string } }[]
  >`select j.payload from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id where k.identifier = 'connectors__sweep' order by j.id`;

describe('doco connector add notion|drive (built)', () => {
  it('refuses flags of another kind and bad folder ids with exit 2, storing nothing', async () => {
    for (const args of [
      ['add', 'notion', '--repo', 'a/b'],
      ['add', 'notion', '--folder', 'abcdef'],
      ['add', 'drive', '--installation-id', '7'],
      ['add', 'drive', '--folder', 'not a folder!'],
      ['add', 'drive', 'extra'],
    ]) {
      const res = await doco(args);
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(2);
    }
    expect(await t.sql`select id from doco.connectors`).toHaveLength(0);
  });

  it('add notion makes the connector in the named workspace and queues its first tick', async () => {
    const res = await doco(['add', 'notion', '--workspace', 'team-n', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out).toMatchObject({ kind: 'notion', workspace: 'team-n', target: '', config: { collection: 'notion' }, last_sync_at: null });
    expect((await jobs()).map((j) => j.payload.connectorId)).toEqual([out.id]);
    // One integration per deployment, held by team-n: the default workspace is refused without learning by whom.
    const elsewhere = await doco(['add', 'notion']);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain("this deployment's Notion integration is not available to this workspace");
    expect(elsewhere.stderr).not.toContain('team-n');
  });

  it('add drive takes --folder more than once', async () => {
    const res = await doco(['add', 'drive', '--folder', 'folderB0002', '--folder', 'folderA0001', '--workspace', 'team-d', '--json']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({
      kind: 'drive',
      workspace: 'team-d',
      target: 'folderA0001,folderB0002',
      config: { folders: ['folderA0001', 'folderB0002'], collection: 'drive' },
    });
  });

  it("list shows the Notion verification token once the handshake kept it, and Drive's skipped files; never the integration token", async () => {
    const before = await doco(['list']);
    expect(before.stdout).toMatch(/webhook: no verification token yet; Notion's handshake is awaited until \d{4}-\d\d-\d\dT/);
    const [notion] = await t.sql<{ id: string }[]>`select id from doco.connectors where kind = 'notion'`;
    const [drive] = await t.sql<{ id: string }[]>`select id from doco.connectors where kind = 'drive'`;
    await t.sql`insert into doco.connector_state (connector_id, key, value) values (${notion!.id}, 'webhook_verification_token', ${t.sql.json({ token: 'secret_handshake_value', received_at: '2026-05-01T10:00:00Z' })})`;
    await t.sql`insert into doco.connector_state (connector_id, key, value) values (${drive!.id}, 'skipped', ${t.sql.json({ f1: { name: 'Pricing', mime_type: 'application/vnd.google-apps.spreadsheet' } })}), (${drive!.id}, 'page_token', '"42"')`;
    const after = await doco(['list']);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toContain('webhook verification token (paste it into Notion to verify the subscription): secret_handshake_value');
    expect(after.stdout).toContain(
      'skipped 1 file(s), neither Google Docs nor .md/.txt: Pricing (application/vnd.google-apps.spreadsheet)',
    );
    expect(after.stdout).toContain('cursor: page_token=42');
    expect(after.stdout + after.stderr).not.toContain('ntn_cli_test_token_value');
  });

  it('rearm drops the token kept and opens another hour for the handshake; list says when a window closed', async () => {
    const [notion] = await t.sql<{ id: string }[]>`select id from doco.connectors where kind = 'notion'`;
    const rearmed = await doco(['rearm', notion!.id]);
    expect(rearmed.code, rearmed.stderr).toBe(0);
    expect(rearmed.stdout).toMatch(/^re-armed connector_\w+ {2}notion/);
    expect(rearmed.stdout).toContain("Notion's handshake is awaited until");
    expect(rearmed.stdout).not.toContain('secret_handshake_value');
    expect(
      await t.sql`select 1 from doco.connector_state where connector_id = ${notion!.id} and key = 'webhook_verification_token'`,
    ).toHaveLength(0);
    await t.sql`update doco.connector_state set value = to_jsonb(now() - interval '2 hours') where connector_id = ${notion!.id} and key = 'webhook_armed_at'`;
    const closed = await doco(['list']);
    expect(closed.stdout).toContain('the handshake window closed at');
    expect(closed.stdout).toContain(`doco connector rearm ${notion!.id}, then have Notion send the token again`);
    const [drive] = await t.sql<{ id: string }[]>`select id from doco.connectors where kind = 'drive'`;
    const wrongKind = await doco(['rearm', drive!.id]);
    expect(wrongKind.code).toBe(2);
    expect(wrongKind.stderr).toContain('a drive connector has no webhook handshake to re-arm');
    expect((await doco(['rearm', 'connector_01K8Z3QH0000000000000000AA'])).code).toBe(1);
    expect((await doco(['rearm'])).code).toBe(2);
  });
});
