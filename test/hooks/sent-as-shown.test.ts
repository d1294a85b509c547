// A session remembers as held only what reached it whole: an order whose line at session start is
// the start of a longer text, or an item the 8,000-character cut took, comes again in the first
// brief it is relevant to. Marked before the cut and by line, a rule's second paragraph ("without a
// second approver") never reached the session, and 34 cut orders were "unchanged since the last
// brief" (a hostile review).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { drainAll, localProviders } from '../helpers/search.js';
import { hookSession } from '../helpers/hook-session.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const providers = localProviders();
let approver = '';

// Set in beforeAll, once the app is made.
let post: ReturnType<typeof hookSession>['post'];
let start: ReturnType<typeof hookSession>['start'];
let prompt: ReturnType<typeof hookSession>['prompt'];
const held = async (session: string) =>
  (await t.sql<{ node_id: string }[]>`select node_id from doco.hook_sent where session_id = ${session}`).map((r) => r.node_id);

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'sent-as-shown');
  api = makeApp(t, undefined, providers);
  ({ post, start, prompt } = hookSession(api, ws));
  await post('/collections', { slug: 'payments', template: 'engineering-conventions', goal: 'How payments code is written' });
  approver = (
    await post('/capture', {
      collection: 'payments',
      node_type: 'rule',
      title: 'Refund handling',
      prose: 'Applies to the refunds service.\n\nNever issue a refund over 500 EUR without a second approver signing it off.',
    })
  ).node.id;
  await drainAll(t.sql, providers);
});
afterAll(async () => t.drop());

describe('what a session holds', () => {
  it("a rule whose line is only its text's start is sent in full by the first brief it is relevant to", async () => {
    const s = await start('s-1');
    expect(s).toContain(`${approver}  Refund handling — Applies to the refunds service.`);
    expect(s).not.toContain('second approver');
    expect(await held('s-1')).not.toContain(approver);
    const b = await prompt('s-1', 'May I issue a refund over 500 EUR?');
    expect(b).toContain('second approver');
    expect(await held('s-1')).toContain(approver);
  });

  it('orders the 8,000-character cut took are not held, and those it left in are', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 60; i++)
      ids.push(
        (
          await post('/capture', {
            collection: 'constitution',
            node_type: 'rule',
            title: `Constitution rule ${i} on ledgers, with a title long enough to fill the line`,
            prose: `Ledger rule ${i}: every ledger entry is written once and never edited afterwards.`,
          })
        ).node.id,
      );
    const s = await start('s-2');
    expect(s).toMatch(/cut to fit the hook's size/);
    const shown = ids.filter((id) => s.includes(id));
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(ids.length);
    const kept = await held('s-2');
    for (const id of shown) expect(kept).toContain(id);
    for (const id of ids.filter((i) => !shown.includes(i))) expect(kept).not.toContain(id);
  });
});
