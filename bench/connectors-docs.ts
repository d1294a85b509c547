// The connectors benchmark, Notion and Drive part (docs/connectors.md), on an embedded Postgres: the first
// sync of 2,000 Notion pages and of 2,000 Drive files from the loopback fakes (time, requests,
// requests per second), then an idle tick of each (time, requests, rows written: aim ≤ 1 s, 0).
//
// Pacing: Notion's client is paced at NOTION_REQUESTS_PER_SECOND (3 in production). Here it
// defaults to 1000 so the first sync does not take 20 minutes; the figure at the real pacing is
// computed from the request count (requests / 3), and a short sample is measured at the real 3/s
// pacer to show the pacer holds it. Set NOTION_REQUESTS_PER_SECOND=3 to measure the whole sync
// paced. BENCH_DOCS_ITEMS changes the 2,000.
import type { ConnectorDeps } from '../src/connectors/kind.js';
import { DriveClient } from '../src/connectors/drive/client.js';
import { parseServiceAccount } from '../src/connectors/drive/service-account.js';
import { NotionClient, NOTION_REQUESTS_PER_SECOND } from '../src/connectors/notion/client.js';
import { parseAddConnector } from '../src/connectors/registry.js';
import { sweepConnectors } from '../src/connectors/run.js';
import { addConnector } from '../src/connectors/store.js';
import { makeLog } from '../src/lib/log.js';
import { FakeDrive, FOLDER_MIME, GOOGLE_DOC, serviceAccountKey } from '../test/helpers/fake-drive.js';
import { block, FakeNotion, para, text } from '../test/helpers/fake-notion.js';
import { startBenchCluster, type BenchCluster } from './harness.js';
import { round, timeIt } from './stats.js';

const ITEMS = Number(process.env.BENCH_DOCS_ITEMS ?? 2_000);
const BENCH_RPS = Number(process.env.NOTION_REQUESTS_PER_SECOND ?? 1000);
const PACED_SAMPLE = 15;

/** Rows a sync writes; an idle tick must leave every one as it was. */
async function writes(db: BenchCluster) {
  const [row] = await db.sql<{ v: string }[]>`
    select concat_ws('/', (select count(*) from doco.changesets), (select count(*) from doco.node_versions),
      (select max(updated_at) from doco.connector_items), (select max(updated_at) from doco.connector_state)) as v`;
  return row!.v;
}

async function sync(db: BenchCluster, deps: ConnectorDeps, connectorId: string) {
  const [ms, [outcome]] = await timeIt(() => sweepConnectors(deps, { connectorId }));
  if (!outcome?.ok) throw new Error(`sync failed: ${outcome?.error}`);
  return { ms, outcome };
}

async function notionFigures(db: BenchCluster, log: (line: string) => void): Promise<Record<string, number>> {
  const fake = new FakeNotion();
  const origin = await fake.start();
  try {
    for (let i = 0; i < ITEMS; i++) {
      if (i % 50 === 0) fake.clock += 60_000;
      fake.addPage({
        title: `Runbook ${i}`,
        blocks: [
          block('heading_2', { rich_text: [text(`Service ${i % 40}`)] }),
          para(`How to operate part ${i} of the billing platform; see services/billing/part${i % 50}/handler.ts.`),
          block('toggle', { rich_text: [text('Details')] }, [
            para('Escalate to the payments lead after 15 minutes.'),
            block('to_do', { rich_text: [text('check the ledger')], checked: false }),
          ]),
        ],
      });
    }
    const notion = new NotionClient({ apiUrl: origin, token: fake.token, requestsPerSecond: BENCH_RPS });
    const deps: ConnectorDeps = { sql: db.sql, db: db.db, log: makeLog('warn'), notion };
    const connector = await addConnector(db.sql, db.workspaceId, parseAddConnector({ kind: 'notion' }));
    const first = await sync(db, deps, connector.id);
    const requests = notion.requests;
    const atRealPace = Math.max(first.ms / 1000, requests / NOTION_REQUESTS_PER_SECOND);
    log(
      `notion first sync: ${first.outcome.report!.items.created} pages from ${requests} requests in ${(first.ms / 1000).toFixed(1)} s (${(requests / (first.ms / 1000)).toFixed(1)} req/s paced at ${BENCH_RPS}/s); at the real 3 req/s: ${atRealPace.toFixed(0)} s`,
    );

    const before = await writes(db);
    notion.requests = 0;
    const idle = await sync(db, deps, connector.id);
    const idleRequests = notion.requests;
    const idleWrites = (await writes(db)) === before ? 0 : 1;
    log(`notion idle tick: ${idleRequests} request(s) in ${idle.ms.toFixed(0)} ms, ${idleWrites ? 'WROTE ROWS' : 'no rows written'}`);

    // The real pacer, measured on a short run of requests.
    const paced = new NotionClient({ apiUrl: origin, token: fake.token });
    const [sampleMs] = await timeIt(async () => {
      for (let i = 0; i < PACED_SAMPLE; i++) await paced.search();
    });
    const pacedRps = (PACED_SAMPLE - 1) / (sampleMs / 1000); // n turns span n − 1 intervals
    log(`notion pacer at the real setting: ${PACED_SAMPLE} requests in ${(sampleMs / 1000).toFixed(2)} s = ${pacedRps.toFixed(2)} req/s`);
    return {
      notion_first_sync_pages: first.outcome.report!.items.created,
      notion_first_sync_s: round(first.ms / 1000),
      notion_first_sync_requests: requests,
      notion_first_sync_req_per_s: round(requests / (first.ms / 1000), 1),
      notion_bench_pacer_req_per_s: BENCH_RPS,
      notion_first_sync_at_3rps_s: round(atRealPace, 0),
      notion_paced_sample_req_per_s: round(pacedRps, 2),
      notion_idle_tick_ms: round(idle.ms, 0),
      notion_idle_tick_requests: idleRequests,
      notion_idle_tick_writes: idleWrites,
    };
  } finally {
    await fake.stop();
  }
}

async function driveFigures(db: BenchCluster, log: (line: string) => void): Promise<Record<string, number>> {
  const key = serviceAccountKey();
  const fake = new FakeDrive(key);
  const origin = await fake.start();
  try {
    fake.add({ id: 'folderBench01', name: 'Specs', mimeType: FOLDER_MIME, parents: ['root'] });
    for (let i = 0; i < ITEMS; i++) {
      const doc = i % 4 !== 0;
      fake.add({
        name: doc ? `Design ${i}` : `notes-${i}.md`,
        mimeType: doc ? GOOGLE_DOC : 'text/markdown',
        parents: ['folderBench01'],
        content: `# Design ${i}\n\nPart ${i} of billing lives in services/billing/part${i % 50}/handler.ts. `.repeat(3),
      });
    }
    const drive = new DriveClient({
      apiUrl: origin,
      tokenUrl: fake.tokenUrl,
      auth: { serviceAccount: parseServiceAccount(key.json, 'bench key') },
    });
    const deps: ConnectorDeps = { sql: db.sql, db: db.db, log: makeLog('warn'), drive };
    const connector = await addConnector(db.sql, db.workspaceId, parseAddConnector({ kind: 'drive', folders: ['folderBench01'] }));
    const first = await sync(db, deps, connector.id);
    const requests = drive.requests;
    log(
      `drive first sync: ${first.outcome.report!.items.created} files from ${requests} requests in ${(first.ms / 1000).toFixed(1)} s (${(requests / (first.ms / 1000)).toFixed(1)} req/s)`,
    );

    const before = await writes(db);
    drive.requests = 0;
    const idle = await sync(db, deps, connector.id);
    const idleWrites = (await writes(db)) === before ? 0 : 1;
    log(`drive idle job: ${drive.requests} request(s) in ${idle.ms.toFixed(0)} ms, ${idleWrites ? 'WROTE ROWS' : 'no rows written'}`);
    return {
      drive_first_sync_files: first.outcome.report!.items.created,
      drive_first_sync_s: round(first.ms / 1000),
      drive_first_sync_requests: requests,
      drive_first_sync_req_per_s: round(requests / (first.ms / 1000), 1),
      drive_idle_job_ms: round(idle.ms, 0),
      drive_idle_job_requests: drive.requests,
      drive_idle_job_writes: idleWrites,
    };
  } finally {
    await fake.stop();
  }
}

/** `only`: the kinds to run (notion, drive). */
export async function docsConnectorFigures(log: (line: string) => void, only: Set<string>): Promise<Record<string, number>> {
  if (!only.has('notion') && !only.has('drive')) return {};
  const db = await startBenchCluster();
  try {
    return { ...(only.has('notion') ? await notionFigures(db, log) : {}), ...(only.has('drive') ? await driveFigures(db, log) : {}) };
  } finally {
    await db.stop();
  }
}
