// What `git diff --name-only --no-renames --diff-filter=D -z HEAD` prints (WORKTREE_DELETIONS),
// worked out without starting git on most prompts: `git diff` is ~15 ms of the ~150 a hook takes
// (docs/eval.md, "Session 38"). A file HEAD has is deleted when the index no longer has it (staged)
// or the work tree lost it (nothing is where a tracked file was). Which paths HEAD has
// that the index does not, and which the index has that HEAD does not, depend on HEAD and the
// index's paths only: `git diff --cached` says, once per HEAD and set of paths, remembered in the
// git directory (where `doco hooks install` ran; elsewhere git is asked every time), written and
// read as git-dir-files.ts does, and believed only when it holds paths git could track. Paths are
// compared as bytes (a name need not be UTF-8). Node built-ins only.
import { lstatSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { WORKTREE_DELETIONS, type GitRun, type Where } from './deleted-files.js';
import { readRegularText, replaceFile, trackablePath } from './git-dir-files.js';
import { movesTheRepository } from './read-checkout.js';
import { readIndex, type IndexEntry } from './read-index.js';

/** The file in the worktree's git directory that remembers `git diff --cached`, beside doco-deleted.json. */
export const STAGED_CACHE_FILE = 'doco-staged.json';

/** What the index holds that the commit does not, and the reverse: `A` / `D` and a path from the top, NUL after each. */
export const stagedChanges = (head: string) => [
  'diff',
  '--cached',
  '--no-relative',
  '--name-status',
  '--no-renames',
  '--diff-filter=AD',
  '-z',
  head,
];

/** The most paths the remembered file may hold, and its size. */
const MAX_STAGED_PATHS = 50_000;
const MAX_STAGED_BYTES = 8 << 20;
/** A folder with fewer tracked files than this is checked file by file; one with more, by reading its names once. */
const LIST_FOLDER_FROM = 8;
/** ...unless the folder's own size (its entries' on-disk table) is past this: ~1,000 names on ext4. */
const MAX_LISTED_FOLDER_BYTES = 64 * 1024;

interface Staged {
  head: string;
  index: string;
  added: string[];
  deleted: string[];
}

function readStaged(file: string): Staged | undefined {
  try {
    const s = JSON.parse(readRegularText(file, MAX_STAGED_BYTES) ?? '') as Staged;
    const paths = (list: unknown) => Array.isArray(list) && list.length <= MAX_STAGED_PATHS && list.every(trackablePath);
    return typeof s.head === 'string' && typeof s.index === 'string' && paths(s.added) && paths(s.deleted) ? s : undefined;
  } catch {
    return undefined;
  }
}

/** stagedChanges's `-z` output: status and path, NUL after each. */
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

/** A UTF-8 path as its bytes, one character each (as read-index.ts gives a path). */
const asBytes = (p: string) => Buffer.from(p, 'utf8').toString('latin1');
const fromBytes = (raw: string) => Buffer.from(raw, 'latin1');

/**
 * Whether the work tree has nothing at each path (bytes, from `top`), as git's lstat would see
 * it: a folder holding many of the paths has its names read once (readdir lists a link to nothing
 * too), one holding few has each looked up (a folder of 200,000 build outputs beside one tracked
 * file is not listed). A folder that is now a file or gone leaves all its paths missing. Where
 * this and lstat differ (a folder where a file was, a link where a folder was) git lists a path
 * that exists, which deletedIn leaves out as it leaves out every path back in the work tree.
 */
function missingIn(top: string, watched: IndexEntry[]): (raw: string) => boolean {
  const tracked = new Map<string, number>();
  for (const { raw } of watched) {
    const dir = raw.slice(0, Math.max(0, raw.lastIndexOf('/')));
    tracked.set(dir, (tracked.get(dir) ?? 0) + 1);
  }
  const topBytes = Buffer.from(`${top}/`, 'utf8');
  const folders = new Map<string, Set<string> | undefined>();
  // A folder whose own size says it holds thousands of names (build outputs beside a few tracked
  // files) is not listed: its tracked files are looked up one by one.
  const listable = (dir: string) => {
    try {
      return statSync(dir === '' ? topBytes : Buffer.concat([topBytes, fromBytes(dir)])).size <= MAX_LISTED_FOLDER_BYTES;
    } catch {
      return true;
    }
  };
  const namesIn = (dir: string): Set<string> | undefined => {
    if (folders.has(dir)) return folders.get(dir);
    let names: Set<string> | undefined;
    try {
      names = new Set(readdirSync(dir === '' ? topBytes : Buffer.concat([topBytes, fromBytes(dir)]), { encoding: 'latin1' }));
    } catch {
      names = undefined;
    }
    folders.set(dir, names);
    return names;
  };
  return (raw) => {
    const slash = raw.lastIndexOf('/');
    const dir = slash < 0 ? '' : raw.slice(0, slash);
    if ((tracked.get(dir) ?? 0) >= LIST_FOLDER_FROM && listable(dir)) return !namesIn(dir)?.has(slash < 0 ? raw : raw.slice(slash + 1));
    try {
      return lstatSync(Buffer.concat([topBytes, fromBytes(raw)]), { throwIfNoEntry: false }) === undefined;
    } catch {
      // Any error of lstat (a loop of links on the way, a folder that became a file) is a deletion to git.
      return true;
    }
  };
}

/** Whether there is something at the path that is not a regular file (through links). */
const isSomethingElse = (file: string) => {
  try {
    return statSync(file, { throwIfNoEntry: false })?.isFile() === false;
  } catch {
    return true;
  }
};

/** The index file's identity and size: a write between two looks changes it. */
function indexStamp(file: string): string {
  try {
    const st = statSync(file);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return '';
  }
}

/**
 * WORKTREE_DELETIONS's output for the checkout at `where`, whose index is in `gitDir`: read from
 * the index and the work tree when `cacheDir` can remember the staged changes, else (or when the
 * index is not one read-index.ts reads, or a variable names another) what `git` prints.
 */
export function worktreeDeletions(
  where: Where,
  gitDir: string,
  cacheDir: string | undefined,
  git: (args: string[]) => GitRun,
  env: NodeJS.ProcessEnv = process.env,
): GitRun {
  // GIT_INDEX_FILE and the like: git reads another index than the one here.
  if (!cacheDir || movesTheRepository(env)) return git(WORKTREE_DELETIONS);
  const indexFile = path.join(gitDir, 'index');
  // A FIFO or a device where the index is: git would wait on it; nothing is listed.
  if (isSomethingElse(indexFile)) return { ok: false, out: '' };
  const stamp = indexStamp(indexFile);
  const index = readIndex(indexFile, where.head.length / 2);
  if (!index) return git(WORKTREE_DELETIONS);
  const file = path.join(cacheDir, STAGED_CACHE_FILE);
  let staged = readStaged(file);
  if (staged?.head !== where.head || staged.index !== index.key) {
    const asked = git(stagedChanges(where.head));
    // The index changed while git read it (the agent ran git meanwhile): this answer belongs to neither.
    if (!asked.ok || indexStamp(indexFile) !== stamp) return git(WORKTREE_DELETIONS);
    staged = { head: where.head, index: index.key, ...parseStaged(asked.out) };
    try {
      replaceFile(file, JSON.stringify(staged));
    } catch {
      // Not remembered: asked again next time.
    }
  }
  const added = new Set(staged.added.map(asBytes));
  const watched = index.entries.filter((e) => !e.unwatched && !added.has(e.raw));
  const missing = missingIn(where.top, watched);
  const gone = staged.deleted.map(asBytes);
  for (const { raw } of watched) if (missing(raw)) gone.push(raw);
  // git's order: by bytes, which these strings' one character a byte keeps.
  gone.sort();
  return { ok: true, out: gone.map((raw) => `${fromBytes(raw).toString('utf8')}\0`).join('') };
}
