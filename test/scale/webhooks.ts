// What the scale suite sends besides its clients' REST and MCP calls: GitHub and Slack webhook
// deliveries, each a new pull request or thread in the connector fakes, sent the way those
// services send them and sent again (same delivery id or event_id) after an error or no answer;
// a docs pack whose service changes it and registers again, waiting for each change to be
// ingested; sweeps of both connectors queued every few seconds, as their crontab does; and the
// check that no sweep walked a list's pages twice at once (test/scale/load.test.ts).
import type postgres from 'postgres';
import { packTextHash, type DocsPack } from '../../src/ingest/packs/format.js';
import type { FakeGithub } from '../helpers/fake-github.js';
import type { FakeSlack } from '../helpers/fake-slack.js';
import { delivery, INSTALLATION_ID } from '../helpers/github-app.js';
import { markdown, type PackService } from '../helpers/pack-service.js';
import { slackEvent } from '../helpers/slack-app.js';
import { DEADLINE_MS, failureDetail, prose, type Kind, type Ledger, type Phase, type Sample } from './clients.js';

export const REPO = 'octo-org/billing';
export const CHANNELS = ['C0SCALEA', 'C0SCALEB'];
export const PACK_CODE = 'scalepack';
/** Between two deliveries of one sender: GitHub and Slack send as things happen, not as fast as they can. */
const PACE_MS = 500;
/** A sender gives a delivery up after this long without a 2xx (the check then wants at most one record of it). */
const GIVE_UP_MS = 90_000;

/** One webhook delivery and what became of it: `acked` once an answer was 2xx. */
export interface SentDelivery {
  kind: 'github' | 'slack';
  id: string;
  /** The connector item it is about: `owner/repo#N` or `channel:ts`. */
  externalId: string;
  /** Starts the record's title: `scale-gh-N` or `scale-sl-N`. */
  marker: string;
  acked: boolean;
  attempts: number;
}

/** One version of the docs pack: registered (202) or not, and how long until its hash was the pack's. */
export interface PackChange {
  n: number;
  hash: string;
  phase: Phase;
  registered: boolean;
  ingestMs?: number;
}

export interface WebhookLedger {
  deliveries: SentDelivery[];
  packChanges: PackChange[];
  sweepsQueued: number;
  sweepsNotQueued: number;
}

interface SenderOpts {
  apiUrl: (api: number) => string;
  phase: () => Phase;
  stopped: () => boolean;
  ledger: Ledger;
  web: WebhookLedger;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Sends one request until it is answered 2xx, alternating API processes as a load balancer
 * would; every attempt is a sample. A 4xx other than 409 is not sent again (the suite fails on it).
 */
async function sendUntilAcked(
  o: SenderOpts,
  kind: Kind,
  first: number,
  request: (attempt: number) => { path: string; headers: Record<string, string>; body: string },
): Promise<{ acked: boolean; attempts: number }> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    const api = (first + attempt) % 2;
    const phase = o.phase();
    const at = new Date().toISOString();
    const t0 = performance.now();
    const req = request(attempt);
    let status: Sample['status'];
    try {
      const res = await fetch(`${o.apiUrl(api)}${req.path}`, {
        method: 'POST',
        headers: req.headers,
        body: req.body,
        signal: AbortSignal.timeout(DEADLINE_MS),
      });
      await res.text();
      status = res.status;
      o.ledger.samples.push({
        kind,
        phase,
        api,
        status,
        ms: performance.now() - t0,
        ...(status === 503 ? { retryAfter: res.headers.has('retry-after') } : {}),
      });
    } catch (err) {
      status = (err as Error).name === 'TimeoutError' ? 'timeout' : 'conn';
      o.ledger.samples.push({ kind, phase, api, status, ms: performance.now() - t0, detail: failureDetail(err), at });
    }
    if (typeof status === 'number' && status < 300) return { acked: true, attempts: attempt + 1 };
    if (typeof status === 'number' && status < 500 && status !== 409) return { acked: false, attempts: attempt + 1 };
    if (Date.now() - started > GIVE_UP_MS) return { acked: false, attempts: attempt + 1 };
    await sleep(status === 503 ? 1000 : 250);
  }
}

/** GitHub: each delivery a new PR opened in the fake (so its files can be read), `pull_request` opened. */
export async function runGithubSender(o: SenderOpts, gh: FakeGithub): Promise<void> {
  for (let n = 0; !o.stopped(); n++) {
    const number = 1000 + n;
    const pr = {
      number,
      title: `scale-gh-${number} ${prose(number, 6)}`,
      body: prose(number * 7, 30),
      state: 'open' as const,
      merged: false,
      updated_at: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
      head: { ref: `scale-${number}` },
      base: { ref: 'main' },
      files: [`app/scale/${number}.ts`],
    };
    gh.pulls.set(number, pr);
    await sendGithub(o, gh, pr.number, `scale-gh-${number}`, n);
    await sleep(PACE_MS);
  }
}

export async function sendGithub(o: SenderOpts, gh: FakeGithub, number: number, marker: string, first: number): Promise<SentDelivery> {
  const d = delivery('pull_request', {
    action: 'opened',
    number,
    pull_request: gh.pullJson(gh.pulls.get(number)!),
    repository: { full_name: REPO },
    installation: { id: INSTALLATION_ID },
  });
  const sent: SentDelivery = { kind: 'github', id: d.id, externalId: `${REPO}#${number}`, marker, acked: false, attempts: 0 };
  o.web.deliveries.push(sent);
  // GitHub's redelivery sends the same body under the same X-GitHub-Delivery.
  Object.assign(sent, await sendUntilAcked(o, 'github', first, () => ({ path: '/webhooks/github', headers: d.headers, body: d.body })));
  return sent;
}

/** Slack: each event a new top-level message posted in the fake first (so the sync reads the same one). */
export async function runSlackSender(o: SenderOpts, slack: FakeSlack): Promise<void> {
  for (let n = 0; !o.stopped(); n++) {
    const channel = CHANNELS[n % CHANNELS.length]!;
    const text = `scale-sl-${n} ${prose(n * 13 + 5, 12)}`;
    const ts = slack.post(channel, text, { user: 'U0SCALE' });
    const eventId = `Ev0SCALE${String(n).padStart(6, '0')}`;
    const sent: SentDelivery = {
      kind: 'slack',
      id: eventId,
      externalId: `${channel}:${ts}`,
      marker: `scale-sl-${n}`,
      acked: false,
      attempts: 0,
    };
    o.web.deliveries.push(sent);
    const event = { type: 'message', channel, channel_type: 'channel', user: 'U0SCALE', text, ts, event_ts: ts };
    // Slack retries with the same event_id, signed afresh, and says which retry it is.
    Object.assign(
      sent,
      await sendUntilAcked(o, 'slack', n, (attempt) => {
        const e = slackEvent(event, { eventId, ...(attempt ? { retryNum: attempt } : {}) });
        return { path: '/webhooks/slack/events', headers: e.headers, body: e.body };
      }),
    );
    await sleep(PACE_MS);
  }
}

/** The pack at its n-th version: one section rewritten and one section more per change (none removed: no reap). */
export function packVersion(n: number): DocsPack {
  const topics = ['rollout', ...Array.from({ length: n }, (_, i) => `change ${i + 1}`)];
  return {
    format: 1,
    code: PACK_CODE,
    files: [{ path: 'docs/scale.md', content: markdown('Scale pack', topics, { rollout: `version ${n} ` }) }],
  } as DocsPack;
}
export const packHashOf = (n: number) => packTextHash(PACK_CODE, JSON.stringify(packVersion(n)));

/** The pack's last ingested hash, or undefined while the primary is away. */
async function lastHash(sql: postgres.Sql): Promise<string | null | undefined> {
  try {
    const [row] = await sql<{ last_hash: string | null }[]>`select last_hash from doco.docs_packs where code = ${PACK_CODE}`;
    return row?.last_hash;
  } catch {
    return undefined;
  }
}

/**
 * The registering service: changes its pack, registers again (202; sent again on no answer or a
 * 503), and waits until the pack's hash is the new one before the next change, so that each
 * change is one ingest to count afterwards.
 */
export async function runPackChanger(o: SenderOpts & { token: string; sql: postgres.Sql; svc: PackService; from: number }): Promise<void> {
  for (let n = o.from; !o.stopped(); n++) {
    o.svc.pack = packVersion(n);
    const change: PackChange = { n, hash: packHashOf(n), phase: o.phase(), registered: false };
    o.web.packChanges.push(change);
    const body = JSON.stringify({ code: PACK_CODE, base_url: o.svc.baseUrl });
    const headers = { authorization: `Bearer ${o.token}`, 'content-type': 'application/json' };
    const sent = await sendUntilAcked(o, 'pack', n, () => ({ path: '/api/v1/system/docs/packs', headers, body }));
    change.registered = sent.acked;
    if (!sent.acked) return;
    const t0 = performance.now();
    // Timed when a read sees the hash: a second read could fail, the primary stopping just then.
    while (!o.stopped()) {
      if ((await lastHash(o.sql)) === change.hash) {
        change.ingestMs = performance.now() - t0;
        break;
      }
      await sleep(200);
    }
    if (change.ingestMs === undefined) return;
  }
}

/** Queues a sweep of each connector kind every `everyMs`, as their crontab entries do (same job key, so never two waiting). */
export async function runSweepDriver(o: { stopped: () => boolean; sql: postgres.Sql; web: WebhookLedger }, everyMs: number) {
  while (!o.stopped()) {
    await sleep(everyMs);
    for (const kind of ['github', 'slack']) {
      try {
        await o.sql`select graphile_worker.add_job('connectors__sweep', ${o.sql.json({ kind })}::json,
          job_key := ${`connectors__sweep:${kind}`}, job_key_mode := 'preserve_run_at', max_attempts := 1)`;
        o.web.sweepsQueued++;
      } catch {
        o.web.sweepsNotQueued++; // the primary away
      }
    }
  }
}

/**
 * Pages asked out of turn: a page after the first of a list must follow the page before it, as
 * the last request for that list. Two sweeps walking one list at once (p1 p1 p2 p2), or one
 * walk asking a page twice, break it; a later sweep walking the list again from its first page
 * does not. Returns the faults and how many walks, and walks of more than one page, were seen.
 */
export function pageWalkFaults(requests: { key: string; page: number; next: number }[]): {
  faults: string[];
  walks: number;
  multiPage: number;
} {
  const last = new Map<string, { page: number; next: number }>();
  const faults: string[] = [];
  let walks = 0;
  let multiPage = 0;
  requests.forEach((r, i) => {
    const before = last.get(r.key);
    if (r.page === 1) walks++;
    else if (!before || before.next !== r.page)
      faults.push(`#${i} ${r.key} page ${r.page} after ${before ? `page ${before.page}` : 'nothing'}`);
    else if (r.page === 2) multiPage++;
    last.set(r.key, r);
  });
  return { faults, walks, multiPage };
}

/** The GitHub fake's list requests as pages: `page` counts from 1. */
export function githubPages(gh: FakeGithub) {
  return gh.requests
    .filter((r) => r.method === 'GET')
    .map((r) => {
      const url = new URL(r.path, 'http://fake');
      const page = Number(url.searchParams.get('page') ?? '1');
      return { key: url.pathname, page, next: page + 1 };
    });
}

/** The Slack fake's list requests as pages: the opaque cursor is an offset, and a page holds `limit` (capped) items. */
export function slackPages(slack: FakeSlack) {
  return slack.requests
    .filter((r) => r.method.startsWith('conversations.'))
    .map((r) => {
      const offset = r.params.cursor ? Number(Buffer.from(r.params.cursor, 'base64').toString().slice('offset:'.length)) : 0;
      const size = Math.min(slack.maxPageSize, Number(r.params.limit ?? 100));
      return {
        key: `${r.method} ${r.params.channel ?? ''} ${r.params.ts ?? ''}`,
        page: offset / size + 1,
        next: offset / size + 2,
      };
    });
}
