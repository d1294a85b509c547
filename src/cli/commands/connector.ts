// doco connector add github --installation-id N --repo OWNER/NAME [--workspace SLUG] [--collection SLUG] [--json]
// doco connector add slack --team-id T [--channel C]… [--workspace SLUG] [--json]
// doco connector list [--workspace SLUG] [--json]
// doco connector remove ID
// Straight to the database, as `doco token create` is: the first sweep is queued with the add,
// and the worker (doco serve or doco worker) runs it.
import { parseArgs } from 'node:util';
import { parseAddConnector } from '../../connectors/registry.js';
import { addConnector, connectorStatus, findConnector, listConnectors, removeConnector, type ConnectorStatus, type NewConnector } from '../../connectors/store.js';
import { ensureWorkspace, findWorkspace } from '../../graph/workspaces.js';
import { queueSweep } from '../../jobs/connector-tasks.js';
import { cliEnv, withDatabase } from '../context.js';
import { printJson, UsageError } from '../output.js';

const USAGE = 'usage: doco connector add github --installation-id N --repo OWNER/NAME [--workspace SLUG] | add slack --team-id T [--channel C]… [--workspace SLUG] | list [--workspace SLUG] [--json] | remove ID';
const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

function describe(s: ConnectorStatus): string {
  const cursor = Object.entries(s.state).filter(([k]) => k.endsWith('_since')).map(([k, v]) => `${k}=${String(v)}`).join(' ');
  return [
    `${s.id}  ${s.kind}  ${s.routing_key}${s.target ? ` ${s.target}` : ''}  workspace=${s.workspace}  ${s.status}`,
    `  last sync: ${s.last_sync_at ?? 'never'}${cursor ? `  cursor: ${cursor}` : ''}`,
    ...(s.last_error ? [`  last error (${s.last_error_at}): ${s.last_error}`] : []),
  ].join('\n');
}

export async function connectorCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'add') return add(rest);
  if (sub === 'list') return list(rest);
  if (sub === 'remove') return remove(rest);
  throw new UsageError(USAGE);
}

/** The rows an add asks for: one for GitHub; for Slack one per --channel, or one for every channel. */
function addInputs(kind: string | undefined, values: Record<string, string | string[] | boolean | undefined>): NewConnector[] {
  if (kind === 'github') {
    if (!values['installation-id'] || !values.repo) throw new UsageError('doco connector add github needs --installation-id N and --repo OWNER/NAME');
    return [parseAddConnector({ kind, installation_id: values['installation-id'], repo: values.repo, ...(values.collection ? { collection: values.collection } : {}) })];
  }
  if (kind === 'slack') {
    if (!values['team-id']) throw new UsageError('doco connector add slack needs --team-id T (and --channel C for each channel, or none for every public channel the bot is in)');
    if (values.collection || values.repo || values['installation-id']) throw new UsageError('doco connector add slack takes --team-id, --channel and --workspace');
    const channels = [...new Set((values.channel as string[] | undefined) ?? [])];
    return channels.length ? channels.map((channel) => parseAddConnector({ kind, team_id: values['team-id'], channel })) : [parseAddConnector({ kind, team_id: values['team-id'] })];
  }
  throw new UsageError(USAGE);
}

async function add(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      'installation-id': { type: 'string' }, repo: { type: 'string' }, 'team-id': { type: 'string' }, channel: { type: 'string', multiple: true },
      workspace: { type: 'string' }, collection: { type: 'string' }, json: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  const [kind] = positionals;
  if (positionals.length !== 1) throw new UsageError(USAGE);
  const inputs = addInputs(kind, values);
  const env = cliEnv();
  const workspace = values.workspace ?? env.config.workspace;
  if (!SLUG.test(workspace)) throw new UsageError('--workspace must be a slug: lowercase letters, digits and hyphens');
  const statuses = await withDatabase(env, async (h) => {
    const workspaceId = await ensureWorkspace(h.db, workspace);
    // All or none: one channel that is already there adds no other.
    const rows = await h.sql.begin(async (tx) => {
      const added = [];
      for (const input of inputs) {
        const row = await addConnector(tx, workspaceId, input);
        await queueSweep(tx, row.id);
        added.push(row);
      }
      return added;
    });
    return Promise.all(rows.map((r) => connectorStatus(h.sql, r)));
  });
  if (values.json) printJson(statuses.length === 1 ? statuses[0] : { connectors: statuses });
  else process.stdout.write(`${statuses.map((s) => `added ${describe(s)}`).join('\n')}\nits first sweep runs when the worker is up (doco serve or doco worker)\n`);
  return 0;
}

async function list(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { workspace: { type: 'string' }, json: { type: 'boolean' } }, strict: true });
  const env = cliEnv();
  const statuses = await withDatabase(env, async (h) => {
    let workspaceId: string | undefined;
    if (values.workspace) {
      const ws = await findWorkspace(h.db, values.workspace);
      if (!ws) return [];
      workspaceId = ws.id;
    }
    const rows = await listConnectors(h.sql, workspaceId);
    return Promise.all(rows.map((r) => connectorStatus(h.sql, r)));
  });
  if (values.json) printJson({ connectors: statuses });
  else process.stdout.write(statuses.length ? `${statuses.map(describe).join('\n')}\n` : 'no connectors\n');
  return 0;
}

async function remove(args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
  const [id] = positionals;
  if (!id || positionals.length !== 1) throw new UsageError('usage: doco connector remove ID');
  const env = cliEnv();
  const removed = await withDatabase(env, async (h) => {
    const row = await findConnector(h.sql, id);
    return row ? removeConnector(h.sql, row.workspace_id, row.id) : false;
  });
  if (!removed) {
    process.stderr.write(`doco: no connector ${id}\n`);
    return 1;
  }
  process.stdout.write(`removed ${id} (its records stay)\n`);
  return 0;
}
