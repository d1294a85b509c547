// doco hooks install|uninstall|status --agent claude-code|codex|gemini [--url URL] [--http] [--npx]
// [--token T] [--mcp-token T] [--admin-token T] [--workspace SLUG]: writes (or takes back out)
// the agent's hook config and MCP registration for the current git checkout, merged into what
// is there. Install never opens a database: every token is checked against the server at --url
// before a file is written, and missing ones are minted there (resolve-tokens.ts). Each agent's
// tokens, its hooks' read token and its MCP write token, both of its own principal
// `agent:<agent>@<checkout>`, are kept in the git directory (doco-hooks.json, owner-only, never committed).
import { existsSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { HOOK_MARK, type GitPaths } from '../../hooks/commit-trailer.js';
import { emptyState, type AgentInstaller } from '../../hooks/install/agent.js';
import { checkCheckoutFiles } from '../../hooks/install/checkout-files.js';
import { readJsonFile, TOKEN_FILE_MODE, writeJsonFile, type FileChange } from '../../hooks/install/common.js';
import { resolveTokens } from '../../hooks/install/resolve-tokens.js';
import { checkServer, checkToken, InstallError } from '../../hooks/install/server-client.js';
import { localConfigPath } from '../../hooks/local-config.js';
import { checkout, checkoutName, INSTALLERS, serverUrl, type LocalState } from '../hooks-checkout.js';
import { UsageError } from '../output.js';
import { cliEnv } from '../context.js';
import { localAdminToken } from '../server-client.js';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../bin/doco.js');

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

const report = (root: string, changes: FileChange[]) => {
  for (const c of changes)
    process.stdout.write(`${c.removed ? 'removed  ' : c.changed ? 'wrote    ' : 'unchanged'} ${path.relative(root, c.file) || c.file}\n`);
};

function uninstall(root: string, git: GitPaths, agent: string, installer: AgentInstaller, local: LocalState): number {
  const localFile = localConfigPath(git.commonDir);
  const agents = { ...(local.agents ?? {}) };
  const { changes, notes } = installer.uninstall(root, agents[agent] ?? emptyState());
  delete agents[agent];
  const left = Object.keys(agents).length > 0;
  report(root, [...changes, writeJsonFile(localFile, left ? { ...local, agents } : {}, { removeIfEmpty: true, mode: TOKEN_FILE_MODE })]);
  const commitHook = path.join(git.hooksDir, 'prepare-commit-msg');
  if (!left && existsSync(commitHook) && readFileSync(commitHook, 'utf8').includes(HOOK_MARK)) {
    rmSync(commitHook);
    process.stdout.write(`removed   ${path.relative(root, commitHook)}\n`);
  }
  for (const n of notes) process.stdout.write(`${n}\n`);
  if (!left && (local.token || local.agents?.[agent]?.hook_token || local.agents?.[agent]?.mcp_token))
    process.stdout.write('The tokens stay valid on the server until they are revoked.\n');
  return 0;
}

/** The URL with any user and password taken out, to be named in a message. */
function redactUrl(text: string): string {
  try {
    const u = new URL(text);
    if (!u.username && !u.password) return text;
    u.username = '';
    u.password = '';
    return u.href;
  } catch {
    return text.replace(/\/\/[^/@]*@/, '//');
  }
}

/** An http(s) URL as the command line's fetch will take it: parsed whole (`http://[::1` is not one), no user or password. */
function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return /^https?:$/.test(u.protocol) && !!u.host && !u.username && !u.password;
  } catch {
    return false;
  }
}

async function install(
  root: string,
  git: GitPaths,
  agent: string,
  installer: AgentInstaller,
  local: LocalState,
  values: Record<string, string | boolean | undefined>,
): Promise<number> {
  const flag = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  const workspace = flag('workspace');
  if (workspace !== undefined && !/^[a-z0-9][a-z0-9-]{0,62}$/.test(workspace)) throw new UsageError('--workspace must be a slug');
  const { url: given, source } = await serverUrl(flag('url'), local);
  if (!isHttpUrl(given)) throw new UsageError(`--url must be an http(s) URL, not ${JSON.stringify(redactUrl(given))}`);
  // As the URL parser writes it (control characters escaped, `..` resolved): it goes into the agents' config files.
  const url = new URL(given).href.replace(/\/+$/, '');
  const adminToken = flag('admin-token') ?? process.env.DOCO_ADMIN_TOKEN;
  // A person's write token goes only to a server the person named or runs: the checkout's record
  // of the last install is writable by whatever works in the checkout (an agent among them).
  if (adminToken && source === 'checkout')
    throw new UsageError(
      `the server ${url} comes from this checkout's last install, which anything working in the checkout can change: pass --url ${url} to send it your admin token`,
    );
  await checkServer(url);
  const before = local.agents?.[agent] ?? emptyState();
  const sameServer = local.url === url;
  const tokens = await resolveTokens({
    url,
    agent,
    checkout: checkoutName(git.commonDir),
    ...(workspace ? { workspace } : {}),
    ...(flag('token') ? { flagHookToken: flag('token') } : {}),
    ...(flag('mcp-token') ? { flagMcpToken: flag('mcp-token') } : {}),
    ...(adminToken ? { adminToken } : {}),
    localAdminToken: async () => {
      const env = cliEnv();
      return localAdminToken(env, workspace ?? local.workspace ?? env.config.workspace, url, async (t) => (await checkToken(url, t)).ok);
    },
    // A saved token is checked again either way; one for another server is not even offered to this one.
    ...(sameServer && (before.hook_token ?? local.token) ? { savedHookToken: before.hook_token ?? local.token } : {}),
    ...(sameServer && before.mcp_token ? { savedMcpToken: before.mcp_token } : {}),
  });
  const refused = new Set<string>();
  for (const t of installer.tokensInUse?.(root) ?? []) {
    if (t !== tokens.hookToken && t !== tokens.mcpToken && !(await checkToken(url, t)).ok) refused.add(t);
  }
  const installed = values.npx ? undefined : installedDoco();
  const docoCommand = values.npx ? 'npx doco' : installed ? shellQuote(installed) : `node ${shellQuote(BIN)}`;
  const docoArgv = values.npx ? ['npx', 'doco'] : installed ? [installed] : ['node', BIN];
  const opts = {
    root,
    url,
    token: tokens.hookToken,
    mcpToken: tokens.mcpToken,
    refused,
    docoCommand,
    docoArgv,
    http: values.http === true,
  };
  const { changes, notes, state } = installer.install(opts, before);
  const agents = { ...(local.agents ?? {}), [agent]: { ...state, hook_token: tokens.hookToken } };
  // An earlier install's shared hook token stays only while an agent installed then still reads it.
  const legacy = local.token && Object.values(agents).some((a) => !a.hook_token) ? { token: local.token } : {};
  report(root, [
    ...changes,
    writeJsonFile(localConfigPath(git.commonDir), { ...legacy, url, workspace: tokens.workspace, agents }, { mode: TOKEN_FILE_MODE }),
  ]);
  process.stdout.write(
    `Server: ${url}. Hooks: a read-only token of ${tokens.hookPrincipal} in workspace ${tokens.workspace}, so each brief says which agent asked. MCP: a write token of ${tokens.principal}, whose records and edges wait in the review queue as queued unless the collection lets agents activate.\n`,
  );
  for (const n of [...tokens.notes, ...notes]) process.stdout.write(`${n}\n`);
  if (!installed && !values.npx)
    process.stdout.write(
      `The hooks run ${docoCommand}: if this copy of Doco moves, run \`doco hooks install\` again (an installed \`doco\` on PATH is used instead when there is one).\n`,
    );
  return 0;
}

/**
 * The `doco` on PATH when it is this very program (a global install): the hooks call it by that
 * path, which stays put when the package is upgraded. A checkout's bin/doco.js is used otherwise.
 */
function installedDoco(): string | undefined {
  const self = realpathOrUndefined(BIN);
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, 'doco');
    if (self && realpathOrUndefined(candidate) === self) return candidate;
  }
  return undefined;
}

function realpathOrUndefined(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

export async function hooksCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      agent: { type: 'string' },
      url: { type: 'string' },
      http: { type: 'boolean' },
      npx: { type: 'boolean' },
      token: { type: 'string' },
      'mcp-token': { type: 'string' },
      'admin-token': { type: 'string' },
      workspace: { type: 'string' },
      json: { type: 'boolean' },
    },
    strict: true,
  });
  if (sub === 'status') return (await import('./hooks-status.js')).hooksStatus(values);
  const installer = values.agent ? INSTALLERS[values.agent] : undefined;
  if (sub !== 'install' && sub !== 'uninstall')
    throw new UsageError(
      `${sub === undefined ? 'hooks needs a subcommand' : `unknown hooks subcommand ${JSON.stringify(sub)}`}: install, uninstall or status (doco hooks --help)`,
    );
  if (!installer || !values.agent)
    throw new UsageError(
      `${values.agent === undefined ? `hooks ${sub} needs --agent` : `unknown agent ${JSON.stringify(values.agent)}`}: --agent ${Object.keys(INSTALLERS).join('|')}`,
    );
  if (values.http && values.agent !== 'claude-code') throw new UsageError('--http is for claude-code only');
  const { root, git } = checkout();
  const local = readJsonFile(localConfigPath(git.commonDir)) as LocalState;
  // Before any token is minted or file written: a repository someone else made may hold links or tracked files there.
  checkCheckoutFiles(root, installer.files, sub === 'install' ? installer.tokenFiles : []);
  // And the agent's settings must parse before a token is minted for them.
  for (const file of installer.files) if (file.endsWith('.json')) readJsonFile(path.join(root, file));
  if (sub === 'uninstall') return uninstall(root, git, values.agent, installer, local);
  try {
    return await install(root, git, values.agent, installer, local, values);
  } catch (err) {
    if (!(err instanceof InstallError)) throw err;
    process.stderr.write(`doco hooks install: ${err.message}\n`);
    return 1;
  }
}
