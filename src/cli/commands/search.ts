// doco brief "ABOUT" …, doco search "Q" …, doco reindex: asking the running server when one is
// up, else working in-process on the same database and index.
import { parseArgs } from 'node:util';
import { composeBrief } from '../../brief/compose.js';
import { renderBrief } from '../../brief/render.js';
import { BriefRequestSchema, type Brief } from '../../brief/types.js';
import { parseInput } from '../../lib/validate.js';
import { searchRecords, SearchQuerySchema } from '../../retrieval/search.js';
import type { Item } from '../../brief/types.js';
import { cliEnv, cliWriteContext, defaultPrincipalName, withDatabase } from '../context.js';
import { withLocalSearch } from '../local-search.js';
import { printJson, UsageError } from '../output.js';
import { callServer, cliToken, findServer } from '../server-client.js';

const intFlag = (name: string, value: string | undefined) => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
};

export async function briefCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { touching: { type: 'string', multiple: true }, budget: { type: 'string' }, since: { type: 'string' }, collection: { type: 'string' }, 'deadline-ms': { type: 'string' }, 'as-of': { type: 'string' }, workspace: { type: 'string' }, json: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError('usage: doco brief "ABOUT" [--touching PATH]… [--budget N] [--since 7d] [--collection SLUG] [--as-of ISO] [--json]');
  const req = parseInput(
    BriefRequestSchema,
    Object.fromEntries(
      Object.entries({ about: positionals[0], touching: values.touching, budget: intFlag('budget', values.budget), since: values.since, collection: values.collection, deadline_ms: intFlag('deadline-ms', values['deadline-ms']), as_of: values['as-of'] }).filter(([, v]) => v !== undefined),
    ),
    'brief',
  );
  const env = cliEnv();
  const workspace = values.workspace ?? env.config.workspace;
  const server = await findServer(env);
  const brief = server
    ? await callServer<Brief>(server, await cliToken(env, workspace), 'POST', '/api/v1/brief', req)
    : await withLocalSearch(env, async (deps) => {
        const ctx = await cliWriteContext(deps, workspace, defaultPrincipalName());
        return composeBrief(deps, { workspaceId: ctx.workspaceId, principalId: ctx.principalId }, req);
      });
  if (values.json) printJson(brief);
  else process.stdout.write(`${renderBrief(brief)}\n`);
  return 0;
}

export async function searchCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { type: { type: 'string' }, shape: { type: 'string' }, collection: { type: 'string' }, limit: { type: 'string' }, workspace: { type: 'string' }, json: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError('usage: doco search "QUERY" [--type T] [--shape S] [--collection C] [--limit N] [--json]');
  const raw = Object.fromEntries(Object.entries({ q: positionals[0], type: values.type, shape: values.shape, collection: values.collection, limit: values.limit }).filter(([, v]) => v !== undefined));
  const query = parseInput(SearchQuerySchema, raw, 'search');
  const env = cliEnv();
  const workspace = values.workspace ?? env.config.workspace;
  const server = await findServer(env);
  const { results } = server
    ? await callServer<{ results: Item[] }>(server, await cliToken(env, workspace), 'GET', `/api/v1/search?${new URLSearchParams(raw as Record<string, string>)}`)
    : await withLocalSearch(env, async (deps) => {
        const ctx = await cliWriteContext(deps, workspace, defaultPrincipalName());
        return searchRecords(deps, ctx.workspaceId, query);
      });
  if (values.json) printJson({ results });
  else if (!results.length) process.stdout.write('no results\n');
  else for (const r of results) process.stdout.write(`${r.id}  ${r.title}\n    ${r.text.replace(/\s+/g, ' ').slice(0, 200)}\n    because: ${r.because}\n`);
  return 0;
}

export async function reindexCommand(args: string[]): Promise<number> {
  parseArgs({ args, options: {}, strict: true });
  const env = cliEnv();
  const server = await findServer(env);
  // Clearing the stored hashes makes every chunk re-embed and re-upsert under its same id, so
  // nothing is orphaned in a store that survived; every live record is queued.
  const queued = await withDatabase(env, async ({ sql }) =>
    sql.begin(async (tx) => {
      await tx`update doco.chunks set content_hash = ''`;
      const res = await tx`
        insert into doco.outbox (node_id, workspace_id)
        select id, workspace_id from doco.nodes where lifecycle <> 'retired' and node_type <> 'principal'`;
      await tx`select pg_notify('doco_outbox', '')`;
      return res.count;
    }),
  );
  if (server) {
    process.stdout.write(`queued ${queued} record(s); the running server (${server}) is re-indexing them — see doco.outbox_backlog\n`);
    return 0;
  }
  const started = performance.now();
  const report = await withLocalSearch(env, async (deps) => deps.drained);
  process.stdout.write(
    `re-indexed ${report.records} record(s): ${report.chunksEmbedded} chunk(s) embedded, ${report.chunksRemoved} removed, ${report.failedRecords} failed, in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
  return report.failedRecords ? 1 : 0;
}
