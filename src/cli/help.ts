// What `doco --help`, `doco <command> --help` and `doco help <command>` print, kept as data: one
// entry per command (its forms, flags, the environment it reads, an example), the renderings,
// and the "did you mean" a mistyped command or flag gets. No imports: bin/doco.js and the
// dispatcher reach it before any command (or the server) loads.

type Flag = readonly [spec: string, text: string];
type Env = readonly [name: string, text: string];

/**
 * One way to call a command: its usage after `doco `, what it does, the flags only it takes, and
 * which of the command's shared flags it takes (by name, `--json`; unset: all of them). The usage
 * a mistake prints and the one --help prints are both formUsage's: this, with the shared flags
 * it takes added where the usage does not name them yet.
 */
interface Form {
  usage: string;
  text?: string;
  flags?: readonly Flag[];
  takes?: readonly string[];
}

const GROUPS = {
  run: 'run Doco',
  ask: 'ask',
  write: 'write',
  ingest: 'ingest and index',
  agents: 'coding agents',
  admin: 'administer',
} as const;

export interface CommandHelp {
  group: keyof typeof GROUPS;
  /** One line, for `doco --help`. */
  summary: string;
  forms: readonly Form[];
  /** Flags more than one form takes, described once (each form's `takes` says whether it does). */
  flags?: readonly Flag[];
  env: readonly Env[];
  example: string;
  /** Exit codes and anything else a caller must know, a line each. */
  notes?: readonly string[];
}

const env = {
  home: ['DOCO_HOME', "where the embedded database, the index and the running server's record live"],
  db: ['DATABASE_URL', 'the Postgres to use instead of the embedded one under $DOCO_HOME/pg'],
  pgPort: ['DOCO_PG_PORT', "the embedded Postgres's port (default: a free one, remembered)"],
  workspace: ['DOCO_WORKSPACE', 'the workspace when --workspace is not given (default "default")'],
  url: ['DOCO_URL', 'the server to ask (default: the running `doco serve` that $DOCO_HOME records)'],
  token: ['DOCO_TOKEN', 'the token sent to it (default: a read token minted once and kept in $DOCO_HOME)'],
  local: ['VOYAGE_API_KEY, QDRANT_URL', 'with no server up: Voyage embeddings and rerank, the Qdrant index (default: local ones)'],
  judge: ['ANTHROPIC_API_KEY', "the judge of a collection's judged policies (unset: they are not judged)"],
} as const satisfies Record<string, Env>;

const flag = {
  workspace: ['--workspace SLUG', 'the workspace (default: DOCO_WORKSPACE, else "default")'],
  principal: ['--principal NAME', 'who the write is attributed to (default cli:<os user>)'],
  json: ['--json', 'print JSON instead of text'],
  onDuplicate: ['--on-duplicate warn|block', 'a near-duplicate is a warning verdict, or refused as a conflict'],
  file: ['--file F', 'read the request JSON from file F instead of stdin'],
  lifecycle: ['--lifecycle L', 'drafting, queued, active or retired'],
} as const satisfies Record<string, Flag>;

const SERVER_ENV: readonly Env[] = [
  env.home,
  env.db,
  ['VOYAGE_API_KEY', 'Voyage embeddings and rerank (unset: local ones)'],
  ['DOCO_EMBED_SERVER_URL, DOCO_RERANK_SERVER_URL', 'your own model server for embeddings, rerank (docs/models.md)'],
  ['ANTHROPIC_API_KEY', 'the judge and the synthesis (unset: none, and local extractive synthesis)'],
  ['QDRANT_URL', 'Qdrant as the index (unset: the embedded index under $DOCO_HOME/index)'],
  [
    'DATABASE_READ_URL, DOCO_READ_MAX_LAG_MS',
    'a streaming replica briefs and searches read from, and the lag past which they read the primary (docs/replica.md)',
  ],
  ['DOCO_DOCS_ROOT', 'a checkout the worker ingests every 10 minutes into DOCO_WORKSPACE'],
  ['DOCO_NATS_URL', 'the NATS server whose docs-pack subjects the worker follows'],
  ['GITHUB_APP_ID, NOTION_TOKEN, …', "the connectors' credentials (docs/connectors.md)"],
  ['DOCO_LOG_LEVEL', 'debug, info, warn, error or silent (default info)'],
];

export const HELP: Record<string, CommandHelp> = {
  serve: {
    group: 'run',
    summary: 'the server: REST, MCP and the console on one port, with the background worker',
    forms: [
      {
        usage: 'serve [--port N] [--no-worker]',
        flags: [
          ['--port N', 'listen on port N (default: DOCO_PORT, else 8787)'],
          ['--no-worker', 'HTTP alone; run `doco worker` beside it (the embedded index then needs QDRANT_URL)'],
        ],
      },
    ],
    env: [
      ['DOCO_HOST, DOCO_PORT', 'where it listens (default 127.0.0.1:8787)'],
      ['DOCO_PUBLIC_URL', 'the URL people and agents reach it at behind a proxy'],
      ...SERVER_ENV,
    ],
    example: 'doco serve --port 8788',
    notes: ['Ctrl-C or SIGTERM stops it cleanly; docs/reference.md lists every variable (Configuration).'],
  },
  worker: {
    group: 'run',
    summary: 'the background worker alone (indexing, connectors, docs packs, crons)',
    forms: [{ usage: 'worker' }],
    env: SERVER_ENV,
    example: 'DATABASE_URL=postgres://doco@db/doco doco worker',
  },
  console: {
    group: 'run',
    summary: 'a one-time console sign-in URL, alone on stdout (15 minutes, single use)',
    forms: [
      {
        usage: 'console [--workspace SLUG] [--principal NAME] [--scope read|write] [--url URL]',
        flags: [
          flag.workspace,
          ['--principal NAME', 'who signs in (default cli:<os user>)'],
          ['--scope read|write', 'what the session may do (default write)'],
          ['--url URL', "the server's address in the link (default: the running server, else DOCO_HOST:DOCO_PORT)"],
        ],
      },
    ],
    env: [env.url, env.home, env.db, env.workspace, ['DOCO_HOST, DOCO_PORT', 'the address used when no server is found']],
    example: 'doco console --scope read',
  },
  brief: {
    group: 'ask',
    summary: 'a brief on what you are about to do: the records that bear on it, within a budget',
    forms: [
      {
        usage:
          'brief "ABOUT" [--touching PATH]… [--budget N] [--since 7d] [--collection SLUG] [--as-of ISO] [--deadline-ms N] [--after-changeset ID] [--workspace SLUG] [--json]',
        flags: [
          ['--touching PATH', 'a file, URL or id the work touches; repeat it for more'],
          ['--budget N', 'the size ceiling in tokens, 200 to 100000 (default 4000)'],
          ['--since D', 'what counts as recent: 30m, 12h, 7d, 2w or an ISO date (default 7d)'],
          ['--collection SLUG', 'only this collection'],
          ['--as-of ISO', 'the brief as the records stood then (a date, or a date and time with its zone)'],
          ['--deadline-ms N', 'the time allowed to compose it, 50 to 120000 ms (default 15000)'],
          ['--after-changeset ID', 'the changeset_id of your own write: the brief sees it, even read from a replica (docs/replica.md)'],
          flag.workspace,
          ['--json', 'the brief as JSON instead of text'],
        ],
      },
    ],
    env: [env.url, env.token, env.home, env.db, env.workspace, env.local],
    example: 'doco brief "retry failed refunds" --touching src/billing/refund.ts',
  },
  search: {
    group: 'ask',
    summary: 'hybrid search over the records, best first',
    forms: [
      {
        usage: 'search "QUERY" [--type T] [--shape S] [--collection SLUG] [--limit N] [--after-changeset ID] [--workspace SLUG] [--json]',
        flags: [
          ['--type T', 'intent, idea, rule, decision, action, log, eval, reference or state'],
          ['--shape S', 'a shape name, such as architecturePrinciple'],
          ['--collection SLUG', 'only this collection'],
          ['--limit N', 'at most N results, 1 to 100 (default 10)'],
          ['--after-changeset ID', 'the changeset_id of your own write: the search sees it, even read from a replica'],
          flag.workspace,
          flag.json,
        ],
      },
    ],
    env: [env.url, env.token, env.home, env.db, env.workspace, env.local],
    example: 'doco search "refund retries" --type decision --limit 5',
  },
  get: {
    group: 'ask',
    summary: 'a record with its edges and its newest versions, as JSON',
    forms: [
      {
        usage: 'get ID [--limit N] [--before V] [--workspace SLUG]',
        flags: [
          ['--limit N', 'how many versions, 1 to 100 (default 20)'],
          ['--before V', 'the versions before version V (the JSON\'s "before" reads the next older page)'],
          flag.workspace,
        ],
      },
    ],
    env: [env.home, env.db, env.workspace],
    example: 'doco get decision_01K8Z3QH4N7W2X5Y6Z7A8B9C0D',
  },
  capture: {
    group: 'write',
    summary: 'write one record, from flags or the request JSON',
    forms: [
      {
        usage: 'capture --collection SLUG --type T [--title TEXT] [--prose TEXT] [--body JSON] [--lifecycle L] [--on-duplicate warn|block]',
        text: 'one record from flags',
        flags: [
          ['--collection SLUG', 'the collection it goes in'],
          ['--type T', 'its type: intent, idea, rule, decision, action, log, eval, reference or state'],
          ['--title TEXT', 'its title'],
          ['--prose TEXT', 'its text'],
          ['--body JSON', 'its structured fields, as a JSON object'],
          flag.lifecycle,
          flag.onDuplicate,
        ],
      },
      {
        usage: 'capture [--file F] [--on-duplicate warn|block]',
        text: 'the capture request as JSON on stdin (docs/writes.md)',
        flags: [flag.file],
      },
    ],
    flags: [flag.workspace, flag.principal],
    env: [env.home, env.db, env.workspace, env.judge],
    example: 'doco capture --collection decisions --type decision --title "Refunds go back to the card" --prose "Never store credit."',
  },
  relate: {
    group: 'write',
    summary: 'write one edge between two records, from flags or the request JSON',
    forms: [
      {
        usage: 'relate --from ID --to ID --type EDGE [--lifecycle L]',
        text: 'one edge from flags',
        flags: [
          ['--from ID', 'the record it starts at'],
          ['--to ID', 'the record it points to'],
          ['--type EDGE', 'flows_to, supports, constrained_by, attributed_to, has_parent, derived_from, replaces or relates_to'],
          flag.lifecycle,
        ],
      },
      { usage: 'relate [--file F]', text: 'the relate request as JSON on stdin (docs/writes.md)', flags: [flag.file] },
    ],
    flags: [flag.workspace, flag.principal],
    env: [env.home, env.db, env.workspace],
    example: 'doco relate --from decision_01K8Z3QH4N7W2X5Y6Z7A8B9C0D --to rule_01K8Z3QJ5P8X3Y6Z7A8B9C0D1E --type supports',
  },
  changeset: {
    group: 'write',
    summary: 'write records and edges in one transaction, from a changeset JSON',
    forms: [
      {
        usage: 'changeset [--file F] [--on-duplicate warn|block] [--workspace SLUG] [--principal NAME]',
        text: 'the changeset as JSON on stdin, or in file F (docs/writes.md)',
        flags: [flag.file, flag.onDuplicate, flag.workspace, flag.principal],
      },
    ],
    env: [env.home, env.db, env.workspace, env.judge],
    example: 'doco changeset --file changes.json',
  },
  collection: {
    group: 'write',
    summary: "make a collection, or say whether agents' writes in it go live without review",
    forms: [
      {
        usage: 'collection create --slug S --template T --goal G [--name N] [--duplicates warn|block]',
        text: 'a new collection',
        flags: [
          ['--slug S', 'its slug: lowercase letters, digits and hyphens'],
          ['--template T', 'the template it follows (its types and required fields)'],
          ['--goal G', 'what it is for, in a sentence'],
          ['--name N', 'its display name'],
          ['--duplicates warn|block', 'what the near-duplicate guard does in it'],
        ],
      },
      {
        usage: 'collection set SLUG --agents-may-activate true|false|inherit',
        text: "whether agents' writes in it go live at once (inherit: the workspace's setting)",
        flags: [['--agents-may-activate V', 'true, false or inherit']],
      },
    ],
    flags: [flag.workspace, flag.principal],
    env: [env.home, env.db, env.workspace],
    example: 'doco collection create --slug decisions --template decision --goal "why we chose what we chose"',
  },
  workspace: {
    group: 'write',
    summary: "show, or set, whether agents' writes go live without review in every collection that inherits",
    forms: [
      { usage: 'workspace show', text: "the workspace's settings" },
      {
        usage: 'workspace set --agents-may-activate true|false',
        text: "agents' records and edges go live at once, or wait in the review queue (the default)",
        flags: [['--agents-may-activate V', 'true or false']],
      },
    ],
    flags: [flag.workspace],
    env: [env.home, env.db, env.workspace],
    example: 'doco workspace set --agents-may-activate false --workspace billing',
  },
  'ingest-docs': {
    group: 'ingest',
    summary: 'ingest a docs tree: one record per section, stale ones retired',
    forms: [
      {
        usage: 'ingest-docs [ROOT] [--only FILE]… [--json] [--workspace SLUG] [--principal NAME]',
        text: 'ROOT: the checkout to walk (default: DOCO_DOCS_ROOT, else .)',
        flags: [
          ['--only FILE', 'ingest this file alone (repeat it for more); nothing is reaped'],
          flag.json,
          flag.workspace,
          flag.principal,
        ],
      },
    ],
    env: [
      ['DOCO_DOCS_ROOT', 'the default ROOT'],
      env.home,
      env.db,
      env.workspace,
      ['DOCO_URL', 'a running server whose worker indexes what was written (else this command does)'],
      env.local,
    ],
    example: 'doco ingest-docs ~/src/billing --workspace billing',
    notes: ['Exit 1 when the reap was refused or a section held a credential (docs/ingest.md).'],
  },
  'lint-docs': {
    group: 'ingest',
    summary: "check a docs tree against the ingestion rules, for a docs repository's CI",
    forms: [
      {
        usage: 'lint-docs [ROOT] [--json] [--no-db] [--workspace SLUG]',
        text: 'ROOT: the tree to check (default .)',
        flags: [
          flag.json,
          ['--no-db', "skip the renamed-heading rule (it reads the last ingest's manifest)"],
          ['--workspace SLUG', 'the workspace whose manifest is compared (default: DOCO_WORKSPACE)'],
        ],
      },
    ],
    env: [
      ['DATABASE_URL', 'the database holding the manifest (else an embedded one already running; none is started)'],
      env.home,
      env.workspace,
    ],
    example: 'doco lint-docs docs --no-db',
    notes: ['Exit 1 on any error.'],
  },
  align: {
    group: 'ingest',
    summary: 'the doc sections that expect the code a checkout changed',
    forms: [
      {
        usage: 'align [ROOT] [--base REV] [--head REV] [--fail-on high|medium] [--workspace SLUG] [--json]',
        text: 'ROOT: the checkout (default .); the working tree against HEAD unless --base/--head say otherwise',
        flags: [
          ['--base REV', 'compare against REV (with --head: from their merge base, as a pull request)'],
          ['--head REV', "the change up to REV (alone: that commit's own change)"],
          ['--fail-on high|medium', 'exit 1 when a finding of this confidence or higher is found'],
          flag.workspace,
          flag.json,
        ],
      },
    ],
    env: [env.url, env.token, env.home, env.db, env.workspace, env.local],
    example: 'doco align --base origin/main --head HEAD --fail-on high',
  },
  reindex: {
    group: 'ingest',
    summary: 're-embed and re-index every record from Postgres',
    forms: [{ usage: 'reindex', text: 'with a server up, the records are queued for its worker; else they are indexed here' }],
    env: [env.home, env.db, ['DOCO_URL', 'a running server whose worker re-indexes them'], env.local],
    example: 'doco reindex',
    notes: ['Exit 1 when a record failed to index.'],
  },
  hooks: {
    group: 'agents',
    summary: "install Doco's hooks and MCP into an agent for this checkout, or check them",
    forms: [
      {
        usage:
          'hooks install|uninstall --agent claude-code|codex|gemini [--url URL] [--admin-token T | --token T --mcp-token T] [--http] [--npx] [--workspace SLUG]',
        text: 'write (or take out) the agent hook config and MCP entry; tokens are checked, or minted, by the server',
        flags: [
          ['--agent A', 'claude-code, codex or gemini'],
          ['--admin-token T', "a person's write token; the server mints the agent's tokens with it"],
          ['--token T', "the hooks' read token, made beforehand"],
          ['--mcp-token T', "the MCP entry's write token, made beforehand"],
          ['--http', 'claude-code only: hooks POST to the server directly instead of running doco'],
          ['--npx', 'the hooks run `npx doco` rather than this copy of Doco'],
          ['--workspace SLUG', 'the workspace the tokens are minted in'],
        ],
      },
      {
        usage: 'hooks status [--agent A] [--json]',
        text: 'per agent: hooks installed, both tokens working, Codex trust',
        flags: [['--agent A', 'this agent alone'], flag.json],
      },
    ],
    flags: [['--url URL', 'the server (default: DOCO_URL, the last install, the running server, else 127.0.0.1:DOCO_PORT)']],
    env: [
      ['DOCO_URL', 'the server when --url is not given'],
      ['DOCO_ADMIN_TOKEN', 'the --admin-token when it is not given'],
      env.home,
      ['DOCO_PORT', 'the port tried when no server is found'],
      ['DOCO_HOOK_TIMEOUT_MS', "status: the hooks' wait it reports"],
    ],
    example: 'doco hooks install --agent claude-code --url http://127.0.0.1:8787',
    notes: [
      'Runs inside a git checkout; status exits 1 when an installed token is refused, the server is down or DOCO_HOOK_TIMEOUT_MS is not a timeout.',
    ],
  },
  hook: {
    group: 'agents',
    summary: "what an installed agent hook runs: the agent's JSON to the server, its answer on stdout",
    forms: [
      {
        usage: 'hook session-start|prompt|edit [--agent claude-code|codex|gemini]',
        text: "reads the agent's event JSON on stdin",
        flags: [['--agent A', 'claude-code, codex or gemini (default claude-code)']],
      },
    ],
    env: [
      ['DOCO_URL', 'the server (default: the running one in $DOCO_HOME, else the installed URL)'],
      ['DOCO_TOKEN', 'the token (default: the one `doco hooks install` kept for the agent)'],
      env.home,
      ['DOCO_HOOK_TIMEOUT_MS', 'how long to wait for the answer (default 5000; a bad value: a line on stderr, and the default)'],
    ],
    example: `echo '{"session_id":"s1","cwd":".","prompt":"fix the refund retry"}' | doco hook prompt --agent claude-code`,
    notes: ['Always exits 0: a down or slow server costs a line on stderr, never the agent.'],
  },
  'mcp-bridge': {
    group: 'agents',
    summary: "Doco's MCP over stdio with the checkout's installed MCP token (Gemini's entry)",
    forms: [{ usage: 'mcp-bridge --agent claude-code|codex|gemini', flags: [['--agent A', 'whose installed token to send']] }],
    env: [
      ['DOCO_URL', 'the server (default: the installed URL)'],
      ['DOCO_MCP_TOKEN', 'the token (default: the installed one)'],
    ],
    example: 'doco mcp-bridge --agent gemini',
    notes: ['JSON-RPC only on stdout; exit 1 with a line on stderr when nothing is installed or the server refuses.'],
  },
  token: {
    group: 'admin',
    summary: "mint an API token (printed alone on stdout), list a workspace's, revoke one",
    forms: [
      {
        usage: 'token create --scope read|write [--workspace SLUG] [--principal NAME] [--label TEXT]',
        text: 'a new token, shown this once',
        flags: [
          ['--scope read|write', 'what it may do'],
          ['--principal NAME', 'whose token it is (default cli:<os user>)'],
          ['--label TEXT', 'a note to recognise it by'],
        ],
        takes: ['--workspace'],
      },
      {
        usage: 'token list [--workspace SLUG] [--page N] [--json]',
        text: 'the live tokens, then the revoked, newest first, 100 a page: whose, when used, what minted them',
        flags: [['--page N', 'which hundred (default 1)']],
        takes: ['--workspace', '--json'],
      },
      {
        usage: 'token revoke ID|TOKEN|- [--with-minted] [--workspace SLUG] [--json]',
        text: "stop a token at once, named by its id (token_…) or its value (doco_…: any workspace's; - reads it from stdin)",
        flags: [['--with-minted', 'also every live token it minted, directly or through them (a leaked token)']],
        takes: ['--workspace', '--json'],
      },
    ],
    flags: [flag.workspace, flag.json],
    env: [env.home, env.db, env.workspace],
    example: 'doco token create --scope read --label "CI"',
    notes: ["Plain revoke leaves what a token minted: rotating the token that installed agents' hooks must not stop the agents."],
  },
  migrate: {
    group: 'admin',
    summary: 'apply migrations/ and sql/',
    forms: [{ usage: 'migrate' }],
    env: [env.home, env.db, env.pgPort],
    example: 'DATABASE_URL=postgres://doco@db/doco doco migrate',
  },
  verify: {
    group: 'admin',
    summary: 'recompute every hash chain',
    forms: [{ usage: 'verify [--json]', flags: [flag.json] }],
    env: [env.home, env.db],
    example: 'doco verify --json',
    notes: ['Exit 1 naming the first broken record or edge.'],
  },
  'db-url': {
    group: 'admin',
    summary: 'print the Postgres connection string in use',
    forms: [{ usage: 'db-url' }],
    env: [env.home, env.db, env.pgPort],
    example: 'psql "$(doco db-url)"',
  },
  psql: {
    group: 'admin',
    summary: 'psql on the database in use (needs a psql client)',
    forms: [{ usage: 'psql [ARGS…]', text: "ARGS go to psql after the connection string (`-h` only as the first is Doco's help)" }],
    env: [env.home, env.db, env.pgPort],
    example: `doco psql -c 'select * from doco.outbox_backlog'`,
  },
  ping: {
    group: 'admin',
    summary: 'exit 0 when the database answers (a container health check); never starts one',
    forms: [{ usage: 'ping' }],
    env: [env.db, ['DOCO_HOME', 'where the running embedded database is found']],
    example: 'doco ping',
  },
  connector: {
    group: 'admin',
    summary: 'copy records in from GitHub, Slack, Notion or Google Drive (docs/connectors.md)',
    forms: [
      {
        usage: 'connector add github --installation-id N --repo OWNER/NAME [--collection SLUG]',
        text: "a repository's PRs and issues (the GitHub App: GITHUB_APP_ID and its key, on the worker)",
        flags: [
          ['--installation-id N', "the GitHub App's installation id"],
          ['--repo OWNER/NAME', 'the repository'],
        ],
      },
      { usage: 'connector add notion [--collection SLUG]', text: 'the pages shared with the Notion integration (NOTION_TOKEN)' },
      {
        usage: 'connector add drive [--folder ID]… [--collection SLUG]',
        text: 'Google Docs and .md/.txt files (GOOGLE_SERVICE_ACCOUNT_FILE)',
        flags: [['--folder ID', 'a Drive folder; repeat it for more']],
      },
      {
        usage: 'connector add slack --team-id T [--channel C]…',
        text: 'Slack threads (SLACK_BOT_TOKEN); without --channel, every public channel the bot is in',
        flags: [
          ['--team-id T', 'the Slack team'],
          ['--channel C', 'a channel id; repeat it for more'],
        ],
        takes: ['--workspace', '--json'],
      },
      { usage: 'connector list', text: 'connectors with their last sync, cursors and last error', takes: ['--workspace', '--json'] },
      { usage: 'connector remove ID', text: 'stop a connector (its records stay)', takes: [] },
      { usage: 'connector rearm ID', text: 'Notion: await the webhook handshake another hour (the kept token goes)', takes: [] },
    ],
    flags: [
      ['--collection SLUG', 'add (not slack): the collection its records go in'],
      ['--workspace SLUG', 'add, list: the workspace (default: DOCO_WORKSPACE; list: every workspace)'],
      ['--json', 'add, list: print JSON instead of text'],
    ],
    env: [env.home, env.db, env.workspace],
    example: 'doco connector add github --installation-id 4242 --repo acme/billing',
    notes: ['The worker (doco serve or doco worker) runs the sweeps, with the credentials named above.'],
  },
};

/** `--help` or `-h` before any `--`; psql passes its arguments on, so only as its first. */
export function wantsHelp(command: string, args: readonly string[]): boolean {
  const isHelp = (a: string | undefined) => a === '--help' || a === '-h';
  if (command === 'psql') return isHelp(args[0]);
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some(isHelp);
}

const columns = (rows: readonly (readonly [string, string])[], indent: string): string[] => {
  const width = Math.min(28, Math.max(...rows.map(([left]) => left.length)));
  return rows.map(([left, right]) => `${indent}${left.padEnd(width)}  ${right}`);
};

export function commandHelp(name: string): string {
  const help = HELP[name]!;
  const lines = [`doco ${name}: ${help.summary}`, ''];
  const [only] = help.forms;
  if (help.forms.length === 1 && only) {
    lines.push(`usage: doco ${formUsage(help, only)}`);
    if (only.text) lines.push(`  ${only.text}`);
    const flags = [...(only.flags ?? []), ...(help.flags ?? [])];
    if (flags.length) lines.push('', 'options:', ...columns(flags, '  '));
  } else {
    lines.push('usage:');
    for (const form of help.forms) {
      lines.push(`  doco ${formUsage(help, form)}`);
      if (form.text) lines.push(`      ${form.text}`);
      if (form.flags?.length) lines.push(...columns(form.flags, '      '));
    }
    if (help.flags?.length) lines.push('', 'options:', ...columns(help.flags, '  '));
  }
  if (help.env.length) lines.push('', 'environment:', ...columns(help.env, '  '));
  if (help.notes?.length) lines.push('', ...help.notes);
  lines.push('', 'example:', `  ${help.example}`, '');
  return lines.join('\n');
}

export function overview(): string {
  const lines = ['doco: the context engine for coding agents', '', 'usage: doco <command> [options]'];
  for (const [group, title] of Object.entries(GROUPS)) {
    const rows = Object.entries(HELP)
      .filter(([, h]) => h.group === group)
      .map(([name, h]) => [name, h.summary] as const);
    lines.push('', `${title}:`, ...columns(rows, '  '));
  }
  lines.push(
    '',
    'environment:',
    ...columns(
      [
        ['DOCO_HOME', "where the database, the index and the running server's record live"],
        ['DOCO_URL', 'the server the ask and agent commands call (default: the running `doco serve` in DOCO_HOME)'],
        ['DATABASE_URL', 'a Postgres to use instead of the embedded one'],
        ['DOCO_WORKSPACE', 'the workspace of CLI writes and new tokens (default "default")'],
      ],
      '  ',
    ),
    '',
    'doco <command> --help (or doco help <command>) for its options, environment and an example.',
    'Exit codes: 0 ok, 1 failure, 2 bad usage or input.',
    '',
  );
  return lines.join('\n');
}

const flagName = (spec: string) => spec.split(' ')[0]!;

/** The command's shared flags this form takes. */
const sharedFlagsOf = (help: CommandHelp, form: Form): readonly Flag[] =>
  (help.flags ?? []).filter(([spec]) => !form.takes || form.takes.includes(flagName(spec)));

/** Whether a usage names the flag (`--json`, letters and hyphens), as `--json`, `[--json]` or `--json T`. */
export const usageNames = (usage: string, flag: string): boolean => new RegExp(`(^|[\\s[|])${flag}(?=$|[\\s\\]|])`).test(usage);

/** A form's usage after `doco `, naming every flag it takes: its own, and the shared ones it takes. */
export function formUsage(help: CommandHelp, form: Form): string {
  const missing = sharedFlagsOf(help, form).filter(([spec]) => !usageNames(form.usage, flagName(spec)));
  return [form.usage, ...missing.map(([spec]) => `[${spec}]`)].join(' ');
}

/** The forms args[0] names as their subcommand (`connector add …`, `hooks install …`), or none. */
const formsNamed = (help: CommandHelp, sub: string | undefined): readonly Form[] =>
  sub === undefined ? [] : help.forms.filter((f) => f.usage.split(' ')[1]?.split('|').includes(sub));

/**
 * The one line a mistake prints, `usage: doco …`, the same usage --help prints: the forms the
 * subcommand `sub` names (every form when it names none), joined by ` | `.
 */
export function usageLine(name: string, sub?: string): string {
  const help = HELP[name]!;
  const named = formsNamed(help, sub);
  return `usage: ${(named.length ? named : help.forms).map((f) => `doco ${formUsage(help, f)}`).join(' | ')}`;
}

/** The flags a command's form takes, for the form args[0] names (`connector add …`) or all of them. */
export function flagsOf(name: string, args: readonly string[]): string[] {
  const help = HELP[name];
  if (!help) return [];
  const named = formsNamed(help, args[0] ?? '');
  const forms = named.length ? named : help.forms;
  const specs = forms.flatMap((f) => [...(f.flags ?? []), ...sharedFlagsOf(help, f)]);
  return [...new Set(specs.map(([spec]) => flagName(spec)))];
}

/** The subcommand args[0] names, when the command has one (`token create`), for messages. */
export function subcommandOf(name: string, args: readonly string[]): string | undefined {
  const sub = args[0];
  if (!sub || sub.startsWith('-')) return undefined;
  return HELP[name]?.forms.some((f) => f.usage.split(' ')[1]?.split('|').includes(sub)) ? sub : undefined;
}

/** The candidate a mistyped word most likely meant: a unique one it begins, else the nearest by edit distance. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const bare = (s: string) => s.replace(/^-+/, '');
  const typed = bare(word);
  if (!typed) return undefined;
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(typed.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = editDistance(typed, bare(candidate));
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  if (best) return best;
  const extending = candidates.filter((c) => bare(c).startsWith(typed));
  return typed.length >= 2 && extending.length === 1 ? extending[0] : undefined;
}

/** Levenshtein distance with adjacent transpositions counting one (serach → search is 1). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
