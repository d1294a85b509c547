// The CLI's retrieval commands through the built `doco` binary: `brief`, `search` and `reindex`
// first with no server (the command owns the embedded index: it drains the outbox, answers and
// saves the snapshot), then with `doco serve` up (they ask the server; reindex only queues).
// Every process runs on this file's database in the test cluster (DATABASE_URL), so no call boots
// an embedded Postgres of its own (test/cli/serve.test.ts covers that); the test reads the
// database directly.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Brief, Item } from '../../src/brief/types.js';
import { DOCO_BIN, LOCAL_ONLY, runDoco } from '../helpers/cli.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { readSavedIndex } from '../helpers/index-snapshot.js';

const TOUCH = 'app/routes/billing.tsx';
const ASK = 'Add partial refunds to the billing page';
const RECEIPT = /^\[🔮 Doco\] briefed: \d+ items, \d+ held back · searched [\d.]+[KMB]? tokens, sent [\d.]+[KMB]? \([\d.]+s\)$/;
const CLI_PRINCIPAL = `cli:${os.userInfo().username}`;
const SLOW = 120_000;

let home: string;
let t: TestDb;
let env: NodeJS.ProcessEnv;
const ids: Record<string, string> = {};

const doco = async (args: string[], extra: NodeJS.ProcessEnv = {}) => {
  const res = await runDoco(args, { env: { ...env, ...extra }, timeoutMs: 60_000 });
  expect(res.code, `doco ${args.join(' ')}: ${res.stderr}`).toBe(0);
  return res.stdout;
};
/** A record written over the running server's REST API with a fresh write token of the CLI user. */
const captureOverRest = async (baseUrl: string, body: Record<string, unknown>) => {
  const write = (await doco(['token', 'create', '--scope', 'write'])).trim();
  const res = await fetch(`${baseUrl}/api/v1/capture`, {
    method: 'POST',
    headers: { authorization: `Bearer ${write}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { changeset_id: string; node: { id: string } };
};
/** The query's one value, as text (psql -At prints it so). */
const psql = async (query: string) => {
  const rows = await t.sql.unsafe(query);
  const value = rows[0] ? Object.values(rows[0])[0] : undefined;
  return value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
};
const count = async (query: string) => Number(await psql(query));
const principalId = (name: string) => psql(`select id from doco.nodes where node_type = 'principal' and title = '${name}'`);
const liveRecords = () => count(`select count(*) from doco.nodes where lifecycle <> 'retired' and node_type <> 'principal'`);
const savedIndex = async () => {
  const saved = await readSavedIndex(home);
  expect(saved, 'the embedded index snapshot').toBeDefined();
  return saved!;
};
const capture = async (args: string[]) => JSON.parse(await doco(['capture', ...args])).node.id as string;

beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'doco-cli-search-'));
  await chmod(home, 0o755);
  t = await createTestDb();
  env = {
    DOCO_HOME: home,
    DATABASE_URL: t.url,
    ...LOCAL_ONLY,
    DOCO_WORKSPACE: '',
    DOCO_LOG_LEVEL: 'info',
  };
});

let server: ChildProcess | undefined;
let serverLog = '';
afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGINT');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 20_000))]);
    if (server.exitCode === null) server.kill('SIGKILL');
  }
  await t.drop();
  await rm(home, { recursive: true, force: true });
}, 60_000);

describe('with no server running', () => {
  it(
    'doco brief indexes the outbox first, prints the plain-text brief and saves the index snapshot',
    async () => {
      await doco(['collection', 'create', '--slug', 'billing', '--template', 'product-decisions', '--goal', 'How billing works']);
      ids.rule = await capture([
        '--collection',
        'constitution',
        '--type',
        'rule',
        '--title',
        'Refunds over $500 need an owner',
        '--prose',
        'Any refund over $500 needs the approval of an account owner.',
      ]);
      ids.decision = await capture([
        '--collection',
        'billing',
        '--type',
        'decision',
        '--title',
        'Refunds go to the paying card',
        '--prose',
        `Refunds go back to the card that paid, never as store credit. See ${TOUCH}.`,
      ]);
      ids.idea = await capture([
        '--collection',
        'billing',
        '--type',
        'idea',
        '--title',
        'Refund receipts by email',
        '--prose',
        'Email a receipt for every refund.',
      ]);
      const captured = `'${ids.rule}', '${ids.decision}', '${ids.idea}'`;
      expect(await count(`select count(distinct node_id) from doco.outbox where node_id in (${captured})`)).toBe(3);
      expect(await count(`select count(*) from doco.chunks`)).toBe(0);
      expect(existsSync(path.join(home, 'index'))).toBe(false);

      const out = await doco(['brief', ASK, '--touching', TOUCH]);
      const lines = out.trimEnd().split('\n');
      expect(lines).toContain('Must obey');
      expect(lines).toContain('Already decided');
      const ruleAt = lines.findIndex((l) => l.startsWith(`  ${ids.rule}  Refunds over $500 need an owner`));
      expect(lines[ruleAt + 1]).toBe('    because: standing rule');
      const decisionAt = lines.findIndex((l) => l.startsWith(`  ${ids.decision}  `));
      expect(decisionAt).toBeGreaterThan(lines.indexOf('Already decided'));
      expect(lines[decisionAt + 1]).toBe(`    because: touches ${TOUCH}`);
      expect(lines.at(-1)).toMatch(RECEIPT);

      // The command drained the outbox into the index before answering, and saved the snapshot.
      expect(await count(`select count(*) from doco.outbox`)).toBe(0);
      expect(await count(`select count(distinct node_id) from doco.chunks where node_id in (${captured}) and content_hash <> ''`)).toBe(3);
      const chunks = await count(`select count(*) from doco.chunks`);
      const saved = await savedIndex();
      expect(saved.points.size).toBe(chunks);
      expect(saved.watermark).toBe(await count(`select max(seq) from doco.chunks`));
      expect([...saved.points.values()]).toEqual(expect.arrayContaining([ids.rule, ids.decision, ids.idea]));

      // Stored as the CLI's principal, with the receipt the command printed.
      const [principal, receipt] = (
        await psql(`select principal_id || '|' || receipt from doco.briefs order by created_at desc limit 1`)
      ).split('|');
      expect(principal).toBe(await principalId(CLI_PRINCIPAL));
      expect(receipt).toBe(lines.at(-1));
    },
    SLOW,
  );

  it(
    'doco brief --json prints the brief JSON, as stored',
    async () => {
      const brief: Brief = JSON.parse(await doco(['brief', ASK, '--touching', TOUCH, '--budget', '2000', '--json']));
      expect(brief).toMatchObject({ about: ASK, touching: [TOUCH], budget: 2000, since: '7d', warnings: [] });
      expect(brief.brief_id).toMatch(/^brief_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(Object.keys(brief.tiers)).toEqual(['must_obey', 'already_decided', 'in_motion', 'background']);
      expect(brief.tiers.must_obey.find((i) => i.id === ids.rule)?.because).toBe('standing rule');
      expect(brief.tiers.already_decided.find((i) => i.id === ids.decision)).toMatchObject({
        node_type: 'decision',
        collection: 'billing',
        because: `touches ${TOUCH}`,
      });
      expect(brief.receipt).toMatch(RECEIPT);
      // Stored as sent: the response deflated (RFC 1951), its receipt and the ids it sent as columns.
      const [stored] = await t.sql<{ response_deflated: Buffer; receipt: string; item_ids: string[] }[]>`
        select response_deflated, receipt, item_ids from doco.briefs where id = ${brief.brief_id}`;
      expect(JSON.parse(inflateRawSync(stored!.response_deflated).toString('utf8'))).toEqual(brief);
      expect(stored).toMatchObject({
        receipt: brief.receipt,
        item_ids: [...Object.values(brief.tiers).flat(), ...brief.proposed].map((i) => i.id),
      });
    },
    SLOW,
  );

  it(
    'doco search returns the records, as JSON and as text, filtered by type',
    async () => {
      const { results } = JSON.parse(await doco(['search', 'refund', '--json'])) as { results: Item[] };
      expect(results.map((r) => r.id)).toEqual(expect.arrayContaining([ids.rule, ids.decision, ids.idea]));
      // Only the rule is about approval: the other two score far below it, under search's floor.
      const approval = JSON.parse(await doco(['search', 'refund approval', '--json'])).results as Item[];
      expect(approval).toMatchObject([{ id: ids.rule, because: "matched 'refund', 'approval'" }]);
      const rules = JSON.parse(await doco(['search', 'refund approval', '--type', 'rule', '--json'])).results as Item[];
      expect(rules.map((r) => r.id)).toEqual([ids.rule]);
      const text = await doco(['search', 'refund approval', '--limit', '1']);
      expect(text.split('\n')[0]).toBe(`${ids.rule}  Refunds over $500 need an owner`);
    },
    SLOW,
  );

  it(
    'doco reindex re-embeds every live record and saves the snapshot again',
    async () => {
      const hashes = await psql(
        `select string_agg(node_id || ':' || ordinal || ':' || content_hash, ',' order by node_id, ordinal) from doco.chunks`,
      );
      const chunks = await count(`select count(*) from doco.chunks`);
      const lastSeq = await count(`select max(seq) from doco.chunks`);
      const live = await liveRecords();
      expect(live).toBe(3);

      const out = await doco(['reindex']);
      const m = /^re-indexed (\d+) record\(s\): (\d+) chunk\(s\) embedded, 0 removed, 0 failed, in [\d.]+ s$/.exec(out.trim());
      expect(m, out).not.toBeNull();
      expect(Number(m![1])).toBe(live);
      expect(Number(m![2])).toBe(chunks);

      // Every chunk was written again (new seq), with the same, non-empty content hash.
      expect(await count(`select count(*) from doco.chunks where content_hash = ''`)).toBe(0);
      expect(await count(`select min(seq) from doco.chunks`)).toBeGreaterThan(lastSeq);
      expect(
        await psql(`select string_agg(node_id || ':' || ordinal || ':' || content_hash, ',' order by node_id, ordinal) from doco.chunks`),
      ).toBe(hashes);
      expect(await count(`select count(*) from doco.outbox`)).toBe(0);
      expect((await savedIndex()).watermark).toBe(await count(`select max(seq) from doco.chunks`));
    },
    SLOW,
  );
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Polls `probe` until it returns true or `ms` pass; returns its last answer. */
async function eventually(probe: () => Promise<boolean>, ms = 30_000): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('with doco serve running', () => {
  let baseUrl: string;
  const get = async (route: string, token: string) => {
    const res = await fetch(`${baseUrl}${route}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, [DOCO_BIN, 'serve'], {
      env: { ...process.env, ...env, DOCO_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (d) => (serverLog += d));
    server.stderr!.on('data', (d) => (serverLog += d));
    const up = await eventually(async () => /serving REST/.test(serverLog) || server!.exitCode !== null, 60_000);
    expect(up && server.exitCode === null, serverLog).toBe(true);
  }, SLOW);

  it(
    'doco brief and doco search ask the server, with the token of the CLI principal',
    async () => {
      const tokenFile = path.join(home, 'cli-token-default.json');
      expect(existsSync(tokenFile)).toBe(false); // the in-process runs above never needed one
      const brief: Brief = JSON.parse(await doco(['brief', ASK, '--touching', TOUCH, '--json']));
      expect(brief.tiers.already_decided.find((i) => i.id === ids.decision)?.because).toBe(`touches ${TOUCH}`);
      expect(await psql(`select principal_id from doco.briefs where id = '${brief.brief_id}'`)).toBe(await principalId(CLI_PRINCIPAL));
      // The CLI minted a read token for its principal, and the server stored what it answered.
      const { token } = JSON.parse(await readFile(tokenFile, 'utf8')) as { token: string };
      expect(await get(`/api/v1/briefs/${brief.brief_id}`, token)).toEqual({ status: 200, body: brief });

      // With DOCO_TOKEN the brief is the token's principal's: only the server could know it.
      const probe = (await doco(['token', 'create', '--scope', 'read', '--principal', 'probe-agent'])).trim();
      const probed: Brief = JSON.parse(await doco(['brief', ASK, '--json'], { DOCO_TOKEN: probe }));
      expect(await psql(`select principal_id from doco.briefs where id = '${probed.brief_id}'`)).toBe(await principalId('probe-agent'));

      const { results } = JSON.parse(await doco(['search', 'refund', '--json'])) as { results: Item[] };
      expect(results.map((r) => r.id)).toEqual(expect.arrayContaining([ids.rule, ids.decision, ids.idea]));
      for (const cmd of [
        ['search', 'refund approval'],
        ['brief', ASK],
      ]) {
        const refused = await runDoco(cmd, { env: { ...env, DOCO_TOKEN: 'doco_not_a_token' } });
        expect(refused.code).toBe(1);
        expect(JSON.parse(refused.stderr).error.code).toBe('unauthorized');
      }
    },
    SLOW,
  );

  it(
    'a record captured over REST is found by doco search within seconds, with no manual drain',
    async () => {
      const {
        node: { id },
      } = await captureOverRest(baseUrl, {
        collection: 'billing',
        node_type: 'decision',
        title: 'Zeppelin hangar moratorium',
        prose: 'No zeppelin docks at the hangar during the moratorium.',
      });
      // Misspelt: Postgres full text cannot match it, so only the vector index can find the record.
      const ask = 'zepelinn hangarr moratorum';
      expect(
        await count(`select count(*) from doco.nodes where search_tsv @@ to_tsquery('english', 'zepelinn | hangarr | moratorum')`),
      ).toBe(0);
      const found = await eventually(async () => {
        const { results } = JSON.parse(await doco(['search', ask, '--limit', '50', '--json'])) as { results: Item[] };
        return results.some((r) => r.id === id);
      });
      expect(found, serverLog).toBe(true);
      expect(await count(`select count(*) from doco.chunks where node_id = '${id}'`)).toBeGreaterThan(0);
    },
    SLOW,
  );

  it(
    "--after-changeset names the caller's own write to the server; an unknown or malformed one is refused",
    async () => {
      const { changeset_id: changeset, node } = await captureOverRest(baseUrl, {
        collection: 'billing',
        node_type: 'decision',
        title: 'Quokka ledger freeze',
        prose: 'The quokka ledger is frozen at month end.',
      });
      const brief: Brief = JSON.parse(await doco(['brief', 'quokka ledger freeze', '--after-changeset', changeset, '--json']));
      expect(
        Object.values(brief.tiers)
          .flat()
          .map((i) => i.id),
      ).toContain(node.id);
      const { results } = JSON.parse(await doco(['search', 'quokka ledger', '--after-changeset', changeset, '--json'])) as {
        results: Item[];
      };
      expect(results.map((r) => r.id)).toContain(node.id);
      const unknown = await runDoco(['brief', 'x', '--after-changeset', 'changeset_01M8ZXXW6AX68472FXWQ3K9MVK'], { env });
      expect(unknown.code).toBe(1);
      expect(JSON.parse(unknown.stderr).error.code).toBe('not_found');
      const malformed = await runDoco(['search', 'x', '--after-changeset', 'yesterday'], { env });
      expect(malformed.code).toBe(2);
      expect(JSON.parse(malformed.stderr).error.code).toBe('validation_failed');
    },
    SLOW,
  );

  it(
    'doco reindex queues every live record and returns; the server re-indexes them',
    async () => {
      const live = await liveRecords();
      const lastSeq = await count(`select max(seq) from doco.chunks`);
      const out = await doco(['reindex']);
      const m = /^queued (\d+) record\(s\); the running server \((\S+)\) is re-indexing them/.exec(out.trim());
      expect(m, out).not.toBeNull();
      expect(Number(m![1])).toBe(live);
      expect(m![2]).toBe(baseUrl);
      const settled = await eventually(
        async () =>
          (await psql(
            `select (select count(*) from doco.outbox) || ',' || (select count(*) from doco.chunks where content_hash = '' or seq <= ${lastSeq})`,
          )) === '0,0',
      );
      expect(settled, serverLog).toBe(true);
    },
    SLOW,
  );

  it(
    'bad usage exits 2 with a message',
    async () => {
      const noAbout = await runDoco(['brief'], { env });
      expect(noAbout.code).toBe(2);
      expect(noAbout.stderr).toContain('usage: doco brief "ABOUT"');
      const badBudget = await runDoco(['brief', ASK, '--budget', 'abc'], { env });
      expect(badBudget.code).toBe(2);
      expect(badBudget.stderr).toContain('--budget must be a whole number');
      const noQuery = await runDoco(['search'], { env });
      expect(noQuery.code).toBe(2);
      expect(noQuery.stderr).toContain('usage: doco search "QUERY"');
    },
    SLOW,
  );
});
