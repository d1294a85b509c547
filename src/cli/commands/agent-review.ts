// doco collection set SLUG --agents-may-activate true|false|inherit and
// doco workspace set --agents-may-activate true|false [--workspace SLUG]: whether records and
// edges written by agent: principals go live at once or wait in the review queue.
import { parseArgs } from 'node:util';
import {
  getWorkspaceSettings,
  refuseAgent,
  setCollectionAgentsMayActivate,
  setWorkspaceAgentsMayActivate,
} from '../../graph/agent-review.js';
import { SlugSchema } from '../../graph/schemas.js';
import { parseInput } from '../../lib/validate.js';
import { cliEnv, cliReadContext, cliWriteContext, principalFlag, withDatabase } from '../context.js';
import { printJson, UsageError } from '../output.js';
import { usageLine } from '../help.js';

const COLLECTION_USAGE = usageLine('collection', 'set');

function parseSetting(text: string | undefined, allowInherit: boolean, usage: string): boolean | null {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'inherit' && allowInherit) return null;
  if (text === undefined) throw new UsageError(usage);
  throw new UsageError(
    `--agents-may-activate must be ${allowInherit ? 'true, false or inherit' : 'true or false'}, not ${JSON.stringify(text)}`,
  );
}

export async function collectionSetCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { workspace: { type: 'string' }, principal: { type: 'string' }, 'agents-may-activate': { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError(COLLECTION_USAGE);
  const slug = parseInput(SlugSchema, positionals[0], 'collection slug');
  const value = parseSetting(values['agents-may-activate'], true, COLLECTION_USAGE);
  const principal = principalFlag(values.principal);
  refuseAgent(principal);
  const env = cliEnv();
  const collection = await withDatabase(env, async (h) => {
    const ctx = await cliWriteContext(h, values.workspace ?? env.config.workspace, principal);
    return setCollectionAgentsMayActivate(h.db, ctx.workspaceId, slug, value);
  });
  printJson({ collection });
  return 0;
}

export async function workspaceCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'set' && sub !== 'show') throw new UsageError(usageLine('workspace'));
  const { values } = parseArgs({
    args: rest,
    options: { workspace: { type: 'string' }, 'agents-may-activate': { type: 'string' } },
    strict: true,
  });
  const value = sub === 'set' ? parseSetting(values['agents-may-activate'], false, usageLine('workspace', 'set')) : undefined;
  const env = cliEnv();
  const workspace = await withDatabase(env, async (h) => {
    // Neither show nor set makes the workspace it names: a setting of a mistyped one is refused.
    const ctx = await cliReadContext(h, values.workspace ?? env.config.workspace);
    return value === undefined || value === null
      ? getWorkspaceSettings(h.db, ctx.workspaceId)
      : setWorkspaceAgentsMayActivate(h.db, ctx.workspaceId, value);
  });
  printJson({ workspace });
  return 0;
}
