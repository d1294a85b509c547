// What `git rev-parse` says about a checkout (GIT_PATHS_ARGS and WHERE_ARGS), read from the
// checkout's own files instead: starting git costs `doco hook` ~8-10 ms of the ~150 it takes before
// every prompt and edit (docs/eval.md, "Session 38"). Only for the plain layouts: a `.git` found
// by walking up (a directory, or a file naming one, as a worktree or a submodule has), refs as
// files or in packed-refs. Anything this does not read as git would (a GIT_* variable that moves
// the repository, configuration that moves hooks or the work tree or includes other files, a
// repository another user owns, a reftable) answers `undefined`, and the caller asks git.
// Node built-ins only: this runs before every prompt and edit.
import { readFileSync, realpathSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LAST_BRIEF_FILE, type GitPaths } from './commit-trailer.js';
import type { Where } from './deleted-files.js';

export interface CheckoutFiles {
  paths: GitPaths;
  /** The worktree's git directory (its HEAD, index and per-worktree refs). */
  gitDir: string;
  /** undefined when HEAD names a branch with no commit yet (rev-parse --verify fails there too). */
  where?: Where;
}

/** Environment variables with which git finds or reads a repository differently. */
const MOVES_THE_REPOSITORY = /^GIT_(DIR|WORK_TREE|COMMON_DIR|CEILING_DIRECTORIES|DISCOVERY_ACROSS_FILESYSTEM|CONFIG\w*|INDEX_FILE|NAMESPACE|OBJECT_DIRECTORY|REF_\w+)$/;

/**
 * Configuration that would make rev-parse answer otherwise, matched anywhere in a file's text
 * (a comment that mentions one only sends the hook to git): core.hooksPath, core.worktree,
 * extensions.worktreeConfig, include.path and includeIf, core.bare true, a reftable.
 */
const CHANGES_THE_ANSWER = /hookspath|worktree|include|refstorage|bare\s*=\s*(true|yes|on|1)\b/i;

const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

const readText = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

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

/** The git directory a `.git` in `dir` names: itself, or the one its `gitdir:` line points to. */
function gitDirAt(dir: string): string | undefined | null {
  const dotGit = path.join(dir, '.git');
  let isDir: boolean;
  try {
    isDir = statSync(dotGit).isDirectory();
  } catch {
    return undefined;
  }
  if (isDir) return dotGit;
  const line = /^gitdir: (.+?)\r?\n?$/.exec(readText(dotGit) ?? '');
  // A `.git` file git would refuse or read otherwise: git says what it makes of it.
  if (!line) return null;
  try {
    return realpathSync(path.resolve(dir, line[1]!));
  } catch {
    return null;
  }
}

/**
 * The text less a `worktree = …` line naming `top` itself: a submodule's git directory says where
 * its work tree is, which is where the `.git` file that led here is.
 */
function withoutWorktreeAt(text: string, gitDir: string, top: string): string {
  return text.replace(/^[ \t]*worktree[ \t]*=[ \t]*(.+?)[ \t]*$/gim, (line, at: string) => {
    try {
      return realpathSync(path.resolve(gitDir, at)) === top ? '' : line;
    } catch {
      return line;
    }
  });
}

/** A bare repository's or a `.git` folder's shape: a HEAD and an objects folder. */
function isGitDirectory(dir: string): boolean {
  try {
    return statSync(path.join(dir, 'HEAD')).isFile() && statSync(path.join(dir, 'objects')).isDirectory();
  } catch {
    return false;
  }
}

/** The commit a ref names, following symbolic refs; undefined when it names none (an unborn branch). */
function resolveRef(gitDir: string, commonDir: string, start: string): string | undefined | null {
  let value = start.trim();
  for (let hops = 0; hops < 5; hops++) {
    if (OID.test(value)) return value;
    const ref = /^ref: (refs\/\S+|HEAD)$/.exec(value)?.[1];
    if (!ref || ref.split('/').some((part) => part === '..' || part === '.')) return null;
    // Refs a worktree keeps for itself are in its git directory; branches and tags in the common one.
    const own = /^refs\/(bisect|worktree|rewritten)\//.test(ref);
    const loose = readText(path.join(own ? gitDir : commonDir, ref));
    if (loose !== undefined) {
      value = loose.trim();
      continue;
    }
    const packed = readText(path.join(commonDir, 'packed-refs')) ?? '';
    const hit = packed.split('\n').find((l) => l.endsWith(` ${ref}`) && !l.startsWith('#') && !l.startsWith('^'));
    if (!hit) return undefined;
    const oid = hit.slice(0, hit.indexOf(' '));
    return OID.test(oid) ? oid : null;
  }
  return null;
}

/**
 * What rev-parse would say in `cwd` (its paths as real paths), null outside a repository, or
 * undefined when git must be asked.
 */
export function readCheckout(cwd: string, env: NodeJS.ProcessEnv = process.env): CheckoutFiles | null | undefined {
  if (Object.keys(env).some((k) => MOVES_THE_REPOSITORY.test(k))) return undefined;
  let here: string;
  try {
    here = realpathSync(cwd);
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
  if (gitDir === null) return undefined;
  // git refuses a repository another user owns unless safe.directory names it: git says.
  if (typeof process.getuid === 'function' && statSync(top).uid !== process.getuid()) return undefined;
  const head = readText(path.join(gitDir, 'HEAD'));
  if (head === undefined) return undefined;
  const common = readText(path.join(gitDir, 'commondir'));
  let commonDir: string;
  try {
    commonDir = common === undefined ? gitDir : realpathSync(path.resolve(gitDir, common.trim()));
  } catch {
    return undefined;
  }
  for (const file of [path.join(commonDir, 'config'), path.join(gitDir, 'config.worktree'), ...userConfigFiles(env)]) {
    const text = readText(file);
    if (text !== undefined && CHANGES_THE_ANSWER.test(withoutWorktreeAt(text, gitDir, top))) return undefined;
  }
  const commit = resolveRef(gitDir, commonDir, head);
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
