// The per-agent installers on temp checkouts that already hold the user's own settings, hooks
// and MCP servers: nothing of theirs is lost, a second install changes no byte, uninstall
// takes out exactly what install put in (the files come back byte for byte).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyState, type AgentInstaller } from '../../src/hooks/install/agent.js';
import { claudeCode } from '../../src/hooks/install/claude-code.js';
import { codex } from '../../src/hooks/install/codex.js';
import { gemini } from '../../src/hooks/install/gemini.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function checkout(files: Record<string, unknown>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'doco-install-'));
  dirs.push(root);
  execFileSync('git', ['init', '-q'], { cwd: root });
  for (const [rel, value] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), `${JSON.stringify(value, null, 2)}\n`);
  }
  return root;
}

const userHook = { type: 'command', command: 'npm run lint', timeout: 30 };
const userServer = { command: 'my-mcp', args: ['--stdio'] };
const opts = (root: string, extra: { http?: boolean; url?: string; token?: string; mcpToken?: string; refused?: string[] } = {}) => ({
  root,
  url: extra.url ?? 'http://127.0.0.1:8787',
  token: extra.token ?? 'doco_tok',
  mcpToken: extra.mcpToken ?? 'doco_mcp',
  refused: new Set(extra.refused ?? []),
  docoCommand: 'npx doco',
  docoArgv: ['npx', 'doco'],
  http: extra.http ?? false,
});
const read = (root: string, rel: string) => JSON.parse(readFileSync(path.join(root, rel), 'utf8'));
const bytes = (root: string, rels: string[]) =>
  rels.map((r) => (existsSync(path.join(root, r)) ? readFileSync(path.join(root, r), 'utf8') : undefined));

const cases: {
  agent: string;
  installer: AgentInstaller;
  settings: string;
  user: Record<string, unknown>;
  events: Record<string, string | undefined>;
  mcp?: string;
  timeout: number;
}[] = [
  {
    agent: 'claude-code',
    installer: claudeCode,
    settings: '.claude/settings.local.json',
    user: {
      '.claude/settings.local.json': {
        permissions: { allow: ['Bash(ls)'] },
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [userHook] }], Stop: [{ hooks: [userHook] }] },
        env: { FOO: '1' },
      },
      '.mcp.json': { mcpServers: { mine: userServer } },
    },
    events: { SessionStart: 'startup|resume|clear|compact', UserPromptSubmit: undefined, PreToolUse: 'Edit|Write|MultiEdit|NotebookEdit' },
    mcp: '.mcp.json',
    timeout: 10,
  },
  {
    agent: 'codex',
    installer: codex,
    settings: '.codex/hooks.json',
    user: { '.codex/hooks.json': { hooks: { PreToolUse: [{ matcher: 'shell', hooks: [userHook] }] } } },
    events: { SessionStart: 'startup|resume|clear|compact', UserPromptSubmit: undefined, PreToolUse: 'apply_patch|Edit|Write' },
    timeout: 10,
  },
  {
    agent: 'gemini',
    installer: gemini,
    settings: '.gemini/settings.json',
    user: {
      '.gemini/settings.json': {
        theme: 'dark',
        hooks: { AfterTool: [{ matcher: 'run_shell_command', hooks: [userHook] }] },
        mcpServers: { mine: userServer },
      },
    },
    events: { SessionStart: undefined, BeforeAgent: undefined, AfterTool: 'write_file|replace' },
    mcp: '.gemini/settings.json',
    timeout: 10_000,
  },
];

describe.each(cases)('installing hooks for $agent', ({ agent, installer, settings, user, events, mcp, timeout }) => {
  it("adds our hooks and MCP server beside the user's own, which all survive", () => {
    const root = checkout(user);
    installer.install(opts(root), emptyState());
    const s = read(root, settings);
    for (const [name, matcher] of Object.entries(events)) {
      const ours = (s.hooks[name] as { matcher?: string; hooks: { command: string; timeout: number }[] }[]).filter((g) =>
        g.hooks.some((h) => h.command?.includes('npx doco hook')),
      );
      const event = name === 'SessionStart' ? 'session-start' : name === 'PreToolUse' || name === 'AfterTool' ? 'edit' : 'prompt';
      expect(ours).toEqual([
        { ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command: `npx doco hook ${event} --agent ${agent}`, timeout }] },
      ]);
    }
    const before = user[settings] as { hooks: Record<string, unknown[]> };
    for (const [name, groups] of Object.entries(before.hooks)) expect(s.hooks[name].slice(0, groups.length)).toEqual(groups);
    for (const [key, value] of Object.entries(before))
      if (key !== 'hooks')
        expect(s[key]).toEqual(
          key === 'env'
            ? { ...(value as object), DOCO_TOKEN: 'doco_tok', DOCO_MCP_TOKEN: 'doco_mcp' }
            : key === 'mcpServers'
              ? { ...(value as object), doco: expect.any(Object) }
              : value,
        );
    if (mcp) {
      // Gemini's entry is the stdio bridge (it cannot read a token from a file it does not commit); Claude's is HTTP with the token from its local env.
      const doco =
        agent === 'gemini'
          ? { command: 'npx', args: ['doco', 'mcp-bridge', '--agent', 'gemini'] }
          : {
              type: 'http',
              url: 'http://127.0.0.1:8787/mcp',
              headers: { Authorization: expect.stringMatching(/^Bearer \$\{?DOCO_MCP_TOKEN\}?$/) },
            };
      expect(read(root, mcp).mcpServers).toEqual({ mine: userServer, doco });
    }
  });

  it("changes no byte when run twice, and uninstall gives the user's files back byte for byte", () => {
    const root = checkout(user);
    const files = [...new Set([...installer.files, ...Object.keys(user)])];
    const original = bytes(root, files);
    const first = installer.install(opts(root), emptyState());
    expect(first.changes.some((c) => c.changed)).toBe(true);
    const installed = bytes(root, files);
    const second = installer.install(opts(root), first.state);
    expect(second.changes.every((c) => !c.changed)).toBe(true);
    expect(bytes(root, files)).toEqual(installed);
    expect(second.state).toEqual(first.state);
    installer.uninstall(root, second.state);
    expect(bytes(root, files)).toEqual(original);
  });

  it('on a bare checkout creates the files and uninstall removes them again', () => {
    const root = checkout({});
    const { state } = installer.install(opts(root), emptyState());
    for (const f of installer.files) expect(existsSync(path.join(root, f))).toBe(true);
    expect(state.created).toEqual([...installer.files].sort());
    installer.uninstall(root, state);
    for (const f of installer.files) expect(existsSync(path.join(root, f))).toBe(false);
  });

  it('replaces a stale hook of ours (a new URL or command) rather than adding a second', () => {
    const root = checkout(user);
    const { state } = installer.install(opts(root), emptyState());
    installer.install({ ...opts(root), docoCommand: 'node /opt/doco/bin/doco.js', docoArgv: ['node', '/opt/doco/bin/doco.js'] }, state);
    const text = readFileSync(path.join(root, settings), 'utf8');
    expect(text).not.toContain('npx doco hook');
    expect(text.match(/doco\.js hook /g)).toHaveLength(3);
  });
});

describe('Claude Code specifics', () => {
  it('--http writes http hooks at the endpoint with the token in the Authorization header', () => {
    const root = checkout({});
    claudeCode.install(opts(root, { http: true, url: 'http://10.0.0.5:8787' }), emptyState());
    const s = read(root, '.claude/settings.local.json');
    expect(s.hooks.UserPromptSubmit).toEqual([
      {
        hooks: [
          {
            type: 'http',
            url: 'http://10.0.0.5:8787/api/v1/hooks/claude-code/prompt',
            headers: { Authorization: 'Bearer doco_tok' },
            timeout: 10,
          },
        ],
      },
    ]);
    expect(s.hooks.PreToolUse[0].hooks[0].url).toBe('http://10.0.0.5:8787/api/v1/hooks/claude-code/edit');
    // Claude Code runs no HTTP hook at SessionStart: that one stays a command.
    expect(s.hooks.SessionStart[0].hooks).toEqual([
      { type: 'command', command: expect.stringContaining('hook session-start'), timeout: 10 },
    ]);
  });

  it('leaves a user\'s own "doco" MCP server and DOCO_TOKEN alone, and keeps them on uninstall', () => {
    const theirs = { type: 'http', url: 'https://doco.example.com/mcp' };
    const root = checkout({
      '.mcp.json': { mcpServers: { doco: theirs } },
      '.claude/settings.local.json': { env: { DOCO_TOKEN: 'theirs' } },
    });
    const res = claudeCode.install(opts(root), emptyState());
    expect(res.notes.join('\n')).toMatch(/already has an MCP server named "doco"/);
    expect(res.notes.join('\n')).toMatch(/already sets env.DOCO_TOKEN/);
    expect(read(root, '.mcp.json').mcpServers.doco).toEqual(theirs);
    claudeCode.uninstall(root, res.state);
    expect(read(root, '.mcp.json').mcpServers.doco).toEqual(theirs);
    expect(read(root, '.claude/settings.local.json')).toEqual({ env: { DOCO_TOKEN: 'theirs' } });
  });

  it('keeps the token file out of git, and takes its exclude line back out on uninstall', () => {
    const root = checkout({});
    const exclude = path.join(root, '.git', 'info', 'exclude');
    const original = readFileSync(exclude, 'utf8');
    const { state } = claudeCode.install(opts(root), emptyState());
    expect(execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root, encoding: 'utf8' })).toBe('?? .mcp.json\n');
    expect(claudeCode.install(opts(root), state).state.owned).toContain('exclude');
    claudeCode.uninstall(root, state);
    expect(readFileSync(exclude, 'utf8')).toBe(original);
  });
});

describe('Claude Code tokens', () => {
  it('replaces a DOCO_TOKEN the server refuses, even one it did not write, and notes it', () => {
    const root = checkout({ '.claude/settings.local.json': { env: { DOCO_TOKEN: 'doco_dead', DOCO_MCP_TOKEN: 'doco_dead_mcp' } } });
    const res = claudeCode.install(opts(root, { refused: ['doco_dead', 'doco_dead_mcp'] }), emptyState());
    expect(read(root, '.claude/settings.local.json').env).toEqual({ DOCO_TOKEN: 'doco_tok', DOCO_MCP_TOKEN: 'doco_mcp' });
    expect(res.notes.join('\n')).toMatch(/env\.DOCO_TOKEN held a token the server refuses; replaced/);
    expect(res.state.owned).toEqual(expect.arrayContaining(['env', 'env-mcp']));
  });

  it('a reinstall with new tokens rewrites ours, and status reports the tokens the agent will send', () => {
    const root = checkout({});
    const first = claudeCode.install(opts(root), emptyState());
    claudeCode.install(opts(root, { token: 'doco_tok2', mcpToken: 'doco_mcp2' }), first.state);
    expect(read(root, '.claude/settings.local.json').env).toEqual({ DOCO_TOKEN: 'doco_tok2', DOCO_MCP_TOKEN: 'doco_mcp2' });
    expect(claudeCode.status(root, first.state)).toMatchObject({
      hookToken: 'doco_tok2',
      mcpToken: 'doco_mcp2',
      events: { SessionStart: true, UserPromptSubmit: true, PreToolUse: true },
    });
  });
});

describe('Codex specifics', () => {
  it('keeps .codex/hooks.json byte for byte across reinstalls with another URL and tokens (its trust is a hash of the command)', () => {
    const root = checkout({});
    const first = codex.install(opts(root), emptyState());
    const hooks = readFileSync(path.join(root, '.codex/hooks.json'), 'utf8');
    const again = codex.install(opts(root, { url: 'http://10.0.0.9:9999', token: 'doco_other', mcpToken: 'doco_mcp_other' }), first.state);
    expect(readFileSync(path.join(root, '.codex/hooks.json'), 'utf8')).toBe(hooks);
    expect(again.changes.find((c) => c.file.endsWith('hooks.json'))!.changed).toBe(false);
    expect(again.notes.join('\n')).toMatch(/run `codex` in this checkout once and choose "Trust all and continue" \(or open \/hooks/);
  });

  it('writes the MCP entry with its write token into a project .codex/config.toml kept out of git', () => {
    const root = checkout({});
    const { state } = codex.install(opts(root), emptyState());
    const toml = readFileSync(path.join(root, '.codex/config.toml'), 'utf8');
    expect(toml).toContain('[mcp_servers.doco]\nurl = "http://127.0.0.1:8787/mcp"\nhttp_headers = { Authorization = "Bearer doco_mcp" }\n');
    expect(execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root, encoding: 'utf8' })).toBe(
      '?? .codex/hooks.json\n',
    );
    expect(codex.status(root, state)).toMatchObject({
      mcpToken: 'doco_mcp',
      events: { SessionStart: true, UserPromptSubmit: true, PreToolUse: true },
    });
  });

  it("leaves a config.toml of the user's alone and prints the snippet instead", () => {
    const root = checkout({});
    mkdirSync(path.join(root, '.codex'));
    writeFileSync(path.join(root, '.codex', 'config.toml'), 'model = "o3"\n');
    const res = codex.install(opts(root), emptyState());
    expect(readFileSync(path.join(root, '.codex/config.toml'), 'utf8')).toBe('model = "o3"\n');
    expect(res.notes.join('\n')).toContain('bearer_token_env_var = "DOCO_MCP_TOKEN"');
    expect(res.notes.join('\n')).toContain('DOCO_MCP_TOKEN=doco_mcp');
    codex.uninstall(root, res.state);
    expect(readFileSync(path.join(root, '.codex/config.toml'), 'utf8')).toBe('model = "o3"\n');
  });
});

describe('Gemini CLI specifics', () => {
  it('says the folder must be trusted, and connects MCP through doco mcp-bridge: no token in settings.json, nothing to export', () => {
    const root = checkout({});
    const res = gemini.install(opts(root), emptyState());
    const notes = res.notes.join('\n');
    expect(notes).toMatch(/trusted folder/);
    expect(notes).toMatch(/GEMINI_CLI_TRUST_WORKSPACE=true/);
    expect(notes).not.toContain('export');
    const settings = readFileSync(path.join(root, '.gemini/settings.json'), 'utf8');
    expect(JSON.parse(settings).mcpServers.doco).toEqual({ command: 'npx', args: ['doco', 'mcp-bridge', '--agent', 'gemini'] });
    expect(settings).not.toContain('doco_mcp');
    expect(existsSync(path.join(root, '.gemini/.env'))).toBe(false);
    expect(res.state.mcp_token).toBe('doco_mcp');
    expect(gemini.status(root, res.state)).toMatchObject({ mcpToken: 'doco_mcp' });
  });

  it('removes the .gemini/.env an earlier install wrote, and only that one', () => {
    const root = checkout({});
    mkdirSync(path.join(root, '.gemini'), { recursive: true });
    writeFileSync(
      path.join(root, '.gemini/.env'),
      "# Written by `doco hooks install`: the token of Doco's MCP entry in settings.json. Kept out of git.\nDOCO_MCP_TOKEN=doco_old\n",
    );
    gemini.install(opts(root), { created: ['.gemini/.env'], owned: ['mcp', 'env'] });
    expect(existsSync(path.join(root, '.gemini/.env'))).toBe(false);
    const mine = checkout({});
    mkdirSync(path.join(mine, '.gemini'), { recursive: true });
    writeFileSync(path.join(mine, '.gemini/.env'), 'GEMINI_API_KEY=x\n');
    gemini.install(opts(mine), emptyState());
    expect(readFileSync(path.join(mine, '.gemini/.env'), 'utf8')).toBe('GEMINI_API_KEY=x\n');
  });
});
