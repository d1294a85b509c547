// What each per-agent installer provides, and the ownership record kept in the git directory so
// uninstall removes exactly what install added.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FileChange, InstallOptions } from './common.js';

export interface AgentState {
  /** files (relative to the checkout) that did not exist before install */
  created: string[];
  /** keys we added, e.g. "mcp", "env" */
  owned: string[];
}

export interface InstallResult {
  changes: FileChange[];
  state: AgentState;
  notes: string[];
}

export interface AgentInstaller {
  files: string[];
  install(o: InstallOptions, before: AgentState): InstallResult;
  uninstall(root: string, state: AgentState): { changes: FileChange[]; notes: string[] };
}

export const emptyState = (): AgentState => ({ created: [], owned: [] });

/** The state after install: files that were missing are remembered as created (once). */
export function nextState(root: string, before: AgentState, files: string[], owned: string[], existedBefore: Set<string>): AgentState {
  const created = new Set(before.created);
  for (const f of files) if (!existedBefore.has(f) && existsSync(path.join(root, f))) created.add(f);
  return { created: [...created].sort(), owned: [...new Set(owned)].sort() };
}

export const existing = (root: string, files: string[]) => new Set(files.filter((f) => existsSync(path.join(root, f))));
