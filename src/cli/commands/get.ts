// doco get ID: a record with its edges and every version, read straight from the database.
import { parseArgs } from 'node:util';
import { edgesOfNode, getNode, listNodeVersions } from '../../graph/read-nodes.js';
import { RecordIdSchema } from '../../graph/schemas.js';
import { parseInput } from '../../lib/validate.js';
import { cliEnv, cliWriteContext, defaultPrincipalName, withDatabase } from '../context.js';
import { printJson, UsageError } from '../output.js';

export async function getCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { workspace: { type: 'string' } }, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new UsageError('usage: doco get ID');
  const id = parseInput(RecordIdSchema, positionals[0], 'id');
  const env = cliEnv();
  const result = await withDatabase(env, async (h) => {
    const ctx = await cliWriteContext(h, values.workspace ?? env.config.workspace, defaultPrincipalName());
    const [node, edges, versions] = await Promise.all([
      getNode(h.db, ctx.workspaceId, id),
      edgesOfNode(h.db, ctx.workspaceId, id),
      listNodeVersions(h.db, ctx.workspaceId, id),
    ]);
    return { node, edges, versions };
  });
  printJson(result);
  return 0;
}
