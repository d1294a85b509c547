// Gemini CLI: hooks (timeouts in milliseconds) and the MCP server in `.gemini/settings.json`;
// the hooks' token stays in the git directory (read by `doco hook`). The MCP entry's header
// reads $DOCO_MCP_TOKEN, which Gemini resolves in settings values; the token itself goes into
// `.gemini/.env`, which Gemini loads at start (kept out of git), so nothing needs exporting.
// Gemini loads only the first .env it finds, and `.gemini/.env` comes before the checkout's own
// `.env`: where the user has a `.env` (or a `.gemini/.env` of their own) we would hide it, so
// there the one line to add is printed instead.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { existing, hookedEvents, nextState, type AgentInstaller } from './agent.js';
import { hookCommand, mergeHooks, mergeMcpServer, readJsonFile, removeHooks, removeMcpServer, writeJsonFile, type FileChange, type HookTarget, type Json } from './common.js';
import { markedFile } from './text-file.js';

const SETTINGS = '.gemini/settings.json';
const ENV = '.gemini/.env';
const envFile = markedFile(ENV, '# Written by `doco hooks install`: the token of Doco\'s MCP entry in settings.json. Kept out of git.');

export const GEMINI_TARGETS: HookTarget[] = [
  { name: 'SessionStart', event: 'session-start' },
  { name: 'BeforeAgent', event: 'prompt' },
  { name: 'AfterTool', matcher: 'write_file|replace', event: 'edit' },
];

export const GEMINI_TRUST_STEP =
  'Gemini CLI runs project hooks (and reads .gemini/) only in a trusted folder: trust this folder when Gemini asks, or start it with GEMINI_CLI_TRUST_WORKSPACE=true; --skip-trust loads no project settings at all. Check with `doco hooks status`.';


export const gemini: AgentInstaller = {
  files: [SETTINGS, ENV],
  install(o, before) {
    const had = existing(o.root, this.files);
    const file = path.join(o.root, SETTINGS);
    const withHooks = mergeHooks(readJsonFile(file), GEMINI_TARGETS, (t) => ({ type: 'command', command: hookCommand(o, 'gemini', t.event), timeout: 10_000 }));
    const mcp = mergeMcpServer(withHooks, { type: 'http', url: `${o.url}/mcp`, headers: { Authorization: 'Bearer $DOCO_MCP_TOKEN' } }, before.owned.includes('mcp'));
    const changes: FileChange[] = [writeJsonFile(file, mcp.settings)];
    const notes = [GEMINI_TRUST_STEP];
    const owned = mcp.ours ? ['mcp'] : [];
    const hasEnv = existsSync(path.join(o.root, ENV));
    if (!mcp.ours) notes.push(`${SETTINGS} already has an MCP server named "doco"; left as is`);
    else if (envFile.isOurs(o.root) || (!hasEnv && !existsSync(path.join(o.root, '.env')))) {
      const { change, ignoredNote } = envFile.write(o.root, `DOCO_MCP_TOKEN=${o.mcpToken}\n`);
      changes.push(change);
      owned.push('env');
      if (ignoredNote) notes.push(ignoredNote);
      if (ignoredNote || before.owned.includes('exclude')) owned.push('exclude');
    } else {
      const where = hasEnv ? ENV : '.env';
      notes.push(`Doco's MCP entry reads $DOCO_MCP_TOKEN, and ${where} is yours: add this line to it (or export it where gemini runs):\n  DOCO_MCP_TOKEN=${o.mcpToken}`);
    }
    return { changes, notes, state: nextState(o.root, before, this.files, owned, had, o.mcpToken) };
  },
  uninstall(root, state) {
    const file = path.join(root, SETTINGS);
    let settings = removeHooks(readJsonFile(file));
    if (state.owned.includes('mcp')) settings = removeMcpServer(settings);
    const changes = [writeJsonFile(file, settings, { removeIfEmpty: state.created.includes(SETTINGS) })];
    if (state.owned.includes('env')) changes.push(...envFile.remove(root, state.owned.includes('exclude')));
    return { changes, notes: [] };
  },
  status(root) {
    const settings = readJsonFile(path.join(root, SETTINGS));
    const server = (settings.mcpServers as Json | undefined)?.doco;
    const token = envFile.read(root)?.match(/^DOCO_MCP_TOKEN=(\S+)$/m)?.[1];
    return {
      file: SETTINGS,
      events: hookedEvents(settings, GEMINI_TARGETS),
      ...(token ? { mcpToken: token } : {}),
      mcp: !server ? `no "doco" server in ${SETTINGS}` : token ? `${SETTINGS} (token from ${ENV})` : `${SETTINGS} (token from $DOCO_MCP_TOKEN in your environment or .env)`,
    };
  },
};
