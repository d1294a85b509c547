// Which tokens an install writes, every one checked against the server first: the hooks' read
// token and the agent's MCP write token, both of the agent's own principal
// (`agent:<agent>@<checkout>`, so a brief a hook asks for says which agent asked), each taken from
// a flag, else kept from the last install when the server still accepts it, else minted through
// the server with a person's write token (--admin-token / DOCO_ADMIN_TOKEN). A token the server
// refuses is never written again. An earlier install's hook token was the installing person's:
// a rerun with an admin token replaces it, one without keeps it working and says so.
import { isAgentName } from '../../auth/principal-name.js';
import { checkToken, InstallError, mintTokens, type TokenInfo } from './server-client.js';

export interface TokenSources {
  url: string;
  agent: string;
  /** the stable checkout name the agent's principal is bound to */
  checkout: string;
  /** --workspace, when given: every token must belong to it */
  workspace?: string;
  flagHookToken?: string;
  flagMcpToken?: string;
  adminToken?: string;
  /** Asked only when a token must be minted and no adminToken was given: the local home's person token. */
  localAdminToken?: () => Promise<string | undefined>;
  /** from .git/doco-hooks.json */
  savedHookToken?: string;
  savedMcpToken?: string;
}

export interface ResolvedTokens {
  hookToken: string;
  mcpToken: string;
  workspace: string;
  /** the MCP token's principal, e.g. agent:codex@shop */
  principal: string;
  /** the hook token's principal: the same agent, unless an earlier install's person's token was kept */
  hookPrincipal: string;
  notes: string[];
}

async function verified(url: string, token: string, what: string, wants: (i: TokenInfo) => string | undefined): Promise<TokenInfo> {
  const check = await checkToken(url, token);
  if (!check.ok) throw new InstallError(`${url} refuses ${what} (${check.status}: ${check.message}). Nothing was written.`);
  const wrong = wants(check.info);
  if (wrong) throw new InstallError(`${what} ${wrong}. Nothing was written.`);
  return check.info;
}

const readOnly = (i: TokenInfo) => (i.scope === 'read' ? undefined : 'is a write token: the hooks get a read-only token');
const agentRead = (i: TokenInfo) =>
  readOnly(i) ??
  (isAgentName(i.principal)
    ? undefined
    : `belongs to ${i.principal}, not to an agent: principal (the hooks ask as the agent, so its briefs say which agent asked)`);
const agentWrite = (i: TokenInfo) =>
  i.scope !== 'write'
    ? 'is read-only: the MCP entry needs a write token'
    : isAgentName(i.principal)
      ? undefined
      : `belongs to ${i.principal}, not to an agent: principal (whose writes wait for review)`;

/** A saved token, when the server still accepts it for this use; else undefined and a note. */
async function reusable(
  url: string,
  token: string | undefined,
  what: string,
  wants: (i: TokenInfo) => string | undefined,
  notes: string[],
): Promise<TokenInfo | undefined> {
  if (!token) return undefined;
  const check = await checkToken(url, token);
  if (check.ok && !wants(check.info)) return check.info;
  notes.push(`the ${what} saved by the last install is ${check.ok ? 'not fit for it' : `refused by ${url} (${check.message})`}: replaced`);
  return undefined;
}

export async function resolveTokens(s: TokenSources): Promise<ResolvedTokens> {
  const notes: string[] = [];
  let hook = s.flagHookToken ? { token: s.flagHookToken, info: await verified(s.url, s.flagHookToken, '--token', agentRead) } : undefined;
  let mcp = s.flagMcpToken ? { token: s.flagMcpToken, info: await verified(s.url, s.flagMcpToken, '--mcp-token', agentWrite) } : undefined;
  if (!hook && s.savedHookToken) {
    const info = await reusable(s.url, s.savedHookToken, 'hook token', readOnly, notes);
    if (info && !agentRead(info)) hook = { token: s.savedHookToken, info };
    else if (info && !s.adminToken) {
      // An earlier install's token, the person's: it keeps the hooks working until a rerun can replace it.
      hook = { token: s.savedHookToken, info };
      notes.push(
        `the hooks still read with ${info.principal}'s token from an earlier install, so their briefs read as that person's: rerun with --admin-token to give them a token of agent:${s.agent}@${s.checkout}`,
      );
    } else if (info) notes.push(`the hook token saved by the last install belongs to ${info.principal}, not to the agent: replaced`);
  }
  if (!mcp && s.savedMcpToken) {
    const info = await reusable(s.url, s.savedMcpToken, 'MCP token', agentWrite, notes);
    if (info) mcp = { token: s.savedMcpToken, info };
  }
  if (!hook || !mcp) {
    const adminToken = s.adminToken ?? (await s.localAdminToken?.());
    if (!adminToken) {
      const missing = [!hook && 'a read token for the hooks (--token)', !mcp && 'a write token for the MCP entry (--mcp-token)']
        .filter(Boolean)
        .join(' and ');
      throw new InstallError(
        `${missing} is missing: pass --admin-token T (or set DOCO_ADMIN_TOKEN), a write token of yours that ${s.url} mints them with — make one where the server runs with \`doco token create --scope write\` (as the user of a \`doco serve\` on this machine, no flag is needed). Nothing was written.`,
      );
    }
    const minted = await mintTokens(s.url, adminToken, { agent: s.agent, checkout: s.checkout, hook_token: !hook });
    const info = (scope: 'read' | 'write', principal: string): TokenInfo => ({ workspace: minted.workspace, scope, principal });
    if (!hook) hook = { token: minted.hook_token!, info: info('read', minted.principal) };
    if (!mcp) mcp = { token: minted.mcp_token, info: info('write', minted.principal) };
  }
  if (hook.info.workspace !== mcp.info.workspace) {
    throw new InstallError(
      `the hook token belongs to workspace ${hook.info.workspace} and the MCP token to ${mcp.info.workspace}: use tokens of one workspace. Nothing was written.`,
    );
  }
  if (s.workspace && s.workspace !== hook.info.workspace) {
    throw new InstallError(`--workspace ${s.workspace}, but the tokens belong to workspace ${hook.info.workspace}. Nothing was written.`);
  }
  return {
    hookToken: hook.token,
    mcpToken: mcp.token,
    workspace: hook.info.workspace,
    principal: mcp.info.principal,
    hookPrincipal: hook.info.principal,
    notes,
  };
}
