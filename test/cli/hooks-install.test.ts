// `doco hooks install|status|uninstall` through the built binary in temp git checkouts, against
// Doco's real app served on loopback over a test database. The CLI's own DATABASE_URL points
// nowhere: install must never open a database. Tokens are minted by the server from a person's
// write token (--admin-token), checked before any file is written, re-checked on every rerun.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/auth/tokens.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { DOCO_BIN, runDoco } from '../helpers/cli.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { fakeCodexDir } from '../helpers/fake-codex.js';
import { callToolOk, connectMcp } from '../helpers/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

let t: TestDb;
let ws: TestWorkspace;
let server: ServerType;
let url: string;
let home: string;
const dirs: string[] = [];

const newRepo = () => {
  const repo = mkdtempSync(path.join(os.tmpdir(), 'doco-hooks-cli-'));
  dirs.push(repo);
  execFileSync('git', ['init', '-q'], { cwd: repo });
  return repo;
};

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'hooks-ws');
  const { app, call } = makeApp(t);
  expect(
    (await call('POST', '/api/v1/collections', ws.writeToken, { slug: 'notes', template: 'product-decisions', goal: 'What we decided.' }))
      .status,
  ).toBe(201);
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port));
  });
  url = `http://127.0.0.1:${port}`;
  home = mkdtempSync(path.join(os.tmpdir(), 'doco-hooks-home-'));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.drop();
  for (const d of [...dirs, home]) rmSync(d, { recursive: true, force: true });
});

const closedPort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** No database for the CLI: a DATABASE_URL nothing listens on, and no PATH to a codex. */
const env = (extra: Record<string, string> = {}) => ({
  DATABASE_URL: 'postgres://nobody:nothing@127.0.0.1:9/none',
  DOCO_HOME: home,
  DOCO_URL: '',
  DOCO_TOKEN: '',
  DOCO_ADMIN_TOKEN: '',
  DOCO_WORKSPACE: '',
  PATH: '/usr/local/bin:/usr/bin:/bin',
  DOCO_LOG_LEVEL: 'warn',
  ...extra,
});
const doco = (args: string[], cwd: string, extra: Record<string, string> = {}, stdin?: string) =>
  runDoco(args, { env: env(extra), cwd, timeoutMs: 60_000, ...(stdin === undefined ? {} : { stdin }) });
const files = [
  '.claude/settings.local.json',
  '.mcp.json',
  '.git/doco-hooks.json',
  '.codex/hooks.json',
  '.codex/config.toml',
  '.gemini/settings.json',
  '.gemini/.env',
];
const snapshot = (repo: string) =>
  files.map((f) => (existsSync(path.join(repo, f)) ? readFileSync(path.join(repo, f), 'utf8') : undefined));
const json = (repo: string, rel: string) => JSON.parse(readFileSync(path.join(repo, rel), 'utf8'));
const nothingWritten = (repo: string) => {
  expect(snapshot(repo).every((f) => f === undefined)).toBe(true);
  expect(existsSync(path.join(repo, '.doco'))).toBe(false);
  expect(readdirSync(home)).toEqual([]);
};
const modeOf = (repo: string, rel: string) => statSync(path.join(repo, rel)).mode & 0o777;
const tokenCount = async () => (await t.sql<{ n: number }[]>`select count(*)::int as n from doco.tokens`)[0]!.n;

describe('refusals: exit 1, nothing written, no database', () => {
  it('a --token the server refuses', async () => {
    const repo = newRepo();
    const res = await doco(
      ['hooks', 'install', '--agent', 'claude-code', '--url', url, '--token', 'doco_bogus', '--mcp-token', 'doco_bogus2'],
      repo,
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      /^doco hooks install: .* refuses --token \(401: the bearer token is unknown or revoked\)\. Nothing was written\.\n$/,
    );
    nothingWritten(repo);
  });

  it('an admin token the server refuses, a read token as admin, a write token as --token', async () => {
    const repo = newRepo();
    const before = await tokenCount();
    const bad = await doco(['hooks', 'install', '--agent', 'codex', '--url', url, '--admin-token', 'doco_nope'], repo);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/refused to mint the hook tokens with the admin token \(401/);
    const read = await doco(['hooks', 'install', '--agent', 'codex', '--url', url], repo, { DOCO_ADMIN_TOKEN: ws.readToken });
    expect(read.code).toBe(1);
    expect(read.stderr).toMatch(/\(403: minting hook tokens needs a write token/);
    const write = await doco(
      ['hooks', 'install', '--agent', 'codex', '--url', url, '--token', ws.writeToken, '--admin-token', ws.writeToken],
      repo,
    );
    expect(write.code).toBe(1);
    expect(write.stderr).toMatch(/--token is a write token: the hooks get a read-only token/);
    nothingWritten(repo);
    expect(await tokenCount()).toBe(before);
  });

  it('an unreachable --url', async () => {
    const repo = newRepo();
    const res = await doco(
      ['hooks', 'install', '--agent', 'gemini', '--url', `http://127.0.0.1:${await closedPort()}`, '--admin-token', ws.writeToken],
      repo,
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/cannot reach the Doco server at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\): start it with `doco serve`/);
    nothingWritten(repo);
  });

  it('a first install with no token to mint with names what to pass', async () => {
    const repo = newRepo();
    const res = await doco(['hooks', 'install', '--agent', 'claude-code', '--url', url], repo);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/pass --admin-token T \(or set DOCO_ADMIN_TOKEN\)/);
    nothingWritten(repo);
  });

  it("a repository's symbolic link where install writes (a folder or a file): refused before any token is minted; the link's target untouched", async () => {
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'doco-hooks-elsewhere-'));
    dirs.push(elsewhere);
    mkdirSync(path.join(elsewhere, '.codex'));
    writeFileSync(path.join(elsewhere, '.codex', 'config.toml'), 'model = "mine"\n');
    writeFileSync(path.join(elsewhere, 'settings.json'), '{"theme":"dark"}\n');
    const cases: [string, (repo: string) => void, string][] = [
      ['codex', (repo) => symlinkSync(path.join(elsewhere, '.codex'), path.join(repo, '.codex')), '.codex'],
      [
        'claude-code',
        (repo) => {
          mkdirSync(path.join(repo, '.claude'));
          symlinkSync(path.join(elsewhere, 'settings.json'), path.join(repo, '.claude', 'settings.local.json'));
        },
        '.claude/settings.local.json',
      ],
      ['gemini', (repo) => symlinkSync(elsewhere, path.join(repo, '.gemini')), '.gemini'],
    ];
    const before = await tokenCount();
    for (const [agent, plant, named] of cases) {
      const repo = newRepo();
      plant(repo);
      const res = await doco(['hooks', 'install', '--agent', agent, '--url', url, '--admin-token', ws.writeToken], repo);
      expect(res.code, res.stderr).toBe(1);
      expect(res.stderr).toBe(
        `doco: ${named} in this checkout is a symbolic link: hooks install writes only files of the checkout itself (a link may point at your own settings); remove it and run again\n`,
      );
      expect(existsSync(path.join(repo, '.git', 'doco-hooks.json'))).toBe(false);
      const un = await doco(['hooks', 'uninstall', '--agent', agent], repo);
      expect(un.code).toBe(1);
    }
    expect(await tokenCount()).toBe(before);
    expect(readFileSync(path.join(elsewhere, '.codex', 'config.toml'), 'utf8')).toBe('model = "mine"\n');
    expect(readFileSync(path.join(elsewhere, 'settings.json'), 'utf8')).toBe('{"theme":"dark"}\n');
    expect(readdirSync(elsewhere).sort()).toEqual(['.codex', 'settings.json']);
  });

  it('a file git tracks that install would write a token into: refused, the file unchanged', async () => {
    const repo = newRepo();
    mkdirSync(path.join(repo, '.claude'));
    writeFileSync(path.join(repo, '.claude', 'settings.local.json'), '{}\n');
    execFileSync('git', ['add', '.claude/settings.local.json'], { cwd: repo });
    const before = await tokenCount();
    const res = await doco(['hooks', 'install', '--agent', 'claude-code', '--url', url, '--admin-token', ws.writeToken], repo);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      'doco: .claude/settings.local.json is tracked by git, and install would write a token into it: untrack it (git rm --cached) and run again\n',
    );
    expect(readFileSync(path.join(repo, '.claude', 'settings.local.json'), 'utf8')).toBe('{}\n');
    expect(await tokenCount()).toBe(before);
    // Codex's config.toml opening with Doco's own mark, committed: still the repository's.
    const codexRepo = newRepo();
    mkdirSync(path.join(codexRepo, '.codex'));
    writeFileSync(
      path.join(codexRepo, '.codex', 'config.toml'),
      "# Written by `doco hooks install`: Doco's MCP tools for this checkout.\n",
    );
    execFileSync('git', ['add', '.codex/config.toml'], { cwd: codexRepo });
    const codex = await doco(['hooks', 'install', '--agent', 'codex', '--url', url, '--admin-token', ws.writeToken], codexRepo);
    expect(codex.code).toBe(1);
    expect(codex.stderr).toMatch(/^doco: \.codex\/config\.toml is tracked by git/);
  });

  it("an agent's settings file that is not JSON: one line naming it, before any token is minted", async () => {
    const repo = newRepo();
    mkdirSync(path.join(repo, '.gemini'));
    writeFileSync(path.join(repo, '.gemini', 'settings.json'), '{ theme: dark }\n');
    const before = await tokenCount();
    const res = await doco(['hooks', 'install', '--agent', 'gemini', '--url', url, '--admin-token', ws.writeToken], repo);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^doco: \S+\/\.gemini\/settings\.json is not valid JSON \(.+\): fix or remove it, then run again\n$/);
    expect(await tokenCount()).toBe(before);
    expect(readFileSync(path.join(repo, '.gemini', 'settings.json'), 'utf8')).toBe('{ theme: dark }\n');
  });

  it('usage errors exit 2: a bad --agent, outside a checkout, --http for codex, a bad --url', async () => {
    const repo = newRepo();
    expect((await doco(['hooks', 'install', '--agent', 'vim', '--url', url], repo)).code).toBe(2);
    expect((await doco(['hooks', 'install', '--agent', 'claude-code', '--token', 'x'], os.tmpdir())).code).toBe(2);
    expect((await doco(['hooks', 'install', '--agent', 'codex', '--http'], repo)).code).toBe(2);
    expect((await doco(['hooks', 'install', '--agent', 'codex', '--url', 'ftp://x'], repo)).code).toBe(2);
    expect((await doco(['hooks', 'status', '--agent', 'vim'], repo)).code).toBe(2);
    nothingWritten(repo);
  });
});

describe('Claude Code: install, rerun, a revoked token, status, MCP writes', () => {
  let repo: string;
  let hookToken: string;
  let mcpToken: string;

  beforeAll(() => {
    repo = newRepo();
  });

  it('mints a read token for the hooks and a write token, both of agent:claude-code@<checkout>, kept out of git, owner-only', async () => {
    const res = await doco(['hooks', 'install', '--agent', 'claude-code', '--url', url, '--admin-token', ws.writeToken], repo);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^wrote {5}\.claude\/settings\.local\.json$/m);
    expect(res.stdout).toContain(`Hooks: a read-only token of agent:claude-code@${path.basename(repo)} in workspace hooks-ws`);
    const local = json(repo, '.git/doco-hooks.json');
    hookToken = local.agents['claude-code'].hook_token;
    mcpToken = local.agents['claude-code'].mcp_token;
    expect(local).toMatchObject({ url, workspace: 'hooks-ws' });
    // Each agent's hooks have a token of their own: no shared one.
    expect(local.token).toBeUndefined();
    // Every file holding a token is owner-only: the settings hold both.
    for (const f of ['.claude/settings.local.json', '.git/doco-hooks.json']) expect(modeOf(repo, f), f).toBe(0o600);
    const settings = json(repo, '.claude/settings.local.json');
    expect(settings.env).toEqual({ DOCO_TOKEN: hookToken, DOCO_MCP_TOKEN: mcpToken });
    expect(json(repo, '.mcp.json').mcpServers.doco).toEqual({
      type: 'http',
      url: `${url}/mcp`,
      headers: { Authorization: 'Bearer ${DOCO_MCP_TOKEN}' },
    });
    expect(await authenticate(t.sql, hookToken)).toMatchObject({
      scope: 'read',
      workspaceSlug: 'hooks-ws',
      principalName: `agent:claude-code@${path.basename(repo)}`,
    });
    expect(await authenticate(t.sql, mcpToken)).toMatchObject({
      scope: 'write',
      principalName: `agent:claude-code@${path.basename(repo)}`,
    });
    expect(execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: repo, encoding: 'utf8' })).toBe('?? .mcp.json\n');
    expect(existsSync(path.join(repo, '.doco'))).toBe(false);
    expect(readdirSync(home)).toEqual([]);
  });

  it('a rerun with no admin token re-checks the saved tokens, changes no byte and mints nothing', async () => {
    const before = snapshot(repo);
    const count = await tokenCount();
    const res = await doco(['hooks', 'install', '--agent', 'claude-code'], repo);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).not.toMatch(/^wrote/m);
    expect(snapshot(repo)).toEqual(before);
    expect(await tokenCount()).toBe(count);
  });

  it("an admin token is never sent to the server the checkout's record names (an agent can rewrite it): --url is asked for", async () => {
    const asked: string[] = [];
    const fake = http.createServer((req, res) => {
      asked.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    const elsewhere = `http://127.0.0.1:${(fake.address() as net.AddressInfo).port}`;
    const file = path.join(repo, '.git', 'doco-hooks.json');
    const kept = readFileSync(file, 'utf8');
    try {
      writeFileSync(file, JSON.stringify({ ...JSON.parse(kept), url: elsewhere }));
      const res = await doco(['hooks', 'install', '--agent', 'claude-code', '--admin-token', ws.writeToken], repo);
      expect(res.code).toBe(2);
      expect(res.stderr).toBe(
        `doco: the server ${elsewhere} comes from this checkout's last install, which anything working in the checkout can change: pass --url ${elsewhere} to send it your admin token\n`,
      );
      expect(asked).toEqual([]);
    } finally {
      writeFileSync(file, kept);
      fake.closeAllConnections();
      await new Promise((resolve) => fake.close(resolve));
    }
  });

  it('doco hook reaches the server with the installed token: no 401 note', async () => {
    const res = await doco(
      ['hook', 'prompt', '--agent', 'claude-code'],
      repo,
      { DOCO_HOOK_TIMEOUT_MS: '20000' },
      JSON.stringify({ session_id: 's1', cwd: repo, hook_event_name: 'UserPromptSubmit', prompt: 'How do we ship?' }),
    );
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
  });

  it('status says the hooks are in and both tokens work', async () => {
    const res = await doco(['hooks', 'status', '--json', '--agent', 'claude-code'], repo);
    expect(res.code, res.stderr).toBe(0);
    const [claude] = JSON.parse(res.stdout).agents;
    expect(claude).toMatchObject({
      agent: 'claude-code',
      installed: true,
      events: { SessionStart: true, UserPromptSubmit: true, PreToolUse: true },
      outdated: [],
      hook_token: { works: true, scope: 'read', principal: `agent:claude-code@${path.basename(repo)}` },
      mcp_token: { works: true, scope: 'write', principal: `agent:claude-code@${path.basename(repo)}` },
    });
  });

  it('status names a DOCO_HOOK_TIMEOUT_MS that is no timeout, and exits 1; a good one, or none, is named too', async () => {
    const bad = await doco(['hooks', 'status', '--agent', 'claude-code'], repo, { DOCO_HOOK_TIMEOUT_MS: 'abc' });
    expect(bad.code, bad.stderr).toBe(1);
    expect(bad.stdout).toContain(
      'hook timeout: DOCO_HOOK_TIMEOUT_MS: must be a whole number of milliseconds (got "abc"): the hooks wait the default 5000 ms',
    );
    const json = await doco(['hooks', 'status', '--json', '--agent', 'claude-code'], repo, { DOCO_HOOK_TIMEOUT_MS: 'abc' });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).hook_timeout).toEqual({
      ms: 5000,
      source: 'default',
      problem: 'DOCO_HOOK_TIMEOUT_MS: must be a whole number of milliseconds (got "abc")',
    });
    const good = await doco(['hooks', 'status', '--agent', 'claude-code'], repo, { DOCO_HOOK_TIMEOUT_MS: '20000' });
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toContain('hook timeout: 20000 ms (DOCO_HOOK_TIMEOUT_MS)');
    const unset = await doco(['hooks', 'status', '--agent', 'claude-code'], repo, { DOCO_HOOK_TIMEOUT_MS: '' });
    expect(unset.stdout).toContain('hook timeout: 5000 ms (the default)');
  });

  it('status names a hook command an older Doco wrote, and a rerun of install replaces it', async () => {
    // Before 3fd3012 the command was `<doco> hook <event> --agent <agent>`: Node then read
    // NODE_EXTRA_CA_CERTS on every prompt and edit.
    const file = path.join(repo, '.claude/settings.local.json');
    const current = readFileSync(file, 'utf8');
    const old = current.replaceAll('DOCO_EXTRA_CA_CERTS=\\"$NODE_EXTRA_CA_CERTS\\" NODE_EXTRA_CA_CERTS= ', '');
    expect(old).not.toBe(current);
    writeFileSync(file, old);
    const status = await doco(['hooks', 'status', '--json', '--agent', 'claude-code'], repo);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).agents[0].outdated).toEqual(['SessionStart', 'UserPromptSubmit', 'PreToolUse']);
    const text = await doco(['hooks', 'status', '--agent', 'claude-code'], repo);
    expect(text.stdout).toContain(
      "hook command: an older Doco's for SessionStart, UserPromptSubmit, PreToolUse (it starts Node with NODE_EXTRA_CA_CERTS, ~40 ms a prompt): run `doco hooks install --agent claude-code` again",
    );
    const rerun = await doco(['hooks', 'install', '--agent', 'claude-code'], repo);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(current);
    const after = await doco(['hooks', 'status', '--json', '--agent', 'claude-code'], repo);
    expect(JSON.parse(after.stdout).agents[0].outdated).toEqual([]);
  });

  it('a revoked hook token: a rerun without an admin token fails and writes nothing; with one it replaces the token everywhere', async () => {
    await t.sql`update doco.tokens set revoked_at = now() where token_hash = encode(sha256(convert_to(${hookToken}, 'UTF8')), 'hex')`;
    const status = await doco(['hooks', 'status'], repo);
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/hook token: refused \(401/);
    const before = snapshot(repo);
    const bare = await doco(['hooks', 'install', '--agent', 'claude-code'], repo);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toMatch(/a read token for the hooks \(--token\) is missing/);
    expect(snapshot(repo)).toEqual(before);
    const res = await doco(['hooks', 'install', '--agent', 'claude-code', '--url', url, '--admin-token', ws.writeToken], repo);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/the hook token saved by the last install is refused by .*: replaced/);
    const fresh = json(repo, '.git/doco-hooks.json').agents['claude-code'].hook_token;
    expect(fresh).not.toBe(hookToken);
    expect(json(repo, '.claude/settings.local.json').env).toEqual({ DOCO_TOKEN: fresh, DOCO_MCP_TOKEN: mcpToken });
    expect((await doco(['hooks', 'status'], repo)).code).toBe(0);
  });

  it('the installed MCP token writes over HTTP, and what it writes waits as queued', async () => {
    const client = await connectMcp({ fetch: () => new Response() }, mcpToken, `${url}/mcp`);
    try {
      const res = await callToolOk(client, 'doco_capture', {
        collection: 'notes',
        node_type: 'decision',
        title: 'Ship on Fridays',
        prose: 'We ship on Fridays.',
      });
      expect(res.node.lifecycle).toBe('queued');
    } finally {
      await client.close();
    }
  });

  it('uninstall removes what install added', async () => {
    expect((await doco(['hooks', 'uninstall', '--agent', 'claude-code'], repo)).code).toBe(0);
    expect(snapshot(repo).every((f) => f === undefined)).toBe(true);
  });
});

describe("an earlier install's hook token, the person's: kept working, replaced by a rerun with an admin token", () => {
  /** The layout installs wrote before each agent's hooks had a token of their own: one shared person's token, settings 0644. */
  const asEarlierInstall = (repo: string, agents: string[]) => {
    const local = json(repo, '.git/doco-hooks.json');
    for (const a of agents) delete local.agents[a].hook_token;
    writeFileSync(path.join(repo, '.git/doco-hooks.json'), `${JSON.stringify({ token: ws.readToken, ...local }, null, 2)}\n`);
    const settings = json(repo, '.claude/settings.local.json');
    settings.env.DOCO_TOKEN = ws.readToken;
    writeFileSync(path.join(repo, '.claude/settings.local.json'), `${JSON.stringify(settings, null, 2)}\n`);
    chmodSync(path.join(repo, '.claude/settings.local.json'), 0o644);
  };
  const lastAsker = async () =>
    (
      await t.sql<{ title: string }[]>`
        select p.title from doco.briefs b join doco.nodes p on p.id = b.principal_id order by b.created_at desc limit 1`
    )[0]!.title;
  const prompt = (repo: string) =>
    doco(
      ['hook', 'prompt', '--agent', 'claude-code'],
      repo,
      { DOCO_HOOK_TIMEOUT_MS: '20000' },
      JSON.stringify({
        session_id: `old-${path.basename(repo)}`,
        cwd: repo,
        hook_event_name: 'UserPromptSubmit',
        prompt: 'How do we ship?',
      }),
    );

  it("a --token of a person's is refused: the hooks ask as the agent", async () => {
    const repo = newRepo();
    const res = await doco(
      ['hooks', 'install', '--agent', 'claude-code', '--url', url, '--token', ws.readToken, '--admin-token', ws.writeToken],
      repo,
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/--token belongs to tester-hooks-ws, not to an agent: principal/);
    nothingWritten(repo);
  });

  it('a rerun without an admin token keeps it (and says so); with one it gives the hooks the agent principal, everywhere', async () => {
    const repo = newRepo();
    expect((await doco(['hooks', 'install', '--agent', 'claude-code', '--url', url, '--admin-token', ws.writeToken], repo)).code).toBe(0);
    asEarlierInstall(repo, ['claude-code']);
    expect((await prompt(repo)).stderr).toBe('');
    expect(await lastAsker()).toBe('tester-hooks-ws');

    const kept = await doco(['hooks', 'install', '--agent', 'claude-code'], repo);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toMatch(/the hooks still read with tester-hooks-ws's token from an earlier install.*rerun with --admin-token/);
    expect(json(repo, '.claude/settings.local.json').env.DOCO_TOKEN).toBe(ws.readToken);
    expect(modeOf(repo, '.claude/settings.local.json')).toBe(0o600);

    const res = await doco(['hooks', 'install', '--agent', 'claude-code', '--url', url, '--admin-token', ws.writeToken], repo);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/the hook token saved by the last install belongs to tester-hooks-ws, not to the agent: replaced/);
    const local = json(repo, '.git/doco-hooks.json');
    const fresh = local.agents['claude-code'].hook_token;
    expect(await authenticate(t.sql, fresh)).toMatchObject({ scope: 'read', principalName: `agent:claude-code@${path.basename(repo)}` });
    expect(local.token).toBeUndefined();
    expect(json(repo, '.claude/settings.local.json').env.DOCO_TOKEN).toBe(fresh);
    expect((await prompt(repo)).stderr).toBe('');
    expect(await lastAsker()).toBe(`agent:claude-code@${path.basename(repo)}`);
  });

  it('the shared token stays for an agent not installed again yet', async () => {
    const repo = newRepo();
    for (const agent of ['claude-code', 'codex'])
      expect((await doco(['hooks', 'install', '--agent', agent, '--url', url, '--admin-token', ws.writeToken], repo)).code).toBe(0);
    asEarlierInstall(repo, ['claude-code', 'codex']);
    expect((await doco(['hooks', 'install', '--agent', 'claude-code', '--url', url, '--admin-token', ws.writeToken], repo)).code).toBe(0);
    const local = json(repo, '.git/doco-hooks.json');
    expect(local.token).toBe(ws.readToken);
    expect(local.agents.codex.hook_token).toBeUndefined();
    expect(local.agents['claude-code'].hook_token).not.toBe(ws.readToken);
    expect((await doco(['hooks', 'install', '--agent', 'codex', '--url', url, '--admin-token', ws.writeToken], repo)).code).toBe(0);
    expect(json(repo, '.git/doco-hooks.json').token).toBeUndefined();
  });
});

describe('the server URL as the agents read it', () => {
  it('is written as the URL parser writes it: a control character escaped, `..` resolved, TOML that parses', async () => {
    const repo = newRepo();
    const res = await doco(['hooks', 'install', '--agent', 'codex', '--url', `${url}/\u007f/..`, '--admin-token', ws.writeToken], repo);
    expect(res.code, res.stderr).toBe(0);
    const toml = readFileSync(path.join(repo, '.codex', 'config.toml'), 'utf8');
    expect(toml).toContain(`url = "${url}/mcp"`);
    expect(toml).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(json(repo, '.git/doco-hooks.json').url).toBe(url);
  });

  it("a URL's user and password are not echoed when it is refused", async () => {
    const res = await doco(['hooks', 'install', '--agent', 'codex', '--url', 'http://ada:s3cret@127.0.0.1:1'], newRepo());
    expect(res.code).toBe(2);
    expect(res.stderr).not.toContain('s3cret');
  });
});

describe('Codex: a stable command, the trust step, trust as Codex reports it', () => {
  let repo: string;

  beforeAll(() => {
    repo = newRepo();
  });

  it('installs, says exactly how to trust, and a reinstall leaves .codex/hooks.json identical', async () => {
    const res = await doco(['hooks', 'install', '--agent', 'codex', '--url', url, '--admin-token', ws.writeToken], repo);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('run `codex` in this checkout once and choose "Trust all and continue" (or open /hooks');
    const hooks = readFileSync(path.join(repo, '.codex/hooks.json'), 'utf8');
    const token = json(repo, '.git/doco-hooks.json').agents.codex.mcp_token;
    expect(readFileSync(path.join(repo, '.codex/config.toml'), 'utf8')).toContain(`http_headers = { Authorization = "Bearer ${token}" }`);
    expect(modeOf(repo, '.codex/config.toml')).toBe(0o600);
    const again = await doco(['hooks', 'install', '--agent', 'codex', '--url', url, '--admin-token', ws.writeToken], repo);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^unchanged \.codex\/hooks\.json$/m);
    expect(readFileSync(path.join(repo, '.codex/hooks.json'), 'utf8')).toBe(hooks);
  });

  it('status: trust unknown without codex on PATH; with codex, its own trustStatus per hook', async () => {
    const none = JSON.parse((await doco(['hooks', 'status', '--json', '--agent', 'codex'], repo)).stdout).agents[0];
    expect(none).toMatchObject({
      installed: true,
      trust: 'unknown (codex not on PATH)',
      hook_token: { works: true },
      mcp_token: { works: true },
    });
    for (const trust of ['untrusted', 'trusted']) {
      const dir = fakeCodexDir(trust);
      dirs.push(dir);
      const res = await doco(['hooks', 'status', '--agent', 'codex'], repo, { PATH: `${dir}:/usr/local/bin:/usr/bin:/bin` });
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain(`trusted by codex: SessionStart ${trust}, UserPromptSubmit ${trust}, PreToolUse ${trust}`);
    }
  });
});

describe('Gemini: the MCP entry connects with nothing exported', () => {
  // Gemini expands $VAR in settings before it reads .gemini/.env (seen in Gemini CLI 0.61.0), so
  // its entry is `doco mcp-bridge`: stdio, with the token read from the git directory.
  const bridge = (repo: string) =>
    new StdioClientTransport({
      command: process.execPath,
      args: [DOCO_BIN, 'mcp-bridge', '--agent', 'gemini'],
      cwd: repo,
      env: env(),
      stderr: 'pipe',
    });

  it('writes a stdio entry with no token in settings.json, and its captures land queued by the agent', async () => {
    const repo = newRepo();
    const res = await doco(['hooks', 'install', '--agent', 'gemini', '--url', url, '--admin-token', ws.writeToken], repo);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/GEMINI_CLI_TRUST_WORKSPACE=true/);
    const token = json(repo, '.git/doco-hooks.json').agents.gemini.mcp_token;
    const settings = readFileSync(path.join(repo, '.gemini/settings.json'), 'utf8');
    expect(JSON.parse(settings).mcpServers.doco).toEqual({ command: 'node', args: [DOCO_BIN, 'mcp-bridge', '--agent', 'gemini'] });
    expect(settings).not.toContain(token);
    expect(existsSync(path.join(repo, '.gemini/.env'))).toBe(false);
    expect(await authenticate(t.sql, token)).toMatchObject({ principalName: `agent:gemini@${path.basename(repo)}` });

    const client = new Client({ name: 'gemini-stand-in', version: '0.0.0' });
    await client.connect(bridge(repo));
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((x) => x.name)).toContain('doco_capture');
      const captured = await callToolOk(client, 'doco_capture', {
        collection: 'notes',
        node_type: 'decision',
        title: 'Bridge captures wait',
        prose: 'A capture through the bridge waits for review.',
      });
      const [row] = await t.sql<{ lifecycle: string }[]>`select lifecycle::text from doco.nodes where id = ${captured.node.id}`;
      expect(row!.lifecycle).toBe('queued');
    } finally {
      await client.close();
    }
    const status = await doco(['hooks', 'status', '--agent', 'gemini', '--json'], repo);
    expect(status.code, status.stderr + status.stdout).toBe(0);
  });

  it('refuses to start, on stderr only, where nothing was installed or the token is revoked', async () => {
    const bare = newRepo();
    const none = await doco(['mcp-bridge', '--agent', 'gemini'], bare, {}, '');
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('doco hooks install --agent gemini');
    expect((await doco(['mcp-bridge'], bare, {}, '')).code).toBe(2);

    const repo = newRepo();
    expect((await doco(['hooks', 'install', '--agent', 'gemini', '--url', url, '--admin-token', ws.writeToken], repo)).code).toBe(0);
    const token = json(repo, '.git/doco-hooks.json').agents.gemini.mcp_token;
    await t.sql`update doco.tokens set revoked_at = now() where token_hash = encode(sha256(convert_to(${token}, 'UTF8')), 'hex')`;
    const refused = await doco(
      ['mcp-bridge', '--agent', 'gemini'],
      repo,
      {},
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' } },
      }) + '\n',
    );
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/401|unauthori/i);
  });
});
