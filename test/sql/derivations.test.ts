// Derivations kept current across upgrades (sql/derivations.sql): when the functions that derive
// the touches index change, every record's own touches are re-derived by the new ones, in
// steps that never make a write wait long. The upgrade is simulated the way it happens: the
// derivation functions are replaced (as a newer sql/ would), then sql/ is "applied" again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catchUpDerivations } from '../../src/jobs/derivation-tasks.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { insertNode, one, sqlWorkspace, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'derive');
});
afterAll(async () => t.drop());

interface Derivation {
  fingerprint: string;
  pending: string | null;
  after_id: string | null;
}
const derivation = async () =>
  one(await t.sql<Derivation[]>`select fingerprint, pending, after_id from doco.derivations where name = 'touches'`);
const current = async () => one(await t.sql<{ f: string }[]>`select doco.derivation_fingerprint('touches') as f`).f;
const noteDerivations = async () => one(await t.sql<{ n: number }[]>`select doco.note_derivations() as n`).n;
const step = async (limit: number) => one(await t.sql<{ n: number }[]>`select doco.rederive_step('touches', ${limit}) as n`).n;
const touchesOf = async (id: string) =>
  (
    await t.sql<{ kind: string; value: string; inherited_from: string | null }[]>`
    select kind, value, inherited_from from doco.touches where node_id = ${id} order by kind, value`
  ).map((r) => `${r.kind} ${r.value}${r.inherited_from ? ' (inherited)' : ''}`);

/** The shipped declared_touch_paths, to put back after a test replaced it. */
let shippedDeclared = '';
/**
 * A newer declared_touch_paths: it also takes the paths listed under body.files. The ones the
 * tests list have no extension and two segments, so the prose rules never take them for paths.
 */
const NEWER_DECLARED = `
  create or replace function doco.declared_touch_paths(p_body jsonb)
  returns table (kind text, value text) language sql immutable as $f$
    select distinct 'path', e #>> '{}'
      from jsonb_array_elements(coalesce(p_body->'touch_paths', '[]') || coalesce(p_body->'files', '[]')) as e
     where jsonb_typeof(e) = 'string'
  $f$`;

describe('derivation fingerprints', () => {
  it('a migrated database holds the current fingerprint of the touch functions, nothing pending', async () => {
    expect(await derivation()).toEqual({ fingerprint: await current(), pending: null, after_id: '' });
    expect(await noteDerivations()).toBe(0);
    expect(await step(10)).toBe(0);
  });

  it('changes when a function that derives touches changes, and not otherwise', async () => {
    shippedDeclared = one(
      await t.sql<{ def: string }[]>`select pg_get_functiondef('doco.declared_touch_paths(jsonb)'::regprocedure) as def`,
    ).def;
    const before = await current();
    await t.sql.unsafe(shippedDeclared); // the same source again: the same fingerprint
    expect(await current()).toBe(before);
    await t.sql.unsafe(NEWER_DECLARED);
    expect(await current()).not.toBe(before);
    await t.sql.unsafe(shippedDeclared);
    expect(await current()).toBe(before);
  });

  it('a database whose records predate the fingerprints gets one catch-up (their touches may come from any older extractor)', async () => {
    await insertNode(t.sql, ws, { title: 'From before', prose: 'Names cmd/before.go.' });
    await t.sql`delete from doco.derivations`; // as after migration 0023 on an older database
    expect(await noteDerivations()).toBe(1);
    expect(await derivation()).toEqual({ fingerprint: 'unknown', pending: await current(), after_id: '' });
    await catchUpDerivations(t.sql);
    expect(await derivation()).toEqual({ fingerprint: await current(), pending: null, after_id: '' });
  });

  it('rejects a derivation it does not know', async () => {
    await expect(t.sql`select doco.rederive_step('nope', 10)`).rejects.toMatchObject({ code: '22023' });
  });
});

describe('a catch-up after the touch functions changed', () => {
  it('re-derives every record by the new functions, keeps inherited touches, then takes the new fingerprint', async () => {
    const listed = await insertNode(t.sql, ws, { title: 'Listed files', prose: 'See app/x.ts.', body: { files: ['bin/listed'] } });
    const plain = await insertNode(t.sql, ws, { title: 'Plain', prose: 'Lives in lib/y.go.' });
    const stale = await insertNode(t.sql, ws, { title: 'Stale', prose: 'Names pkg/z.go only.' });
    // What an older extractor left: a touch the text never named, and a missing one.
    await t.sql`delete from doco.touches where node_id = ${stale}`;
    await t.sql`insert into doco.touches (node_id, workspace_id, kind, value) values (${stale}, ${ws.id}, 'path', 'old/extractor.go')`;
    await t.sql`insert into doco.touches (node_id, workspace_id, kind, value, inherited_from) values (${plain}, ${ws.id}, 'path', 'from/replaced.go', ${listed})`;
    const others = (await t.sql`select id from doco.nodes`).length;

    await t.sql.unsafe(NEWER_DECLARED);
    const newer = await current();
    expect(await noteDerivations()).toBe(1);
    expect(await derivation()).toMatchObject({ pending: newer, after_id: '' });
    // Nothing is re-derived until the catch-up runs: the new path is not there yet.
    expect(await touchesOf(listed)).toEqual(['path app/x.ts']);

    let steps = 0;
    let records = 0;
    for (let n = await step(2); n > 0; n = await step(2)) {
      records += n;
      steps++;
    }
    expect(records).toBe(others);
    expect(steps).toBe(Math.ceil(others / 2));
    expect(await touchesOf(listed)).toEqual(['path app/x.ts', 'path bin/listed']);
    expect(await touchesOf(plain)).toEqual(['path from/replaced.go (inherited)', 'path lib/y.go']);
    expect(await touchesOf(stale)).toEqual(['path pkg/z.go']);
    expect(await derivation()).toEqual({ fingerprint: newer, pending: null, after_id: '' });
    expect(await step(2)).toBe(0);

    // Back to the shipped functions (a downgrade): every record is derived again by them.
    await t.sql.unsafe(shippedDeclared);
    expect(await noteDerivations()).toBe(1);
    await catchUpDerivations(t.sql, { stepRecords: 3 });
    expect(await touchesOf(listed)).toEqual(['path app/x.ts']);
    expect(await derivation()).toEqual({ fingerprint: await current(), pending: null, after_id: '' });
  });

  it('starts over when the functions change again during a catch-up', async () => {
    await t.sql.unsafe(NEWER_DECLARED);
    expect(await noteDerivations()).toBe(1);
    expect(await step(2)).toBe(2);
    expect((await derivation()).after_id).not.toBe('');
    await t.sql.unsafe(shippedDeclared);
    expect(await noteDerivations()).toBe(1);
    expect(await derivation()).toMatchObject({ pending: await current(), after_id: '' });
    await catchUpDerivations(t.sql);
    expect((await derivation()).pending).toBeNull();
  });

  it('skips a record a write holds, without waiting, and re-derives it after the scan', async () => {
    const held = await insertNode(t.sql, ws, { title: 'Held', prose: 'Touches api/held.go.', body: { files: ['bin/extra'] } });
    await t.sql.unsafe(NEWER_DECLARED);
    expect(await noteDerivations()).toBe(1);
    const writer = await t.sql.reserve();
    try {
      await writer`begin`;
      await writer`select id from doco.nodes where id = ${held} for update`;
      // The scan passes the held record by at once (one step covers every record here).
      expect(await step(1000)).toBeGreaterThan(1);
      expect((await t.sql`select node_id from doco.derivation_backlog where name = 'touches'`).map((r) => r.node_id)).toEqual([held]);
      expect(await touchesOf(held)).toEqual(['path api/held.go']);
      // The next step ends the scan and takes the backlog: it waits for the write at most 500 ms, then gives way.
      await expect(step(1000)).rejects.toMatchObject({ code: '55P03' });
      expect(await touchesOf(held)).toEqual(['path api/held.go']);
      await writer`commit`;
    } finally {
      writer.release();
    }
    expect(await step(1000)).toBe(1);
    expect(await touchesOf(held)).toEqual(['path api/held.go', 'path bin/extra']);
    expect(await step(1000)).toBe(0);
    expect(await derivation()).toMatchObject({ pending: null, fingerprint: await current() });
    await t.sql.unsafe(shippedDeclared);
    await noteDerivations();
    await catchUpDerivations(t.sql);
  });

  it('the job waits out a write that holds a record and finishes', async () => {
    const held = await insertNode(t.sql, ws, { title: 'Held again', prose: 'Touches api/again.go.', body: { files: ['bin/again'] } });
    await t.sql.unsafe(NEWER_DECLARED);
    await noteDerivations();
    const writer = await t.sql.reserve();
    await writer`begin`;
    await writer`select id from doco.nodes where id = ${held} for update`;
    // The write commits 1.5 s in: the job's first tries at the held record give way meanwhile.
    const released = new Promise<void>((resolve) => setTimeout(() => void writer`commit`.then(() => (writer.release(), resolve())), 1_500));
    try {
      const done = await catchUpDerivations(t.sql, { heldRetryMs: 100 });
      expect(done.touches).toBeGreaterThan(1);
    } finally {
      await released;
    }
    expect(await touchesOf(held)).toEqual(['path api/again.go', 'path bin/again']);
    expect((await derivation()).pending).toBeNull();
    await t.sql.unsafe(shippedDeclared);
    await noteDerivations();
    await catchUpDerivations(t.sql);
  });
});
