// The `doco` command line: dispatches to one module per command, loaded on demand so a quick
// command does not pay for the server's imports. `doco serve` and `doco worker` start the whole
// server: bin/doco.js sends them to src/main.ts, the composition root.
import { reportError, UsageError } from './output.js';

type Command = (args: string[]) => Promise<number>;

const commands: Record<string, () => Promise<Command>> = {
  migrate: async () => (await import('./commands/db.js')).migrateCommand,
  'db-url': async () => (await import('./commands/db.js')).dbUrlCommand,
  psql: async () => (await import('./commands/db.js')).psqlCommand,
  verify: async () => (await import('./commands/db.js')).verifyCommand,
  ping: async () => (await import('./commands/db.js')).pingCommand,
  token: async () => (await import('./commands/token.js')).tokenCommand,
  capture: async () => (await import('./commands/writes.js')).captureCommand,
  relate: async () => (await import('./commands/writes.js')).relateCommand,
  changeset: async () => (await import('./commands/writes.js')).changesetCommand,
  collection: async () => (await import('./commands/collection.js')).collectionCommand,
  get: async () => (await import('./commands/get.js')).getCommand,
  workspace: async () => (await import('./commands/agent-review.js')).workspaceCommand,
  brief: async () => (await import('./commands/brief.js')).briefCommand,
  search: async () => (await import('./commands/search.js')).searchCommand,
  reindex: async () => (await import('./commands/reindex.js')).reindexCommand,
  'ingest-docs': async () => (await import('./commands/ingest-docs.js')).ingestDocsCommand,
  'lint-docs': async () => (await import('./commands/lint-docs.js')).lintDocsCommand,
  hook: async () => (await import('./commands/hook.js')).hookCommand,
  'mcp-bridge': async () => (await import('./commands/mcp-bridge.js')).mcpBridgeCommand,
  hooks: async () => (await import('./commands/hooks-install.js')).hooksCommand,
  connector: async () => (await import('./commands/connector.js')).connectorCommand,
  align: async () => (await import('./commands/align.js')).alignCommand,
  console: async () => (await import('./commands/console.js')).consoleCommand,
};

const USAGE = `doco: the context engine for coding agents

usage: doco <command> [options]

  serve [--port N] [--no-worker]   REST + MCP (+ worker) on 127.0.0.1:8787
  worker                           the graphile-worker runner alone
  migrate                          apply migrations/ and sql/
  db-url                           print the Postgres connection string in use
  psql [ARGS…]                     psql on that database
  verify [--json]                  recompute every hash chain; exit 1 naming the first broken id
  ping                             exit 0 when the database answers (container health check)
  token create --scope read|write [--workspace SLUG] [--principal NAME] [--label TEXT]
  collection create --slug S --template T --goal G [--name N] [--duplicates warn|block]
  collection set SLUG --agents-may-activate true|false|inherit   may agents' writes in it go live without review?
  workspace show|set [--agents-may-activate true|false]          the same, for every collection that inherits
  capture --collection C --type T [--title ..] [--prose ..] [--body JSON] [--lifecycle L] [--on-duplicate warn|block]   (or JSON on stdin)
  relate --from ID --to ID --type EDGE [--lifecycle L]                                     (or JSON on stdin)
  changeset [--file F] [--on-duplicate warn|block]   a changeset as JSON on stdin or in a file
  get ID                           a record with its edges and history
  brief "ABOUT" [--touching P]… [--budget N] [--since 7d] [--collection C] [--as-of ISO] [--json]
  search "Q" [--type T] [--shape S] [--collection C] [--limit N] [--json]
  reindex                          re-embed and re-index every record from Postgres
  ingest-docs [ROOT] [--only FILE]… [--json] [--workspace SLUG]   ingest the docs tree (ROOT: DOCO_DOCS_ROOT or .); exit 1 when the reap was refused
  lint-docs [ROOT] [--json] [--no-db] [--workspace SLUG]   check a docs tree against the ingestion rules; exit 1 on errors
  hook session-start|prompt|edit [--agent A]   an agent hook: stdin JSON to the server, its answer on stdout; always exit 0
  mcp-bridge --agent A             Doco's MCP over stdio for an agent, with the checkout's installed MCP token (Gemini's entry)
  connector add github --installation-id N --repo OWNER/NAME [--workspace SLUG] [--collection SLUG] [--json]   copy a repository's PRs and issues in (GitHub App)
  connector add notion [--workspace SLUG] [--collection SLUG] [--json]   copy the pages shared with the Notion integration in (NOTION_TOKEN)
  connector add drive [--workspace SLUG] [--folder ID]… [--collection SLUG] [--json]   copy Google Docs and .md/.txt files in (GOOGLE_SERVICE_ACCOUNT_FILE)
  connector add slack --team-id T [--channel C]… [--workspace SLUG] [--json]   copy Slack threads in (every public channel the bot is in without --channel)
  connector list [--workspace SLUG] [--json]   connectors with their last sync, cursors and last error
  connector remove ID              stop a connector (its records stay)
  connector rearm ID               Notion: await the webhook handshake another hour (the token kept goes)
  align [--base REV] [--head REV] [--json] [--fail-on high|medium] [ROOT]   doc sections that expect the changed code (default: working tree vs HEAD); exit 1 when --fail-on is met
  console [--workspace SLUG] [--principal NAME] [--scope read|write] [--url URL]   a one-time console sign-in URL, alone on stdout
  hooks install|uninstall --agent claude-code|codex|gemini [--url URL] [--admin-token T | --token T --mcp-token T] [--http] [--npx]   agent hooks + MCP for this checkout (tokens minted and checked by the server)
  hooks status [--agent A] [--json]   per agent: hooks installed, tokens working, Codex trust

Writes take --workspace SLUG (default: DOCO_WORKSPACE or "default") and --principal NAME.
`;

export async function main(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(USAGE);
    return;
  }
  if (name === 'version' || name === '--version') {
    process.stdout.write(`${(await import('../lib/version.js')).DOCO_VERSION}\n`);
    return;
  }
  const load = commands[name];
  await runCommand(async (rest) => {
    if (!load) throw new UsageError(`unknown command ${JSON.stringify(name)}`);
    return (await load())(rest);
  }, args);
}

/** Runs one command, its exit code the process's; an error is reported in the API's shape. */
export async function runCommand(command: Command, args: string[]): Promise<void> {
  try {
    process.exitCode = await command(args);
  } catch (err) {
    const parseError = err as { code?: string; message?: string };
    process.exitCode = parseError.code?.startsWith('ERR_PARSE_ARGS')
      ? reportError(new UsageError(parseError.message ?? 'bad arguments'))
      : reportError(err);
  }
}
