// What the checkout deleted, found by `doco hook` where the checkout is and sent with the event
// as `doco_deleted` (docs/agents.md): files git knows were removed, in a commit or since the last
// one, that are not back in the working tree. The server marks records naming them possibly
// stale; it never runs git, nor reads a folder a request names. Node built-ins only, two git
// processes side by side: this runs before every prompt. The history's deletions are kept per
// commit in the git directory, so a walk of the history runs only when HEAD moves.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { MAX_DELETED_PATH_CHARS, MAX_DELETED_PATHS } from './deleted-limits.js';
import { readRegularText, replaceFile, trackablePath } from './git-dir-files.js';

/** Per call; a slower git is skipped (no list, no marks), never waited for. */
export const GIT_TIMEOUT_MS = 1500;
/** Deletions remembered from the history, the most recent first. */
const MAX_REMEMBERED = 20_000;
/** The file in the worktree's git directory that remembers them, beside doco-last-brief. */
export const DELETED_CACHE_FILE = 'doco-deleted.json';

interface Remembered {
  head: string;
  paths: string[];
}

export interface GitRun {
  ok: boolean;
  out: string;
}

/** Runs git: whether it succeeded, and what it printed (up to a timeout, when it timed out; none when 0). */
export function git(cwd: string, args: string[], timeout = GIT_TIMEOUT_MS): Promise<GitRun> {
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      // No optional locks: the agent may be running git in this checkout at the same moment.
      { cwd, timeout, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8', env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } },
      (err, stdout) => resolve({ ok: !err, out: typeof stdout === 'string' ? stdout : '' }),
    );
  });
}

/** Where the checkout is: its top, cwd's place under it, and HEAD's commit (fails on an unborn HEAD). */
export const WHERE_ARGS = ['--show-toplevel', '--show-prefix', '--verify', '-q', 'HEAD'];
/** What the working tree and the index deleted since HEAD. */
export const WORKTREE_DELETIONS = ['diff', '--no-relative', '--name-only', '--no-renames', '--diff-filter=D', '-z', 'HEAD'];

/** Where the checkout is, from WHERE_ARGS's three lines. */
export interface Where {
  top: string;
  /** cwd's place under the top, as git sees it: no symlink in the way ("" at the top). */
  prefix: string;
  head: string;
}

/** NUL-separated paths; a cut-off last one (a timed-out walk) is dropped. */
const nulList = (out: string, complete: boolean) => {
  const parts = out.split('\0');
  const last = parts.pop();
  if (complete && last) parts.push(last);
  return parts.filter(Boolean);
};

const DELETIONS = ['log', '--diff-filter=D', '--name-only', '--no-renames', '--format=', '-z'];

function readRemembered(file: string): Remembered | undefined {
  try {
    const r = JSON.parse(readRegularText(file, 16 << 20) ?? '') as Remembered;
    return typeof r.head === 'string' && Array.isArray(r.paths) && r.paths.length <= MAX_REMEMBERED && r.paths.every(trackablePath)
      ? r
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Paths (from the top) deleted in HEAD's history, newest first: remembered per HEAD in
 * `cacheFile`, extended when HEAD moved forward; none without a file to remember them in.
 */
async function historyDeletions(top: string, head: string, cacheFile: string | undefined): Promise<string[]> {
  // Nowhere to remember them (a checkout where `doco hooks install` never ran): not walked at all,
  // or every prompt there would walk the whole history again.
  if (!cacheFile) return [];
  const before = readRemembered(cacheFile);
  if (before?.head === head) return before.paths;
  let paths: string[];
  const forward = before ? (await git(top, ['merge-base', '--is-ancestor', before.head, head])).ok : false;
  if (before && forward) {
    const walk = await git(top, [...DELETIONS, `${before.head}..${head}`]);
    if (!walk.ok) return before.paths;
    paths = [...new Set([...nulList(walk.out, true), ...before.paths])];
  } else {
    const walk = await git(top, [...DELETIONS, head]);
    paths = [...new Set(nulList(walk.out, walk.ok))];
  }
  paths = paths.slice(0, MAX_REMEMBERED);
  try {
    replaceFile(cacheFile, JSON.stringify({ head, paths } satisfies Remembered));
  } catch {
    // Not remembered: walked again next time.
  }
  return paths;
}

/**
 * The files this checkout deleted, relative to `cwd` in `/` form, the most recent first, at most
 * MAX_DELETED_PATHS: deleted since the last commit (staged or not), then in the history, less
 * those back in the working tree. A file that never existed is not in it. Empty outside a
 * repository, on an unborn HEAD, or when git is missing or slow.
 */
export async function deletedFiles(cwd: string, gitDir: string): Promise<string[]> {
  const [where, worktree] = await Promise.all([git(cwd, ['rev-parse', ...WHERE_ARGS]), git(cwd, WORKTREE_DELETIONS)]);
  const [top, prefix, head] = where.out.split('\n');
  if (!where.ok || !top || prefix === undefined || !head) return [];
  return deletedIn({ top, prefix, head }, worktree, gitDir);
}

/**
 * deletedFiles once git has said where the checkout is and what its working tree deleted; the
 * history's deletions are remembered in `gitDir` when one is given.
 */
export async function deletedIn({ top, prefix, head }: Where, worktree: GitRun, gitDir: string | undefined): Promise<string[]> {
  const history = await historyDeletions(top, head, gitDir ? path.join(gitDir, DELETED_CACHE_FILE) : undefined);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const p of [...(worktree.ok ? nulList(worktree.out, true) : []), ...history]) {
    if (out.length >= MAX_DELETED_PATHS) break;
    if (seen.has(p)) continue;
    seen.add(p);
    const full = path.join(top, p);
    const rel = path.posix.relative(`/${prefix}`, `/${p}`);
    if (!rel || rel.length > MAX_DELETED_PATH_CHARS || existsSync(full)) continue;
    out.push(rel);
  }
  return out;
}
