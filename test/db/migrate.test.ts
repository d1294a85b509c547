import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findProjectRoot, migrate } from '../../src/db/migrate.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
let scratch: string;

/** A copy of migrations/ and sql/ that a test may change without touching the project's. */
async function copyOfSqlRoot(): Promise<string> {
  const root = await mkdtemp(path.join(scratch, 'root-'));
  await cp(path.join(findProjectRoot(), 'migrations'), path.join(root, 'migrations'), { recursive: true });
  await cp(path.join(findProjectRoot(), 'sql'), path.join(root, 'sql'), { recursive: true });
  return root;
}

beforeAll(async () => {
  t = await createTestDb();
  scratch = await mkdtemp(path.join(os.tmpdir(), 'doco-migrate-'));
});
afterAll(async () => {
  await t.drop();
  await rm(scratch, { recursive: true, force: true });
});

describe('migrate', () => {
  it('changes nothing when run again', async () => {
    const before = await t.sql`select name, checksum, applied_at from doco.migrations order by name`;
    const sqlBefore = await t.sql`select name, checksum, applied_at from doco.sql_files order by name`;
    const report = await migrate(t.sql, { connectionString: t.url });
    expect(report).toEqual({ applied: [], sqlReapplied: false });
    expect(await t.sql`select name, checksum, applied_at from doco.migrations order by name`).toEqual(before);
    expect(await t.sql`select name, checksum, applied_at from doco.sql_files order by name`).toEqual(sqlBefore);
  });

  it('runs concurrently without doing the work twice', async () => {
    const reports = await Promise.all([migrate(t.sql), migrate(t.sql), migrate(t.sql)]);
    expect(reports.every((r) => r.applied.length === 0 && !r.sqlReapplied)).toBe(true);
  });

  it('re-applies sql/ when a file changed, and applies a new migration once', async () => {
    const root = await copyOfSqlRoot();
    const views = path.join(root, 'sql', 'admin_views.sql');
    await writeFile(views, `${await readFile(views, 'utf8')}\ncreate or replace view doco.test_marker as select 1 as one;\n`);
    await writeFile(path.join(root, 'migrations', '9999_test_marker.sql'), 'create table doco.test_marker_table (id int);\n');
    expect(await migrate(t.sql, { root })).toEqual({ applied: ['9999_test_marker.sql'], sqlReapplied: true });
    expect(await t.sql`select one from doco.test_marker`).toEqual([{ one: 1 }]);
    expect(await migrate(t.sql, { root })).toEqual({ applied: [], sqlReapplied: false });
  });

  it('refuses a migration that changed after it was applied', async () => {
    const root = await copyOfSqlRoot();
    const first = path.join(root, 'migrations', '0001_core.sql');
    await writeFile(first, `${await readFile(first, 'utf8')}\n-- edited\n`);
    await expect(migrate(t.sql, { root })).rejects.toThrow(/0001_core\.sql changed after it was applied/);
  });

  it('refuses an sql/ file missing from sql/index.txt', async () => {
    const root = await copyOfSqlRoot();
    await writeFile(path.join(root, 'sql', 'stray.sql'), 'select 1;');
    await expect(migrate(t.sql, { root })).rejects.toThrow(/does not list stray\.sql/);
  });
});
