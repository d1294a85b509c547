// The Anthropic policy judge against a loopback fake of the Messages API, through the real
// write path: block policies refuse the whole changeset, warn policies write and warn, and a
// judge that fails (500s, garbage) never blocks a write: its verdict is `not_judged`.
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicJudge } from '../../src/providers/anthropic-judge.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { expectError, expectNoWrite } from '../helpers/expect-error.js';
import { JsonServer, parsed, type JsonAnswer } from '../helpers/json-server.js';
import { instantSleep, noWait } from '../helpers/retry.js';

interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: { model: string; max_tokens: number; system?: string; messages: { role: string; content: string }[] };
}
type Reply = { status: number; json: unknown; headers?: Record<string, string> };

/**
 * Stands in for Anthropic's Messages API (POST https://api.anthropic.com/v1/messages): answers
 * with the documented response shape, or an error in Anthropic's error shape. `answer` picks the
 * reply from the request, so one test can make one record violate and the others pass.
 */
class FakeAnthropic {
  seen: SeenRequest[] = [];
  answer: (req: SeenRequest) => Reply | 'hang' = () => FakeAnthropic.text('{"violates": false, "reason": "fine"}');
  private server = new JsonServer((req) => {
    const seen: SeenRequest = parsed(req);
    this.seen.push(seen);
    const reply =
      req.method === 'POST' && req.url === '/v1/messages'
        ? this.answer(seen)
        : { status: 404, json: { type: 'error', error: { type: 'not_found_error', message: 'Not found' } } };
    if (reply === 'hang') return reply;
    return { ...reply, headers: { 'request-id': `req_${this.seen.length}`, ...reply.headers } } satisfies JsonAnswer;
  });

  static text(text: string): Reply {
    return {
      status: 200,
      json: {
        id: 'msg_01FakeFakeFakeFakeFake',
        type: 'message',
        role: 'assistant',
        model: 'claude-haiku-4-5',
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 120, output_tokens: 18 },
      },
    };
  }
  static serverError(headers?: Record<string, string>): Reply {
    return {
      status: 500,
      json: { type: 'error', error: { type: 'api_error', message: 'Internal server error' } },
      ...(headers ? { headers } : {}),
    };
  }

  start = () => this.server.start();
  stop = () => this.server.stop();
}

const NO_SECRETS_TEXT = 'A record must never contain a secret';
const ADR_ALTERNATIVES_TEXT = 'An architecture decision names the alternatives considered';

let t: TestDb;
let ws: TestWorkspace;
let fake: FakeAnthropic;
let api: ReturnType<typeof makeApp>;
let baseURL: string;
/** The waits the judge's retry policy asked for, recorded instead of waited. */
let judgeWaits: ReturnType<typeof instantSleep>;
const post = (path: string, body: unknown) => api.call('POST', `/api/v1${path}`, ws.writeToken, body);
type VerdictRow = { policy: string; target: string; outcome: string; reason: string };
const verdictOf = (verdicts: VerdictRow[], policy: string, target?: string) =>
  verdicts.filter((v) => v.policy === policy && (target === undefined || v.target === target));

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'judged');
  fake = new FakeAnthropic();
  baseURL = await fake.start();
  judgeWaits = instantSleep();
  api = makeApp(
    t,
    anthropicJudge({ apiKey: 'test', baseURL, model: 'claude-haiku-4-5', timeoutMs: 2000, retry: { sleep: judgeWaits.sleep } }),
  );
  for (const [slug, template] of [
    ['sec', 'security-policies'],
    ['arch', 'adrs'],
  ] as const) {
    expect((await post('/collections', { slug, template, goal: `The ${template} of this test` })).status).toBe(201);
  }
});
beforeEach(() => {
  fake.seen = [];
  judgeWaits.waits.length = 0;
  fake.answer = () => FakeAnthropic.text('{"violates": false, "reason": "fine"}');
});
afterAll(async () => {
  await fake.stop();
  await t.drop();
});

describe('anthropicJudge on the write path', () => {
  it('sends the model, the API key, the policy text and the record text', async () => {
    fake.answer = () => FakeAnthropic.text('{"violates": false, "reason": "no secret in this record"}');
    const res = await post('/capture', {
      collection: 'sec',
      node_type: 'rule',
      title: 'Rotate keys yearly',
      prose: 'Every signing key is rotated once a year.',
    });
    expect(res.status).toBe(201);
    expect(fake.seen).toHaveLength(1);
    const [req] = fake.seen;
    expect(req!.method).toBe('POST');
    expect(req!.url).toBe('/v1/messages');
    // The API documents `x-api-key: <key>`; @anthropic-ai/sdk 1.14 (pinned) sends the key as
    // `Authorization: Bearer <key>` instead. Either way the exact key must arrive.
    const key = req!.headers['x-api-key'] ?? req!.headers.authorization?.replace(/^Bearer /, '');
    expect(key).toBe('test');
    expect(req!.headers['anthropic-version']).toEqual(expect.any(String));
    expect(req!.body.model).toBe('claude-haiku-4-5');
    expect(req!.body.max_tokens).toBeGreaterThan(0);
    const prompt = req!.body.messages.map((m) => m.content).join('\n');
    expect(prompt).toContain(NO_SECRETS_TEXT);
    expect(prompt).toContain('Rotate keys yearly');
    expect(prompt).toContain('Every signing key is rotated once a year.');
    expect(verdictOf(res.body.verdicts, 'no-secrets')).toEqual([
      { policy: 'no-secrets', target: res.body.node.id, outcome: 'pass', reason: 'no secret in this record' },
    ]);
  });

  it('a violation of a block policy is 422 and a changeset of several creates writes nothing', async () => {
    fake.answer = (req) =>
      FakeAnthropic.text(
        req.body.messages[0]!.content.includes('hunter2')
          ? 'Looking at this: {"violates": true, "reason": "it contains a password"}'
          : '{"violates": false, "reason": "clean"}',
      );
    const err = await expectNoWrite(t, async () =>
      expectError(
        await post('/changeset', {
          collection: 'sec',
          operations: [
            { op: 'create', alias: 'one', node_type: 'rule', prose: 'Secrets live in the vault.' },
            { op: 'create', alias: 'two', node_type: 'reference', prose: 'The staging database password is hunter2.' },
            { op: 'create', alias: 'three', node_type: 'decision', prose: 'We use short-lived tokens.' },
            { op: 'relate', from: '$one', to: '$three', edge_type: 'supports' },
          ],
        }),
        422,
        'policy_blocked',
      ),
    );
    expect(err.message).toContain('no-secrets');
    const verdicts = (err.details as { verdicts: VerdictRow[] }).verdicts;
    expect(verdictOf(verdicts, 'no-secrets', '$two')).toEqual([
      { policy: 'no-secrets', target: '$two', outcome: 'block', reason: 'it contains a password' },
    ]);
    expect(verdictOf(verdicts, 'no-secrets', '$one')[0]?.outcome).toBe('pass');
    expect(verdictOf(verdicts, 'no-secrets', '$three')[0]?.outcome).toBe('pass');
    // Each record was read by the judge once.
    expect(fake.seen).toHaveLength(3);
  });

  it('a violation of a warn policy writes and returns a warn verdict', async () => {
    fake.answer = (req) =>
      FakeAnthropic.text(
        req.body.messages[0]!.content.includes(ADR_ALTERNATIVES_TEXT)
          ? '{"violates": true, "reason": "no alternatives are named"}'
          : '{"violates": false, "reason": "fine"}',
      );
    const res = await post('/capture', {
      collection: 'arch',
      node_type: 'decision',
      prose: 'We use Postgres for the graph.',
      body: { question: 'Where does the graph live?' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(verdictOf(res.body.verdicts, 'adr-names-alternatives')).toEqual([
      { policy: 'adr-names-alternatives', target: res.body.node.id, outcome: 'warn', reason: 'no alternatives are named' },
    ]);
    const stored = await api.call('GET', `/api/v1/nodes/${res.body.node.id}`, ws.readToken);
    expect(stored.body.node.lifecycle).toBe('active');
  });

  it('a pass is reported as pass', async () => {
    const res = await post('/capture', {
      collection: 'arch',
      node_type: 'decision',
      prose: 'We chose Postgres over Neo4j: one engine fewer.',
      body: { question: 'Which store?', alternatives: [{ option: 'Neo4j', rejected_because: 'one more engine' }] },
    });
    expect(res.status).toBe(201);
    expect(verdictOf(res.body.verdicts, 'adr-names-alternatives')).toEqual([
      { policy: 'adr-names-alternatives', target: res.body.node.id, outcome: 'pass', reason: 'fine' },
    ]);
    expect(fake.seen[0]!.body.messages[0]!.content).toContain('Neo4j');
  });

  it('the verdicts of a written changeset name each new record by its id', async () => {
    const res = await post('/changeset', {
      collection: 'sec',
      operations: [
        { op: 'create', node_type: 'rule', prose: 'Keys live in the vault.' },
        { op: 'create', alias: 'b', node_type: 'rule', prose: 'Vault access is logged.' },
      ],
    });
    expect(res.status).toBe(201);
    const [first, second] = res.body.results.map((r: { id: string }) => r.id);
    expect(res.body.aliases.b).toBe(second);
    expect(
      verdictOf(res.body.verdicts, 'no-secrets')
        .map((v) => v.target)
        .sort(),
    ).toEqual([first, second].sort());
    expect(res.body.verdicts.every((v: VerdictRow) => v.target === first || v.target === second)).toBe(true);
  });

  it('a judge answering 500 (after the retries) is not_judged and the write succeeds, its waits capped whatever the server asks', async () => {
    // The server asks for an hour; the judge's policy waits at most 5 s before each retry.
    fake.answer = () => FakeAnthropic.serverError({ 'retry-after': '3600' });
    const res = await post('/capture', { collection: 'sec', node_type: 'rule', prose: 'Never log request bodies.' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [verdict] = verdictOf(res.body.verdicts, 'no-secrets');
    expect(verdict).toMatchObject({ outcome: 'not_judged', target: res.body.node.id });
    expect(verdict!.reason).toBe('the judge failed: anthropic messages failed: HTTP 500 (Internal server error) after 3 attempts');
    // Three tries in all, with two waits between them, each at the cap.
    expect(fake.seen).toHaveLength(3);
    expect(judgeWaits.waits).toEqual([5_000, 5_000]);
  });

  it('a judge that never answers is cut by its configured timeout: not_judged, and the write succeeds', async () => {
    fake.answer = () => 'hang';
    const hasty = makeApp(
      t,
      anthropicJudge({ apiKey: 'test', baseURL, model: 'claude-haiku-4-5', timeoutMs: 100, retry: { ...noWait, maxAttempts: 2 } }),
    );
    const res = await hasty.call('POST', '/api/v1/capture', ws.writeToken, {
      collection: 'sec',
      node_type: 'rule',
      prose: 'Requests carry a trace id.',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(verdictOf(res.body.verdicts, 'no-secrets')[0]).toMatchObject({
      outcome: 'not_judged',
      reason: 'the judge failed: anthropic messages failed: timed out after 2 attempts',
    });
    expect(fake.seen).toHaveLength(2);
  });

  it('a judge answering garbage is not_judged with the reason, and the write succeeds', async () => {
    fake.answer = () => FakeAnthropic.text('I think this record is probably fine.');
    const res = await post('/capture', { collection: 'sec', node_type: 'rule', prose: 'Tokens expire after an hour.' });
    expect(res.status).toBe(201);
    expect(verdictOf(res.body.verdicts, 'no-secrets')[0]).toMatchObject({
      outcome: 'not_judged',
      reason: expect.stringContaining('holds no JSON'),
    });

    fake.answer = () => FakeAnthropic.text('{"violates": "maybe"}');
    const again = await post('/capture', { collection: 'sec', node_type: 'rule', prose: 'Tokens are scoped to one workspace.' });
    expect(again.status).toBe(201);
    expect(verdictOf(again.body.verdicts, 'no-secrets')[0]).toMatchObject({
      outcome: 'not_judged',
      reason: expect.stringContaining('no boolean "violates"'),
    });
  });

  it('a deterministic block refuses without asking the judge', async () => {
    await expectNoWrite(t, async () =>
      expectError(
        await post('/capture', { collection: 'arch', node_type: 'decision', prose: 'No question given.' }),
        422,
        'policy_blocked',
      ),
    );
    expect(fake.seen).toHaveLength(0);
  });
});

describe('without a judge', () => {
  it('judge policies report not_judged and the write succeeds', async () => {
    const plain = makeApp(t);
    const res = await plain.call('POST', '/api/v1/capture', ws.writeToken, {
      collection: 'sec',
      node_type: 'reference',
      prose: 'The password is hunter2.',
    });
    expect(res.status).toBe(201);
    expect(verdictOf(res.body.verdicts, 'no-secrets')[0]).toMatchObject({
      outcome: 'not_judged',
      reason: expect.stringContaining('no judge is configured'),
    });
    expect(verdictOf(res.body.verdicts, 'allowed-types')[0]?.outcome).toBe('pass');
    expect(fake.seen).toHaveLength(0);
  });
});
