import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { findProjectRoot } from '../../src/lib/project-root.js';
import { catalogSnapshot } from '../helpers/catalog.js';
import { createEmptyDb, createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
let scratch: string;
/** The migrated template's catalog, taken before any test here changes the schema. */
let migratedCatalog: Awaited<ReturnType<typeof catalogSnapshot>>;

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
  migratedCatalog = await catalogSnapshot(t.sql);
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

  it('migrates a fresh database from several connections at once, doing the work once', async () => {
    const fresh = await createEmptyDb();
    // One pool each: four sessions racing for the advisory lock, as four `doco serve` starts would.
    const pools = Array.from({ length: 4 }, () => connect(fresh.url, { max: 1 }));
    try {
      const migrations = (await readdir(path.join(findProjectRoot(), 'migrations'))).filter((n) => n.endsWith('.sql')).sort();
      const reports = await Promise.all(pools.map((p) => migrate(p.sql, { connectionString: fresh.url })));
      const workers = reports.filter((r) => r.applied.length > 0);
      expect(workers).toEqual([{ applied: migrations, sqlReapplied: true }]);
      expect(reports.filter((r) => r.applied.length === 0)).toEqual([0, 1, 2].map(() => ({ applied: [], sqlReapplied: false })));
      const [sql] = pools.map((p) => p.sql);
      expect((await sql!`select name from doco.migrations order by name`).map((r) => r.name)).toEqual(migrations);
      expect(await catalogSnapshot(sql!)).toEqual(migratedCatalog);
      // graphile-worker's own schema came along, as in the template.
      const jobsSchema = async (s: typeof sql) => (await s!`select count(*)::int as n from graphile_worker.migrations`)[0]!.n as number;
      expect(await jobsSchema(sql)).toBe(await jobsSchema(t.sql));
      expect(await jobsSchema(sql)).toBeGreaterThan(0);
    } finally {
      await Promise.all(pools.map((p) => p.close()));
      await fresh.drop();
    }
  });

  it('re-applying sql/ leaves every function, trigger, view, index and comment as it was', async () => {
    const before = await catalogSnapshot(t.sql);
    await t.sql`delete from doco.sql_files`; // forgets what was applied, so all of sql/ runs again
    expect(await migrate(t.sql)).toEqual({ applied: [], sqlReapplied: true });
    expect(await catalogSnapshot(t.sql)).toEqual(before);
    expect(before.functions.length).toBeGreaterThan(10);
    expect(before.triggers.length).toBeGreaterThan(5);
  });

  it('the catalog snapshot sees what a re-apply changed (so the test above can fail)', async () => {
    const root = await copyOfSqlRoot();
    const views = path.join(root, 'sql', 'admin_views.sql');
    // Not idempotent on purpose: each run leaves a different comment behind.
    await writeFile(
      views,
      `${await readFile(views, 'utf8')}\ndo $$ begin execute format('comment on table doco.sql_files is %L', clock_timestamp()::text); end $$;\n`,
    );
    expect(await migrate(t.sql, { root })).toEqual({ applied: [], sqlReapplied: true });
    const first = await catalogSnapshot(t.sql);
    await t.sql`delete from doco.sql_files`;
    expect(await migrate(t.sql, { root })).toEqual({ applied: [], sqlReapplied: true });
    const second = await catalogSnapshot(t.sql);
    expect(second.comments).not.toEqual(first.comments);
    expect({ ...second, comments: [] }).toEqual({ ...first, comments: [] });
    // Back to the project's own sql/ for the tests that follow.
    expect((await migrate(t.sql)).sqlReapplied).toBe(true);
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
