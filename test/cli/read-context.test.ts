// The workspace a CLI read names (src/cli/context.ts cliReadContext): the default one is made on a
// fresh home's first read, as its first write would make it; any other must exist.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliReadContext } from '../../src/cli/context.js';
import { UsageError } from '../../src/cli/output.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t.drop());

const slugs = async () => (await t.sql<{ slug: string }[]>`select slug from doco.workspaces order by slug`).map((r) => r.slug);

describe('cliReadContext', () => {
  it("makes the default workspace on a fresh database's first read: an empty brief, not an error", async () => {
    expect(await slugs()).toEqual([]);
    const ctx = await cliReadContext(t, 'default');
    expect(ctx.workspaceId).toMatch(/^ws_/);
    expect(await slugs()).toEqual(['default']);
    expect((await cliReadContext(t, 'default')).workspaceId).toBe(ctx.workspaceId);
  });

  it('refuses any other workspace that is not there, naming those that are, and makes nothing', async () => {
    await expect(cliReadContext(t, 'defualt')).rejects.toThrow(UsageError);
    await expect(cliReadContext(t, 'defualt')).rejects.toThrow(/no workspace "defualt" here \(the workspaces: default\)/);
    expect(await slugs()).toEqual(['default']);
  });
});
