// Codex CLI: hooks in `.codex/hooks.json`; the token stays in the git directory (read by
// `doco hook`), the MCP server is a `config.toml` snippet printed for the user to add.
import path from 'node:path';
import { existing, nextState, type AgentInstaller } from './agent.js';
import { hookCommand, mergeHooks, readJsonFile, removeHooks, writeJsonFile, type HookTarget } from './common.js';

const HOOKS = '.codex/hooks.json';

export const CODEX_TARGETS: HookTarget[] = [
  { name: 'SessionStart', matcher: 'startup|resume|clear|compact', event: 'session-start' },
  { name: 'UserPromptSubmit', event: 'prompt' },
  { name: 'PreToolUse', matcher: 'apply_patch|Edit|Write', event: 'edit' },
];

export const codexMcpSnippet = (url: string) => `[mcp_servers.doco]\nurl = "${url}/mcp"\nbearer_token_env_var = "DOCO_TOKEN"\n`;

export const codex: AgentInstaller = {
  files: [HOOKS],
  install(o, before) {
    const had = existing(o.root, this.files);
    const file = path.join(o.root, HOOKS);
    const settings = mergeHooks(readJsonFile(file), CODEX_TARGETS, (t) => ({ type: 'command', command: hookCommand(o, 'codex', t.event), timeout: 10 }));
    const notes = [
      'Codex runs project hooks only in trusted projects, and each hook must be trusted in /hooks (trust is tied to the hook\'s hash): open Codex here and trust them.',
      `For Doco's MCP tools add to ~/.codex/config.toml (with DOCO_TOKEN set in your environment):\n${codexMcpSnippet(o.url)}`,
    ];
    return { changes: [writeJsonFile(file, settings)], notes, state: nextState(o.root, before, this.files, [], had) };
  },
  uninstall(root, state) {
    const file = path.join(root, HOOKS);
    return { changes: [writeJsonFile(file, removeHooks(readJsonFile(file)), { removeIfEmpty: state.created.includes(HOOKS) })], notes: [] };
  },
};
