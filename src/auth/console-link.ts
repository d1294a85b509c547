// The console's one-time sign-in link, for `doco console`: a short-lived, single-use code for a
// workspace and a person (the console is for people, never an agent), appended to the URL the
// console is served at. The workspace is the caller's to find: `doco console` never makes one.
import { AppError } from '../errors.js';
import { mintSignInCode } from './console-sessions.js';
import { checkPrincipalName, isAgentName } from './principal-name.js';
import type { Scope } from './tokens.js';
import type { DbHandles } from '../db/connect.js';
import { ensurePrincipal } from './workspaces.js';

/** A listening address a browser can open: 0.0.0.0 and :: listen everywhere, so name loopback. */
export function browsableUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/** A console session's principal: a name the rule allows, and a person's. Checked before anything is found or made. */
export function checkConsolePrincipal(principal: string): void {
  checkPrincipalName(principal);
  if (isAgentName(principal))
    throw new AppError('forbidden', `${principal} is an agent: the console is for people (agents propose; a person reviews there)`);
}

export async function consoleSignInUrl(
  handles: Pick<DbHandles, 'db' | 'sql'>,
  baseUrl: string,
  who: { workspaceId: string; principal: string; scope: Scope; ttlMs?: number },
): Promise<string> {
  checkConsolePrincipal(who.principal);
  const principalId = await ensurePrincipal(handles.db, who.workspaceId, who.principal, 'ui');
  const code = await mintSignInCode(handles.sql, { workspaceId: who.workspaceId, principalId, scope: who.scope }, who.ttlMs);
  return `${baseUrl.replace(/\/+$/, '')}/sign-in?code=${code}`;
}
