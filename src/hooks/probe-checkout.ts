// What `doco hook` asks git about the checkout it runs in, as cheaply as it can (docs/agents.md,
// "Hook latency"): where the checkout is and its paths, read from its files (read-checkout.ts),
// or where that cannot be, one `git rev-parse` for both gitPaths's question and deletedFiles's
// "where"; then one `git diff` its working tree's deletions. git runs synchronously: an async
// child's pipes and streams cost the hook more CPU than the two git runs take one after the
// other. Node built-ins only: this runs before every prompt and edit.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { GIT_PATHS_ARGS, gitPathsFrom, type GitPaths } from './commit-trailer.js';
import { deletedIn, GIT_TIMEOUT_MS, WHERE_ARGS, WORKTREE_DELETIONS, type GitRun, type Where } from './deleted-files.js';
import { readCheckout } from './read-checkout.js';
import { worktreeDeletions } from './worktree-deletions.js';

export interface CheckoutProbe {
  /** As gitPaths(cwd) says: undefined outside a repository. */
  git?: GitPaths;
  /** As deletedFiles(cwd, gitDir) says (empty unless probed `withDeleted`); the history's remembered in the git directory when `remember`. */
  deleted(remember: boolean): Promise<string[]>;
}

/** Runs git and waits for it, as deleted-files.ts's git does (no optional locks; no timeout when 0). */
function gitNow(cwd: string, args: string[], timeout: number): GitRun {
  const run = spawnSync('git', args, {
    cwd,
    timeout,
    maxBuffer: 16 * 1024 * 1024,
    encoding: 'utf8',
    env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return { ok: run.status === 0, out: typeof run.stdout === 'string' ? run.stdout : '' };
}

/**
 * gitPaths(cwd), and with `withDeleted` what deletedFiles(cwd, …) would find. The diff runs when
 * `deleted` is called, in a repository only.
 */
export function probeCheckout(cwd: string, withDeleted: boolean): CheckoutProbe {
  const { paths, where, read } = locate(cwd, withDeleted);
  return {
    ...(paths ? { git: paths } : {}),
    deleted: async (remember) => {
      if (!paths || !where) return [];
      // The worktree's git directory, where its HEAD and index are and the hook remembers what git said.
      const gitDir = path.dirname(paths.head);
      const cacheDir = remember ? path.dirname(paths.lastBrief) : undefined;
      const run = (args: string[]) => gitNow(cwd, args, GIT_TIMEOUT_MS);
      // Only a checkout read from its files: where git was asked, a variable may name another index.
      return deletedIn(where, read ? worktreeDeletions(where, gitDir, cacheDir, run) : run(WORKTREE_DELETIONS), cacheDir);
    },
  };
}

/**
 * The checkout's paths and where it is: from its files, else from one `git rev-parse`. rev-parse
 * prints its answers in the order asked and stops at the first it cannot give, so GitPaths's four
 * lines come before the work tree's (absent in a bare repository or inside .git) and HEAD's
 * (absent when it is unborn: the exit code says so).
 */
function locate(cwd: string, withDeleted: boolean): { paths?: GitPaths; where?: Where; read: boolean } {
  const files = readCheckout(cwd);
  if (files !== undefined) return { ...(files ? { paths: files.paths } : {}), ...(files?.where ? { where: files.where } : {}), read: true };
  const asked = gitNow(cwd, ['rev-parse', ...GIT_PATHS_ARGS, ...(withDeleted ? WHERE_ARGS : [])], GIT_TIMEOUT_MS);
  const lines = asked.out.split('\n');
  const paths = lines.length > 4 ? gitPathsFrom(lines, cwd) : undefined;
  const [top, prefix, head] = lines.slice(4);
  const where = paths && asked.ok && top && prefix !== undefined && head ? { top, prefix, head } : undefined;
  return { ...(paths ? { paths } : {}), ...(where ? { where } : {}), read: false };
}
