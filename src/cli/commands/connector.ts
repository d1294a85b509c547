// doco connector add github --installation-id N --repo OWNER/NAME [--workspace SLUG] [--collection SLUG] [--json]
// doco connector add notion [--workspace SLUG] [--collection SLUG] [--json]
// doco connector add drive [--workspace SLUG] [--folder ID]… [--collection SLUG] [--json]
// doco connector add slack --team-id T [--channel C]… [--workspace SLUG] [--json]
// doco connector list [--workspace SLUG] [--json]
// doco connector remove ID
// doco connector rearm ID    (Notion: another hour for the webhook handshake; the kept token goes)
// Straight to the database, as `doco token create` is: the first sweep is queued with the add,
// and the worker (doco serve or doco worker) runs it.
import { parseArgs } from 'node:util';
import { rearmHandshake } from '../../connectors/notion/webhook.js';
import { parseAddConnector } from '../../connectors/registry.js';
import {
  addConnector,
  connectorStatus,
  findConnector,
  listConnectors,
  removeConnector,
  type ConnectorStatus,
  type NewConnector,
} from '../../connectors/store.js';
import type { HandshakeStatus } from '../../connectors/notion/handshake.js';
import { queueSweep } from '../../connectors/queue.js';
import { cliEnv, knownWorkspace, withDatabase } from '../context.js';
import { printJson, UsageError } from '../output.js';
import { usageLine } from '../help.js';

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

function handshakeLine(id: string, w: HandshakeStatus): string {
  if (w.handshake === 'received')
    return w.verification_token
      ? `  webhook verification token (paste it into Notion to verify the subscription): ${w.verification_token}`
      : '  webhook: verification token received';
  if (w.handshake === 'awaiting')
    return `  webhook: no verification token yet; Notion's handshake is awaited until ${w.until} (create the subscription in Notion, pointed at /webhooks/notion)`;
  return `  webhook: no verification token; the handshake window closed at ${w.since} (doco connector rearm ${id}, then have Notion send the token again)`;
}

/** Notion's webhook handshake (its token for the operator to paste into Notion) and Drive's skipped files. */
function kindLines(s: ConnectorStatus): string[] {
  const lines: string[] = [];
  if (s.webhook) lines.push(handshakeLine(s.id, s.webhook));
  const skipped = Object.values((s.state.skipped ?? {}) as Record<string, { name: string; mime_type: string }>);
  if (skipped.length)
    lines.push(
      `  skipped ${skipped.length} file(s), neither Google Docs nor .md/.txt: ${skipped
        .slice(0, 5)
        .map((f) => `${f.name} (${f.mime_type})`)
        .join(', ')}${skipped.length > 5 ? ', …' : ''}`,
    );
  return lines;
}

function describe(s: ConnectorStatus): string {
  const cursor = Object.entries(s.state)
    .filter(([k]) => k.endsWith('_since') || k === 'page_token')
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
  return [
    `${s.id}  ${s.kind}  ${s.routing_key}${s.target ? ` ${s.target}` : ''}  workspace=${s.workspace}  ${s.status}`,
    `  last sync: ${s.last_sync_at ?? 'never'}${cursor ? `  cursor: ${cursor}` : ''}`,
    ...kindLines(s),
    ...(s.last_error ? [`  last error (${s.last_error_at}): ${s.last_error}`] : []),
  ].join('\n');
}

type AddValues = {
  'installation-id'?: string;
  repo?: string;
  collection?: string;
  folder?: string[];
  'team-id'?: string;
  channel?: string[];
};

/** The add request for the kind named on the command line; flags of another kind are refused. */
function addRequest(kind: string | undefined, values: AddValues): Record<string, unknown> {
  const collection = values.collection ? { collection: values.collection } : {};
  const refuse = (flags: (keyof AddValues)[]) => {
    const given = flags.filter((f) => values[f] !== undefined);
    if (given.length) throw new UsageError(`doco connector add ${kind} does not take ${given.map((f) => `--${f}`).join(', ')}`);
  };
  if (kind === 'github') {
    refuse(['folder', 'team-id', 'channel']);
    if (!values['installation-id'] || !values.repo)
      throw new UsageError('doco connector add github needs --installation-id N and --repo OWNER/NAME');
    if (!/^[1-9][0-9]{0,18}$/.test(values['installation-id']))
      throw new UsageError(
        `--installation-id must be the GitHub App installation's number (in its settings URL: …/installations/N), not ${JSON.stringify(values['installation-id'])}`,
      );
    return { kind, installation_id: values['installation-id'], repo: values.repo, ...collection };
  }
  if (kind === 'notion') {
    refuse(['installation-id', 'repo', 'folder', 'team-id', 'channel']);
    return { kind, ...collection };
  }
  if (kind === 'drive') {
    refuse(['installation-id', 'repo', 'team-id', 'channel']);
    return { kind, ...(values.folder ? { folders: values.folder } : {}), ...collection };
  }
  throw new UsageError(
    kind === undefined
      ? 'doco connector add needs a kind: github, notion, drive or slack (doco connector --help)'
      : `unknown connector kind ${JSON.stringify(kind)}: github, notion, drive or slack (doco connector --help)`,
  );
}

export async function connectorCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'add') return add(rest);
  if (sub === 'list') return list(rest);
  if (sub === 'remove') return remove(rest);
  if (sub === 'rearm') return rearm(rest);
  throw new UsageError(
    sub === undefined
      ? 'doco connector needs a subcommand: add, list, remove or rearm (doco connector --help)'
      : `unknown connector subcommand ${JSON.stringify(sub)}: add, list, remove or rearm (doco connector --help)`,
  );
}

/** The rows an add asks for: for Slack one per --channel, or one for every channel; else one. */
function addInputs(kind: string | undefined, values: AddValues): NewConnector[] {
  if (kind !== 'slack') return [parseAddConnector(addRequest(kind, values))];
  if (!values['team-id'])
    throw new UsageError(
      'doco connector add slack needs --team-id T (and --channel C for each channel, or none for every public channel the bot is in)',
    );
  if (values.collection || values.repo || values['installation-id'] || values.folder)
    throw new UsageError('doco connector add slack takes --team-id, --channel and --workspace');
  const channels = [...new Set(values.channel ?? [])];
  return channels.length
    ? channels.map((channel) => parseAddConnector({ kind, team_id: values['team-id'], channel }))
    : [parseAddConnector({ kind, team_id: values['team-id'] })];
}

async function add(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      'installation-id': { type: 'string' },
      repo: { type: 'string' },
      folder: { type: 'string', multiple: true },
      'team-id': { type: 'string' },
      channel: { type: 'string', multiple: true },
      workspace: { type: 'string' },
      collection: { type: 'string' },
      json: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 1)
    throw new UsageError(`doco connector add takes one kind, not ${positionals.map((p) => JSON.stringify(p)).join(' ')}`);
  const inputs = addInputs(positionals[0], values);
  const env = cliEnv();
  const workspace = values.workspace ?? env.config.workspace;
  if (!SLUG.test(workspace)) throw new UsageError('--workspace must be a slug: lowercase letters, digits and hyphens');
  const statuses = await withDatabase(env, async (h) => {
    // A connector fills a workspace that exists: a mistyped one is refused, not made and filled.
    const workspaceId = await knownWorkspace(h, workspace);
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
    return Promise.all(rows.map((r) => connectorStatus(h.sql, r, { reveal: true })));
  });
  if (values.json) printJson(statuses.length === 1 ? statuses[0] : { connectors: statuses });
  else
    process.stdout.write(
      `${statuses.map((s) => `added ${describe(s)}`).join('\n')}\nits first sweep runs when the worker is up (doco serve or doco worker)\n`,
    );
  return 0;
}

async function list(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { workspace: { type: 'string' }, json: { type: 'boolean' } }, strict: true });
  const env = cliEnv();
  const statuses = await withDatabase(env, async (h) => {
    // Without --workspace, every workspace's; with one, it must exist, as for any read.
    const workspaceId = values.workspace === undefined ? undefined : await knownWorkspace(h, values.workspace);
    const rows = await listConnectors(h.sql, workspaceId);
    // Whoever reaches the database is the operator: Notion's verification token is theirs to paste.
    return Promise.all(rows.map((r) => connectorStatus(h.sql, r, { reveal: true })));
  });
  if (values.json) printJson({ connectors: statuses });
  else process.stdout.write(statuses.length ? `${statuses.map(describe).join('\n')}\n` : 'no connectors\n');
  return 0;
}

async function remove(args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
  const [id] = positionals;
  if (!id || positionals.length !== 1) throw new UsageError(usageLine('connector', 'remove'));
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

/** Notion: opens another hour for the webhook handshake and drops the token kept (docs/connectors.md, Notion). */
async function rearm(args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
  const [id] = positionals;
  if (!id || positionals.length !== 1) throw new UsageError(usageLine('connector', 'rearm'));
  const env = cliEnv();
  const status = await withDatabase(env, async (h) => {
    const row = await findConnector(h.sql, id);
    if (!row) return undefined;
    await h.sql.begin((tx) => rearmHandshake(tx, row));
    return connectorStatus(h.sql, row, { reveal: true });
  });
  if (!status) {
    process.stderr.write(`doco: no connector ${id}\n`);
    return 1;
  }
  process.stdout.write(`re-armed ${describe(status)}\n`);
  return 0;
}
