// The prepare-commit-msg git hook that ends a commit made within two hours of a brief with a
// `Doco-Brief: <url>` trailer, and its installer (only where no hook is there yet). Imports
// node built-ins only: this runs inside `doco hook session-start`.
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { readRegularText, replaceFile } from './git-dir-files.js';

export const LAST_BRIEF_FILE = 'doco-last-brief';
export const TRAILER_WINDOW_SECONDS = 2 * 60 * 60;
export const HOOK_MARK = '# doco: adds a Doco-Brief trailer';

/** POSIX sh; always exits 0 so a commit is never aborted by Doco. */
export const PREPARE_COMMIT_MSG = `#!/bin/sh
${HOOK_MARK} to commits made within two hours of a brief (installed by doco hook session-start).
case "$2" in merge|squash) exit 0 ;; esac
[ -f "$1" ] || exit 0
sed '/^# -* >8 -*$/,$d' "$1" | grep -v '^#' | grep -q '[^[:space:]]' || exit 0
f=$(git rev-parse --git-path ${LAST_BRIEF_FILE} 2>/dev/null) || exit 0
[ -f "$f" ] || exit 0
url=$(sed -n 's/.*"url":"\\([^"]*\\)".*/\\1/p' "$f")
epoch=$(sed -n 's/.*"epoch":\\([0-9][0-9]*\\).*/\\1/p' "$f")
now=$(date +%s 2>/dev/null)
[ -n "$url" ] && [ -n "$epoch" ] && [ -n "$now" ] || exit 0
[ $((now - epoch)) -le ${TRAILER_WINDOW_SECONDS} ] || exit 0
git interpret-trailers --in-place --if-exists doNothing --if-missing add --trailer "Doco-Brief: $url" "$1" >/dev/null 2>&1
exit 0
`;

export interface GitPaths {
  hooksDir: string;
  lastBrief: string;
  commonDir: string;
  /** This worktree's HEAD file: its branch says which checkout a session works on. */
  head: string;
}

/** `git rev-parse` options printing GitPaths's four lines, in order (gitPathsFrom reads them). */
export const GIT_PATHS_ARGS = ['--git-path', 'hooks', '--git-path', LAST_BRIEF_FILE, '--git-common-dir', '--git-path', 'HEAD'];

/** A path with the links on its way resolved, its last part kept as it is (a link there is replaced, never written through). */
function realFolder(p: string): string {
  try {
    return path.join(realpathSync(path.dirname(p)), path.basename(p));
  } catch {
    return p;
  }
}

/**
 * GitPaths from the first four lines rev-parse printed for GIT_PATHS_ARGS in `cwd`, with the links
 * on their way resolved (a cwd reached through a link names the checkout as its files do); the
 * common directory as a real path; undefined when they are not all there.
 */
export function gitPathsFrom(lines: string[], cwd: string): GitPaths | undefined {
  const [hooks, lastBrief, common, head] = lines.slice(0, 4).map((l) => (l.trim() ? path.resolve(cwd, l.trim()) : ''));
  if (!hooks || !lastBrief || !common || !head) return undefined;
  let commonDir = common;
  try {
    commonDir = realpathSync(common);
  } catch {
    // As git printed it.
  }
  return { hooksDir: realFolder(hooks), lastBrief: realFolder(lastBrief), commonDir, head: realFolder(head) };
}

/** Where git keeps hooks (honours core.hooksPath), the last-brief file and shared state; undefined outside a repository. */
export function gitPaths(cwd: string): GitPaths | undefined {
  try {
    const out = execFileSync('git', ['rev-parse', ...GIT_PATHS_ARGS], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return gitPathsFrom(out.split('\n'), cwd);
  } catch {
    return undefined;
  }
}

/**
 * Installs the hook unless one exists; returns a note for stderr when it did not install. Whatever
 * is at the hook's name (a link, a FIFO: the git directory may be anyone's) counts as a hook, and
 * a hooks folder that is a link is left alone: nothing is written through a link.
 */
export function installCommitHook(paths: GitPaths): { installed: boolean; note?: string } {
  const file = path.join(paths.hooksDir, 'prepare-commit-msg');
  const there = (p: string) => lstatSync(p, { throwIfNoEntry: false });
  if (there(file)) {
    if (readRegularText(file, 1 << 20)?.includes(HOOK_MARK)) return { installed: false };
    return { installed: false, note: `doco: ${file} already exists; left as is (no Doco-Brief trailer)` };
  }
  const folder = there(paths.hooksDir);
  if (folder && !folder.isDirectory())
    return { installed: false, note: `doco: ${paths.hooksDir} is not a folder; no prepare-commit-msg hook (no Doco-Brief trailer)` };
  mkdirSync(paths.hooksDir, { recursive: true });
  replaceFile(file, PREPARE_COMMIT_MSG, 0o755);
  return { installed: true };
}

export function lastBriefRecord(id: string, url: string, now = new Date()) {
  return `${JSON.stringify({ id, url, at: now.toISOString(), epoch: Math.floor(now.getTime() / 1000) })}\n`;
}

/**
 * The checkout a session works on: the repository (its git common dir, shared by every worktree
 * and subfolder) and the branch (or the commit, when detached). Session memory keys on it.
 */
export function checkoutKey(paths: GitPaths): string {
  // An unreadable HEAD (or a FIFO, or no file) still names the repository.
  const head = readRegularText(paths.head, 4096)?.trim();
  const branch = !head
    ? 'unknown'
    : head.startsWith('ref: ')
      ? head.slice(5).replace(/^refs\/heads\//, '')
      : `detached ${head.slice(0, 12)}`;
  return `${paths.commonDir}#${branch}`;
}
