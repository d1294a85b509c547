// The secrets guard on every write path, against a real Postgres: REST (capture, changeset,
// collection), MCP (doco_capture, doco_changeset, doco_log) and the CLI refuse a credential with
// secret_detected (422), naming the kind and place and never the value; the whole changeset is
// refused, the judge never sees it, and no piece of it reaches any table. A brief's ask is
// redacted instead, so nothing of it is stored. Clean text with secret-like stand-ins passes.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JudgeRequest, PolicyJudge } from '../../src/providers/judge.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { LOCAL_ONLY, runDoco } from '../helpers/cli.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { expectError, expectNoWrite } from '../helpers/expect-error.js';
import { fakeCredentials, fakePrivateKeyPem } from '../helpers/fake-secrets.js';
import { callTool, callToolOk, connectMcp } from '../helpers/mcp.js';
import { expectNoPieceOf, expectNowhereInDatabase } from '../helpers/secret-leaks.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
let mcp: Client;
const judged: JudgeRequest[] = [];
const countingJudge: PolicyJudge = {
  name: 'counting',
  async judge(req) {
    judged.push(req);
    return { violates: false, reason: 'fine' };
  },
};
const c = fakeCredentials(11);

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'guard');
  api = makeApp(t, countingJudge);
  expect(
    (
      await api.call('POST', '/api/v1/collections', ws.writeToken, {
        slug: 'ops',
        template: 'product-decisions',
        goal: 'How we run things',
      })
    ).status,
  ).toBe(201);
  mcp = await connectMcp(api.app, ws.writeToken);
});
afterAll(async () => {
  await mcp.close();
  await t.drop();
});

const post = (p: string, body: unknown) => api.call('POST', `/api/v1${p}`, ws.writeToken, body);

/** Counts of everything derived from a write: versions, chunks, outbox, changesets, briefs. */
async function derivedCounts() {
  const [row] = await t.sql`
    select (select count(*) from doco.node_versions)::int as node_versions, (select count(*) from doco.chunks)::int as chunks,
           (select count(*) from doco.outbox)::int as outbox, (select count(*) from doco.changesets)::int as changesets,
           (select count(*) from doco.touches)::int as touches`;
  return row;
}

/** Runs a write that must be refused: no row anywhere changes, and no piece of the secret is anywhere. */
async function refusedWithoutTrace<T>(secret: string, fn: () => Promise<T>): Promise<T> {
  const before = await derivedCounts();
  const result = await expectNoWrite(t, fn);
  expect(await derivedCounts()).toEqual(before);
  await expectNowhereInDatabase(t, secret);
  return result;
}

describe('REST', () => {
  it('refuses a capture whose prose holds a GitHub token: 422 secret_detected, kind and place named, value nowhere', async () => {
    const res = await refusedWithoutTrace(c.github_pat, () =>
      post('/capture', {
        collection: 'constitution',
        node_type: 'rule',
        title: 'CI pushes tags',
        prose: `The release job pushes tags.\nIt uses ${c.github_pat} for now.`,
      }),
    );
    const err = expectError(res, 422, 'secret_detected');
    expect(err.message).toMatch(
      /^operations\[0\] \(create\): prose line 2 holds a GitHub token \(github_token\)\. Credentials are never stored/,
    );
    expect(err.details).toEqual({
      findings: [{ operation: 0, op: 'create', field: 'prose', kind: 'github_token', label: 'a GitHub token', line: 2, column: 9 }],
    });
    expectNoPieceOf(JSON.stringify(res.body), c.github_pat);
    // The constitution's judge policy never saw the record: refused before planning and judging.
    expect(judged).toEqual([]);
  });

  it('the same capture without the token is written and judged (the guard is not what stops it)', async () => {
    const res = await post('/capture', {
      collection: 'constitution',
      node_type: 'rule',
      title: 'CI pushes tags',
      prose: 'The release job pushes tags with the CI bot token kept in the vault at ci/github.',
    });
    expect(res.status).toBe(201);
    expect(judged.length).toBe(1);
  });

  it('refuses a whole changeset when one operation hides a password in a URL deep in its body', async () => {
    const dsn = 'postgres://billing:Zq81xLw0Pk3mR7@db.prod.internal:5432/billing';
    const res = await refusedWithoutTrace('Zq81xLw0Pk3mR7', () =>
      post('/changeset', {
        collection: 'ops',
        operations: [
          { op: 'create', alias: 'a', node_type: 'decision', prose: 'Billing reads from the primary.' },
          {
            op: 'create',
            alias: 'b',
            node_type: 'decision',
            prose: 'Billing has its own database.',
            body: { config: { databases: [{ name: 'billing', dsn }] } },
          },
          { op: 'relate', from: '$a', to: '$b', edge_type: 'supports' },
        ],
      }),
    );
    const err = expectError(res, 422, 'secret_detected');
    expect(err.details).toEqual({
      findings: [
        {
          operation: 1,
          op: 'create',
          field: 'body.config.databases[0].dsn',
          kind: 'url_password',
          label: 'a password in a URL',
          line: 1,
          column: 20,
        },
      ],
    });
    expect(err.message).toContain('operations[1] (create): body.config.databases[0].dsn line 1 holds a password in a URL (url_password)');
  });

  it('lists every finding, in order, and says how many more there are', async () => {
    const pem = fakePrivateKeyPem();
    const res = await refusedWithoutTrace(c.anthropic, () =>
      post('/changeset', {
        collection: 'ops',
        summary: `rotate ${c.stripe_secret}`,
        operations: [
          { op: 'create', node_type: 'decision', title: `Use ${c.anthropic}`, prose: `The key:\n\n${pem}` },
          { op: 'create', node_type: 'decision', prose: 'Plain.', body: { password: c.password } },
        ],
      }),
    );
    const err = expectError(res, 422, 'secret_detected');
    const findings = (err.details as { findings: { field: string; kind: string; operation?: number }[] }).findings;
    expect(findings.map((f) => [f.operation, f.field, f.kind])).toEqual([
      [undefined, 'summary', 'stripe_live_key'],
      [0, 'title', 'anthropic_api_key'],
      [0, 'prose', 'private_key'],
      [1, 'body.password', 'password_assignment'],
    ]);
    expect(err.message).toMatch(/^summary line 1 holds a Stripe live key \(stripe_live_key\) \(and 3 more, listed in details\.findings\)/);
    for (const secret of [c.stripe_secret, c.anthropic, pem.split('\n')[2]!, c.password]) expectNoPieceOf(JSON.stringify(res.body), secret);
    await expectNowhereInDatabase(t, pem.split('\n')[2]!);
  });

  it('refuses an append and a supersede that would add a secret to an existing record, which keeps its version', async () => {
    const made = await post('/capture', { collection: 'ops', node_type: 'decision', prose: 'Deploys go out on Tuesdays.' });
    expect(made.status).toBe(201);
    const id = made.body.node.id as string;
    const append = await refusedWithoutTrace(c.slack_bot, () =>
      post('/changeset', { operations: [{ op: 'append', target: id, prose: `Ping the bot with ${c.slack_bot}.` }] }),
    );
    expect(expectError(append, 422, 'secret_detected').details).toMatchObject({
      findings: [{ operation: 0, op: 'append', field: 'prose', kind: 'slack_token' }],
    });
    const supersede = await refusedWithoutTrace(c.voyage, () =>
      post('/changeset', {
        operations: [
          { op: 'supersede', target: id, node_type: 'decision', title: `Embed with ${c.voyage}`, prose: 'Deploys go out on Wednesdays.' },
        ],
      }),
    );
    expect(expectError(supersede, 422, 'secret_detected').details).toMatchObject({
      findings: [{ operation: 0, op: 'supersede', field: 'title', kind: 'voyage_api_key' }],
    });
    const now = await api.call('GET', `/api/v1/nodes/${id}`, ws.readToken);
    expect(now.body.node).toMatchObject({ version: 1, lifecycle: 'active', prose: 'Deploys go out on Tuesdays.' });
  });

  it('refuses a collection whose goal holds a secret', async () => {
    const res = await refusedWithoutTrace(c.npm, () =>
      post('/collections', { slug: 'releases', template: 'product-decisions', goal: `Publish with ${c.npm}` }),
    );
    expect(expectError(res, 422, 'secret_detected').details).toEqual({
      findings: [{ field: 'goal', kind: 'npm_token', label: 'an npm token', line: 1, column: 14 }],
    });
  });

  it('lets documentation full of secret-like stand-ins through', async () => {
    const fixture = await readFile(path.resolve(import.meta.dirname, '../fixtures/secrets/tricky-negatives.md'), 'utf8');
    const res = await post('/capture', {
      collection: 'ops',
      node_type: 'reference',
      title: 'Stand-ins',
      prose: fixture,
      body: { example: { password: '<your-password>', dsn: 'postgres://user@host/db' } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });

  it("redacts a secret in a brief's ask: the brief answers, warns, and stores no piece of it", async () => {
    const res = await post('/brief', {
      about: `why does the deploy with ${c.github_pat} fail`,
      touching: [`https://ci.internal/?token=${c.doco}`],
    });
    expect(res.status).toBe(200);
    expect(res.body.about).toBe('why does the deploy with [redacted github_token] fail');
    expect(res.body.warnings).toContain('the ask held a GitHub token, a Doco token: redacted before retrieval, and not stored');
    expectNoPieceOf(JSON.stringify(res.body), c.github_pat);
    await expectNowhereInDatabase(t, c.github_pat);
    await expectNowhereInDatabase(t, c.doco);
  });

  it('drops a code term that is a credential, keeps the others, and stores no piece of it', async () => {
    const res = await post('/brief', { about: 'raise the subscriber limit', code_terms: ['MaxSubscriptionClients', c.github_pat] });
    expect(res.status).toBe(200);
    expect(res.body.warnings).toContain('the ask held a GitHub token: redacted before retrieval, and not stored');
    const [stored] = await t.sql<{ request: { code_terms: string[] } }[]>`
      select request from doco.briefs where id = ${res.body.brief_id}`;
    expect(stored!.request.code_terms).toEqual(['MaxSubscriptionClients']);
    await expectNowhereInDatabase(t, c.github_pat);
  });
});

describe('REST: credentials that once got through', () => {
  // Each was stored by a capture before its detector existed; the secret is generated, never real.
  const cases: [string, string, string, string][] = [
    ['a password assigned to *_PASS', `Staging reads DB_PASS=${c.password} from the env file.`, c.password, 'password_assignment'],
    [
      'a 40-hex GitHub token assigned to GITHUB_TOKEN',
      `CI sets GITHUB_TOKEN=${c.github_classic_hex} for the release job.`,
      c.github_classic_hex,
      'github_token',
    ],
    ['a Discord bot token', `The bot starts with DISCORD_TOKEN=${c.discord_bot} in its unit file.`, c.discord_bot, 'discord_bot_token'],
    [
      "an Azure storage connection string's AccountKey",
      `Uploads use DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=${c.azure_storage_key};EndpointSuffix=core.windows.net`,
      c.azure_storage_key,
      'azure_storage_account_key',
    ],
    [
      'a Twilio API key with its secret',
      `SMS goes out through \`twilio('${c.twilio_api_key_sid}', '${c.twilio_api_secret}', { accountSid })\`.`,
      c.twilio_api_secret,
      'twilio_api_key',
    ],
    [
      'a password glued to mysql -p',
      `Restore with \`mysql -u root -p${c.cli_password} shop < dump.sql\`.`,
      c.cli_password,
      'command_line_password',
    ],
  ];

  it.each(cases)('refuses %s: 422 secret_detected naming the kind, value nowhere', async (_what, prose, secret, kind) => {
    const res = await refusedWithoutTrace(secret, () =>
      post('/capture', { collection: 'ops', node_type: 'decision', title: 'Runbook', prose }),
    );
    const err = expectError(res, 422, 'secret_detected');
    expect(err.details).toMatchObject({ findings: [{ operation: 0, op: 'create', field: 'prose', kind, line: 1 }] });
    expectNoPieceOf(JSON.stringify(res.body), secret);
  });

  it('does not honour the docs allow marker on an API write', async () => {
    // A key with one word beside it must not get into the graph: only a docs ingest reads the marker (docs/ingest.md).
    const prose = `Example:\n\n    password: "${c.password}"  # doco:allow-secret\n    token: ${c.github_pat} doco:allow-secret`;
    const res = await refusedWithoutTrace(c.password, () => post('/capture', { collection: 'ops', node_type: 'decision', prose }));
    expect(expectError(res, 422, 'secret_detected').details).toMatchObject({
      findings: [
        { field: 'prose', kind: 'password_assignment', line: 3 },
        { field: 'prose', kind: 'github_token', line: 4 },
      ],
    });
    await expectNowhereInDatabase(t, c.github_pat);
  });
});

describe('MCP', () => {
  const failsWithSecret = async (tool: string, args: Record<string, unknown>, secret: string) => {
    const res = await refusedWithoutTrace(secret, () => callTool(mcp, tool, args));
    expect(res.isError).toBe(true);
    const body = res.structuredContent as { error: { code: string; message: string; details: { findings: unknown[] } } };
    expect(body.error.code).toBe('secret_detected');
    expectNoPieceOf(JSON.stringify(res), secret);
    return body.error;
  };

  it('doco_capture returns secret_detected as a tool error', async () => {
    const err = await failsWithSecret(
      'doco_capture',
      { collection: 'ops', node_type: 'decision', prose: `Auth with ${c.openai_project}` },
      c.openai_project,
    );
    expect(err.details.findings).toEqual([
      { operation: 0, op: 'create', field: 'prose', kind: 'openai_api_key', label: 'an OpenAI API key', line: 1, column: 11 },
    ]);
  });

  it('doco_changeset refuses all of it', async () => {
    const err = await failsWithSecret(
      'doco_changeset',
      {
        collection: 'ops',
        operations: [
          { op: 'create', alias: 'x', node_type: 'decision', prose: 'Fine on its own.' },
          { op: 'create', node_type: 'decision', prose: `aws_secret_access_key = ${c.aws_secret_access_key}` },
        ],
      },
      c.aws_secret_access_key,
    );
    expect(err.details.findings).toMatchObject([{ operation: 1, field: 'prose', kind: 'aws_secret_access_key' }]);
  });

  it('doco_log refuses a summary with a secret before it makes the agents-chats collection', async () => {
    const err = await failsWithSecret('doco_log', { summary: `Fixed CI; the token was ${c.github_fine_grained}` }, c.github_fine_grained);
    expect(err.message).toMatch(/^doco_log: summary line 1 holds a GitHub fine-grained token/);
    const [made] = await t.sql`select count(*)::int as n from doco.collections where slug = 'agents-chats'`;
    expect(made!.n).toBe(0);
  });

  it('doco_brief redacts instead of refusing', async () => {
    const brief = await callToolOk(mcp, 'doco_brief', { about: `deploy with ${c.gitlab}` });
    expect(brief.about).toBe('deploy with [redacted gitlab_token]');
    await expectNowhereInDatabase(t, c.gitlab);
  });
});

describe('CLI', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'doco-cli-secrets-'));
  });
  afterAll(async () => rm(home, { recursive: true, force: true }));

  it('doco capture exits 1 with the secret_detected body on stderr, echoing nothing of the secret', async () => {
    const env = {
      DATABASE_URL: t.url,
      DOCO_HOME: home,
      DOCO_WORKSPACE: 'guard',
      ...LOCAL_ONLY,
      DOCO_LOG_LEVEL: 'warn',
    };
    const res = await refusedWithoutTrace(c.sendgrid, () =>
      // As an existing principal: a CLI write first makes its principal record, which is not the write refused here.
      runDoco(
        [
          'capture',
          '--principal',
          `tester-${ws.slug}`,
          '--collection',
          'ops',
          '--type',
          'decision',
          '--prose',
          `Mail goes out with SENDGRID_API_KEY=${c.sendgrid}`,
        ],
        { env, timeoutMs: 60_000 },
      ),
    );
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    const body = JSON.parse(res.stderr.trim().split('\n').at(-1)!);
    expect(body.error).toMatchObject({
      code: 'secret_detected',
      details: { findings: [{ operation: 0, field: 'prose', kind: 'sendgrid_api_key' }] },
    });
    expectNoPieceOf(res.stderr + res.stdout, c.sendgrid);
  });
});
