// What `doco hook` asks git about the checkout it runs in, in as few programs as it can: starting
// one costs a hook ~10-15 ms (Node forks itself to start it), more than anything else it does
// besides starting Node (docs/agents.md, "Hook latency"). One `git rev-parse` answers both
// gitPaths's question and deletedFiles's "where" (they were two), and the working tree's
// deletions are asked beside it. Node built-ins only: this runs before every prompt and edit.
import path from 'node:path';
import { GIT_PATHS_ARGS, gitPathsFrom, type GitPaths } from './commit-trailer.js';
import { deletedIn, git, WHERE_ARGS, WORKTREE_DELETIONS } from './deleted-files.js';

export interface CheckoutProbe {
  /** As gitPaths(cwd) says: undefined outside a repository. */
  git?: GitPaths;
  /** As deletedFiles(cwd, gitDir) says, from the answers already in. */
  deleted(): Promise<string[]>;
}

/**
 * gitPaths(cwd), and with `withDeleted` what deletedFiles(cwd, …) would find. rev-parse prints its
 * answers in the order asked and stops at the first it cannot give, so GitPaths's four lines come
 * before the work tree's (absent in a bare repository or inside .git) and HEAD's (absent when it
 * is unborn: the exit code says so).
 */
export async function probeCheckout(cwd: string, withDeleted: boolean): Promise<CheckoutProbe> {
  const [asked, worktree] = await Promise.all([
    git(cwd, ['rev-parse', ...GIT_PATHS_ARGS, ...(withDeleted ? WHERE_ARGS : [])], 0),
    withDeleted ? git(cwd, WORKTREE_DELETIONS) : undefined,
  ]);
  const lines = asked.out.split('\n');
  const paths = lines.length > 4 ? gitPathsFrom(lines, cwd) : undefined;
  const [top, prefix, head] = lines.slice(4);
  return {
    ...(paths ? { git: paths } : {}),
    deleted: async () => {
      if (!paths || !worktree || !asked.ok || !top || prefix === undefined || !head) return [];
      return deletedIn({ top, prefix, head }, worktree, path.dirname(paths.lastBrief));
    },
  };
}
