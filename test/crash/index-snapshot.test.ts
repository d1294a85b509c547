// Crash suite: the embedded index's snapshot under a kill. `doco serve` kills itself
// (DOCO_TEST_CRASH_AT=index-snapshot-before-rename) after writing and syncing a new snapshot
// under its temporary name and before renaming it over the old one: the old snapshot is still
// there, whole, and the next start loads it and catches up from Postgres. A torn or damaged
// snapshot is never half-loaded: the index is rebuilt from Postgres. Each time the index ends up
// holding exactly doco.chunks.
import { readdir, readFile, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSavedIndex } from '../helpers/index-snapshot.js';
import { alive, cleanUp, DocoHome, DocoServer, postmasterPid, restClient, waitFor, writeToken } from '../helpers/doco-process.js';

afterAll(cleanUp, 60_000);

const SNAPSHOT = 'local-hash-v1_512.snapshot';
const sorted = (ids: Iterable<string>) => [...ids].sort();

/** Writes `n` records and waits until the server has indexed them; returns doco.chunks (id → record). */
async function writeAndIndex(home: DocoHome, server: DocoServer, token: string, n: number, tag: string): Promise<Map<string, string>> {
  const rest = restClient(() => server.url, token);
  const operations = Array.from({ length: n }, (_, i) => ({
    op: 'create',
    node_type: 'reference',
    title: `${tag} record ${i}`,
    prose: `The ${tag} record number ${i} is indexed in the embedded index and saved in its snapshot. `.repeat(4),
  }));
  expect((await rest('POST', '/changeset', { collection: 'constitution', operations })).status).toBe(201);
  const sql = await home.sql();
  try {
    await waitFor('the outbox to drain', async () => (await sql`select count(*)::int as n from doco.outbox`)[0]!.n === 0, 60_000, 100);
    return new Map((await sql<{ id: string; node_id: string }[]>`select id::text, node_id from doco.chunks`).map((r) => [r.id, r.node_id]));
  } finally {
    await sql.end();
  }
}

/** Stops the server cleanly and reads the snapshot it saved. */
async function stopAndRead(home: DocoHome, server: DocoServer) {
  const stopped = await server.stop();
  expect(stopped.code, `exit ${JSON.stringify(stopped)}; the server's log ends:\n${server.log.slice(-2000)}`).toBe(0);
  const saved = await readSavedIndex(home.dir);
  expect(saved, 'the snapshot a clean stop saves').toBeDefined();
  return saved!;
}

/** The chunks an "embedded index: …" start-up line says were added, and whether a snapshot was loaded. */
function startLine(log: string) {
  const m = /embedded index: (snapshot loaded|built from Postgres), (\d+) chunk\(s\) added, (\d+) removed/.exec(log);
  expect(m, `the start-up line of the embedded index in: ${log.slice(-2000)}`).not.toBeNull();
  return { loaded: m![1] === 'snapshot loaded', added: Number(m![2]), removed: Number(m![3]) };
}

describe('the embedded index snapshot under a kill', () => {
  it('killed between the snapshot write and its rename: the old snapshot loads whole and the rest is caught up; a damaged one is rebuilt', async () => {
    const home = await DocoHome.make();
    const file = path.join(home.dir, 'index', SNAPSHOT);
    let server = await DocoServer.start(home);
    const port = server.port;
    const token = await writeToken(home);
    const first = await writeAndIndex(home, server, token, 10, 'first');
    expect(sorted((await stopAndRead(home, server)).points.keys())).toEqual(sorted(first.keys()));
    const before = await readFile(file);

    // The next save is killed after its temporary file is written and synced, before the rename.
    server = await DocoServer.start(home, { port, env: { DOCO_TEST_CRASH_AT: 'index-snapshot-before-rename' } });
    expect(startLine(server.log)).toEqual({ loaded: true, added: 0, removed: 0 });
    const second = await writeAndIndex(home, server, token, 10, 'second');
    expect(second.size).toBeGreaterThan(first.size);
    const exit = await waitFor('the server to die at its crash point', async () => (server.running ? undefined : server.exited), 60_000);
    expect(exit.signal).toBe('SIGKILL');
    expect(server.log).toContain('crash point index-snapshot-before-rename');
    expect((await readFile(file)).equals(before), 'the previous snapshot is untouched').toBe(true);
    const temps = (await readdir(path.dirname(file))).filter((f) => f.startsWith(`${SNAPSHOT}.tmp-${server.child.pid}-`));
    expect(temps, 'the new snapshot was written, not renamed').toHaveLength(1);
    const unrenamed = await readFile(path.join(path.dirname(file), temps[0]!));
    expect(unrenamed.length).toBeGreaterThan(before.length);

    // The next start loads the old snapshot and adds only what Postgres has beyond it.
    server = await DocoServer.start(home, { port });
    expect(server.log).toMatch(/adopted the embedded Postgres/);
    expect(startLine(server.log)).toEqual({ loaded: true, added: second.size - first.size, removed: 0 });
    const pm = postmasterPid(home.dir)!;
    const afterCatchUp = await stopAndRead(home, server);
    expect(alive(pm)).toBe(false);
    expect(sorted(afterCatchUp.points.keys())).toEqual(sorted(second.keys()));
    expect(
      (await readdir(path.dirname(file))).filter((f) => f.includes('.tmp-')),
      "the killed save's temporary file is gone",
    ).toEqual([]);

    // A torn snapshot (cut short) and a damaged one (a flipped bit) are no snapshot: rebuilt in full.
    const damage: [string, () => Promise<void>][] = [
      ['cut short', async () => truncate(file, Math.floor((await readFile(file)).length / 2))],
      [
        'a flipped bit',
        async () => {
          const bytes = await readFile(file);
          bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0x04;
          await writeFile(file, bytes);
        },
      ],
    ];
    for (const [what, harm] of damage) {
      await harm();
      server = await DocoServer.start(home, { port });
      expect(startLine(server.log), what).toEqual({ loaded: false, added: second.size, removed: 0 });
      expect(sorted((await stopAndRead(home, server)).points.keys()), what).toEqual(sorted(second.keys()));
    }
  }, 240_000);
});
