// ensurePrincipal against a real database: a name the principal rule refuses (src/auth/principal-name.ts)
// is validation_failed in the API's error shape, never a database check's error, and writes
// nothing; the names Doco's own writers use, an agent's and a person's are made once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePrincipal } from '../../src/auth/workspaces.js';
import { AppError } from '../../src/errors.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { expectNoWrite } from '../helpers/expect-error.js';

let t: TestDb;
let ws: TestWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'principals');
});
afterAll(async () => t.drop());

describe('ensurePrincipal', () => {
  const AGENT = 'must name the agent after "agent:" (agent:<agent>@<checkout>)';
  it.each([
    ['', 'must not be blank'],
    ['   ', 'must not be blank'],
    [' cli:ana', 'must not begin or end with white space'],
    ['cli:ana\n', 'must not hold control characters'],
    ['agent:', AGENT],
    ['agent:   ', 'must not begin or end with white space'],
    ['agent: codex', AGENT],
    [`cli:${'x'.repeat(400)}`, 'must be at most 300 characters'],
  ])('refuses %j: validation_failed, and nothing written', async (name, why) => {
    const err = await expectNoWrite(t, () =>
      ensurePrincipal(t.db, ws.id, name, 'cli').then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).toBody()).toEqual({
      error: { code: 'validation_failed', message: `principal is invalid: ${why}`, details: { issues: [{ path: '', message: why }] } },
    });
  });

  it("makes Doco's own writers, an agent and a person once each, a name of 300 characters too", async () => {
    for (const name of ['docs-ingest', 'docs-packs', 'github', 'slack', 'agent:claude-code@shop', 'cli:ana', `cli:${'é'.repeat(296)}`]) {
      const id = await ensurePrincipal(t.db, ws.id, name, 'cli');
      expect(await ensurePrincipal(t.db, ws.id, name.toUpperCase(), 'cli')).toBe(id);
    }
  });
});
