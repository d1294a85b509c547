// What each per-agent installer provides, and the ownership record kept in the git directory so
// uninstall removes exactly what install added.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { isCurrentHandler, isOurHandler, type FileChange, type HookTarget, type InstallOptions, type Json } from './common.js';

export interface AgentState {
  /** files (relative to the checkout) that did not exist before install */
  created: string[];
  /** keys we added, e.g. "mcp", "env" */
  owned: string[];
  /** the MCP entry's write token (agent:<agent>@<checkout>), kept to be re-checked on reinstall */
  mcp_token?: string;
  /** the hooks' read token, of the same principal: what `doco hook --agent <agent>` sends */
  hook_token?: string;
}

/** Where an agent stands, for `doco hooks status`. */
export interface AgentStatus {
  /** the file holding the hooks, relative to the checkout */
  file: string;
  /** each event Doco hooks: whether our hook is there */
  events: Record<string, boolean>;
  /** events whose hook is a command an older Doco wrote (common.ts, isCurrentHandler) */
  outdated: string[];
  /** the tokens the agent will actually send, where its config names them */
  hookToken?: string;
  mcpToken?: string;
  /** where the MCP entry is, or why it is not */
  mcp: string;
}

export interface InstallResult {
  changes: FileChange[];
  state: AgentState;
  notes: string[];
}

export interface AgentInstaller {
  /** What install writes, relative to the checkout. */
  files: string[];
  /** Those of them that hold a token once installed (never one git tracks). */
  tokenFiles: string[];
  install(o: InstallOptions, before: AgentState): InstallResult;
  uninstall(root: string, state: AgentState): { changes: FileChange[]; notes: string[] };
  status(root: string, state: AgentState): AgentStatus;
  /** Tokens the agent's config already holds that install may replace when the server refuses them. */
  tokensInUse?(root: string): string[];
}

/** Our handlers of a target's event in the settings. */
function ourHandlers(settings: Json, target: HookTarget): unknown[] {
  const groups = ((settings.hooks as Json | undefined) ?? {})[target.name];
  return (Array.isArray(groups) ? (groups as Json[]) : []).flatMap((g) => (Array.isArray(g.hooks) ? g.hooks.filter(isOurHandler) : []));
}

/** Which of the targets' events hold a Doco hook in the settings. */
export function hookedEvents(settings: Json, targets: HookTarget[]): Record<string, boolean> {
  return Object.fromEntries(targets.map((t) => [t.name, ourHandlers(settings, t).length > 0]));
}

/** The targets' events whose Doco hook is a command an older Doco wrote. */
export function outdatedEvents(settings: Json, targets: HookTarget[]): string[] {
  return targets.filter((t) => ourHandlers(settings, t).some((h) => !isCurrentHandler(h))).map((t) => t.name);
}

export const emptyState = (): AgentState => ({ created: [], owned: [] });

/** The state after install: files that were missing are remembered as created (once). */
export function nextState(
  root: string,
  before: AgentState,
  files: string[],
  owned: string[],
  existedBefore: Set<string>,
  mcpToken?: string,
): AgentState {
  const created = new Set(before.created);
  for (const f of files) if (!existedBefore.has(f) && existsSync(path.join(root, f))) created.add(f);
  return { created: [...created].sort(), owned: [...new Set(owned)].sort(), ...(mcpToken ? { mcp_token: mcpToken } : {}) };
}

export const existing = (root: string, files: string[]) => new Set(files.filter((f) => existsSync(path.join(root, f))));
