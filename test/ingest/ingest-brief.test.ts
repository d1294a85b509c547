// Ingested docs in the brief (POST /api/v1/brief): a section under docs/architecture/ is an
// architecture principle in the must-obey tier, any other section is background, each with the
// doc source and its {path, heading, section_key} pointer; a reaped section is gone from briefs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Brief, Item } from '../../src/brief/types.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { ingestTree, makeTree, removeTree, writeTree } from '../helpers/docs.js';
import { drainAll } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let root: string;
let app: ReturnType<typeof makeApp>;

const principle =
  'Every write that moves money carries an idempotency key derived from our own id, so a retried refund job can never pay twice. Keys are built by the payments package and never from a random UUID, because a retry would mint a new key and a second refund.';
const runbook =
  'When refund webhooks pile up, check the delivery worker first: a refund that times out is retried with backoff, and the queue drains on its own once the endpoint answers. Page the payments on-call only if the backlog keeps growing for an hour.';
const files = (withRunbook = true) => ({
  'docs/architecture/payments.md': `# Payments\n\n## Idempotent refunds\n\n${principle}`,
  'docs/runbooks/refunds.md': withRunbook
    ? `# Refund runbook\n\n## Stuck refund webhooks\n\n${runbook}\n\n## Refund reports\n\n${runbook.replace('webhooks pile up', 'reports lag')}`
    : `# Refund runbook\n\n## Refund reports\n\n${runbook.replace('webhooks pile up', 'reports lag')}`,
  'docs/onboarding.md': `# Onboarding\n\n## Laptops\n\n${'Laptops are ordered by the office team in the first week, with the standard image installed. '.repeat(3)}`,
  'docs/glossary.md': `# Glossary\n\n## Terms\n\n${'A settlement is the batch of card payments the processor pays out to us on one day. '.repeat(3)}`,
});

async function brief(about: string): Promise<Brief> {
  const res = await app.call('POST', '/api/v1/brief', ws.readToken, { about, since: '0m' });
  expect(res.status).toBe(200);
  return res.body as Brief;
}
const titled = (items: Item[], title: string) => items.find((i) => i.title === title);

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'doc-brief');
  app = makeApp(t);
  root = await makeTree(files());
  await ingestTree(t, ws, root);
  await drainAll(t.sql, app.deps);
});
afterAll(async () => {
  await t.drop();
  await removeTree(root);
});

describe('ingested docs in the brief', () => {
  it('puts an architecture principle in must obey, as a doc with its pointer', async () => {
    const b = await brief('make refunds retry safely without paying twice');
    const item = titled(b.tiers.must_obey, 'Payments — Idempotent refunds');
    expect(item).toMatchObject({
      node_type: 'reference',
      because: 'architecture principle',
      source: {
        kind: 'doc',
        pointer: {
          path: 'docs/architecture/payments.md',
          heading: 'Idempotent refunds',
          section_key: 'docs/architecture/payments.md#idempotent-refunds',
        },
      },
    });
    expect(titled(b.tiers.background, 'Payments — Idempotent refunds')).toBeUndefined();
  });

  it('puts any other doc section in background, never in must obey', async () => {
    const b = await brief('refund webhooks are stuck in the delivery worker');
    const item = titled(b.tiers.background, 'Refund runbook — Stuck refund webhooks');
    expect(item).toMatchObject({
      source: {
        kind: 'doc',
        pointer: {
          path: 'docs/runbooks/refunds.md',
          heading: 'Stuck refund webhooks',
          section_key: 'docs/runbooks/refunds.md#stuck-refund-webhooks',
        },
      },
    });
    expect(b.tiers.must_obey.some((i) => i.source.pointer.path === 'docs/runbooks/refunds.md')).toBe(false);
  });

  it('stops briefing a section once the reap retracted it', async () => {
    await writeTree(root, files(false));
    expect((await ingestTree(t, ws, root)).reap).toMatchObject({ outcome: 'reaped', count: 1 });
    await drainAll(t.sql, app.deps);
    const b = await brief('refund webhooks are stuck in the delivery worker');
    const all = Object.values(b.tiers).flat();
    expect(all.some((i) => i.title === 'Refund runbook — Stuck refund webhooks')).toBe(false);
    expect(all.some((i) => i.title === 'Refund runbook — Refund reports')).toBe(true);
  });
});
