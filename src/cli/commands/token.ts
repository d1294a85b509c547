// doco token create|list|revoke: mint a token, list a workspace's, revoke one (with what it
// minted, when asked) — the console's token page, for an operator with no browser. Straight on
// the database, as every admin command.
import { parseArgs } from 'node:util';
import { listTokens, revokeToken, TOKENS_PAGE, type TokenListing } from '../../auth/token-admin.js';
import { createToken, tokenOfValue } from '../../auth/tokens.js';
import { AppError } from '../../errors.js';
import { plainText } from '../../lib/plain-text.js';
import { cliEnv, cliWriteContext, knownWorkspace, principalFlag, readStdin, withDatabase } from '../context.js';
import { printJson, UsageError } from '../output.js';
import { usageLine } from '../help.js';

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

function workspaceFlag(value: string | undefined, fallback: string): string {
  const workspace = value ?? fallback;
  if (!SLUG.test(workspace)) throw new UsageError('--workspace must be a slug: lowercase letters, digits and hyphens');
  return workspace;
}

export async function tokenCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'create') return create(rest);
  if (sub === 'list') return list(rest);
  if (sub === 'revoke') return revoke(rest);
  throw new UsageError(usageLine('token'));
}

async function create(rest: string[]): Promise<number> {
  const { values } = parseArgs({
    args: rest,
    options: { scope: { type: 'string' }, workspace: { type: 'string' }, principal: { type: 'string' }, label: { type: 'string' } },
    strict: true,
  });
  if (values.scope !== 'read' && values.scope !== 'write') throw new UsageError('--scope must be read or write');
  const principal = principalFlag(values.principal);
  const env = cliEnv();
  const workspace = workspaceFlag(values.workspace, env.config.workspace);
  const token = await withDatabase(env, async (h) => {
    // A new workspace's first token makes it: the way to set one up for a server's users.
    const ctx = await cliWriteContext(h, workspace, principal, { makeWorkspace: true });
    return createToken(h.db, {
      workspaceId: ctx.workspaceId,
      principalId: ctx.principalId,
      scope: values.scope as 'read' | 'write',
      ...(values.label ? { label: values.label } : {}),
    });
  });
  process.stdout.write(`${token}\n`);
  return 0;
}

/** Stored text on one terminal line: no control character, no line break (a label or an older principal's name may hold them). */
const oneLine = (text: string) => plainText(text).replace(/\s+/g, ' ');

/** One token as a line: id, scope, whose, label, made, last used, revoked, what minted it and what it minted. */
function tokenLine(t: TokenListing): string {
  const day = (d: Date | null) => (d ? d.toISOString().slice(0, 16).replace('T', ' ') : 'never');
  const parts = [
    t.id,
    t.scope.padEnd(5),
    oneLine(t.principal),
    t.label ? `"${oneLine(t.label)}"` : '-',
    `made ${day(t.created_at)}`,
    `used ${day(t.last_used_at)}`,
  ];
  if (t.revoked_at) parts.push(`revoked ${day(t.revoked_at)}`);
  if (t.minted_by) parts.push(`minted by ${t.minted_by}`);
  if (t.minted_live) parts.push(`minted ${t.minted_live} live`);
  return parts.join('  ');
}

async function list(rest: string[]): Promise<number> {
  const { values } = parseArgs({
    args: rest,
    options: { workspace: { type: 'string' }, page: { type: 'string' }, json: { type: 'boolean' } },
    strict: true,
  });
  const page = values.page === undefined ? 1 : Number(values.page);
  if (!Number.isInteger(page) || page < 1 || page > 1_000_000) throw new UsageError('--page must be a whole number from 1');
  const env = cliEnv();
  const workspace = workspaceFlag(values.workspace, env.config.workspace);
  const listed = await withDatabase(env, async (h) => listTokens(h.sql, await knownWorkspace(h, workspace), page));
  if (values.json) {
    printJson({ workspace, page, page_size: TOKENS_PAGE, live: listed.live, revoked: listed.revoked, tokens: listed.tokens });
    return 0;
  }
  const lines = [`${workspace}: ${listed.live} live, ${listed.revoked} revoked (live first, newest first; page ${page})`];
  lines.push(...listed.tokens.map(tokenLine));
  if (page * TOKENS_PAGE < listed.live + listed.revoked) lines.push(`more: doco token list --page ${page + 1}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

async function revoke(rest: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: rest,
    options: { workspace: { type: 'string' }, 'with-minted': { type: 'boolean' }, json: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1)
    throw new UsageError('name one token: its id (token_…, from doco token list), its value (doco_…), or - to read its value from stdin');
  // `-`: the value from stdin, so a leaked token is not put on a command line (ps, shell history) to revoke it.
  const which = positionals[0] === '-' ? (await readStdin()).trim() : positionals[0]!;
  if (positionals[0] === '-' && !/^doco_[A-Za-z0-9_-]{1,200}$/.test(which))
    throw new UsageError('stdin must hold one token value (doco_…)');
  const env = cliEnv();
  const workspace = workspaceFlag(values.workspace, env.config.workspace);
  const withMinted = values['with-minted'] === true;
  const { id, itself, minted } = await withDatabase(env, async (h) => {
    // A token's value names its workspace; an id is looked for in --workspace's.
    if (which.startsWith('doco_')) {
      const found = await tokenOfValue(h.sql, which);
      if (!found) throw new AppError('not_found', 'no token has that value');
      return { id: found.id, ...(await revokeToken(h.sql, found.workspaceId, found.id, { withMinted })) };
    }
    return { id: which, ...(await revokeToken(h.sql, await knownWorkspace(h, workspace), which, { withMinted })) };
  });
  const tokens = (n: number) => `${n} live token${n === 1 ? '' : 's'}`;
  if (values.json) printJson({ revoked: id, itself, with_minted: minted });
  else if (!itself) process.stdout.write(`revoked the ${tokens(minted)} ${id} minted (it was revoked already)\n`);
  else process.stdout.write(`revoked ${id}${withMinted ? ` and the ${tokens(minted)} it minted` : ''}\n`);
  return 0;
}
