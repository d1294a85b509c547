// doco console [--workspace SLUG] [--principal NAME] [--scope read|write] [--url URL]: prints a
// one-time console sign-in URL alone on stdout (scripts read it), for the running server. It opens
// a workspace that exists (the default one is made): a mistyped --workspace is refused, not made.
import { parseArgs } from 'node:util';
import { browsableUrl, checkConsolePrincipal, consoleSignInUrl } from '../../auth/console-link.js';
import { cliEnv, knownWorkspace, principalFlag, withDatabase } from '../context.js';
import { UsageError } from '../output.js';
import { findServer } from '../server-client.js';

export async function consoleCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { workspace: { type: 'string' }, principal: { type: 'string' }, scope: { type: 'string' }, url: { type: 'string' } },
    strict: true,
  });
  const scope = values.scope ?? 'write';
  if (scope !== 'read' && scope !== 'write') throw new UsageError('--scope must be read or write');
  const principal = principalFlag(values.principal);
  checkConsolePrincipal(principal); // an agent is refused before the database is opened
  const env = cliEnv();
  const workspace = values.workspace ?? env.config.workspace;
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(workspace))
    throw new UsageError('--workspace must be a slug: lowercase letters, digits and hyphens');
  if (values.url !== undefined && !/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(values.url))
    throw new UsageError('--url must be an http(s) URL such as http://127.0.0.1:8787');
  const base = values.url ?? (await findServer(env)) ?? browsableUrl(env.config.host, env.config.port);
  const url = await withDatabase(env, async (h) =>
    consoleSignInUrl(h, base, { workspaceId: await knownWorkspace(h, workspace), principal, scope }),
  );
  process.stdout.write(`${url}\n`);
  return 0;
}
