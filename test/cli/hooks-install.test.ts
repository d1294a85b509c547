// `doco hooks install|uninstall` through the built binary in a temp git checkout on a test
// database: a read token scoped to the workspace is minted once and kept out of git, a second
// install changes nothing, `doco hook` then finds the token and URL on its own, uninstall cleans up.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/auth/tokens.js';
import { runDoco } from '../helpers/cli.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
let repo: string;
let home: string;
let server: http.Server;
let url: string;
const seen: { path?: string; auth?: string }[] = [];

beforeAll(async () => {
  t = await createTestDb();
  repo = mkdtempSync(path.join(os.tmpdir(), 'doco-hooks-cli-'));
  home = mkdtempSync(path.join(os.tmpdir(), 'doco-hooks-home-'));
  execFileSync('git', ['init', '-q'], { cwd: repo });
  server = http.createServer((req, res) => {
    seen.push({ path: req.url, auth: req.headers.authorization });
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ok"}}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await t.drop();
  rmSync(repo, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

const env = () => ({ DATABASE_URL: t.url, DOCO_HOME: home, DOCO_URL: '', DOCO_TOKEN: '', DOCO_WORKSPACE: 'hooks-ws', VOYAGE_API_KEY: '', QDRANT_URL: '', ANTHROPIC_API_KEY: '', DOCO_LOG_LEVEL: 'warn' });
const doco = (args: string[], cwd = repo, input?: string) => runDoco(args, { env: env(), cwd, timeoutMs: 60_000, ...(input === undefined ? {} : { stdin: input }) });
const files = ['.claude/settings.local.json', '.mcp.json', '.git/doco-hooks.json'];
const snapshot = () => files.map((f) => (existsSync(path.join(repo, f)) ? readFileSync(path.join(repo, f), 'utf8') : undefined));

describe('doco hooks install / uninstall (built)', () => {
  let token: string;

  it('installs Claude Code hooks with a fresh read token for the workspace, kept out of git', async () => {
    const res = await doco(['hooks', 'install', '--agent', 'claude-code', '--url', url]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^wrote {5}\.claude\/settings\.local\.json$/m);
    const local = JSON.parse(readFileSync(path.join(repo, '.git', 'doco-hooks.json'), 'utf8'));
    token = local.token;
    expect(local).toMatchObject({ url, workspace: 'hooks-ws' });
    const settings = JSON.parse(readFileSync(path.join(repo, '.claude', 'settings.local.json'), 'utf8'));
    expect(settings.env.DOCO_TOKEN).toBe(token);
    expect(settings.hooks.UserPromptSubmit[0].hooks[0].command).toMatch(/^node \S+\/bin\/doco\.js hook prompt --agent claude-code$/);
    expect(await authenticate(t.db, token)).toMatchObject({ scope: 'read', workspaceSlug: 'hooks-ws' });
    expect(execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: repo, encoding: 'utf8' })).toBe('?? .mcp.json\n');
  });

  it('a second install changes no byte and mints no second token', async () => {
    const before = snapshot();
    const res = await doco(['hooks', 'install', '--agent', 'claude-code']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).not.toMatch(/^wrote/m);
    expect(snapshot()).toEqual(before);
    const [row] = await t.sql<{ n: number }[]>`select count(*)::int as n from doco.tokens where label = 'doco agent hooks'`;
    expect(row!.n).toBe(1);
  });

  it('doco hook then reaches the server with the installed token and URL, no env needed', async () => {
    seen.length = 0;
    const res = await doco(['hook', 'prompt', '--agent', 'claude-code'], repo, JSON.stringify({ session_id: 's', cwd: repo, hook_event_name: 'UserPromptSubmit', prompt: 'hi' }));
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('"additionalContext":"ok"');
    expect(seen).toEqual([{ path: '/api/v1/hooks/claude-code/prompt', auth: `Bearer ${token}` }]);
  });

  it('Codex install prints the trust note and the config.toml snippet', async () => {
    const res = await doco(['hooks', 'install', '--agent', 'codex']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/trusted in \/hooks/);
    expect(res.stdout).toContain(`[mcp_servers.doco]\nurl = "${url}/mcp"\nbearer_token_env_var = "DOCO_TOKEN"`);
    expect(existsSync(path.join(repo, '.codex', 'hooks.json'))).toBe(true);
  });

  it('uninstall removes what each install added, the local file last', async () => {
    expect((await doco(['hooks', 'uninstall', '--agent', 'claude-code'])).code).toBe(0);
    expect(existsSync(path.join(repo, '.claude', 'settings.local.json'))).toBe(false);
    expect(existsSync(path.join(repo, '.mcp.json'))).toBe(false);
    expect(existsSync(path.join(repo, '.git', 'doco-hooks.json'))).toBe(true);
    const res = await doco(['hooks', 'uninstall', '--agent', 'codex']);
    expect(res.stdout).toMatch(/^removed {3}\.git\/doco-hooks\.json$/m);
    expect(existsSync(path.join(repo, '.codex', 'hooks.json'))).toBe(false);
    expect(existsSync(path.join(repo, '.git', 'doco-hooks.json'))).toBe(false);
  });

  it('refuses outside a git checkout and on a bad agent (exit 2)', async () => {
    expect((await doco(['hooks', 'install', '--agent', 'claude-code', '--token', 'x'], os.tmpdir())).code).toBe(2);
    expect((await doco(['hooks', 'install', '--agent', 'vim'])).code).toBe(2);
    expect((await doco(['hooks', 'install', '--agent', 'codex', '--http'])).code).toBe(2);
  });
});
