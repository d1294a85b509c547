// Agent hooks end to end: Doco's real app served on loopback over a test database, `doco hooks
// install` minting the agent's tokens, then the built `doco hook` as Claude Code would run it:
// standing orders at session start (and the commit hook installed), a brief on a prompt whose id
// lands in doco-last-brief, asked as the agent's own principal (the stored brief and the console
// say which agent asked), that URL served by GET /briefs/:id, a real `git commit` with the
// trailer, a record naming a file the checkout deleted marked from what `doco hook` found, and an
// edit whose code's identifiers (at most 32, no credential, not the code) reach the brief.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoco } from '../helpers/cli.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { signedIn, textOf } from '../helpers/console.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { fakeCredentials } from '../helpers/fake-secrets.js';
import { drainAll } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let server: ServerType;
let url: string;
let repo: string;
let app: ReturnType<typeof makeApp>['app'];
let made: ReturnType<typeof makeApp>;
let mailerId: string;
const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: gitEnv, encoding: 'utf8' });

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'hooks-e2e');
  made = makeApp(t);
  app = made.app;
  const call = made.call;
  const rule = await call('POST', '/api/v1/capture', ws.writeToken, {
    collection: 'constitution',
    node_type: 'rule',
    title: 'Refunds over $500 need an owner',
    prose: 'Any refund over $500 needs the approval of an account owner.',
  });
  expect(rule.status).toBe(201);
  expect(
    (await call('POST', '/api/v1/collections', ws.writeToken, { slug: 'money', template: 'product-decisions', goal: 'Money' })).status,
  ).toBe(201);
  const mailer = await call('POST', '/api/v1/capture', ws.writeToken, {
    collection: 'money',
    node_type: 'decision',
    prose: 'Refund emails are sent from src/refund-mailer.ts once the card is credited.',
    body: { question: 'Who sends refund emails?' },
  });
  expect(mailer.status).toBe(201);
  mailerId = mailer.body.node.id;
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port));
  });
  url = `http://127.0.0.1:${port}`;
  repo = mkdtempSync(path.join(os.tmpdir(), 'doco-hooks-e2e-'));
  git('init', '-q');
  git('config', 'commit.gpgsign', 'false');
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.drop();
  rmSync(repo, { recursive: true, force: true });
});

const env = { DOCO_URL: '', DOCO_TOKEN: '', DOCO_HOME: path.join(os.tmpdir(), 'doco-hooks-e2e-nohome'), DOCO_HOOK_TIMEOUT_MS: '20000' };
const hook = (event: string, input: object) =>
  runDoco(['hook', event, '--agent', 'claude-code'], {
    env,
    cwd: repo,
    stdin: JSON.stringify({ session_id: 'e2e-1', transcript_path: null, cwd: repo, ...input }),
    timeoutMs: 30_000,
  });

describe('agent hooks against the real endpoint', () => {
  it("installs with the agent's own tokens, minted with a person's admin token", async () => {
    const res = await runDoco(['hooks', 'install', '--agent', 'claude-code', '--admin-token', ws.writeToken, '--url', url], {
      env,
      cwd: repo,
    });
    expect(res.code, res.stderr).toBe(0);
  });

  it('session start: the standing orders as additional context, and the commit hook in place', async () => {
    const res = await hook('session-start', { hook_event_name: 'SessionStart', source: 'startup' });
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    const out = JSON.parse(res.stdout);
    expect(out.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(out.hookSpecificOutput.additionalContext).toContain('Refunds over $500 need an owner');
    expect(readFileSync(path.join(repo, '.git', 'hooks', 'prepare-commit-msg'), 'utf8')).toContain('Doco-Brief');
  });

  it('a prompt: a brief, its id recorded, its URL served, and the next commit carries the trailer', async () => {
    const res = await hook('prompt', { hook_event_name: 'UserPromptSubmit', prompt: 'How should refunds over $500 be approved?' });
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    expect(JSON.parse(res.stdout).hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
    const last = JSON.parse(readFileSync(path.join(repo, '.git', 'doco-last-brief'), 'utf8'));
    expect(last.url).toBe(`${url}/api/v1/briefs/${last.id}`);
    expect((await fetch(last.url, { headers: { authorization: `Bearer ${ws.readToken}` } })).status).toBe(200);
    // Asked as the agent, not as the person who installed it: the stored brief and the console say so.
    const agent = `agent:claude-code@${path.basename(repo)}`;
    const [asker] = await t.sql<{ title: string }[]>`
      select p.title from doco.briefs b join doco.nodes p on p.id = b.principal_id where b.id = ${last.id}`;
    expect(asker!.title).toBe(agent);
    const person = await signedIn(t, app, ws);
    expect(textOf((await person.get(`/briefs/${last.id}`)).html)).toContain(`asked by ${agent}`);

    writeFileSync(path.join(repo, 'refunds.md'), 'owner approval\n');
    git('add', 'refunds.md');
    git('commit', '-q', '-m', 'Document refund approvals');
    expect(git('log', '-1', '--format=%(trailers:key=Doco-Brief,valueonly)').trim()).toBe(last.url);
  });

  it('a record naming a file the checkout deleted is marked, from what doco hook found in the checkout', async () => {
    mkdirSync(path.join(repo, 'src'), { recursive: true });
    writeFileSync(path.join(repo, 'src/refund-mailer.ts'), 'export {};\n');
    git('add', 'src/refund-mailer.ts');
    git('commit', '-q', '-m', 'Add the refund mailer');
    git('rm', '-q', 'src/refund-mailer.ts');
    git('commit', '-q', '-m', 'Drop the refund mailer');
    const res = await hook('prompt', { session_id: 'e2e-2', hook_event_name: 'UserPromptSubmit', prompt: 'Who sends refund emails?' });
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    const lines = JSON.parse(res.stdout).hookSpecificOutput.additionalContext.split('\n') as string[];
    const at = lines.findIndex((l) => l.startsWith(`  ${mailerId}  `));
    expect(at, lines.join('\n')).toBeGreaterThan(-1);
    expect(lines[at + 1]).toContain('possibly stale: names a file this checkout deleted');
  });

  it("an edit: the code's distinctive identifiers reach the brief, at most 32, never a credential nor the code", async () => {
    expect(
      (await made.call('POST', '/api/v1/collections', ws.writeToken, { slug: 'rpc-docs', template: 'documentation', goal: 'RPC' })).status,
    ).toBe(201);
    const doc = await made.call('POST', '/api/v1/capture', ws.writeToken, {
      collection: 'rpc-docs',
      node_type: 'reference',
      title: 'Websocket subscribers',
      prose: 'Raise `max_subscription_clients` when many websocket subscribers connect at once; each holds a buffer of its own.',
    });
    expect(doc.status).toBe(201);
    await drainAll(t.sql, made.deps);
    const token = fakeCredentials().github_pat;
    const content = [
      '// Limits the RPC server enforces on websocket subscribers.',
      'package rpc',
      `const upstreamToken = "${token}"`,
      'func checkSubscribers(env *Environment) error {',
      '\tif env.EventBus.NumClients() >= env.Config.MaxSubscriptionClients {',
      '\t\treturn fmt.Errorf("max_subscription_clients %d reached", env.Config.MaxSubscriptionClients)',
      '\t}',
      ...Array.from({ length: 40 }, (_, i) => {
        const w = `${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`;
        return `\tlimit${w}Value := computeLimitFor${w}(env)`;
      }),
      '\treturn nil',
      '}',
    ].join('\n');
    const res = await hook('edit', {
      session_id: 'e2e-3',
      hook_event_name: 'PreToolUse',
      tool_name: 'Write',
      tool_input: { file_path: path.join(repo, 'rpc/limits.go'), content },
    });
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    const context = JSON.parse(res.stdout).hookSpecificOutput.additionalContext as string;
    expect(context).toContain(doc.body.node.id);
    expect(context).toContain('names `MaxSubscriptionClients`, in the code being written');
    const [stored] = await t.sql<{ request: { about: string; code_terms: string[] } }[]>`
      select request from doco.briefs where workspace_id = ${ws.id} order by created_at desc limit 1`;
    const terms = stored!.request.code_terms;
    expect(terms).toHaveLength(32);
    expect(terms).toEqual(expect.arrayContaining(['MaxSubscriptionClients', 'checkSubscribers', 'upstreamToken']));
    for (const plain of ['func', 'return', 'nil', 'fmt', 'Errorf', 'env', 'package']) expect(terms).not.toContain(plain);
    expect(JSON.stringify(stored!.request)).not.toContain(token);
    expect(JSON.stringify(stored!.request)).not.toContain('computeLimitForNb(env)');
    expect(stored!.request.about).toBe('Write rpc/limits.go: // Limits the RPC server enforces on websocket subscribers.');
  });
});
