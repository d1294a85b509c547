// The read replica's route (src/db/read-replica.ts) without a real standby: DATABASE_READ_URL
// at the test database itself (not in recovery), through a loopback proxy that can cut it and
// let it back, and at a port where nothing listens. Reads fall back to the primary while it is
// down, and come back when it answers; the log says so once per change, however many checks
// run. A real streaming replica's lag and read-your-writes: test/integration/read-replica.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lagMsOf, lsnBytes, openReadReplica, type ReadRoute } from '../../src/db/read-replica.js';
import { makeLog } from '../../src/lib/log.js';
import { freePort } from '../helpers/doco-process.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { tcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { until } from '../helpers/until.js';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => {
  await t.drop();
});

function captureLog() {
  const lines: string[] = [];
  return {
    lines,
    log: makeLog('info', (l) => lines.push(l)),
    warnings: (re: RegExp) => lines.filter((l) => / warn /.test(l) && re.test(l)),
  };
}

const viaPort = (url: string, port: number) => url.replace(/@127\.0\.0\.1:\d+\//, `@127.0.0.1:${port}/`);

/** Waits until `n` more checks have run (each sets checked_at anew). */
async function checksPass(route: ReadRoute, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const before = route.status().checked_at;
    await until(async () => route.status().checked_at !== before);
  }
}

describe('LSNs and lag', () => {
  it('reads an LSN as bytes, high word and low word', () => {
    expect(lsnBytes('0/0')).toBe(0);
    expect(lsnBytes('0/3000148')).toBe(0x3000148);
    expect(lsnBytes('16/B374D848')).toBe(0x16 * 2 ** 32 + 0xb374d848);
    expect(lsnBytes('1/0') - lsnBytes('0/FFFFFFFF')).toBe(1);
  });

  it('counts a replica that replayed everything as 0 ms behind, else the smaller bound, else unknown', () => {
    expect(lagMsOf(0, 3_600_000, null)).toBe(0); // idle primary: its last commit is an hour old, nothing is missing
    expect(lagMsOf(120, 3_600_000, 800)).toBe(800); // seen caught up 0.8 s ago: at most that far behind
    expect(lagMsOf(120, 40, 9000)).toBe(40);
    expect(lagMsOf(120, null, null)).toBeNull();
    expect(lagMsOf(null, 40, 40)).toBeNull();
  });
});

describe('a read server that is not a standby', () => {
  it('takes reads, says it cannot measure its lag, and sends a read after a write to the primary', async () => {
    const { log, lines, warnings } = captureLog();
    const route = await openReadReplica(t, { url: t.url, maxLagMs: 5000, log, checkEveryMs: 60_000 });
    try {
      expect(route.status()).toMatchObject({ reading_from: 'replica', state: 'ok', standby: false, lag_bytes: null, lag_ms: null });
      expect(route.reader().from).toBe('replica');
      const [row] = await route.reader().sql<{ name: string }[]>`select current_setting('application_name') as name`;
      expect(row!.name).toBe('doco-read');
      expect((await route.readerAfter('0/0')).from).toBe('primary');
      expect(warnings(/not a standby/)).toHaveLength(1);
      expect(lines.join('\n')).toMatch(/info .*briefs and searches read from DATABASE_READ_URL \(not a standby\)/);
    } finally {
      await route.close();
    }
  });
});

describe('a replica that goes away and comes back', () => {
  let proxy: TcpProxy;
  beforeAll(async () => {
    proxy = await tcpProxy(Number(new URL(t.url).port));
  });
  afterAll(async () => {
    await proxy.close();
  });

  it('sends reads to the primary while it is down and back once it answers, one warning each way', async () => {
    const { log, warnings } = captureLog();
    const route = await openReadReplica(t, { url: viaPort(t.url, proxy.port), maxLagMs: 5000, log, checkEveryMs: 20 });
    try {
      expect(route.reader().from).toBe('replica');
      await proxy.close();
      await until(async () => route.status().state === 'down');
      expect(route.reader().from).toBe('primary');
      expect(route.status()).toMatchObject({ reading_from: 'primary', state: 'down', lag_bytes: null });
      await checksPass(route, 3);
      expect(warnings(/read replica unreachable .*read from the primary until it answers/)).toHaveLength(1);

      await proxy.open();
      await until(async () => route.status().state === 'ok');
      expect(route.reader().from).toBe('replica');
      await checksPass(route, 3);
      expect(warnings(/read replica back .*read from it again/)).toHaveLength(1);
      expect(warnings(/unreachable/)).toHaveLength(1);
    } finally {
      await route.close();
      await proxy.open().catch(() => {}); // for the next test, should this one have stopped early
    }
  });

  it('counts a broken connection between two checks as down at once (no request waits for the next check)', async () => {
    const { log, warnings } = captureLog();
    const route = await openReadReplica(t, { url: viaPort(t.url, proxy.port), maxLagMs: 5000, log, checkEveryMs: 60_000 });
    try {
      const reader = route.reader();
      expect(reader.from).toBe('replica');
      await proxy.close();
      const err = await reader.sql`select 1`.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeDefined();
      expect(route.failed(err)).toBe(true);
      expect(route.reader().from).toBe('primary');
      expect(route.failed(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
      expect(route.failed(Object.assign(new Error('canceling statement due to conflict with recovery'), { code: '40001' }))).toBe(true);
      expect(warnings(/unreachable/)).toHaveLength(1);
    } finally {
      await route.close();
      await proxy.open();
    }
  });
});

describe('a read URL where nothing listens', () => {
  it('starts reading from the primary, with one warning', async () => {
    const { log, warnings } = captureLog();
    const port = await freePort();
    const route = await openReadReplica(t, { url: viaPort(t.url, port), maxLagMs: 5000, log, checkEveryMs: 20 });
    try {
      expect(route.status()).toMatchObject({ reading_from: 'primary', state: 'down', standby: null });
      expect(route.reader().from).toBe('primary');
      expect((await route.readerAfter('0/0')).from).toBe('primary');
      await checksPass(route, 3);
      expect(warnings(/read replica unreachable \(.*ECONNREFUSED.*\)/)).toHaveLength(1);
    } finally {
      await route.close();
    }
  });
});
