// The embedded Postgres's page cache: a sixteenth of the machine's memory between 128 MB and
// 1 GB unless DOCO_PG_SHARED_BUFFERS says otherwise (test/cli/serve.test.ts starts a cluster
// with it), and the cluster the tests share runs with the computed default.
import os from 'node:os';
import postgres from 'postgres';
import { describe, expect, inject, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/environment.js';
import { embeddedSharedBuffers } from '../../src/db/shared-buffers.js';

const GB = 1024 ** 3;

describe('the embedded Postgres page cache', () => {
  it('is a sixteenth of the memory, never below 128 MB nor above 1 GB', () => {
    expect(embeddedSharedBuffers(8 * GB)).toBe('512MB');
    expect(embeddedSharedBuffers(6 * GB)).toBe('384MB');
    expect(embeddedSharedBuffers(1 * GB)).toBe('128MB');
    expect(embeddedSharedBuffers(64 * GB)).toBe('1024MB');
  });

  it('is what the embedded cluster runs with', async () => {
    const sql = postgres(inject('databaseUrl'), { max: 1, onnotice: () => {} });
    const [row] = await sql<{ bytes: string }[]>`
      select (setting::bigint * 8192)::text as bytes from pg_settings where name = 'shared_buffers'`;
    await sql.end();
    expect(Number(row!.bytes)).toBe(Number(embeddedSharedBuffers(os.totalmem()).replace('MB', '')) * 1024 * 1024);
  });

  it('takes DOCO_PG_SHARED_BUFFERS as Postgres writes memory, refusing anything else in one line', () => {
    expect(loadConfig({ DOCO_PG_SHARED_BUFFERS: '2GB' }).pgSharedBuffers).toBe('2GB');
    expect(loadConfig({}).pgSharedBuffers).toBeUndefined();
    for (const bad of ['lots', '512', '512mb', '0MB', '-1GB']) {
      let problems: string[] = [];
      try {
        loadConfig({ DOCO_PG_SHARED_BUFFERS: bad });
      } catch (err) {
        if (err instanceof ConfigError) problems = err.problems;
      }
      expect(problems).toEqual([
        `DOCO_PG_SHARED_BUFFERS: must be an amount of memory as Postgres writes it, e.g. 512MB or 1GB (got "${bad}")`,
      ]);
    }
  });
});
