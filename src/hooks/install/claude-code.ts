// Claude Code: hooks and the token in `.claude/settings.local.json` (not committed), the MCP server
// in `.mcp.json` (committed; the token comes from ${DOCO_TOKEN}). `--http` writes http hooks
// that POST straight to the server with the token in the Authorization header — except for
// SessionStart, which Claude Code runs only as a command ("HTTP hooks are not supported for
// SessionStart"), so the standing orders and the commit-trailer hook still arrive.
import path from 'node:path';
import { existing, nextState, type AgentInstaller } from './agent.js';
import { ensureIgnored, hookCommand, mergeHooks, mergeMcpServer, readJsonFile, removeHooks, removeIgnored, removeMcpServer, withKey, writeJsonFile, type HookTarget, type Json } from './common.js';

const SETTINGS = '.claude/settings.local.json';
const MCP = '.mcp.json';

export const CLAUDE_TARGETS: HookTarget[] = [
  { name: 'SessionStart', matcher: 'startup|resume|clear|compact', event: 'session-start' },
  { name: 'UserPromptSubmit', event: 'prompt' },
  { name: 'PreToolUse', matcher: 'Edit|Write|MultiEdit|NotebookEdit', event: 'edit' },
];

export const claudeCode: AgentInstaller = {
  files: [SETTINGS, MCP],
  install(o, before) {
    const had = existing(o.root, this.files);
    const owned: string[] = [];
    const notes: string[] = [];
    const settingsFile = path.join(o.root, SETTINGS);
    let settings = mergeHooks(readJsonFile(settingsFile), CLAUDE_TARGETS, (t) =>
      o.http && t.event !== 'session-start'
        ? { type: 'http', url: `${o.url}/api/v1/hooks/claude-code/${t.event}`, headers: { Authorization: `Bearer ${o.token}` }, timeout: 10 }
        : { type: 'command', command: hookCommand(o, 'claude-code', t.event), timeout: 10 },
    );
    const env = (settings.env as Json | undefined) ?? {};
    if (env.DOCO_TOKEN === undefined || before.owned.includes('env')) {
      settings = withKey(settings, 'env', withKey(env, 'DOCO_TOKEN', o.token));
      owned.push('env');
    } else notes.push(`${SETTINGS} already sets env.DOCO_TOKEN; left as is`);
    const mcpFile = path.join(o.root, MCP);
    const mcp = mergeMcpServer(readJsonFile(mcpFile), { type: 'http', url: `${o.url}/mcp`, headers: { Authorization: 'Bearer ${DOCO_TOKEN}' } }, before.owned.includes('mcp'));
    if (mcp.ours) owned.push('mcp');
    else notes.push(`${MCP} already has an MCP server named "doco"; left as is`);
    const changes = [writeJsonFile(settingsFile, settings), writeJsonFile(mcpFile, mcp.settings)];
    const ignored = ensureIgnored(o.root, SETTINGS);
    if (ignored) notes.push(ignored);
    if (ignored || before.owned.includes('exclude')) owned.push('exclude');
    return { changes, notes, state: nextState(o.root, before, this.files, owned, had) };
  },
  uninstall(root, state) {
    const settingsFile = path.join(root, SETTINGS);
    let settings = removeHooks(readJsonFile(settingsFile));
    if (state.owned.includes('env') && settings.env && typeof settings.env === 'object') {
      const env = withKey(settings.env as Json, 'DOCO_TOKEN', undefined);
      settings = withKey(settings, 'env', Object.keys(env).length > 0 ? env : undefined);
    }
    const mcpFile = path.join(root, MCP);
    const mcp = readJsonFile(mcpFile);
    const changes = [
      writeJsonFile(settingsFile, settings, { removeIfEmpty: state.created.includes(SETTINGS) }),
      writeJsonFile(mcpFile, state.owned.includes('mcp') ? removeMcpServer(mcp) : mcp, { removeIfEmpty: state.created.includes(MCP) }),
    ];
    if (state.owned.includes('exclude')) removeIgnored(root, SETTINGS);
    return { changes, notes: [] };
  },
};
