// What `git diff --name-only --no-renames --diff-filter=D -z HEAD` prints (WORKTREE_DELETIONS),
// worked out without starting git on most prompts: `git diff` is ~15 ms of the ~150 a hook takes
// (docs/eval.md, "Session 38"). A file HEAD has is deleted when the index no longer has it (staged)
// or the work tree lost it (nothing is where a tracked file was). Which paths HEAD has
// that the index does not, and which the index has that HEAD does not, depend on HEAD and the
// index's paths only: `git diff --cached` says, once per HEAD and set of paths, remembered in the
// git directory (where `doco hooks install` ran; elsewhere git is asked every time). Node built-ins only.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WORKTREE_DELETIONS, type GitRun, type Where } from './deleted-files.js';
import { readIndex } from './read-index.js';

/** The file in the worktree's git directory that remembers `git diff --cached`, beside doco-deleted.json. */
export const STAGED_CACHE_FILE = 'doco-staged.json';

/** What the index holds that HEAD does not, and the reverse; ADDED / DELETED paths, from the top. */
export const STAGED_CHANGES = ['diff', '--cached', '--no-relative', '--name-status', '--no-renames', '--diff-filter=AD', '-z', 'HEAD'];

interface Staged {
  head: string;
  index: string;
  added: string[];
  deleted: string[];
}

function readStaged(file: string): Staged | undefined {
  try {
    const s = JSON.parse(readFileSync(file, 'utf8')) as Staged;
    return typeof s.head === 'string' && typeof s.index === 'string' && Array.isArray(s.added) && Array.isArray(s.deleted) ? s : undefined;
  } catch {
    return undefined;
  }
}

/** STAGED_CHANGES's `-z` output: status and path, NUL after each. */
function parseStaged(out: string): { added: string[]; deleted: string[] } {
  const parts = out.split('\0');
  const added: string[] = [];
  const deleted: string[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    if (parts[i] === 'A') added.push(parts[i + 1]!);
    else if (parts[i] === 'D') deleted.push(parts[i + 1]!);
  }
  return { added, deleted };
}

/**
 * Whether the work tree has nothing at each path (from `top`), as git's lstat would see it: a
 * folder's names read once (readdir lists a link to nothing too) rather than one lstat per file. A
 * folder that is now a file or gone leaves all its paths missing. Where this and lstat differ (a
 * folder where a file was, a link where a folder was) git lists a path that exists, which
 * deletedIn leaves out as it leaves out every path back in the work tree.
 */
function missingIn(top: string): (rel: string) => boolean {
  const folders = new Map<string, Set<string> | undefined>();
  const namesIn = (dir: string): Set<string> | undefined => {
    if (folders.has(dir)) return folders.get(dir);
    let names: Set<string> | undefined;
    try {
      names = new Set(readdirSync(dir === '' ? top : `${top}/${dir}`));
    } catch {
      names = undefined;
    }
    folders.set(dir, names);
    return names;
  };
  return (rel) => {
    const slash = rel.lastIndexOf('/');
    const names = namesIn(slash < 0 ? '' : rel.slice(0, slash));
    return !names?.has(slash < 0 ? rel : rel.slice(slash + 1));
  };
}

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/**
 * WORKTREE_DELETIONS's output for the checkout at `where`, whose index is in `gitDir`: read from
 * the index and the work tree when `cacheDir` can remember the staged changes, else (or when the
 * index is not one read-index.ts reads) what `git` prints.
 */
export function worktreeDeletions(
  where: Where,
  gitDir: string,
  cacheDir: string | undefined,
  git: (args: string[]) => GitRun,
): GitRun {
  const index = cacheDir ? readIndex(path.join(gitDir, 'index'), where.head.length / 2) : undefined;
  if (!cacheDir || !index) return git(WORKTREE_DELETIONS);
  const file = path.join(cacheDir, STAGED_CACHE_FILE);
  let staged = readStaged(file);
  if (staged?.head !== where.head || staged.index !== index.key) {
    const asked = git(STAGED_CHANGES);
    if (!asked.ok) return git(WORKTREE_DELETIONS);
    staged = { head: where.head, index: index.key, ...parseStaged(asked.out) };
    try {
      writeFileSync(file, JSON.stringify(staged), { mode: 0o600 });
    } catch {
      // Not remembered: asked again next time.
    }
  }
  const added = new Set(staged.added);
  const gone = [...staged.deleted];
  const missing = missingIn(where.top);
  for (const entry of index.entries) {
    if (!entry.unwatched && !added.has(entry.path) && missing(entry.path)) gone.push(entry.path);
  }
  gone.sort(byBytes);
  return { ok: true, out: gone.map((p) => `${p}\0`).join('') };
}
