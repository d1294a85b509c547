// The outbox__drain task tells the index keeper when a drain changed the embedded index, so the
// snapshot is saved: points embedded or removed, and orphan points its sweep removed (a clean
// stop's snapshot kept 129,600 points doco.chunks no longer had, a hostile review).
import { randomUUID } from 'node:crypto';
import type { JobHelpers } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordPendingPoints } from '../../src/indexing/pending-points.js';
import { outboxDrain } from '../../src/jobs/tasks.js';
import { makeLog } from '../../src/lib/log.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
const providers = localProviders();
const log = makeLog('silent');

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'drain-task');
});
afterAll(async () => t.drop());

describe('outbox__drain', () => {
  it('marks the index changed when its sweep removed orphan points, though nothing was embedded', async () => {
    await providers.store.init(providers.embedder.identity, providers.embedder.dimensions);
    const orphan = randomUUID();
    const [vector] = await providers.embedder.embed(['an orphan point'], 'document');
    const [node] = await t.sql<{ id: string }[]>`select id from doco.nodes where workspace_id = ${ws.id} limit 1`;
    await recordPendingPoints(t.sql, [{ id: orphan, nodeId: node!.id }], providers.embedder.identity);
    await providers.store.upsert([
      {
        id: orphan,
        tenant: ws.id,
        collectionId: 'c',
        nodeId: node!.id,
        nodeType: 'reference',
        shape: '',
        sourceKind: 'record',
        text: 'an orphan point',
        vector: vector!,
      },
    ]);
    const changed: number[] = [];
    const keeper = { changed: (seq: number) => void changed.push(seq), flush: async () => {} };
    const helpers = { logger: { info() {}, warn() {}, error() {}, debug() {} } } as unknown as JobHelpers;
    await outboxDrain({ sql: t.sql, log, ...providers, keeper })({}, helpers);
    expect(await providers.store.count()).toBe(0);
    expect(changed).toHaveLength(1);
  });
});
