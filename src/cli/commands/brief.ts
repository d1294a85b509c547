// doco brief "ABOUT" [--touching P]… [--budget N] [--since 7d] [--collection C] [--as-of ISO]
// [--json]: asks the running server when one is up, else composes the brief in-process on the
// same database and index.
import { parseArgs } from 'node:util';
import { composeBrief } from '../../brief/compose.js';
import { renderBrief } from '../../brief/render.js';
import { BriefRequestSchema, type Brief } from '../../brief/types.js';
import { parseInput } from '../../lib/validate.js';
import { cliEnv } from '../context.js';
import { withLocalRead } from '../local-search.js';
import { printJson, UsageError } from '../output.js';
import { usageLine } from '../help.js';
import { callServer, cliToken, findServer } from '../server-client.js';

const intFlag = (name: string, value: string | undefined) => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
};

export async function briefCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      touching: { type: 'string', multiple: true },
      budget: { type: 'string' },
      since: { type: 'string' },
      collection: { type: 'string' },
      'deadline-ms': { type: 'string' },
      'as-of': { type: 'string' },
      'after-changeset': { type: 'string' },
      workspace: { type: 'string' },
      json: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError(usageLine('brief'));
  const req = parseInput(
    BriefRequestSchema,
    Object.fromEntries(
      Object.entries({
        about: positionals[0],
        touching: values.touching,
        budget: intFlag('budget', values.budget),
        since: values.since,
        collection: values.collection,
        deadline_ms: intFlag('deadline-ms', values['deadline-ms']),
        as_of: values['as-of'],
        after_changeset: values['after-changeset'],
      }).filter(([, v]) => v !== undefined),
    ),
    'brief',
  );
  const env = cliEnv();
  const workspace = values.workspace ?? env.config.workspace;
  const server = await findServer(env);
  const brief = server
    ? await callServer<Brief>(server, await cliToken(env, workspace), 'POST', '/api/v1/brief', req)
    : await withLocalRead(env, workspace, (deps, ctx) =>
        composeBrief(deps, { workspaceId: ctx.workspaceId, principalId: ctx.principalId }, req),
      );
  if (values.json) printJson(brief);
  else process.stdout.write(`${renderBrief(brief)}\n`);
  return 0;
}
