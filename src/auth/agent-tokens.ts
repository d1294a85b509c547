// The tokens `doco hooks install` asks the server for (POST /api/v1/hooks/tokens), so the
// installer never opens a database of its own: a read-only token for the hooks and a write token
// for the agent's MCP entry, both bound to the agent's own principal `agent:<agent>@<checkout>`,
// so every brief a hook asks for and every write says which agent it was (the writes land as
// queued for review: sql/agent_review.sql). Only a person's write token may ask: an agent cannot
// mint itself more tokens, and a read token cannot mint a write one.
import * as v from 'valibot';
import type { Db } from '../db/connect.js';
import { AppError } from '../errors.js';
import { parseInput } from '../lib/validate.js';
import { ensurePrincipal } from './workspaces.js';
import { isAgentName } from './principal-name.js';
import { createToken, type AuthContext } from './tokens.js';

export const hookTokenLabel = (principal: string) => `doco hooks for ${principal}`;

export const AgentTokensInputSchema = v.strictObject({
  agent: v.picklist(['claude-code', 'codex', 'gemini'], 'must be one of claude-code, codex, gemini'),
  /** A stable name for the checkout, e.g. the repository's folder name. */
  checkout: v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'must be 1–100 letters, digits, ".", "_" or "-"')),
  /** false: only the MCP token (the hooks keep the read token they have). */
  hook_token: v.optional(v.boolean(), true),
});

export interface AgentTokens {
  workspace: string;
  principal: string;
  mcp_token: string;
  hook_token?: string;
}

export async function mintAgentTokens(db: Db, auth: AuthContext, raw: unknown): Promise<AgentTokens> {
  const input = parseInput(AgentTokensInputSchema, raw, 'hook tokens request');
  if (auth.scope !== 'write')
    throw new AppError('forbidden', 'minting hook tokens needs a write token (make one with `doco token create --scope write`)');
  if (isAgentName(auth.principalName)) throw new AppError('forbidden', `${auth.principalName} is an agent: agents cannot mint tokens`);
  const principal = `agent:${input.agent}@${input.checkout}`;
  const agentId = await ensurePrincipal(db, auth.workspaceId, principal, 'api');
  // Minted by the calling token: revoking it with what it minted ends these too (token-admin.ts).
  const mcp = await createToken(db, {
    workspaceId: auth.workspaceId,
    principalId: agentId,
    scope: 'write',
    label: `doco MCP for ${principal}`,
    mintedBy: auth.tokenId,
  });
  const hook = input.hook_token
    ? await createToken(db, {
        workspaceId: auth.workspaceId,
        principalId: agentId,
        scope: 'read',
        label: hookTokenLabel(principal),
        mintedBy: auth.tokenId,
      })
    : undefined;
  return { workspace: auth.workspaceSlug, principal, mcp_token: mcp, ...(hook ? { hook_token: hook } : {}) };
}
