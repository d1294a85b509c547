// The workspace a CLI command names (src/cli/context.ts): the default one is made on a fresh
// home's first read or write; any other must exist, but for the commands that set one up
// (cliWriteContext's makeWorkspace: token create, collection create, ingest-docs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliReadContext, cliWriteContext } from '../../src/cli/context.js';
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

describe('cliWriteContext', () => {
  it('refuses a workspace that is not there, as a read does, and makes nothing', async () => {
    await expect(cliWriteContext(t, 'defualt', 'cli:ana')).rejects.toThrow(/no workspace "defualt" here \(the workspaces: default\)/);
    expect(await slugs()).toEqual(['default']);
  });

  it('makes it for a command that sets one up, and then finds it', async () => {
    const made = await cliWriteContext(t, 'billing', 'cli:ana', { makeWorkspace: true });
    expect(await slugs()).toEqual(['billing', 'default']);
    expect((await cliWriteContext(t, 'billing', 'cli:ana')).workspaceId).toBe(made.workspaceId);
  });
});
