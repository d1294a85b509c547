// The hooks endpoint per agent: each agent's real stdin shapes (docs/agents.md) in,
// exactly the stdout JSON that agent reads back out; Codex patch parsing; bad input; auth.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchPaths, relativeTo, withoutHookContext } from '../../src/hooks/agents.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { fakeCredentials } from '../helpers/fake-secrets.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const providers = localProviders();
const CWD = '/nonexistent/checkout/acme';
let ruleId = '';
let decisionId = '';

async function hook(agent: string, event: string, body: unknown, token: string | null = ws.readToken) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await api.app.request(`/api/v1/hooks/${agent}/${event}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), briefId: res.headers.get('doco-brief-id') };
}

/** Asserts the agent's stdout shape exactly: one key, the event name, a string context, nothing else. */
function expectAgentShape(body: any, eventName: string): string {
  expect(Object.keys(body)).toEqual(['hookSpecificOutput']);
  expect(Object.keys(body.hookSpecificOutput).sort()).toEqual(['additionalContext', 'hookEventName']);
  expect(body.hookSpecificOutput.hookEventName).toBe(eventName);
  expect(JSON.stringify(body)).not.toContain('permissionDecision');
  const ctx = body.hookSpecificOutput.additionalContext as string;
  expect(ctx.length).toBeGreaterThan(0);
  expect(ctx.length).toBeLessThan(10_000);
  return ctx;
}

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'acme');
  api = makeApp(t, undefined, providers);
  const post = async (path: string, body: unknown) => (await api.call('POST', `/api/v1${path}`, ws.writeToken, body)).body;
  await post('/collections', { slug: 'acme-decisions', template: 'product-decisions', goal: 'How the product handles money' });
  ruleId = (
    await post('/capture', {
      collection: 'constitution',
      node_type: 'rule',
      title: 'Refunds over $500 need an owner approval',
      prose: 'Refunds over $500 need an owner approval before they are issued.',
    })
  ).node.id;
  decisionId = (
    await post('/capture', {
      collection: 'acme-decisions',
      node_type: 'decision',
      prose: 'Refunds go back to the card that paid, never as store credit. The refund flow lives in src/billing/refund.ts.',
      body: { question: 'How do customers get their money back?' },
    })
  ).node.id;
  await drainAll(t.sql, providers);
});
afterAll(async () => t.drop());

const common = (session: string, event: string) => ({
  session_id: session,
  transcript_path: '/tmp/t.jsonl',
  cwd: CWD,
  hook_event_name: event,
});

describe('Claude Code', () => {
  it('answers SessionStart, UserPromptSubmit and PreToolUse in its own shape', async () => {
    const start = await hook('claude-code', 'session-start', { ...common('cc-1', 'SessionStart'), source: 'startup' });
    expect(start.status).toBe(200);
    expect(expectAgentShape(start.body, 'SessionStart')).toContain(ruleId);
    expect(start.briefId).toBeNull();

    const prompt = await hook('claude-code', 'prompt', {
      ...common('cc-2', 'UserPromptSubmit'),
      prompt: 'How do refunds work on the billing page?',
    });
    expect(prompt.status).toBe(200);
    const text = expectAgentShape(prompt.body, 'UserPromptSubmit');
    expect(text).toContain(decisionId);
    expect(prompt.briefId).toMatch(/^brief_/);
    const stored = await api.call('GET', `/api/v1/briefs/${prompt.briefId}`, ws.readToken);
    expect(stored.body.about).toBe('How do refunds work on the billing page?');

    const edit = await hook('claude-code', 'edit', {
      ...common('cc-3', 'PreToolUse'),
      tool_name: 'Edit',
      tool_use_id: 'toolu_1',
      tool_input: { file_path: `${CWD}/src/billing/refund.ts`, old_string: 'a', new_string: 'export function refundToCard() {}\nmore' },
    });
    expect(edit.status).toBe(200);
    expect(expectAgentShape(edit.body, 'PreToolUse')).toContain(decisionId);
    const editBrief = await api.call('GET', `/api/v1/briefs/${edit.briefId}`, ws.readToken);
    expect(editBrief.body.touching).toEqual(['src/billing/refund.ts']);
    expect(editBrief.body.about).toBe('Edit src/billing/refund.ts: export function refundToCard() {}');
  });
});

describe('Codex', () => {
  it('answers in the hookSpecificOutput form and briefs every file of an apply_patch', async () => {
    const base = { ...common('cx-1', 'SessionStart'), model: 'gpt-5-codex', transcript_path: null };
    const start = await hook('codex', 'session-start', { ...base, source: 'startup' });
    expectAgentShape(start.body, 'SessionStart');
    const prompt = await hook('codex', 'prompt', {
      ...base,
      hook_event_name: 'UserPromptSubmit',
      turn_id: 't1',
      permission_mode: 'default',
      prompt: 'refund to card',
    });
    expectAgentShape(prompt.body, 'UserPromptSubmit');
    const patch = [
      '*** Begin Patch',
      '*** Update File: src/billing/refund.ts',
      '@@',
      '-old',
      '+export const REFUND_LIMIT = 500;',
      '*** Add File: src/billing/limits.ts',
      '+export {};',
      '*** End Patch',
    ].join('\n');
    const edit = await hook('codex', 'edit', {
      ...base,
      session_id: 'cx-2',
      hook_event_name: 'PreToolUse',
      turn_id: 't2',
      tool_name: 'apply_patch',
      tool_input: { command: patch },
    });
    expect(edit.status).toBe(200);
    expect(expectAgentShape(edit.body, 'PreToolUse')).toContain(decisionId);
    const stored = await api.call('GET', `/api/v1/briefs/${edit.briefId}`, ws.readToken);
    expect(stored.body.touching).toEqual(['src/billing/refund.ts', 'src/billing/limits.ts']);
    expect(stored.body.about).toBe('apply_patch src/billing/refund.ts, src/billing/limits.ts: export const REFUND_LIMIT = 500;');
  });

  it('parses Update, Add, Delete and Move lines of a patch, once each', () => {
    const patch = [
      '*** Begin Patch',
      '*** Update File: a/one.ts',
      '@@',
      '-x',
      '+y',
      '*** Add File: b/two.md',
      '+# Two',
      '*** Delete File: c/three.txt',
      '*** Update File: d/old.ts',
      '*** Move to: d/new.ts',
      '*** Update File: a/one.ts',
      '*** End Patch',
    ].join('\n');
    expect(patchPaths(patch)).toEqual({ paths: ['a/one.ts', 'b/two.md', 'c/three.txt', 'd/old.ts', 'd/new.ts'], firstAdded: 'y' });
    expect(patchPaths('no headers here').paths).toEqual([]);
  });

  it('keeps the first 100 distinct paths of a patch naming 150,000 files, and its first added line', () => {
    const names = Array.from({ length: 150_000 }, (_, i) => `src/f${i}.ts`);
    const patch = [
      '*** Begin Patch',
      ...names.flatMap((n, i) => [`*** Add File: ${n}`, ...(i === 3 ? ['+export const x = 1;'] : [])]),
    ].join('\n');
    const got = patchPaths(`*** Update File: src/f0.ts\n${patch}`);
    expect(got.paths).toEqual(names.slice(0, 100));
    expect(got.firstAdded).toBe('export const x = 1;');
  });

  it('makes absolute paths relative to the checkout and leaves outside ones absolute', () => {
    expect(relativeTo('/w/repo', '/w/repo/src/a.ts')).toBe('src/a.ts');
    expect(relativeTo('/w/repo', '/etc/hosts')).toBe('/etc/hosts');
    expect(relativeTo('/w/repo', './src/../lib/b.ts')).toBe('lib/b.ts');
  });
});

describe('Gemini CLI', () => {
  it('answers SessionStart, BeforeAgent and AfterTool', async () => {
    const base = { ...common('gm-1', 'SessionStart'), timestamp: '2026-11-29T12:00:00Z' };
    expectAgentShape((await hook('gemini', 'session-start', { ...base, source: 'startup' })).body, 'SessionStart');
    expectAgentShape(
      (await hook('gemini', 'prompt', { ...base, hook_event_name: 'BeforeAgent', prompt: 'refunds to the card' })).body,
      'BeforeAgent',
    );
    const edit = await hook('gemini', 'edit', {
      ...base,
      session_id: 'gm-2',
      hook_event_name: 'AfterTool',
      tool_name: 'write_file',
      tool_input: { file_path: `${CWD}/src/billing/refund.ts`, content: 'export {}' },
      tool_response: { llmContent: 'ok' },
    });
    const context = expectAgentShape(edit.body, 'AfterTool');
    expect(context).toContain(decisionId);
    // The edit's code words ("export") are not reported as gaps.
    expect(context).not.toContain('No record covers');
  });

  it('briefs the prompt without the context a SessionStart hook put in front of it', async () => {
    const base = { ...common('gm-3', 'BeforeAgent'), timestamp: '2026-11-29T12:00:00Z' };
    const prompt = '<hook_context>Doco standing orders: obey rule_01 …\nNever log card numbers.</hook_context>\n\nrefunds to the card';
    expect(withoutHookContext(prompt)).toBe('refunds to the card');
    const res = await hook('gemini', 'prompt', { ...base, prompt });
    const stored = await t.sql<{ about: string }[]>`select request->>'about' as about from doco.briefs where id = ${res.briefId}`;
    expect(stored[0]?.about).toBe('refunds to the card');
  });

  it('takes out every closed hook context, keeps an unclosed one, in time linear in the prompt', async () => {
    expect(withoutHookContext('a <hook_context>x</hook_context> b <hook_context>y</hook_context> c')).toBe('a b c');
    expect(withoutHookContext('a <hook_context>x</hook_context> b <hook_context>never closed')).toBe('a b <hook_context>never closed');
    // Opening tags alone, as much as a request body may hold: looking for a closing tag from each
    // took time quadratic in the prompt (17 s for 1 MiB; minutes for this, the server waiting).
    const flood = '<hook_context>'.repeat(280_000);
    expect(withoutHookContext(flood)).toBe(flood);
    const res = await hook('gemini', 'prompt', { ...common('gm-4', 'BeforeAgent'), timestamp: '2026-11-29T12:00:00Z', prompt: flood });
    expect(res.status).toBe(200);
  });
});

describe('bad input and auth', () => {
  it('404s an unknown agent or event in the error shape', async () => {
    const a = await hook('cursor', 'prompt', { ...common('x', 'UserPromptSubmit'), prompt: 'hi' });
    expect(a.status).toBe(404);
    expect(a.body.error.code).toBe('not_found');
    const e = await hook('claude-code', 'stop', { ...common('x', 'Stop') });
    expect(e.status).toBe(404);
    expect(e.body.error.code).toBe('not_found');
  });

  it('400s a body that is not the agent shape', async () => {
    const cases: [string, string, unknown][] = [
      ['claude-code', 'prompt', { cwd: CWD, prompt: 'no session id' }],
      ['claude-code', 'prompt', { session_id: 's', cwd: CWD }],
      ['codex', 'session-start', { session_id: 's' }],
      ['claude-code', 'edit', { session_id: 's', cwd: CWD, tool_name: 'Edit', tool_input: { old_string: 'a' } }],
      ['gemini', 'edit', { session_id: 's', cwd: CWD, tool_name: 'replace' }],
      ['codex', 'edit', { session_id: 's', cwd: CWD, tool_name: 'apply_patch', tool_input: { command: 42 } }],
      ['gemini', 'prompt', [1, 2]],
      ['claude-code', 'prompt', { session_id: 'bad-checkout', cwd: CWD, prompt: 'refunds', doco_checkout: 'x'.repeat(5000) }],
      ['claude-code', 'session-start', { session_id: 'bad-checkout', cwd: CWD, doco_checkout: 42 }],
    ];
    for (const [agent, event, body] of cases) {
      const res = await hook(agent, event, body);
      expect(res.status, JSON.stringify([agent, event, body])).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    // A refused hook call records no session.
    expect(await t.sql`select 1 from doco.hook_sessions where session_id = 'bad-checkout'`).toHaveLength(0);
  });

  it('answers {} when there is nothing to brief', async () => {
    const res = await hook('claude-code', 'prompt', { ...common('empty', 'UserPromptSubmit'), prompt: '   ' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
  });

  it('allows a read token and refuses no token with 401', async () => {
    const body = { ...common('auth-1', 'UserPromptSubmit'), prompt: 'refunds' };
    expect((await hook('claude-code', 'prompt', body, ws.readToken)).status).toBe(200);
    const none = await hook('claude-code', 'prompt', body, null);
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('unauthorized');
  });

  it("refuses a credential in the session's stored fields, recording no session", async () => {
    const { github_pat, aws_secret_access_key } = fakeCredentials(7);
    for (const [field, value] of [
      ['session_id', `sess ${github_pat}`],
      ['cwd', `/home/dev/AWS_SECRET_ACCESS_KEY=${aws_secret_access_key}/app`],
    ] as const) {
      const body = { ...common('secret-session', 'UserPromptSubmit'), prompt: 'refunds', [field]: value };
      const res = await hook('claude-code', 'prompt', body);
      expect(res.status, field).toBe(422);
      expect(res.body.error.code).toBe('secret_detected');
      expect(JSON.stringify(res.body)).not.toContain(field === 'session_id' ? github_pat : aws_secret_access_key);
    }
    expect(await t.sql`select 1 from doco.hook_sessions where session_id like 'sess %'`).toHaveLength(0);
  });
});
