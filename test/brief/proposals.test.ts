// Only approved records are knowledge (docs/brief.md): a relevant proposal — an agent's queued
// rule, a person's drafting decision — is never an order. The brief over REST (JSON and text), MCP
// and the console, a hook's edit brief and the standing orders at session start carry it at most
// once, in its own group marked proposed and not approved with its lifecycle, never in a tier,
// the synthesis, or the standing orders' rules and changes. The probe that found it: the edit
// brief for app/routes/billing.tsx opened its synthesis with a queued rule nobody approved.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/auth/tokens.js';
import { ensurePrincipal } from '../../src/auth/workspaces.js';
import type { Brief, Item } from '../../src/brief/types.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { signedIn, textOf } from '../helpers/console.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { callToolOk, connectMcp } from '../helpers/mcp.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
let agentToken: string;
const providers = localProviders();
const ids = { active: '', decided: '', queued: '', drafting: '' };
const ASK = 'Edit app/routes/billing.tsx: handle the Stripe webhook for a failed invoice payment';
const TOUCHING = ['app/routes/billing.tsx'];
const PROPOSED_HEADING = "Proposed, not approved (awaiting a person's review: not orders)";

const post = async (path: string, body: unknown, token = ws.writeToken) => {
  const res = await api.call('POST', `/api/v1${path}`, token, body);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
};
const tierItems = (b: Brief): Item[] => Object.values(b.tiers).flat();
/** The lines of a text rendering from a heading up to the next unindented line. */
const sectionOf = (text: string, heading: string): string[] => {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith(heading));
  if (at < 0) return [];
  const end = lines.findIndex((l, i) => i > at && l.trim() !== '' && !l.startsWith(' '));
  return lines.slice(at + 1, end < 0 ? undefined : end);
};
/** Every line that names the id, with the heading of the section it sits in. */
const placesOf = (text: string, id: string) => {
  let heading = '(top)';
  const places: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() && !line.startsWith(' ')) heading = line;
    if (line.includes(id)) places.push(heading);
  }
  return places;
};
const proposalsOnlyUnderTheirHeading = (text: string, heading = PROPOSED_HEADING) => {
  for (const id of [ids.queued, ids.drafting]) {
    const places = placesOf(text, id);
    expect(places.length, `${id} in:\n${text}`).toBe(1);
    expect(places[0]!.startsWith(heading), `${id} in:\n${text}`).toBe(true);
  }
  const lines = sectionOf(text, heading);
  expect(lines.find((l) => l.includes(ids.queued))).toContain('[queued: proposed, not approved]');
  expect(lines.find((l) => l.includes(ids.drafting))).toContain('[drafting: proposed, not approved]');
};

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'billing');
  api = makeApp(t, undefined, providers);
  const agent = await ensurePrincipal(t.db, ws.id, 'agent:claude-code@billing', 'api');
  agentToken = await createToken(t.db, { workspaceId: ws.id, principalId: agent, scope: 'write' });
  await post('/collections', { slug: 'billing-eng', template: 'engineering-conventions', goal: 'How billing code is written' });
  ids.active = (
    await post('/capture', {
      collection: 'billing-eng',
      node_type: 'rule',
      title: 'Webhook handlers verify the Stripe signature',
      prose: 'Every Stripe webhook handler in app/routes/billing.tsx verifies the signature before it reads the payload.',
    })
  ).node.id;
  ids.decided = (
    await post('/capture', {
      collection: 'billing-eng',
      node_type: 'decision',
      title: 'A failed invoice payment emails the account owner',
      prose: 'When an invoice payment fails, app/routes/billing.tsx emails the account owner and marks the invoice past due.',
    })
  ).node.id;
  // An agent's capture: it waits for review as queued (sql/agent_review.sql).
  const queued = await post(
    '/capture',
    {
      collection: 'billing-eng',
      node_type: 'rule',
      title: 'Every webhook handler must be idempotent',
      prose:
        'Every webhook handler in app/routes/billing.tsx must be idempotent: a Stripe webhook for an invoice payment may arrive twice.',
    },
    agentToken,
  );
  expect(queued.node.lifecycle).toBe('queued');
  ids.queued = queued.node.id;
  ids.drafting = (
    await post('/capture', {
      collection: 'billing-eng',
      node_type: 'decision',
      title: 'Retry failed invoice payments three times',
      prose: 'A failed invoice payment from the Stripe webhook in app/routes/billing.tsx is retried three times, a day apart.',
      lifecycle: 'drafting',
    })
  ).node.id;
  await drainAll(t.sql, providers);
});
afterAll(async () => t.drop());

describe('the brief carries proposals apart, never as knowledge', () => {
  let brief: Brief;
  beforeAll(async () => {
    const res = await api.call('POST', '/api/v1/brief', ws.readToken, { about: ASK, touching: TOUCHING });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    brief = res.body;
  });

  it('JSON: approved records in the tiers, each proposal once in `proposed` with its lifecycle', () => {
    const inTiers = tierItems(brief).map((i) => i.id);
    expect(inTiers).toEqual(expect.arrayContaining([ids.active, ids.decided]));
    expect(inTiers).not.toContain(ids.queued);
    expect(inTiers).not.toContain(ids.drafting);
    expect(tierItems(brief).every((i) => i.lifecycle === 'active')).toBe(true);
    expect(brief.tiers.must_obey.map((i) => i.id)).toContain(ids.active);
    expect(brief.proposed.map((i) => [i.id, i.lifecycle]).sort()).toEqual(
      [
        [ids.queued, 'queued'],
        [ids.drafting, 'drafting'],
      ].sort(),
    );
    expect(brief.stats.items).toBe(tierItems(brief).length + brief.proposed.length);
  });

  it('the synthesis draws on approved records only', () => {
    expect(brief.synthesis.text).not.toBe('');
    expect(brief.synthesis.cites).not.toContain(ids.queued);
    expect(brief.synthesis.cites).not.toContain(ids.drafting);
    expect(brief.synthesis.text).not.toMatch(/idempotent|three times/);
  });

  it('text: the proposals only under their own heading, each line saying its lifecycle', async () => {
    const res = await api.app.request(`/api/v1/briefs/${brief.brief_id}?format=text`, {
      headers: { authorization: `Bearer ${ws.readToken}` },
    });
    const text = await res.text();
    expect(text.split('\n')[0]).not.toMatch(/idempotent/);
    proposalsOnlyUnderTheirHeading(text);
  });

  it('over MCP, JSON and text alike', async () => {
    const client: Client = await connectMcp(api.app, ws.readToken);
    try {
      const json = (await callToolOk(client, 'doco_brief', { about: ASK, touching: TOUCHING })) as Brief;
      expect(tierItems(json).map((i) => i.id)).not.toContain(ids.queued);
      expect(json.proposed.map((i) => i.id)).toContain(ids.queued);
      const text = await callToolOk(client, 'doco_brief', { about: ASK, touching: TOUCHING, format: 'text' });
      proposalsOnlyUnderTheirHeading(text.text);
    } finally {
      await client.close();
    }
  });

  it('the console shows the same grouping', async () => {
    const client = await signedIn(t, api.app, ws);
    const page = await client.get(`/briefs/${brief.brief_id}`);
    expect(page.status).toBe(200);
    const boxes = page.html.split(/<section\b/);
    const box = (id: string) => boxes.find((b) => b.includes(`id="${id}"`)) ?? '';
    expect(textOf(box('proposed'))).toContain(PROPOSED_HEADING);
    for (const id of [ids.queued, ids.drafting]) {
      expect(box('proposed')).toContain(id);
      for (const tier of ['must_obey', 'already_decided', 'in_motion', 'background']) expect(box(`tier-${tier}`)).not.toContain(id);
    }
    expect(box('tier-must_obey')).toContain(ids.active);
  });
});

describe('hooks carry proposals apart too', () => {
  const hook = async (event: string, body: Record<string, unknown>) => {
    const res = await api.call('POST', `/api/v1/hooks/claude-code/${event}`, ws.readToken, {
      session_id: `proposals-${event}`,
      transcript_path: null,
      // A checkout per event: the session start is that checkout's first.
      cwd: `/elsewhere/${event}/billing`,
      ...body,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.hookSpecificOutput?.additionalContext as string;
  };

  it("an edit's brief: no proposal in its synthesis or tiers, each once under its own heading", async () => {
    const text = await hook('edit', {
      hook_event_name: 'PreToolUse',
      tool_name: 'Edit',
      tool_input: {
        file_path: '/elsewhere/edit/billing/app/routes/billing.tsx',
        old_string: 'x',
        new_string: 'handle the Stripe webhook for a failed invoice payment',
      },
    });
    expect(text).toContain(ids.active);
    expect(text.split('\n')[0]).not.toMatch(/idempotent/);
    proposalsOnlyUnderTheirHeading(text);
  });

  it('session start: proposals are no standing order, only listed apart as not approved', async () => {
    const text = await hook('session-start', { hook_event_name: 'SessionStart', source: 'startup' });
    expect(sectionOf(text, 'Rules').join('\n')).toContain(ids.active);
    for (const heading of ['Constitution', 'Rules', 'Changed'])
      for (const id of [ids.queued, ids.drafting]) expect(sectionOf(text, heading).join('\n')).not.toContain(id);
    proposalsOnlyUnderTheirHeading(text, 'Proposed in the last 7 days (first session in this checkout), not approved');
  });
});
