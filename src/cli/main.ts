// The `doco` command line: dispatches to one module per command, loaded on demand so a quick
// command does not pay for the server's imports. `doco serve` and `doco worker` start the whole
// server: bin/doco.js sends them to src/main.ts, the composition root. Help for every command,
// theirs included, is src/cli/help.ts's, printed before anything else loads.
import { closest, commandHelp, flagsOf, HELP, overview, subcommandOf, wantsHelp } from './help.js';
import { reportError, UsageError } from './output.js';

type Command = (args: string[]) => Promise<number>;

export const commands: Record<string, () => Promise<Command>> = {
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

export async function main(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  if (
    !name ||
    name === '--help' ||
    name === '-h' ||
    (name === 'help' && (!args[0] || args[0] === 'help' || wantsHelp(name, args.slice(0, 1))))
  ) {
    process.stdout.write(overview());
    return;
  }
  if (name === 'version' || name === '--version') {
    process.stdout.write(`${(await import('../lib/version.js')).DOCO_VERSION}\n`);
    return;
  }
  // `doco help brief` and `doco brief --help`; `serve`, `worker` and `hook` come here from
  // bin/doco.js for their help alone.
  const topic = name === 'help' ? args[0]! : name;
  if (HELP[topic] && (name === 'help' || wantsHelp(topic, args))) {
    process.stdout.write(commandHelp(topic));
    return;
  }
  const load = commands[topic];
  await runCommand(
    async (rest) => {
      if (!load || name === 'help') throw unknownCommand(topic);
      return (await load())(rest);
    },
    args,
    name,
  );
}

function unknownCommand(name: string): UsageError {
  const guess = closest(name, Object.keys(HELP));
  return new UsageError(`unknown command ${JSON.stringify(name)}${guess ? `; did you mean ${guess}?` : ''}`);
}

/**
 * Runs one command, its exit code the process's; an error is reported in the API's shape. Node's
 * argument errors become one-line usage errors; given the command's name, an unknown flag names
 * the flag of that command it most likely meant.
 */
export async function runCommand(command: Command, args: string[], name?: string): Promise<void> {
  try {
    process.exitCode = await command(args);
  } catch (err) {
    const parseError = err as { code?: string; message?: string };
    process.exitCode = parseError.code?.startsWith('ERR_PARSE_ARGS')
      ? reportError(argumentError(parseError.code, parseError.message ?? 'bad arguments', name, args))
      : reportError(err);
  }
}

function argumentError(code: string, message: string, name: string | undefined, args: string[]): UsageError {
  const sub = name ? subcommandOf(name, args) : undefined;
  const who = name ? `${[name, sub].filter(Boolean).join(' ')}: ` : '';
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown) {
    const guess = name ? closest(unknown[1]!, flagsOf(name, args)) : undefined;
    return new UsageError(`${who}unknown option ${unknown[1]}${guess ? `; did you mean ${guess}?` : ''}`);
  }
  const valueless = /^Option '(?:-\w, )?(--?[^' ]+)[^']*' argument (missing|is ambiguous)/.exec(message);
  if (valueless)
    return new UsageError(
      `${who}${valueless[1]} needs a value${valueless[2] === 'missing' ? '' : ` (${valueless[1]}=VALUE for one that starts with "-")`}`,
    );
  // Node's own advice on quoting ("To specify a positional argument…") is dropped: one line.
  return new UsageError(`${who}${message.split('\n')[0]!.replace(/\. To specify .*$/, '')}`);
}
