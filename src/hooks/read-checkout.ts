// What `git rev-parse` says about a checkout (GIT_PATHS_ARGS and WHERE_ARGS), read from the
// checkout's own files instead: starting git costs `doco hook` ~8-10 ms of the ~150 it takes before
// every prompt and edit (docs/eval.md, "Session 38"). Only for the plain layouts: a `.git` found
// by walking up (a directory, or a file naming one, as a worktree or a submodule has), refs as
// files or in packed-refs. Anything this does not read as git would (a GIT_* variable that moves
// the repository, configuration that moves hooks or the work tree or includes other files, a
// repository another user owns, a reftable, a file that is not a small regular file) answers
// `undefined`, and the caller asks git. Every file is read as git-dir-files.ts reads: a checkout
// unpacked from someone else's archive may hold a FIFO or a link to /dev/zero where git keeps a file.
// Node built-ins only: this runs before every prompt and edit.
import { lstatSync, realpathSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LAST_BRIEF_FILE, type GitPaths } from './commit-trailer.js';
import type { Where } from './deleted-files.js';
import { readRegularText } from './git-dir-files.js';

export interface CheckoutFiles {
  paths: GitPaths;
  /** The worktree's git directory (its HEAD, index and per-worktree refs). */
  gitDir: string;
  /** undefined when HEAD names a branch with no commit yet (rev-parse --verify fails there too). */
  where?: Where;
}

/** Environment variables with which git finds or reads a repository differently. */
const MOVES_THE_REPOSITORY =
  /^GIT_(DIR|WORK_TREE|COMMON_DIR|CEILING_DIRECTORIES|DISCOVERY_ACROSS_FILESYSTEM|CONFIG\w*|INDEX_FILE|NAMESPACE|OBJECT_DIRECTORY|REF_\w+)$/;

/** Whether a variable makes git find or read the repository otherwise than its files say (another index among them). */
export const movesTheRepository = (env: NodeJS.ProcessEnv) => Object.keys(env).some((k) => MOVES_THE_REPOSITORY.test(k));

/**
 * A user's or the system's configuration that would make rev-parse answer otherwise, matched
 * anywhere in its text (a comment that mentions one only sends the hook to git): core.hooksPath,
 * core.worktree, extensions.worktreeConfig, include.path and includeIf, core.bare, a reftable.
 */
const CHANGES_THE_ANSWER = /hookspath|worktree|include|refstorage|\bbare\b/i;

const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** git reads a `.git` file of at most 1 MiB; the other files here are a line each, or configuration. */
const MAX_DOT_GIT_FILE = 1 << 20;
const MAX_REF_FILE = 4096;
const MAX_CONFIG_FILE = 1 << 20;
/** Past this, finding a branch in packed-refs costs more than asking git. */
const MAX_PACKED_REFS = 4 << 20;

/** The configuration files git reads besides the repository's own (where the usual builds keep them). */
function userConfigFiles(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME || os.homedir();
  const xdg = env.XDG_CONFIG_HOME || path.join(home, '.config');
  return [
    path.join(xdg, 'git', 'config'),
    path.join(home, '.gitconfig'),
    '/etc/gitconfig',
    '/usr/local/etc/gitconfig',
    '/opt/homebrew/etc/gitconfig',
  ];
}

const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
/** Whether git would take the path as the user's own (safe.directory aside: git judges that). */
function ownedHere(file: string): boolean {
  try {
    return uid === undefined || lstatSync(file).uid === uid;
  } catch {
    return false;
  }
}

/**
 * The git directory a `.git` in `dir` names, as a real path: the folder itself, or the one its
 * `gitdir:` line points to; undefined when there is no `.git`; null when git must judge it (a
 * file it would refuse or read otherwise, another user's).
 */
function gitDirAt(dir: string): string | undefined | null {
  const dotGit = path.join(dir, '.git');
  let isDir: boolean;
  try {
    isDir = statSync(dotGit).isDirectory();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : null;
  }
  if (!ownedHere(dotGit)) return null;
  try {
    if (isDir) return realpathSync(dotGit);
    const line = /^gitdir: ([^\r\n]+)\r?\n?$/.exec(readRegularText(dotGit, MAX_DOT_GIT_FILE) ?? '')?.[1];
    // Resolved by the system, as git does: `..` after a link leaves the link's target.
    return line ? realpathSync.native(path.isAbsolute(line) ? line : `${dir}/${line}`) : null;
  } catch {
    return null;
  }
}

const isRegularFile = (file: string) => {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
};

/** A git directory's shape, as git's discovery checks it: a HEAD, and objects and refs folders in its common directory. */
function isGitDirectory(dir: string, commonDir = dir): boolean {
  try {
    return (
      statSync(path.join(dir, 'HEAD')).isFile() &&
      statSync(path.join(commonDir, 'objects')).isDirectory() &&
      statSync(path.join(commonDir, 'refs')).isDirectory()
    );
  } catch {
    return false;
  }
}

/**
 * Whether the repository's own configuration reads as rev-parse would read it here: format 0 or
 * 1, no extension but objectformat, not bare, no hooksPath, includes or reftable, and a worktree
 * setting (a submodule's) only where the `.git` that led here is.
 */
function plainRepositoryConfig(text: string, gitDir: string, top: string): boolean {
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    // A line git joins with the next: the next could be anything under this section. git judges it.
    if (line.endsWith('\\')) return false;
    const header = /^\[([^\]\s"]+)(?:\s+"[^"]*")?\]\s*(.*)$/.exec(line);
    if (header) {
      section = header[1]!.toLowerCase();
      if (section === 'include' || section === 'includeif') return false;
      if (!header[2]) continue;
      return false; // a key on the header's line: rare enough to leave to git
    }
    const [, key = '', value = ''] = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line) ?? [];
    const name = key.toLowerCase();
    if (!name) return false;
    if (section === 'extensions' && name !== 'objectformat') return false;
    if (section !== 'core') continue;
    if (name === 'repositoryformatversion' && !/^[01]$/.test(value)) return false;
    if (name === 'bare' && !/^(false|no|off|0)$/i.test(value)) return false;
    if (name === 'hookspath') return false;
    if (name === 'worktree') {
      try {
        if (realpathSync(path.resolve(gitDir, value)) !== top) return false;
      } catch {
        return false;
      }
    }
  }
  return true;
}

/**
 * The commit a ref names, following symbolic refs; undefined when it names none (an unborn
 * branch); null when git must say; false when a ref file is a FIFO, a device or huge.
 */
function resolveRef(gitDir: string, commonDir: string, start: string): string | undefined | null | false {
  let value = start.trim();
  for (let hops = 0; hops < 5; hops++) {
    if (OID.test(value)) return value;
    const ref = /^ref: (refs\/\S+|HEAD)$/.exec(value)?.[1];
    if (!ref || ref.split('/').some((part) => part === '..' || part === '.')) return null;
    // Refs a worktree keeps for itself are in its git directory; branches and tags in the common one.
    const own = /^refs\/(bisect|worktree|rewritten)\//.test(ref);
    const loose = readRegularText(path.join(own ? gitDir : commonDir, ref), MAX_REF_FILE);
    if (loose === null) return false;
    if (loose !== undefined) {
      value = loose.trim();
      continue;
    }
    return packedRef(commonDir, ref);
  }
  return null;
}

/** The commit packed-refs gives `ref`: its line is `<oid> <ref>`; a peeled line starts `^`, a comment `#`. */
function packedRef(commonDir: string, ref: string): string | undefined | null | false {
  const file = path.join(commonDir, 'packed-refs');
  const packed = readRegularText(file, MAX_PACKED_REFS);
  // Many refs (a regular file past the bound) are git's to search; a FIFO or a device, nobody's.
  if (packed === null) return isRegularFile(file) ? null : false;
  if (packed === undefined) return undefined;
  const at =
    packed.indexOf(` ${ref}\n`) >= 0 ? packed.indexOf(` ${ref}\n`) : packed.endsWith(` ${ref}`) ? packed.length - ref.length - 1 : -1;
  if (at < 0) return undefined;
  const oid = packed.slice(packed.lastIndexOf('\n', at) + 1, at);
  return OID.test(oid) ? oid : null;
}

/**
 * What rev-parse would say in `cwd` (its paths as real paths), null outside a repository, or
 * undefined when git must be asked.
 */
export function readCheckout(cwd: string, env: NodeJS.ProcessEnv = process.env): CheckoutFiles | null | undefined {
  if (movesTheRepository(env)) return undefined;
  let here: string;
  try {
    here = realpathSync(cwd);
    if (!statSync(here).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  // Up from the cwd to the first `.git`, as git's discovery walks; a mount crossed on the way (git
  // stops there) or a folder that is itself a git directory (git answers without a work tree) is git's to judge.
  let top = here;
  let gitDir: string | undefined | null;
  const device = statSync(here).dev;
  for (;;) {
    gitDir = gitDirAt(top);
    if (gitDir !== undefined) break;
    if (isGitDirectory(top)) return undefined;
    const up = path.dirname(top);
    if (up === top) return null;
    if (statSync(up).dev !== device) return undefined;
    top = up;
  }
  // git refuses a repository another user owns unless safe.directory names it: git says.
  if (gitDir === null || !ownedHere(top) || !ownedHere(gitDir)) return undefined;
  const head = readRegularText(path.join(gitDir, 'HEAD'), MAX_REF_FILE);
  const common = readRegularText(path.join(gitDir, 'commondir'), MAX_REF_FILE);
  // A FIFO, a device or a huge file where git keeps one of these: no checkout to speak of (git
  // would wait on it or read it without end).
  if (head === null || common === null) return null;
  if (!head || common === '') return undefined;
  // A worktree's `commondir` names the shared directory; git strips the line's end and nothing else.
  const shared = common?.replace(/\r?\n$/, '');
  let commonDir: string;
  try {
    commonDir = shared === undefined ? gitDir : realpathSync.native(path.isAbsolute(shared) ? shared : `${gitDir}/${shared}`);
  } catch {
    return undefined;
  }
  // A `.git` folder that is not one (git walks on past it) is git's to judge too.
  if (!isGitDirectory(gitDir, commonDir)) return undefined;
  for (const file of [path.join(commonDir, 'config'), path.join(gitDir, 'config.worktree')]) {
    const text = readRegularText(file, MAX_CONFIG_FILE);
    if (text === null) return null;
    if (text !== undefined && !plainRepositoryConfig(text, gitDir, top)) return undefined;
  }
  for (const file of userConfigFiles(env)) {
    const text = readRegularText(file, MAX_CONFIG_FILE);
    if (text === null || (text !== undefined && CHANGES_THE_ANSWER.test(text))) return undefined;
  }
  const commit = resolveRef(gitDir, commonDir, head);
  if (commit === false) return null;
  if (commit === null) return undefined;
  const rel = path.relative(top, here);
  return {
    paths: {
      hooksDir: path.join(commonDir, 'hooks'),
      lastBrief: path.join(gitDir, LAST_BRIEF_FILE),
      commonDir,
      head: path.join(gitDir, 'HEAD'),
    },
    gitDir,
    ...(commit ? { where: { top, prefix: rel ? `${rel.split(path.sep).join('/')}/` : '', head: commit } } : {}),
  };
}
