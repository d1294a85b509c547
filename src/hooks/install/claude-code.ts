// Claude Code: hooks and both tokens in `.claude/settings.local.json` (not committed, 0600): env.DOCO_TOKEN
// is the hooks' read token, env.DOCO_MCP_TOKEN the MCP entry's write token, which the MCP server
// in `.mcp.json` (committed) reads as ${DOCO_MCP_TOKEN}. `--http` writes http hooks that POST
// straight to the server with the token in the Authorization header — except for SessionStart,
// which Claude Code runs only as a command ("HTTP hooks are not supported for SessionStart"), so
// the standing orders and the commit-trailer hook still arrive.
import path from 'node:path';
import { existing, hookedEvents, outdatedEvents, nextState, type AgentInstaller } from './agent.js';
import {
  ensureIgnored,
  hookCommandLine,
  mergeHooks,
  mergeMcpServer,
  readJsonFile,
  removeHooks,
  removeIgnored,
  removeMcpServer,
  TOKEN_FILE_MODE,
  withKey,
  writeJsonFile,
  type HookTarget,
  type Json,
} from './common.js';

const SETTINGS = '.claude/settings.local.json';
const MCP = '.mcp.json';

export const CLAUDE_TARGETS: HookTarget[] = [
  { name: 'SessionStart', matcher: 'startup|resume|clear|compact', event: 'session-start' },
  { name: 'UserPromptSubmit', event: 'prompt' },
  { name: 'PreToolUse', matcher: 'Edit|Write|MultiEdit|NotebookEdit', event: 'edit' },
];

/** The env keys we set and the ownership mark each is remembered by. */
const ENV_KEYS = [
  { key: 'DOCO_TOKEN', mark: 'env', token: 'token' },
  { key: 'DOCO_MCP_TOKEN', mark: 'env-mcp', token: 'mcpToken' },
] as const;

const envOf = (settings: Json) => ((settings.env as Json | undefined) ?? {}) as Record<string, unknown>;

export const claudeCode: AgentInstaller = {
  files: [SETTINGS, MCP],
  tokenFiles: [SETTINGS],
  install(o, before) {
    const had = existing(o.root, this.files);
    const owned: string[] = [];
    const notes: string[] = [];
    const settingsFile = path.join(o.root, SETTINGS);
    let settings = mergeHooks(readJsonFile(settingsFile), CLAUDE_TARGETS, (t) =>
      o.http && t.event !== 'session-start'
        ? {
            type: 'http',
            url: `${o.url}/api/v1/hooks/claude-code/${t.event}`,
            headers: { Authorization: `Bearer ${o.token}` },
            timeout: 10,
          }
        : { type: 'command', command: hookCommandLine(o, 'claude-code', t.event), timeout: 10 },
    );
    let env = envOf(settings);
    for (const { key, mark, token } of ENV_KEYS) {
      const now = env[key];
      if (now === undefined || before.owned.includes(mark) || (typeof now === 'string' && o.refused.has(now))) {
        if (now !== undefined && !before.owned.includes(mark))
          notes.push(`${SETTINGS}: env.${key} held a token the server refuses; replaced`);
        env = withKey(env, key, o[token]);
        owned.push(mark);
      } else if (now !== o[token]) notes.push(`${SETTINGS} already sets env.${key}; left as is`);
    }
    settings = withKey(settings, 'env', env);
    const mcpFile = path.join(o.root, MCP);
    const mcp = mergeMcpServer(
      readJsonFile(mcpFile),
      { type: 'http', url: `${o.url}/mcp`, headers: { Authorization: 'Bearer ${DOCO_MCP_TOKEN}' } },
      before.owned.includes('mcp'),
    );
    if (mcp.ours) owned.push('mcp');
    else notes.push(`${MCP} already has an MCP server named "doco"; left as is`);
    // The settings hold both tokens (env, and the http hooks' headers): owner-only, as every token file.
    const changes = [writeJsonFile(settingsFile, settings, { mode: TOKEN_FILE_MODE }), writeJsonFile(mcpFile, mcp.settings)];
    const ignored = ensureIgnored(o.root, SETTINGS);
    if (ignored) notes.push(ignored);
    if (ignored || before.owned.includes('exclude')) owned.push('exclude');
    notes.push(
      'Claude Code runs these hooks with no trust step: start `claude` here; the session opens with "Doco standing orders". Check with `doco hooks status`.',
    );
    return { changes, notes, state: nextState(o.root, before, this.files, owned, had, o.mcpToken) };
  },
  uninstall(root, state) {
    const settingsFile = path.join(root, SETTINGS);
    let settings = removeHooks(readJsonFile(settingsFile));
    let env = envOf(settings);
    for (const { key, mark } of ENV_KEYS) if (state.owned.includes(mark)) env = withKey(env, key, undefined);
    if (settings.env !== undefined) settings = withKey(settings, 'env', Object.keys(env).length > 0 ? env : undefined);
    const mcpFile = path.join(root, MCP);
    const mcp = readJsonFile(mcpFile);
    const changes = [
      writeJsonFile(settingsFile, settings, { removeIfEmpty: state.created.includes(SETTINGS) }),
      writeJsonFile(mcpFile, state.owned.includes('mcp') ? removeMcpServer(mcp) : mcp, { removeIfEmpty: state.created.includes(MCP) }),
    ];
    if (state.owned.includes('exclude')) removeIgnored(root, SETTINGS);
    return { changes, notes: [] };
  },
  status(root) {
    const settings = readJsonFile(path.join(root, SETTINGS));
    const env = envOf(settings);
    const server = (readJsonFile(path.join(root, MCP)).mcpServers as Json | undefined)?.doco as Json | undefined;
    const reads = JSON.stringify(server ?? '').includes('${DOCO_MCP_TOKEN}');
    return {
      file: SETTINGS,
      events: hookedEvents(settings, CLAUDE_TARGETS),
      outdated: outdatedEvents(settings, CLAUDE_TARGETS),
      ...(typeof env.DOCO_TOKEN === 'string' ? { hookToken: env.DOCO_TOKEN } : {}),
      ...(reads && typeof env.DOCO_MCP_TOKEN === 'string' ? { mcpToken: env.DOCO_MCP_TOKEN } : {}),
      mcp: !server
        ? `no "doco" server in ${MCP}`
        : reads
          ? `${MCP} (token from ${SETTINGS} env.DOCO_MCP_TOKEN)`
          : `${MCP} "doco" is not the one Doco installs`,
    };
  },
  tokensInUse(root) {
    const env = envOf(readJsonFile(path.join(root, SETTINGS)));
    return [env.DOCO_TOKEN, env.DOCO_MCP_TOKEN].filter((t): t is string => typeof t === 'string');
  },
};
