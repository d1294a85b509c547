// DATABASE_READ_URL and DOCO_READ_MAX_LAG_MS (docs/replica.md): checked like DATABASE_URL, and
// only beside it (the embedded Postgres has no replica).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/environment.js';
import { configProblems } from '../helpers/config.js';

const problems = configProblems;
const PRIMARY = 'postgres://doco@db-primary/doco';
const REPLICA = 'postgres://doco@db-replica/doco';

describe('DATABASE_READ_URL', () => {
  it('is unset by default: everything reads the primary', () => {
    expect(loadConfig({ DATABASE_URL: PRIMARY }).readReplica).toBeUndefined();
  });

  it('names the replica, with a lag bound of 5000 ms unless DOCO_READ_MAX_LAG_MS says otherwise', () => {
    expect(loadConfig({ DATABASE_URL: PRIMARY, DATABASE_READ_URL: REPLICA }).readReplica).toEqual({ url: REPLICA, maxLagMs: 5000 });
    expect(loadConfig({ DATABASE_URL: PRIMARY, DATABASE_READ_URL: REPLICA, DOCO_READ_MAX_LAG_MS: '250' }).readReplica).toEqual({
      url: REPLICA,
      maxLagMs: 250,
    });
  });

  it('refuses what is not a postgres:// URL, a bound that is no whole positive number, and a replica without its primary', () => {
    expect(problems({ DATABASE_URL: PRIMARY, DATABASE_READ_URL: 'mysql://db/doco' })).toEqual([
      'DATABASE_READ_URL: must be a postgres:// connection string (got "mysql://db/doco")',
    ]);
    expect(problems({ DATABASE_URL: PRIMARY, DATABASE_READ_URL: REPLICA, DOCO_READ_MAX_LAG_MS: '5s' })).toEqual([
      'DOCO_READ_MAX_LAG_MS: must be a whole number of milliseconds (got "5s")',
    ]);
    expect(problems({ DATABASE_READ_URL: REPLICA })).toEqual(['DATABASE_READ_URL: needs DATABASE_URL, the primary it replicates']);
  });
});
