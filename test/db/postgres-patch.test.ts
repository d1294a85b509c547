// postgres.js carries nine changes of ours until a release has them (scripts/patch-postgres.cjs,
// run by npm's postinstall): the installed driver has them in all three of its builds, a second run
// changes nothing, a driver an earlier version of the script patched gets the fixes added since,
// and a version the patch was not written for is refused in one line. Then what they are for,
// through a TCP proxy cut in front of the tests' Postgres: a reserved connection and a Kysely
// transaction cut by the database going away fail at once with a broken connection's error (the
// HTTP edge's 503), never hang or throw a TypeError, and the pool serves again once the database
// is back (src/db/connect.ts mends Kysely's rollback for the second), within a second or two
// however long it was away (src/db/connect.ts's reconnect backoff); a connection cut while it
// fetches the array types neither ends the process nor strands the reservation that waited for
// it. What fix 7 is for (a transaction whose connection closed sends nothing more):
// test/db/transaction-after-close.test.ts and test/jobs/delivery-after-reconnect.test.ts. Change 8:
// a query makes no closure V8 allocates in the old generation, and it answers and fails as before.
// Change 9: one client's statements, one after another, stay on the connection idle the shortest time.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { sql as kysql } from 'kysely';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/db/connect.js';
import { isBrokenConnection } from '../../src/db/read-replica.js';
import { createTestDb } from '../helpers/db.js';
import { tcpProxy } from '../helpers/tcp-proxy.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SCRIPT = path.join(REPO, 'scripts', 'patch-postgres.cjs');
const installed = path.resolve(path.dirname(createRequire(import.meta.url).resolve('postgres')), '../..');
const BUILDS = ['src', 'cjs/src', 'cf/src'];
const FILES = BUILDS.flatMap((b) => [`${b}/query.js`, `${b}/queue.js`, `${b}/connection.js`, `${b}/index.js`]);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'doco-patch-postgres-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The text of `source` from one function's start to the next one's. */
function between(source: string, from: string, to: string): string {
  const start = source.indexOf(from);
  return source.slice(start, source.indexOf(to, start));
}

describe('the postgres.js patch', () => {
  it('is in every build of the installed driver: nextWrite, closed(), terminate(), execute(), ReadyForQuery, reserve(), onclose(), begin(), Query and the idle queue', () => {
    for (const build of BUILDS) {
      const index = readFileSync(path.join(installed, build, 'index.js'), 'utf8');
      expect(index, `${build} index.js`).not.toContain('open.shift()');
      expect(index.match(/open\.pop\(\)/g), `${build} index.js`).toHaveLength(2);
      expect(readFileSync(path.join(installed, build, 'queue.js'), 'utf8'), `${build} queue.js`).toMatch(/pop: \(\) => \{/);
      const query = readFileSync(path.join(installed, build, 'query.js'), 'utf8');
      expect(between(query, 'constructor(', 'get origin()'), `${build} Query`).toMatch(/this\.settle = \[resolve, reject\]/);
      expect(between(query, 'constructor(', 'get origin()'), `${build} Query`).not.toMatch(/this\.(resolve|reject) =/);
      expect(between(query, 'constructor(', 'get origin()'), `${build} Query`).toMatch(
        /resolve\(x\) \{[^\n]*\n\s*this\.active = false\n\s*this\.settle\[0\]\(x\)\n\s*\}\n\s*reject\(x\) \{\n\s*this\.active = false\n\s*this\.settle\[1\]\(x\)/,
      );
      const begin = between(readFileSync(path.join(installed, build, 'index.js'), 'utf8'), 'async function begin(', 'function move(');
      expect(begin, `${build} begin()`).toMatch(
        /if \(c\.reserved !== held\)[^\n]*\n\s*return q\.reject\(Errors\.connection\('CONNECTION_CLOSED'/,
      );
      expect(begin, `${build} begin()`).toMatch(
        /connection\.onclose = e => \{[^\n]*\n\s*while \(queries\.length\) queries\.shift\(\)\.reject\(e\)/,
      );
      expect(begin, `${build} begin()`).toMatch(/held = c\.reserved = \(\) =>/);
      const source = readFileSync(path.join(installed, build, 'connection.js'), 'utf8');
      expect(between(source, 'function nextWrite(', 'function connectTimedOut('), build).toMatch(
        /if \(socket === null\) \{[^}]*return false\s*\}\s*const x = socket\.write/,
      );
      for (const [from, to] of [
        ['function terminate(', 'function closed('],
        ['function closed(', '/* Handlers */'],
      ] as const)
        expect(between(source, from, to), `${build} ${from}`).toMatch(/clearImmediate\(nextWriteTimer\)\n\s*chunk = nextWriteTimer = null/);
    }
  });

  it('changes nothing on a second run', () => {
    const before = FILES.map((f) => readFileSync(path.join(installed, f), 'utf8'));
    expect(execFileSync('node', [SCRIPT], { encoding: 'utf8' })).toMatch(/already patched/);
    expect(FILES.map((f) => readFileSync(path.join(installed, f), 'utf8'))).toEqual(before);
  });

  it('adds to a driver an earlier version of it patched the fixes that driver lacks, and only those', () => {
    const project = path.join(tmp, 'earlier');
    const copy = path.join(project, 'node_modules', 'postgres');
    mkdirSync(path.join(project, 'scripts'), { recursive: true });
    writeFileSync(path.join(project, 'package.json'), '{"name":"p","private":true}');
    cpSync(SCRIPT, path.join(project, 'scripts', 'patch-postgres.cjs'));
    cpSync(installed, copy, { recursive: true });
    // The driver as the six-fix script left it: fix 7's lines undone.
    const mark = 'doco: scripts/patch-postgres.cjs (7)';
    for (const build of BUILDS) {
      const file = path.join(copy, build, 'index.js');
      const sixFixes = readFileSync(file, 'utf8')
        .replace(/\n {6}, held = null \/\/ [^\n]*/, '')
        .replace(/connection\.onclose = e => \{ \/\/ [^\n]*\n[^\n]*\n {10}reject\(e\)\n {8}\}\)/, 'connection.onclose = reject)')
        .replace(/\n {8}if \(c\.reserved !== held\)[^\n]*\n[^\n]*/, '')
        .replace(/held = c\.reserved = \(\) => queries\.length \/\/ [^\n]*/, 'c.reserved = () => queries.length');
      expect(sixFixes, build).not.toContain(mark);
      writeFileSync(file, sixFixes);
    }
    const run = spawnSync('node', [path.join(project, 'scripts', 'patch-postgres.cjs')], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/patched \(src\/index\.js, cjs\/src\/index\.js, cf\/src\/index\.js\); 9 already were/);
    for (const f of FILES) expect(readFileSync(path.join(copy, f), 'utf8'), f).toBe(readFileSync(path.join(installed, f), 'utf8'));
  });

  it('leaves no closure of a query in the old generation, where it would keep the query, its rows and what awaits them through every young collection (change 8)', async () => {
    // V8's own test hook, parsed while the flag is on: whether an object is in the young generation.
    v8.setFlagsFromString('--allow-natives-syntax');
    const young = new Function('x', 'return %InYoungGeneration(x)') as (x: unknown) => boolean;
    v8.setFlagsFromString('--no-allow-natives-syntax');
    const t = await createTestDb();
    const sql = postgres(t.url, { max: 1, onnotice: () => {} });
    try {
      const [a, b] = [sql`select 1::int as n`, sql`select 2::int as n`];
      // What each query has of its own (the pool's handler is shared): none of it is in the old generation.
      const own = (q: object, other: object) =>
        Object.entries(q).filter(([k, f]) => typeof f === 'function' && f !== (other as Record<string, unknown>)[k]);
      expect(
        own(a, b)
          .filter(([, f]) => !young(f))
          .map(([k]) => k),
      ).toEqual([]);
      expect([await a, await b]).toEqual([[{ n: 1 }], [{ n: 2 }]]);
      await expect(sql`select 1/0`).rejects.toThrow(/division by zero/);
    } finally {
      await sql.end();
      await t.drop();
    }
  });

  it("runs a client's statements, one after another, on the connection idle the shortest time, not round every open one (change 9)", async () => {
    const t = await createTestDb();
    const sql = postgres(t.url, { max: 10, onnotice: () => {} });
    try {
      // Five at once open five connections; each is idle again after.
      const opened = await Promise.all([1, 2, 3, 4, 5].map(() => sql`select pg_backend_pid() as pid, pg_sleep(0.05)`));
      expect(new Set(opened.map(([r]) => r!.pid)).size).toBe(5);
      // Then twenty in turn: each finds the one the last left idle (before: all five in rotation).
      const pids = new Set<number>();
      for (let i = 0; i < 20; i++) pids.add((await sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid);
      expect(pids.size).toBe(1);
      // Two at a time, two connections: the rest stay idle.
      const pairs = new Set<number>();
      for (let i = 0; i < 10; i++)
        for (const [r] of await Promise.all([1, 2].map(() => sql<{ pid: number }[]>`select pg_backend_pid() as pid`))) pairs.add(r!.pid);
      expect(pairs.size).toBe(2);
    } finally {
      await sql.end();
      await t.drop();
    }
  });

  it('refuses another version of postgres in one line, exit 1, and leaves it as it was', () => {
    const project = path.join(tmp, 'project');
    const copy = path.join(project, 'node_modules', 'postgres');
    mkdirSync(path.join(project, 'scripts'), { recursive: true });
    writeFileSync(path.join(project, 'package.json'), '{"name":"p","private":true}');
    cpSync(SCRIPT, path.join(project, 'scripts', 'patch-postgres.cjs'));
    cpSync(installed, copy, { recursive: true });
    const manifest = JSON.parse(readFileSync(path.join(copy, 'package.json'), 'utf8')) as { version: string };
    writeFileSync(path.join(copy, 'package.json'), JSON.stringify({ ...manifest, version: '3.9.0' }));
    const before = readFileSync(path.join(copy, 'src', 'connection.js'), 'utf8');

    const run = spawnSync('node', [path.join(project, 'scripts', 'patch-postgres.cjs')], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^patch-postgres: postgres 3\.9\.0 is installed, this patch is for /),
    ]);
    expect(readFileSync(path.join(copy, 'src', 'connection.js'), 'utf8')).toBe(before);
  });
});

describe('the database going away, through a TCP proxy cut in front of it', () => {
  const failsFast = async (p: Promise<unknown>) => {
    const outcome = await Promise.race([
      p.then(
        () => 'answered',
        (err: unknown) => err,
      ),
      new Promise((r) => setTimeout(() => r('still waiting after 5 s'), 5000)),
    ]);
    expect(isBrokenConnection(outcome), String(outcome)).toBe(true);
  };

  it('fails the reserved handle at once, leaves the pool whole, and a cut transaction answers a broken connection', async () => {
    const t = await createTestDb();
    const proxy = await tcpProxy(Number(new URL(t.url).port));
    const db = connect(t.url.replace(/@127\.0\.0\.1:\d+\//, `@127.0.0.1:${proxy.port}/`), { max: 2 });
    try {
      const reserved = await db.sql.reserve();
      await reserved`select 1`;
      await proxy.close();
      await proxy.open();
      // Its connection is gone: before fix 4 this waited forever (before fix 1, a TypeError ended the process).
      await failsFast(reserved`select 1`);
      reserved.release(); // before fix 4: the closed connection went back among the open ones
      for (let i = 0; i < 4; i++) expect(await db.sql`select ${i}::int as i`).toEqual([{ i }]);

      // A transaction cut between two statements: the rollback fails too, with the connection's error.
      const cut = db.db.transaction().execute(async (tx) => {
        await kysql`select 1`.execute(tx);
        await proxy.close();
        await proxy.open();
        await kysql`select 2`.execute(tx);
      });
      await failsFast(cut);
      expect((await kysql<{ n: number }>`select 3::int as n`.execute(db.db)).rows).toEqual([{ n: 3 }]);
    } finally {
      await db.close();
      await proxy.close();
      await t.drop();
    }
  }, 30_000);

  it('serves again within a second or two of the database coming back, however many attempts failed while it was away', async () => {
    const t = await createTestDb();
    const proxy = await tcpProxy(Number(new URL(t.url).port));
    const db = connect(t.url.replace(/@127\.0\.0\.1:\d+\//, `@127.0.0.1:${proxy.port}/`), { max: 4 });
    try {
      await Promise.all([1, 2, 3, 4].map(() => db.sql`select pg_sleep(0.05)`));
      await proxy.close();
      // Twelve refused attempts: postgres.js's own backoff would hold the next one 10-20 s.
      for (let i = 0; i < 12; i++) await failsFast(db.sql`select 1`);
      await proxy.open();
      const started = Date.now();
      await Promise.all([1, 2, 3, 4, 5, 6].map(() => db.sql`select 1`));
      expect(Date.now() - started).toBeLessThan(2500);
    } finally {
      await db.close();
      await proxy.close();
      await t.drop();
    }
  }, 30_000);

  it('survives a connection cut while it asks for the array types, as every new connection does first', async () => {
    const t = await createTestDb();
    const target = Number(new URL(t.url).port);
    // A proxy that cuts the first connection whose client sends the array types query.
    let cut = false;
    const server = net.createServer((client) => {
      const upstream = net.connect(target, '127.0.0.1');
      const drop = () => (client.destroy(), upstream.destroy());
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      upstream.pipe(client);
      client.on('data', (data: Buffer) => {
        if (!cut && data.includes('typcategory')) return ((cut = true), drop());
        upstream.write(data);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const sql = postgres(t.url.replace(/@127\.0\.0\.1:\d+\//, `@127.0.0.1:${port}/`), { max: 1, onnotice: () => {} });
    try {
      // A reservation is what left the types query's rejection unhandled (the connection has no
      // query of the caller's to retry); it is served by the next connection.
      const reserved = await sql.reserve();
      expect(await reserved`select 1::int as one`).toEqual([{ one: 1 }]);
      reserved.release();
      await new Promise((r) => setImmediate(r));
      expect(cut).toBe(true);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await sql.end({ timeout: 1 });
      server.close();
      await t.drop();
    }
  }, 30_000);
});
