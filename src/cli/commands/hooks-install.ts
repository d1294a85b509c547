// doco hooks install|uninstall --agent claude-code|codex|gemini [--url URL] [--http] [--npx]
// [--token T] [--workspace SLUG]: writes (or takes back out) the agent's hook config and MCP
// registration for the current git checkout, merged into what is there. A read token scoped to
// the workspace is minted once and kept in the git directory (doco-hooks.json, never committed).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gitPaths, HOOK_MARK } from '../../hooks/commit-trailer.js';
import { emptyState, type AgentInstaller, type AgentState } from '../../hooks/install/agent.js';
import { claudeCode } from '../../hooks/install/claude-code.js';
import { codex } from '../../hooks/install/codex.js';
import { readJsonFile, writeJsonFile, type FileChange } from '../../hooks/install/common.js';
import { gemini } from '../../hooks/install/gemini.js';
import { localConfigPath } from '../../hooks/local-config.js';
import { UsageError } from '../output.js';

const INSTALLERS: Record<string, AgentInstaller> = { 'claude-code': claudeCode, codex, gemini };
const USAGE = 'usage: doco hooks install|uninstall --agent claude-code|codex|gemini [--url URL] [--http] [--npx] [--token T] [--workspace SLUG]';
const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../bin/doco.js');

interface LocalState {
  token?: string;
  url?: string;
  workspace?: string;
  agents?: Record<string, AgentState>;
}

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

function checkoutRoot(): string {
  try {
    return execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    throw new UsageError('doco hooks must run inside a git checkout');
  }
}

async function mintToken(workspace: string): Promise<string> {
  const { cliEnv, cliWriteContext, defaultPrincipalName, withDatabase } = await import('../context.js');
  const { createToken } = await import('../../auth/tokens.js');
  return withDatabase(cliEnv(), async (h) => {
    const ctx = await cliWriteContext(h, workspace, defaultPrincipalName());
    return createToken(h.db, { workspaceId: ctx.workspaceId, principalId: ctx.principalId, scope: 'read', label: 'doco agent hooks' });
  });
}

async function defaultUrl(): Promise<string> {
  const { cliEnv } = await import('../context.js');
  const { findServer } = await import('../server-client.js');
  return (await findServer(cliEnv())) ?? `http://127.0.0.1:${process.env.DOCO_PORT || 8787}`;
}

const report = (root: string, changes: FileChange[]) => {
  for (const c of changes) process.stdout.write(`${c.removed ? 'removed  ' : c.changed ? 'wrote    ' : 'unchanged'} ${path.relative(root, c.file) || c.file}\n`);
};

export async function hooksCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: { agent: { type: 'string' }, url: { type: 'string' }, http: { type: 'boolean' }, npx: { type: 'boolean' }, token: { type: 'string' }, workspace: { type: 'string' } },
    strict: true,
  });
  const installer = values.agent ? INSTALLERS[values.agent] : undefined;
  if ((sub !== 'install' && sub !== 'uninstall') || !installer || !values.agent) throw new UsageError(USAGE);
  if (values.http && values.agent !== 'claude-code') throw new UsageError('--http is for claude-code only');
  const root = checkoutRoot();
  const git = gitPaths(root);
  if (!git) throw new UsageError('doco hooks must run inside a git checkout');
  const localFile = localConfigPath(git.commonDir);
  const local = readJsonFile(localFile) as LocalState;
  const agents = { ...(local.agents ?? {}) };

  if (sub === 'uninstall') {
    const { changes, notes } = installer.uninstall(root, agents[values.agent] ?? emptyState());
    delete agents[values.agent];
    const left = Object.keys(agents).length > 0;
    report(root, [...changes, writeJsonFile(localFile, left ? { ...local, agents } : {}, { removeIfEmpty: true, mode: 0o600 })]);
    const commitHook = path.join(git.hooksDir, 'prepare-commit-msg');
    if (!left && existsSync(commitHook) && readFileSync(commitHook, 'utf8').includes(HOOK_MARK)) {
      rmSync(commitHook);
      process.stdout.write(`removed   ${path.relative(root, commitHook)}\n`);
    }
    for (const n of notes) process.stdout.write(`${n}\n`);
    if (!left && local.token) process.stdout.write('The read token stays valid on the server until it is revoked.\n');
    return 0;
  }

  const workspace = values.workspace || process.env.DOCO_WORKSPACE || local.workspace || 'default';
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(workspace)) throw new UsageError('--workspace must be a slug');
  const url = (values.url || process.env.DOCO_URL || local.url || (await defaultUrl())).replace(/\/+$/, '');
  const token = values.token ?? (local.token && local.workspace === workspace ? local.token : await mintToken(workspace));
  const docoCommand = values.npx ? 'npx doco' : `node ${shellQuote(BIN)}`;
  const { changes, notes, state } = installer.install({ root, url, token, docoCommand, http: values.http ?? false }, agents[values.agent] ?? emptyState());
  agents[values.agent] = state;
  report(root, [...changes, writeJsonFile(localFile, { token, url, workspace, agents }, { mode: 0o600 })]);
  for (const n of notes) process.stdout.write(`${n}\n`);
  return 0;
}
