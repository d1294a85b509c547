// The embedded index is one process's: a second `doco serve` on the same database (the same
// home's embedded Postgres, another port) is refused in one line that says to set QDRANT_URL,
// and leaves the first serving; once the first stops, another may keep the index.
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUp, DocoHome, DocoProcess, DocoServer, freePort } from '../helpers/doco-process.js';

afterAll(cleanUp, 60_000);

describe('the embedded index has one keeper per database', () => {
  it('refuses a second keeper with what to do, and lets one start after the first stops', async () => {
    const home = await DocoHome.make();
    const first = await DocoServer.start(home);
    const port = await freePort();
    const second = new DocoProcess(['serve', '--port', String(port)], home.env({ DOCO_LOG_LEVEL: 'warn' }));
    const exit = await second.exited;
    expect(exit.code).toBe(1);
    const lines = second.log.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^doco: another Doco process keeps the embedded index of this database \(doco embedded index \(.* pid \d+\)\).*QDRANT_URL/,
    );
    expect(second.log).not.toMatch(/^\s+at /m);
    // The first still answers.
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);

    expect((await first.stop()).code).toBe(0);
    const third = await DocoServer.start(home, { port });
    expect((await fetch(`${third.url}/healthz`)).status).toBe(200);
    await third.stop();
  }, 180_000);
});
