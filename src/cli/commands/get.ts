// doco get ID [--limit N] [--before V]: a record with its edges and a page of its versions, read
// straight from the database.
import { parseArgs } from 'node:util';
import * as v from 'valibot';
import { edgesOfNode, getNode, listNodeVersions } from '../../graph/read-nodes.js';
import { RecordIdSchema, VersionNumberSchema, VersionsLimitSchema } from '../../graph/schemas.js';
import { parseInput } from '../../lib/validate.js';
import { cliEnv, cliReadContext, withDatabase } from '../context.js';
import { printJson, UsageError } from '../output.js';
import { usageLine } from '../help.js';

export async function getCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { workspace: { type: 'string' }, limit: { type: 'string' }, before: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError(usageLine('get'));
  const id = parseInput(RecordIdSchema, positionals[0], 'id');
  const page = parseInput(
    v.object({ limit: v.optional(VersionsLimitSchema), before: v.optional(VersionNumberSchema) }),
    { limit: values.limit, before: values.before },
    'get',
  );
  const env = cliEnv();
  const result = await withDatabase(env, async (h) => {
    const ctx = await cliReadContext(h, values.workspace ?? env.config.workspace);
    const node = getNode(h.db, ctx.workspaceId, id);
    const edges = edgesOfNode(h.db, ctx.workspaceId, id);
    const versions = listNodeVersions(h.db, ctx.workspaceId, id, page);
    // All three settle before the pool closes (an unknown id rejects the first at once): closing
    // while a query still waits for its connection never returns, and the command would hang.
    await Promise.allSettled([node, edges, versions]);
    return { node: await node, ...(await edges), ...(await versions) };
  });
  printJson(result);
  return 0;
}
