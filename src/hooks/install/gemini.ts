// Gemini CLI: hooks (timeouts in milliseconds) and the MCP server in `.gemini/settings.json`;
// the token stays in the git directory (read by `doco hook`), MCP reads $DOCO_TOKEN.
import path from 'node:path';
import { existing, nextState, type AgentInstaller } from './agent.js';
import { hookCommand, mergeHooks, mergeMcpServer, readJsonFile, removeHooks, removeMcpServer, writeJsonFile, type HookTarget } from './common.js';

const SETTINGS = '.gemini/settings.json';

export const GEMINI_TARGETS: HookTarget[] = [
  { name: 'SessionStart', event: 'session-start' },
  { name: 'BeforeAgent', event: 'prompt' },
  { name: 'AfterTool', matcher: 'write_file|replace', event: 'edit' },
];

export const gemini: AgentInstaller = {
  files: [SETTINGS],
  install(o, before) {
    const had = existing(o.root, this.files);
    const file = path.join(o.root, SETTINGS);
    const withHooks = mergeHooks(readJsonFile(file), GEMINI_TARGETS, (t) => ({ type: 'command', command: hookCommand(o, 'gemini', t.event), timeout: 10_000 }));
    const mcp = mergeMcpServer(withHooks, { type: 'http', url: `${o.url}/mcp`, headers: { Authorization: 'Bearer $DOCO_TOKEN' } }, before.owned.includes('mcp'));
    const notes = [
      'Gemini CLI runs project hooks only in a trusted folder: trust this folder when Gemini asks (or start it with GEMINI_CLI_TRUST_WORKSPACE=true); --skip-trust does not load project settings at all.',
      mcp.ours
        ? `Doco's MCP entry reads $DOCO_TOKEN (gemini mcp list shows it Disconnected without it): add this line to your shell profile, or run it before gemini:\n  export DOCO_TOKEN=${o.token}`
        : `${SETTINGS} already has an MCP server named "doco"; left as is`,
    ];
    return { changes: [writeJsonFile(file, mcp.settings)], notes, state: nextState(o.root, before, this.files, mcp.ours ? ['mcp'] : [], had) };
  },
  uninstall(root, state) {
    const file = path.join(root, SETTINGS);
    let settings = removeHooks(readJsonFile(file));
    if (state.owned.includes('mcp')) settings = removeMcpServer(settings);
    return { changes: [writeJsonFile(file, settings, { removeIfEmpty: state.created.includes(SETTINGS) })], notes: [] };
  },
};
