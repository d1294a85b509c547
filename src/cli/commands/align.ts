// doco align [--base REV] [--head REV] [--json] [--fail-on high|medium] [--workspace SLUG] [ROOT]:
// the doc sections that expect the code this checkout changed. Git computes the change here; the
// scan runs on the running server when one is up (it owns the embedded index), else in-process.
// Exit 0 when nothing (or nothing at --fail-on's level) is found, 1 when --fail-on is met.
import { parseArgs } from 'node:util';
import { hasAtLeast, renderAlignReport, summarise, type AlignReport, type Confidence } from '../../align/report.js';
import { alignChanges } from '../../align/scan.js';
import { cliEnv } from '../context.js';
import { gitChange } from '../git-diff.js';
import { withLocalRead } from '../local-search.js';
import { printJson, UsageError } from '../output.js';
import { usageLine } from '../help.js';
import { callServer, cliToken, findServer } from '../server-client.js';

const USAGE = usageLine('align');

export async function alignCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      base: { type: 'string' },
      head: { type: 'string' },
      json: { type: 'boolean' },
      'fail-on': { type: 'string' },
      workspace: { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 1) throw new UsageError(USAGE);
  const failOn = values['fail-on'];
  if (failOn !== undefined && failOn !== 'high' && failOn !== 'medium')
    throw new UsageError(`--fail-on must be high or medium, not ${JSON.stringify(failOn)}`);
  const change = await gitChange(positionals[0] ?? process.cwd(), { base: values.base, head: values.head });
  if (change.omitted)
    process.stderr.write(`doco align: ${change.omitted} changed file(s) past the first ${change.changed.length} were not scanned\n`);
  const report = change.changed.length
    ? await scan(values.workspace, { changed: change.changed, base: change.base, head: change.head })
    : summarise(change.base, change.head, []);
  if (values.json) printJson(report);
  else process.stdout.write(`${renderAlignReport(report)}\n`);
  return failOn && hasAtLeast(report, failOn as Confidence) ? 1 : 0;
}

async function scan(workspaceFlag: string | undefined, req: Parameters<typeof alignChanges>[2]): Promise<AlignReport> {
  const env = cliEnv();
  const workspace = workspaceFlag ?? env.config.workspace;
  const server = await findServer(env);
  if (server) return callServer<AlignReport>(server, await cliToken(env, workspace), 'POST', '/api/v1/align', req);
  return withLocalRead(env, workspace, (deps, ctx) => alignChanges(deps, ctx.workspaceId, req));
}
