// Hook sessions: what a session was already sent is not repeated (and a line says so), a
// changed record is sent again, another session gets everything; standing orders at session
// start, with what changed since the checkout's last session; possibly stale records.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
let checkout = '';
let second = ''; // another checkout with the same files and no sessions yet
const providers = localProviders();
const ids = { rule: '', live: '', gone: '', future: '' };

const post = async (p: string, body: unknown) => {
  const res = await api.call('POST', `/api/v1${p}`, ws.writeToken, body);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
};
async function context(agent: string, event: string, body: Record<string, unknown>): Promise<string> {
  const res = await api.call('POST', `/api/v1/hooks/${agent}/${event}`, ws.readToken, { transcript_path: null, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.hookSpecificOutput?.additionalContext ?? '';
}
const prompt = (session: string, text: string, cwd = checkout, extra: Record<string, unknown> = {}) =>
  context('claude-code', 'prompt', { session_id: session, cwd, hook_event_name: 'UserPromptSubmit', prompt: text, ...extra });
const start = (session: string, cwd = checkout, source = 'startup', extra: Record<string, unknown> = {}) =>
  context('claude-code', 'session-start', { session_id: session, cwd, hook_event_name: 'SessionStart', source, ...extra });
/** What `doco hook` sends from these checkouts (src/hooks/deleted-files.ts, test/hooks/deleted-files.test.ts). */
const DELETED = { doco_deleted: ['src/billing/refund-mailer.ts'] };
const lineOf = (text: string, id: string) => text.split('\n').find((l) => l.startsWith(`  ${id}  `)) ?? '';
/** The brief's item line for an id and its because line after it. */
const itemOf = (text: string, id: string) => {
  const lines = text.split('\n');
  const at = lines.indexOf(lineOf(text, id));
  return at < 0 ? '' : `${lines[at]}\n${lines[at + 1]}`;
};

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'acme');
  api = makeApp(t, undefined, providers);
  // Two git checkouts of one history: refund.ts lives on, refund-mailer.ts was committed and
  // then deleted, src/billing/statements.ts was never written.
  const makeCheckout = async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'doco-hooks-'));
    await mkdir(path.join(dir, 'src/billing'), { recursive: true });
    await writeFile(path.join(dir, 'src/billing/refund.ts'), 'export {};\n');
    await writeFile(path.join(dir, 'src/billing/refund-mailer.ts'), 'export {};\n');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir, stdio: 'ignore' });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'first');
    git('rm', '-q', 'src/billing/refund-mailer.ts');
    git('commit', '-qm', 'mailer gone');
    return dir;
  };
  checkout = await makeCheckout();
  second = await makeCheckout();
  await post('/collections', { slug: 'acme-decisions', template: 'product-decisions', goal: 'How the product handles money' });
  ids.rule = (
    await post('/capture', {
      collection: 'constitution',
      node_type: 'rule',
      title: 'Refunds over $500 need an owner approval',
      prose: 'Refunds over $500 need an owner approval before they are issued.',
    })
  ).node.id;
  ids.live = (
    await post('/capture', {
      collection: 'acme-decisions',
      node_type: 'decision',
      prose: 'Refunds go back to the card that paid, never as store credit. The refund flow lives in src/billing/refund.ts.',
      body: { question: 'Where do refunds go?' },
    })
  ).node.id;
  ids.gone = (
    await post('/capture', {
      collection: 'acme-decisions',
      node_type: 'decision',
      prose: 'Refund emails are sent from src/billing/refund-mailer.ts after the card is credited.',
      body: { question: 'Who tells the customer about a refund?' },
    })
  ).node.id;
  ids.future = (
    await post('/capture', {
      collection: 'acme-decisions',
      node_type: 'decision',
      prose: 'Refund statements will be rendered by src/billing/statements.ts once it is written.',
      body: { question: 'Where will refund statements come from?' },
    })
  ).node.id;
  await drainAll(t.sql, providers);
});
afterAll(async () => {
  await rm(checkout, { recursive: true, force: true });
  await rm(second, { recursive: true, force: true });
  await t.drop();
});

describe('session memory', () => {
  it('repeats nothing unchanged in the same session and says so; another session gets everything', async () => {
    const first = await prompt('mem-1', 'How do refunds work?');
    expect(first).toContain(ids.live);
    expect(first).toContain(ids.rule);
    expect(first).not.toContain('unchanged since the last brief');

    const second = await prompt('mem-1', 'How do refunds work?');
    expect(second).not.toContain(ids.live);
    expect(second).not.toContain(ids.rule);
    const sentFirst = [ids.live, ids.rule, ids.gone, ids.future].filter((id) => first.includes(id)).length;
    expect(second).toMatch(new RegExp(`\\(${sentFirst} items unchanged since the last brief in this session`));

    const other = await prompt('mem-2', 'How do refunds work?');
    expect(other).toContain(ids.live);
    expect(other).toContain(ids.rule);
    expect(other).not.toContain('unchanged since the last brief');
  });

  it("is the principal's own: another token's hooks under the same session id hide nothing from it", async () => {
    const { createToken } = await import('../../src/auth/tokens.js');
    const { ensurePrincipal } = await import('../../src/auth/workspaces.js');
    const intruder = await createToken(t.db, {
      workspaceId: ws.id,
      principalId: await ensurePrincipal(t.db, ws.id, 'agent:codex@elsewhere', 'api'),
      scope: 'read',
    });
    const asIntruder = (body: Record<string, unknown>) =>
      api.call('POST', '/api/v1/hooks/claude-code/prompt', intruder, {
        transcript_path: null,
        cwd: checkout,
        hook_event_name: 'UserPromptSubmit',
        prompt: 'How do refunds work?',
        ...body,
      });
    // Another agent's token posts first under the session id this one is about to use: keyed by
    // the session id alone, that marked the rule as sent, and this session's first brief left it out.
    const theirs = await asIntruder({ session_id: 'mem-own' });
    expect(theirs.status).toBe(200);
    expect(theirs.body.hookSpecificOutput.additionalContext).toContain(ids.rule);
    const first = await prompt('mem-own', 'How do refunds work?');
    expect(first).toContain(ids.rule);
    expect(first).not.toContain('unchanged since the last brief');
  });

  it('sends a changed record again, and only that one', async () => {
    await prompt('mem-3', 'How do refunds work?');
    await post('/changeset', {
      collection: 'acme-decisions',
      operations: [{ op: 'append', target: ids.live, prose: 'Partial refunds too go back to the card.' }],
    });
    await drainAll(t.sql, providers);
    const again = await prompt('mem-3', 'How do refunds work?');
    expect(again).toContain(ids.live);
    expect(again).not.toContain(ids.rule);
    expect(again).toMatch(/\(\d+ items? unchanged since the last brief in this session/);
    const [row] = await t.sql`select version from doco.hook_sent where session_id = 'mem-3' and node_id = ${ids.live}`;
    const [node] = await t.sql`select version from doco.nodes where id = ${ids.live}`;
    expect(row!.version).toBe(node!.version);
  });

  it('keeps sessions apart per workspace and remembers the agent and checkout', async () => {
    const [s] = await t.sql`select agent, cwd from doco.hook_sessions where workspace_id = ${ws.id} and session_id = 'mem-1'`;
    expect(s).toEqual({ agent: 'claude-code', cwd: checkout });
  });
});

describe('possibly stale records', () => {
  // What the checkout deleted is found by `doco hook` in the checkout and sent as doco_deleted;
  // the server only compares it with the records' touches (test/hooks/server-checkout.test.ts).
  it('marks a record naming a file the checkout deleted, not one whose file exists', async () => {
    const text = await prompt('stale-1', 'refund emails and refunds to the card', checkout, DELETED);
    expect(itemOf(text, ids.gone)).toContain('possibly stale: names a file this checkout deleted');
    expect(itemOf(text, ids.live)).toContain(ids.live);
    expect(itemOf(text, ids.live)).not.toContain('possibly stale');
  });

  it('does not mark a record naming a file that was never there (one not written yet)', async () => {
    const text = await prompt('stale-4', 'refund statements rendering', checkout, DELETED);
    expect(itemOf(text, ids.future)).toContain(ids.future);
    expect(itemOf(text, ids.future)).not.toContain('possibly stale');
  });

  it('marks nothing when the hook sent no deleted files, wherever the checkout is', async () => {
    for (const [session, cwd] of [
      ['stale-2', '/nowhere/else/repo'],
      ['stale-5', checkout],
    ] as const) {
      const text = await prompt(session, 'refund emails and refunds to the card', cwd);
      expect(text).toContain(ids.gone);
      expect(text).not.toContain('possibly stale');
    }
  });

  it('marks stale lines in the standing orders too', async () => {
    const text = await start('stale-3', second, 'startup', DELETED);
    expect(lineOf(text, ids.gone)).toContain('possibly stale');
    expect(lineOf(text, ids.live)).toContain(ids.live);
    expect(lineOf(text, ids.live)).not.toContain('possibly stale');
  });
});

describe('session start', () => {
  it("gives the constitution rule and what changed since the checkout's last session", async () => {
    const repo = path.join(checkout, 'src'); // a checkout of its own, with no sessions yet
    const first = await start('ss-1', repo);
    expect(first).toContain('Constitution (must obey)');
    expect(lineOf(first, ids.rule)).toContain('Refunds over $500 need an owner approval');
    expect(first).toContain('first session in this checkout');
    expect(first).toContain(ids.live);

    const newRule = (
      await post('/capture', {
        collection: 'constitution',
        node_type: 'rule',
        title: 'Never refund in cash',
        prose: 'Cash refunds are not allowed.',
      })
    ).node.id;
    const newDecision = (
      await post('/capture', {
        collection: 'acme-decisions',
        node_type: 'decision',
        body: { prose: 'Refunds are batched nightly.', question: 'When do refunds go out?' },
      })
    ).node.id;
    const second = await start('ss-2', repo);
    expect(second).toContain('since the last session in this checkout');
    const changed = second.slice(second.indexOf('Changed since'));
    expect(changed).toContain(newDecision);
    expect(changed).not.toContain(ids.live);
    // A new order is listed once, as an order, not again as a change.
    expect(second.split(newRule).length - 1).toBe(1);
    expect(changed).not.toContain(newRule);
    expect(lineOf(second, ids.rule)).toBeTruthy();

    const third = await start('ss-3', repo);
    expect(third).toContain('Nothing changed since the last session in this checkout');
  });

  it("describes a record by its first line of text, not the heading a doc's intro opens with", async () => {
    const intro = (
      await post('/capture', {
        collection: 'acme-decisions',
        node_type: 'decision',
        title: 'Shop',
        prose: '# Shop\n\n<!-- generated -->\nThe shop sells refurbished laptops and refunds within 30 days.',
        body: { question: 'What is the shop?' },
      })
    ).node.id;
    const text = await start('ss-intro', second);
    expect(lineOf(text, intro)).toContain('Shop — The shop sells refurbished laptops');
    expect(lineOf(text, intro)).not.toContain('#');
  });

  it('takes a subfolder of a checkout for that checkout when doco hook names it', async () => {
    const key = `${checkout}/.git#main`;
    const top = (session: string, cwd: string) =>
      context('claude-code', 'session-start', {
        session_id: session,
        cwd,
        hook_event_name: 'SessionStart',
        source: 'startup',
        doco_checkout: key,
      });
    expect(await top('wt-1', path.join(checkout, 'pkg-a'))).toContain('first session in this checkout');
    expect(await top('wt-2', path.join(checkout, 'pkg-b'))).toContain('since the last session in this checkout');
    // Another branch of the same repository is another checkout.
    const other = await context('claude-code', 'session-start', {
      session_id: 'wt-3',
      cwd: checkout,
      hook_event_name: 'SessionStart',
      source: 'startup',
      doco_checkout: `${checkout}/.git#feature`,
    });
    expect(other).toContain('first session in this checkout');
  });

  it("does not repeat the standing orders in the session's first brief", async () => {
    const s = await start('ss-4');
    expect(s).toContain(ids.rule);
    const b = await prompt('ss-4', 'refunds over 500 dollars');
    expect(b).not.toContain(ids.rule);
    expect(b).toMatch(/unchanged since the last brief in this session/);
  });

  it('forgets what was sent on a compact or clear, but not on a resume', async () => {
    const first = await prompt('ss-5', 'How do refunds work?');
    expect(first).toContain(ids.live);
    await start('ss-5', checkout, 'resume');
    expect(await prompt('ss-5', 'How do refunds work?')).not.toContain(ids.live);
    await start('ss-5', checkout, 'compact');
    expect(await prompt('ss-5', 'How do refunds work?')).toContain(ids.live);
  });

  it('keeps the context under the size limit', async () => {
    for (let i = 0; i < 60; i++) {
      await post('/capture', {
        collection: 'constitution',
        node_type: 'rule',
        title: `Rule ${i} about refunds and cards`,
        prose: `Rule ${i}: ${'refunds must be logged with care and reviewed weekly. '.repeat(6)}`,
      });
    }
    const s = await start('big-1', '/some/other/place');
    expect(s.length).toBeGreaterThan(2000);
    expect(s.length).toBeLessThanOrEqual(8000);
    await drainAll(t.sql, providers);
    const b = await prompt('big-2', 'refunds and cards');
    expect(b.length).toBeLessThanOrEqual(8000);
  });
});
