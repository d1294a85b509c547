// A long section there because it names the file the work touches sends the passage naming it
// (src/brief/budget.ts, the anchor): the agent reads what the docs say of that file, not the
// section's opening, even where the opening holds more of the ask's words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Brief } from '../../src/brief/types.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { docSection, writer } from '../helpers/brief-docs.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { drainAll, localProviders } from '../helpers/search.js';

const FILE = 'services/billing/refunds.go';
const NAMED = `Partial refunds are computed in ${FILE}, which rounds each line down.`;
let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
let long: string;
const providers = localProviders();

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'touch-anchor');
  api = makeApp(t, undefined, providers);
  const post = writer(api, () => ws);
  await post('/collections', { slug: 'docs', template: 'documentation', goal: 'The billing documentation' });
  const about = (n: number, tag: string) =>
    Array.from(
      { length: n },
      (_, i) => `Refund ${tag}${i}: the billing services send a refund back to the card that paid, once approved.`,
    ).join(' ');
  long = (await post('/capture', docSection('docs/billing/refunds.md', 'Refunds', `${about(12, 'a')} ${NAMED} ${about(8, 'b')}`))).node.id;
  await drainAll(t.sql, providers);
});
afterAll(async () => t.drop());

describe('a long section there for the touched file', () => {
  it('sends the passage naming the file; asked without the file, its opening', async () => {
    const ask = async (touching: string[]) => {
      const res = await api.call('POST', '/api/v1/brief', ws.readToken, { about: 'refund to the card that paid', touching, budget: 1500 });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return Object.values((res.body as Brief).tiers)
        .flat()
        .find((i) => i.id === long)!;
    };
    const without = await ask([]);
    expect(without.expanded).toBe(true);
    expect(without.text).not.toContain(FILE);
    const touched = await ask([FILE]);
    expect(touched).toMatchObject({ expanded: true, because: `touches ${FILE}` });
    expect(touched.text).toContain(NAMED);
  });
});

describe('a References section there for the touched file', () => {
  it('shows the definitions naming the file, where it would show its title alone', async () => {
    const post = writer(api, () => ws);
    const refs = (
      await post(
        '/capture',
        docSection(
          'docs/rfc/rfc-009.md',
          'References',
          `[refund-rules]: https://github.com/acme/ledger/blob/8fb8615/${FILE}#L40\n[stripe]: https://stripe.com/docs/refunds\n`,
        ),
      )
    ).node.id;
    await drainAll(t.sql, providers);
    const res = await api.call('POST', '/api/v1/brief', ws.readToken, {
      about: 'where partial refunds are rounded',
      touching: [FILE],
      budget: 1500,
    });
    const item = Object.values((res.body as Brief).tiers)
      .flat()
      .find((i) => i.id === refs)!;
    expect(item.because).toBe(`touches ${FILE}`);
    expect(item.text).toBe(`[refund-rules]: https://github.com/acme/ledger/blob/8fb8615/${FILE}#L40`);
  });
});
