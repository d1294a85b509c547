// The checkout `doco hooks install|uninstall|status` work in: its git paths and its name, the
// state an install left in its git directory, the server it points at, and the agents' installers.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { gitPaths, type GitPaths } from '../hooks/commit-trailer.js';
import type { AgentInstaller, AgentState } from '../hooks/install/agent.js';
import { claudeCode } from '../hooks/install/claude-code.js';
import { codex } from '../hooks/install/codex.js';
import { gemini } from '../hooks/install/gemini.js';
import { UsageError } from './output.js';

export const INSTALLERS: Record<string, AgentInstaller> = { 'claude-code': claudeCode, codex, gemini };

export interface LocalState {
  token?: string;
  url?: string;
  workspace?: string;
  agents?: Record<string, AgentState>;
}

export function checkout(): { root: string; git: GitPaths } {
  let root: string;
  try {
    root = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    throw new UsageError('doco hooks must run inside a git checkout');
  }
  const git = gitPaths(root);
  if (!git) throw new UsageError('doco hooks must run inside a git checkout');
  return { root, git };
}

/** The name agent principals carry for this checkout: the repository's folder, shared by its worktrees. */
export function checkoutName(commonDir: string): string {
  const base =
    path.basename(commonDir) === '.git' ? path.basename(path.dirname(commonDir)) : path.basename(commonDir).replace(/\.git$/, '');
  return (
    base
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 100) || 'checkout'
  );
}

/** Where serverUrl found the server: the checkout's last install is the one place a checkout's occupant can write. */
export type ServerSource = 'flag' | 'env' | 'home' | 'checkout' | 'default';

/**
 * --url, DOCO_URL, a `doco serve` this DOCO_HOME knows of (no database is opened), the last
 * install's URL, or the default port. The running server comes before the checkout's record: an
 * agent working in the checkout can rewrite that file.
 */
export async function serverUrl(flag: string | undefined, local: LocalState): Promise<{ url: string; source: ServerSource }> {
  const trim = (u: string) => u.replace(/\/+$/, '');
  if (flag) return { url: trim(flag), source: 'flag' };
  if (process.env.DOCO_URL) return { url: trim(process.env.DOCO_URL), source: 'env' };
  // The home's record read as the hook reads it: no configuration checked (`hooks status` reports a bad one itself).
  const { chooseHome } = await import('../config/home.js');
  const { readLiveServer } = await import('../config/server-file.js');
  const live = (await readLiveServer(chooseHome(process.env).path))?.url;
  if (live) return { url: trim(live), source: 'home' };
  if (local.url) return { url: trim(local.url), source: 'checkout' };
  return { url: `http://127.0.0.1:${process.env.DOCO_PORT || 8787}`, source: 'default' };
}
