// Codex CLI: hooks in `.codex/hooks.json`; the hooks' token stays in the git directory (read by
// `doco hook`). The MCP server goes into the project's `.codex/config.toml` (read in trusted
// projects) with the write token as a literal header, kept out of git — unless that file is the
// user's own, when the snippet is printed instead. Codex skips hooks until the user trusts them,
// and trust is keyed by a hash of each command: the commands below never change between
// reinstalls (no URL or token in them), so a reinstall keeps the trust. We never write it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { existing, hookedEvents, nextState, outdatedEvents, type AgentInstaller } from './agent.js';
import { hookCommandLine, mergeHooks, readJsonFile, removeHooks, writeJsonFile, type FileChange, type HookTarget } from './common.js';
import { markedFile } from './text-file.js';

const HOOKS = '.codex/hooks.json';
const CONFIG = '.codex/config.toml';
const config = markedFile(CONFIG, "# Written by `doco hooks install`: Doco's MCP tools for this checkout. Holds a token: kept out of git.");

export const CODEX_TARGETS: HookTarget[] = [
  { name: 'SessionStart', matcher: 'startup|resume|clear|compact', event: 'session-start' },
  { name: 'UserPromptSubmit', event: 'prompt' },
  { name: 'PreToolUse', matcher: 'apply_patch|Edit|Write', event: 'edit' },
];

export const CODEX_TRUST_STEP =
  'Codex skips project hooks until you trust them: run `codex` in this checkout once and choose "Trust all and continue" (or open /hooks and trust the three Doco hooks). ' +
  "Trust is tied to each command's hash; reinstalling keeps the commands byte for byte (a different doco path or --npx changes them, and Codex asks again). Check with `doco hooks status`.";

export const codexMcpSnippet = (url: string) => `[mcp_servers.doco]\nurl = "${url}/mcp"\nbearer_token_env_var = "DOCO_MCP_TOKEN"\n`;
/** A TOML basic string: JSON's escapes are TOML's, but TOML also refuses DEL (U+007F) unescaped. */
const tomlString = (s: string) => JSON.stringify(s).replace(/\u007f/g, '\\u007F');
const ourConfig = (url: string, token: string) =>
  `[mcp_servers.doco]\nurl = ${tomlString(`${url}/mcp`)}\nhttp_headers = { Authorization = ${tomlString(`Bearer ${token}`)} }\n`;

export const codex: AgentInstaller = {
  files: [HOOKS, CONFIG],
  tokenFiles: [CONFIG],
  install(o, before) {
    const had = existing(o.root, this.files);
    const file = path.join(o.root, HOOKS);
    const settings = mergeHooks(readJsonFile(file), CODEX_TARGETS, (t) => ({
      type: 'command',
      command: hookCommandLine(o, 'codex', t.event),
      timeout: 10,
    }));
    const changes: FileChange[] = [writeJsonFile(file, settings)];
    const notes = [CODEX_TRUST_STEP];
    const owned: string[] = [];
    if (!existsSync(path.join(o.root, CONFIG)) || config.isOurs(o.root)) {
      const { change, ignoredNote } = config.write(o.root, ourConfig(o.url, o.mcpToken));
      changes.push(change);
      owned.push('mcp');
      if (ignoredNote) notes.push(ignoredNote);
      if (ignoredNote || before.owned.includes('exclude')) owned.push('exclude');
    } else {
      notes.push(
        `${CONFIG} is yours, so Doco's MCP entry is not written into it: add this to it (or to ~/.codex/config.toml), and export DOCO_MCP_TOKEN=${o.mcpToken} where codex runs:\n${codexMcpSnippet(o.url)}`,
      );
    }
    return { changes, notes, state: nextState(o.root, before, this.files, owned, had, o.mcpToken) };
  },
  uninstall(root, state) {
    const file = path.join(root, HOOKS);
    const changes = [writeJsonFile(file, removeHooks(readJsonFile(file)), { removeIfEmpty: state.created.includes(HOOKS) })];
    if (state.owned.includes('mcp')) changes.push(...config.remove(root, state.owned.includes('exclude')));
    return { changes, notes: [] };
  },
  status(root) {
    const token = config.read(root)?.match(/Bearer ([^"\s]+)"/)?.[1];
    const hooks = readJsonFile(path.join(root, HOOKS));
    return {
      file: HOOKS,
      events: hookedEvents(hooks, CODEX_TARGETS),
      outdated: outdatedEvents(hooks, CODEX_TARGETS),
      ...(token ? { mcpToken: token } : {}),
      mcp: token ? CONFIG : existsSync(path.join(root, CONFIG)) ? `${CONFIG} is the user's own (the snippet was printed)` : `no ${CONFIG}`,
    };
  },
};
