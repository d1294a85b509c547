// The environment's HTTP endpoints (DOCO_URL, the hosted APIs' base URLs, the model servers'):
// an http(s) URL holding no user or password. A refusal quotes the value with its credential left
// out.
import { describe, expect, it } from 'vitest';
import { configProblems as problems } from '../helpers/config.js';

describe('URL variables', () => {
  it('refuse another scheme and a user or password, never quoting the password', () => {
    expect(problems({ DOCO_URL: 'ftp://127.0.0.1:1' })).toEqual(['DOCO_URL: must be an http:// or https:// URL (got "ftp://127.0.0.1:1")']);
    expect(problems({ DOCO_URL: 'http://ana:hunter2@127.0.0.1:8787' })).toEqual([
      'DOCO_URL: must hold no user or password (give a credential its own variable) (got "http://…@127.0.0.1:8787")',
    ]);
    expect(problems({ QDRANT_URL: 'https://:key-in-url@qdrant.internal:6333' })).toEqual([
      'QDRANT_URL: must hold no user or password (give a credential its own variable) (got "https://…@qdrant.internal:6333")',
    ]);
    expect(problems({ DOCO_URL: 'http://127.0.0.1:8787', GITHUB_API_URL: 'https://ghe.example/api/v3' })).toEqual([]);
  });

  it('quote a connection string without its password', () => {
    const [dbProblem] = problems({ DATABASE_URL: 'mysql://doco:s3cret@db/doco' });
    expect(dbProblem).toBe('DATABASE_URL: must be a postgres:// connection string (got "mysql://…@db/doco")');
    for (const line of problems({ DOCO_PORT: 'eighty', GITHUB_WEBHOOK_SECRET: '', DATABASE_URL: 'mysql://doco:s3cret@db/doco' }))
      expect(line).not.toContain('s3cret');
  });
});
