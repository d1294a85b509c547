// doco collection create --slug S --template T --goal G [--name N] [--duplicates warn|block], and
// doco collection set (agents' review: agent-review.ts), straight on the database as the CLI
// principal.
import { parseArgs } from 'node:util';
import { createCollection } from '../../graph/collections.js';
import { CollectionInputSchema } from '../../graph/schemas.js';
import { parseInput } from '../../lib/validate.js';
import { cliEnv, cliWriteContext, principalFlag, withDatabase } from '../context.js';
import { printJson, UsageError } from '../output.js';
import { usageLine } from '../help.js';

export async function collectionCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'set') return (await import('./agent-review.js')).collectionSetCommand(rest);
  if (sub !== 'create') throw new UsageError(usageLine('collection'));
  const { values } = parseArgs({
    args: rest,
    options: {
      workspace: { type: 'string' },
      principal: { type: 'string' },
      slug: { type: 'string' },
      template: { type: 'string' },
      goal: { type: 'string' },
      name: { type: 'string' },
      duplicates: { type: 'string' },
    },
    strict: true,
  });
  const input = parseInput(
    CollectionInputSchema,
    Object.fromEntries(
      Object.entries({
        slug: values.slug,
        template: values.template,
        goal: values.goal,
        name: values.name,
        duplicates: values.duplicates,
      }).filter(([, v]) => v !== undefined),
    ),
    'collection',
  );
  const principal = principalFlag(values.principal);
  const env = cliEnv();
  const collection = await withDatabase(env, async (h) => {
    // A new workspace starts with its collections: the first one makes it.
    const ctx = await cliWriteContext(h, values.workspace ?? env.config.workspace, principal, { makeWorkspace: true });
    return createCollection(h.db, ctx.workspaceId, input);
  });
  printJson({ collection });
  return 0;
}
