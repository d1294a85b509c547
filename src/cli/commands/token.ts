// doco token create --scope read|write [--workspace SLUG] [--principal NAME] [--label TEXT]
import { parseArgs } from 'node:util';
import { createToken } from '../../auth/tokens.js';
import { cliEnv, cliWriteContext, principalFlag, withDatabase } from '../context.js';
import { UsageError } from '../output.js';
import { usageLine } from '../help.js';

export async function tokenCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'create') throw new UsageError(usageLine('token'));
  const { values } = parseArgs({
    args: rest,
    options: { scope: { type: 'string' }, workspace: { type: 'string' }, principal: { type: 'string' }, label: { type: 'string' } },
    strict: true,
  });
  if (values.scope !== 'read' && values.scope !== 'write') throw new UsageError('--scope must be read or write');
  const principal = principalFlag(values.principal);
  const env = cliEnv();
  const workspace = values.workspace ?? env.config.workspace;
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(workspace))
    throw new UsageError('--workspace must be a slug: lowercase letters, digits and hyphens');
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
