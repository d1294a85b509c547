// What reaches an agent is well-formed Unicode: a cut by UTF-16 index that split an emoji left a
// lone surrogate, which JSON carries as `\ud83d` and which the agents' JSON parsers and model APIs
// refuse. A record titled to split one at the session start's 120-character cut put it in every
// session's answer, and one whose prose was emoji put it in briefs and search (a hostile review).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cutText, wellFormed, wellFormedDeep } from '../../src/lib/well-formed.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { drainAll, localProviders } from '../helpers/search.js';

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('cutText and wellFormed', () => {
  it('never ends a cut between the halves of a pair, and replaces a lone half with U+FFFD', () => {
    const text = 'ab😀cd';
    expect(cutText(text, 3)).toBe('ab');
    expect(cutText(text, 4)).toBe('ab😀');
    expect(cutText(text, 10)).toBe(text);
    expect(wellFormed('x\uD83Dy\uDE00z')).toBe('x\uFFFDy\uFFFDz');
    expect(wellFormed(text)).toBe(text);
    expect(wellFormedDeep({ a: ['\uD83D'], b: 1, c: { ['k\uDE00']: 'ok' } })).toEqual({ a: ['\uFFFD'], b: 1, c: { 'k\uFFFD': 'ok' } });
  });
});

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const providers = localProviders();

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'wellformed');
  api = makeApp(t, undefined, providers);
  const post = async (p: string, body: unknown) => {
    const res = await api.call('POST', `/api/v1${p}`, ws.writeToken, body);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  };
  await post('/collections', { slug: 'eng', template: 'engineering-conventions', goal: 'How code is written' });
  // The session start cuts a title at 120 and a first line at 140: an emoji straddles each cut.
  await post('/capture', {
    collection: 'constitution',
    node_type: 'rule',
    title: `${'P'.repeat(118)}😀 refunds`,
    prose: `${'Q'.repeat(138)}😀 refunds go back to the card.`,
  });
  await post('/capture', { collection: 'eng', node_type: 'rule', title: 'Emoji refunds', prose: `a${'😀'.repeat(300)} refunds` });
  await drainAll(t.sql, providers);
});
afterAll(async () => t.drop());

const raw = async (path: string, body?: unknown) => {
  const res = await api.app.request(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${ws.readToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status).toBe(200);
  const text = await res.text();
  // Escaped or not, no lone half anywhere in the answer.
  expect(text).not.toMatch(/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])/i);
  expect(JSON.stringify(JSON.parse(text))).not.toMatch(LONE);
  return JSON.parse(text);
};

describe('answers to agents', () => {
  it('the session start, a prompt brief, the brief and search are well-formed', async () => {
    const hook = { session_id: 's1', cwd: '/tmp', transcript_path: null };
    const start = await raw('/api/v1/hooks/claude-code/session-start', { ...hook, hook_event_name: 'SessionStart', source: 'startup' });
    expect(start.hookSpecificOutput.additionalContext).toContain('PPPP');
    const prompt = await raw('/api/v1/hooks/claude-code/prompt', {
      ...hook,
      session_id: 's2',
      hook_event_name: 'UserPromptSubmit',
      prompt: 'emoji refunds',
    });
    expect(prompt.hookSpecificOutput.additionalContext).toContain('😀');
    const brief = await raw('/api/v1/brief', { about: 'emoji refunds', budget: 1500 });
    expect(Object.values(brief.tiers).flat().length).toBeGreaterThan(0);
    for (const chars of [199, 200, 201, 399])
      expect((await raw(`/api/v1/search?q=emoji%20refunds&text_chars=${chars}`)).results.length).toBeGreaterThan(0);
  });
});
