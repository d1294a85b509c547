// The chain's heads kept outside the database (src/graph/chain-checks.ts checkChains, sql/hash_chain.sql
// doco.chain_heads): whoever switches the triggers off can rewrite a version and recompute every
// hash after it, and doco.verify_chains() then finds nothing; the heads the last intact check kept
// in DOCO_HOME do not match. A write still open while a check runs is not taken for a rewrite.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chainAnchorFile } from '../../src/config/chain-anchor-file.js';
import { checkChains, describeBreak, HISTORY_BREAK } from '../../src/graph/chain-checks.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { insertNode, one, sqlWorkspace, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;
let home: string;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'anchor');
});
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'doco-anchor-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
  await t.drop();
});

/** Rewrites a record's first version and recomputes its chain forward, the record's row with it: triggers off, committed. */
async function rewriteHistory(id: string, prose: string) {
  await t.sql.begin(async (tx) => {
    await tx`set local session_replication_role = replica`;
    await tx`update doco.node_versions set prose = ${prose} where node_id = ${id} and version = 1`;
    await tx`
      do $$
      declare v record; prev text := null;
      begin
        for v in select * from doco.node_versions where node_id = ${tx.unsafe(`'${id}'`)} order by version loop
          update doco.node_versions set prev_hash = prev,
                 hash = doco.chain_hash(prev, doco.node_version_doc(row(v.node_id, v.version, v.workspace_id, v.collection_id, v.node_type,
                   v.lifecycle, v.title, v.prose, v.body, v.principal_id, v.changeset_id, v.recorded_at, null, prev)::doco.node_versions))
           where node_id = v.node_id and version = v.version returning hash into prev;
        end loop;
        update doco.nodes n set hash = prev, prev_hash = (select prev_hash from doco.node_versions where node_id = n.id and version = n.version)
         where n.id = ${tx.unsafe(`'${id}'`)};
      end $$`;
  });
}

describe('checkChains', () => {
  it('keeps the heads after an intact check, and finds nothing while they hold', async () => {
    const id = await insertNode(t.sql, ws, { title: 'Refunds' });
    await t.sql`update doco.nodes set prose = 'Refunds go back to the card.' where id = ${id}`;
    expect(await checkChains(t.sql, home)).toEqual([]);
    const kept = JSON.parse(await readFile(chainAnchorFile(home), 'utf8'));
    const { database } = one(
      await t.sql<
        { database: string }[]
      >`select (select system_identifier from pg_control_system())::text || ':' || current_database() as database`,
    );
    expect(kept).toEqual({
      [database]: { at: expect.any(String), versions: expect.any(Number), digest: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    await insertNode(t.sql, ws, { title: 'Written since' });
    expect(await checkChains(t.sql, home)).toEqual([]);
  });

  it('finds a rewrite that recomputed every hash after it, which verify_chains cannot, and keeps the old heads', async () => {
    const id = await insertNode(t.sql, ws, { title: 'Owners approve refunds' });
    await t.sql`update doco.nodes set prose = 'An owner approves every refund over 500 dollars.' where id = ${id}`;
    expect(await checkChains(t.sql, home)).toEqual([]);
    const kept = await readFile(chainAnchorFile(home), 'utf8');
    await rewriteHistory(id, 'Nobody approves refunds.');
    expect(await t.sql`select * from doco.verify_chains()`).toEqual([]);
    const breaks = await checkChains(t.sql, home);
    expect(breaks).toEqual([
      expect.objectContaining({
        kind: HISTORY_BREAK,
        problem: expect.stringMatching(
          /^the chains as they stood at \S+ are not the same now: history before then was rewritten or removed$/,
        ),
        detail: expect.stringMatching(
          /^\d+ versions under the heads kept in .*chain-anchor\.json by the last check that found them intact; \d+ under those/,
        ),
      }),
    ]);
    // What every workspace's console records names neither the server's files nor the database's size.
    expect(describeBreak(breaks[0]!)).not.toMatch(/chain-anchor|\d+ versions/);
    // The kept heads stay what they were: every later check says so too.
    expect(await readFile(chainAnchorFile(home), 'utf8')).toBe(kept);
    expect(await checkChains(t.sql, home)).toHaveLength(1);
  });

  it('does not take a write still open during the check for a rewrite', async () => {
    await insertNode(t.sql, ws, { title: 'Before' });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const started = new Promise<void>((resolve) => (inserted = resolve));
    // A write begun before the check and committed after it: its versions are recorded at its start.
    const open = t.sql.begin(async (tx) => {
      await insertNode(tx, ws, { title: 'Open across the check' });
      inserted();
      await held;
    });
    await started;
    expect(await checkChains(t.sql, home)).toEqual([]);
    release();
    await open;
    expect(await checkChains(t.sql, home)).toEqual([]);
  });

  it('checks each database against its own heads: a home used with another database is no rewrite', async () => {
    const other = await createTestDb();
    try {
      const otherWs = await sqlWorkspace(other.sql, 'other');
      await insertNode(t.sql, ws, { title: 'In the first' });
      expect(await checkChains(t.sql, home)).toEqual([]);
      await insertNode(other.sql, otherWs, { title: 'In the second' });
      expect(await checkChains(other.sql, home)).toEqual([]);
      expect(await checkChains(t.sql, home)).toEqual([]);
      expect(Object.keys(JSON.parse(await readFile(chainAnchorFile(home), 'utf8')))).toHaveLength(2);
    } finally {
      await other.drop();
    }
  });

  it('refuses an anchor file it did not write, naming it', async () => {
    await writeFile(chainAnchorFile(home), '{"at":"yesterday"}');
    await expect(checkChains(t.sql, home)).rejects.toThrow(`${chainAnchorFile(home)} is not an anchor doco verify wrote`);
  });
});
