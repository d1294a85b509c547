// Gemini CLI: hooks (timeouts in milliseconds) and the MCP server in `.gemini/settings.json`;
// the hooks' token stays in the git directory (read by `doco hook`). The MCP entry is a stdio
// command, `doco mcp-bridge --agent gemini`, which reads the agent's MCP token from the git
// directory too: Gemini expands `$VAR` in settings before it loads `.gemini/.env`, so an HTTP
// entry whose header names a variable reaches the server with no token unless the user exports
// it (seen with Gemini CLI 0.61.0 in `npm run test:agents`), and settings.json is often
// committed, so the token cannot sit there. An earlier install's `.gemini/.env` is removed.
import path from 'node:path';
import { existing, hookedEvents, outdatedEvents, nextState, type AgentInstaller } from './agent.js';
import {
  hookCommandLine,
  mergeHooks,
  mergeMcpServer,
  readJsonFile,
  removeHooks,
  removeMcpServer,
  writeJsonFile,
  type FileChange,
  type HookTarget,
  type Json,
} from './common.js';
import { markedFile } from './text-file.js';

const SETTINGS = '.gemini/settings.json';
/** Where installs before the bridge kept the MCP token: removed when ours. */
const OLD_ENV = '.gemini/.env';
const oldEnvFile = markedFile(
  OLD_ENV,
  "# Written by `doco hooks install`: the token of Doco's MCP entry in settings.json. Kept out of git.",
);

export const GEMINI_TARGETS: HookTarget[] = [
  { name: 'SessionStart', event: 'session-start' },
  { name: 'BeforeAgent', event: 'prompt' },
  { name: 'AfterTool', matcher: 'write_file|replace', event: 'edit' },
];

export const GEMINI_TRUST_STEP =
  'Gemini CLI runs project hooks (and reads .gemini/) only in a trusted folder: trust this folder when Gemini asks, or start it with GEMINI_CLI_TRUST_WORKSPACE=true; --skip-trust loads no project settings at all. Check with `doco hooks status`.';

export const gemini: AgentInstaller = {
  files: [SETTINGS],
  tokenFiles: [],
  install(o, before) {
    const had = existing(o.root, this.files);
    const file = path.join(o.root, SETTINGS);
    const withHooks = mergeHooks(readJsonFile(file), GEMINI_TARGETS, (t) => ({
      type: 'command',
      command: hookCommandLine(o, 'gemini', t.event),
      timeout: 10_000,
    }));
    const [command, ...args] = o.docoArgv;
    const mcp = mergeMcpServer(
      withHooks,
      { command: command!, args: [...args, 'mcp-bridge', '--agent', 'gemini'] },
      before.owned.includes('mcp'),
    );
    const changes: FileChange[] = [writeJsonFile(file, mcp.settings)];
    if (before.owned.includes('env')) changes.push(...oldEnvFile.remove(o.root, before.owned.includes('exclude')));
    const notes = [GEMINI_TRUST_STEP];
    if (!mcp.ours) notes.push(`${SETTINGS} already has an MCP server named "doco"; left as is`);
    const owned = mcp.ours ? ['mcp'] : [];
    return { changes, notes, state: nextState(o.root, before, this.files, owned, had, o.mcpToken) };
  },
  uninstall(root, state) {
    const file = path.join(root, SETTINGS);
    let settings = removeHooks(readJsonFile(file));
    if (state.owned.includes('mcp')) settings = removeMcpServer(settings);
    const changes = [writeJsonFile(file, settings, { removeIfEmpty: state.created.includes(SETTINGS) })];
    if (state.owned.includes('env')) changes.push(...oldEnvFile.remove(root, state.owned.includes('exclude')));
    return { changes, notes: [] };
  },
  status(root, state) {
    const settings = readJsonFile(path.join(root, SETTINGS));
    const server = (settings.mcpServers as Json | undefined)?.doco as Json | undefined;
    const bridged = Array.isArray(server?.args) && (server.args as unknown[]).includes('mcp-bridge');
    return {
      file: SETTINGS,
      events: hookedEvents(settings, GEMINI_TARGETS),
      outdated: outdatedEvents(settings, GEMINI_TARGETS),
      ...(bridged && state.mcp_token ? { mcpToken: state.mcp_token } : {}),
      mcp: !server
        ? `no "doco" server in ${SETTINGS}`
        : bridged
          ? `${SETTINGS} (doco mcp-bridge, with the token kept in the git directory)`
          : `${SETTINGS} (not Doco's entry: left as is)`,
    };
  },
};
