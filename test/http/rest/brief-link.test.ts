// The `Doco-Brief:` commit trailer's link, GET /api/v1/briefs/:id, over a real socket: a browser
// without a token is sent to the console's page for the brief (the same for every id, so the
// answer says nothing of whether the brief exists), from there to sign in and back, and sees who
// asked; a bearer token still gets the stored brief's JSON, and any other client without one 401.
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../../src/auth/tokens.js';
import { ensurePrincipal } from '../../../src/auth/workspaces.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { textOf } from '../../helpers/console.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { expectError } from '../../helpers/expect-error.js';
import { stateDigest } from '../../helpers/state.js';

const AGENT = 'agent:claude-code@shop';
/** What Chromium sends for a link opened from a terminal or a commit page. */
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
/** A well-formed brief id that was never stored. */
const UNKNOWN = 'brief_01ARZ3NDEKTSV4RRFFQ69G5FAV';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
let server: ServerType;
let base: string;
let agentReadToken: string;
const briefs = { byAgent: '', byPerson: '' };

/** A browser's request: no redirect followed, the cookies it holds sent back. */
async function browse(path: string, jar: Map<string, string>, init: { method?: string; form?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { accept: BROWSER };
  if (jar.size) headers.cookie = [...jar].map(([k, val]) => `${k}=${val}`).join('; ');
  if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? 'GET',
    headers,
    redirect: 'manual',
    ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
  });
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const eq = pair!.indexOf('=');
    jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
  }
  return { status: res.status, location: res.headers.get('location'), type: res.headers.get('content-type'), body: await res.text() };
}

/** Signs in on the form a browser was sent to, with a pasted token; the answer is where it goes next. */
async function signIn(signInPath: string, jar: Map<string, string>, token: string) {
  const form = await browse(signInPath, jar);
  expect(form.status).toBe(200);
  const csrf = form.body.match(/name="_csrf" value="([^"]+)"/)![1]!;
  const next = form.body.match(/name="next" value="([^"]+)"/)![1]!;
  return browse('/sign-in', jar, { method: 'POST', form: { _csrf: csrf, next, token } });
}

const ask = async (token: string, about: string) => {
  const res = await api.call('POST', '/api/v1/brief', token, { about });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.brief_id as string;
};

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'brief-link');
  api = makeApp(t);
  const agent = await ensurePrincipal(t.db, ws.id, AGENT, 'cli');
  agentReadToken = await createToken(t.db, { workspaceId: ws.id, principalId: agent, scope: 'read', label: 'hooks' });
  await api.call('POST', '/api/v1/capture', ws.writeToken, {
    collection: 'constitution',
    node_type: 'rule',
    prose: 'Refunds go back to the card they were paid with, never to store credit.',
  });
  briefs.byAgent = await ask(agentReadToken, 'How do refunds work?');
  briefs.byPerson = await ask(ws.readToken, 'Where do refunds go?');
  await new Promise<void>((resolve) => {
    server = serve({ fetch: api.app.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) => {
      base = `http://127.0.0.1:${info.port}`;
      resolve();
    });
  });
});
afterAll(async () => {
  await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
  await t.drop();
});

describe('a Doco-Brief link opened in a browser', () => {
  it('goes to the console page, then to sign in, then back to the brief, which names the agent that asked', async () => {
    const jar = new Map<string, string>();
    const link = await browse(`/api/v1/briefs/${briefs.byAgent}`, jar);
    expect(link.status).toBe(303);
    expect(link.location).toBe(`/briefs/${briefs.byAgent}`);
    expect(jar.size).toBe(0);

    const page = await browse(link.location!, jar);
    expect([302, 303]).toContain(page.status);
    expect(page.location).toBe(`/sign-in?next=${encodeURIComponent(`/briefs/${briefs.byAgent}`)}`);

    const signedIn = await signIn(page.location!, jar, ws.readToken);
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe(`/briefs/${briefs.byAgent}`);

    const landed = await browse(signedIn.location!, jar);
    expect(landed.status).toBe(200);
    expect(landed.type).toMatch(/text\/html/);
    const text = textOf(landed.body);
    expect(text).toContain('How do refunds work?');
    expect(text).toContain(`asked by ${AGENT} (agent)`);
    // Signed in, the link itself now lands on the page in two steps.
    const again = await browse(`/api/v1/briefs/${briefs.byAgent}`, jar);
    expect(again.location).toBe(`/briefs/${briefs.byAgent}`);
    expect((await browse(again.location!, jar)).status).toBe(200);
  });

  it("names a person's brief as a person's", async () => {
    const jar = new Map<string, string>();
    const page = await browse(`/briefs/${briefs.byPerson}`, jar);
    const signedIn = await signIn(page.location!, jar, ws.readToken);
    const landed = await browse(signedIn.location!, jar);
    expect(landed.status).toBe(200);
    expect(textOf(landed.body)).toContain(`asked by tester-brief-link (person)`);
  });

  it('redirects an unknown id exactly as a known one, reading and changing nothing', async () => {
    const before = await stateDigest(t);
    const known = await browse(`/api/v1/briefs/${briefs.byAgent}`, new Map());
    const unknown = await browse(`/api/v1/briefs/${UNKNOWN}`, new Map());
    expect({ ...unknown, location: unknown.location?.replace(UNKNOWN, 'ID') }).toEqual({
      ...known,
      location: known.location?.replace(briefs.byAgent, 'ID'),
    });
    // And on to sign in alike: the console's session check comes before any lookup.
    const page = await browse(unknown.location!, new Map());
    expect(page.status).toBe(303);
    expect(page.location).toBe(`/sign-in?next=${encodeURIComponent(`/briefs/${UNKNOWN}`)}`);
    expect(await stateDigest(t)).toEqual(before);
    // Signed in, the unknown brief is the console's 404.
    const jar = new Map<string, string>();
    const signedIn = await signIn(page.location!, jar, ws.readToken);
    expect((await browse(signedIn.location!, jar)).status).toBe(404);
  });
});

describe('the same link for API clients', () => {
  it('with a bearer token answers the stored brief as JSON, whatever the Accept header', async () => {
    const json = await api.call('GET', `/api/v1/briefs/${briefs.byAgent}`, agentReadToken);
    expect(json.status).toBe(200);
    expect(json.body.brief_id).toBe(briefs.byAgent);
    for (const accept of [BROWSER, 'application/json', '*/*']) {
      const res = await fetch(`${base}/api/v1/briefs/${briefs.byAgent}`, {
        headers: { authorization: `Bearer ${ws.readToken}`, accept },
        redirect: 'manual',
      });
      expect(res.status, accept).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(await res.json()).toEqual(json.body);
    }
  });

  it('without a token, as curl asks (Accept: */*) or with no Accept at all, is the 401 error shape', async () => {
    for (const headers of [{ accept: '*/*' }, { accept: 'application/json' }, {}] as Record<string, string>[]) {
      for (const id of [briefs.byAgent, UNKNOWN]) {
        const res = await fetch(`${base}/api/v1/briefs/${id}`, { headers, redirect: 'manual' });
        expect(res.headers.get('location')).toBeNull();
        expectError({ status: res.status, body: await res.json() }, 401, 'unauthorized');
      }
    }
  });
});
