// What `doco hooks install` checks before it writes into a checkout, which may be a repository
// someone else made: no file it writes, and no folder on the way to one, may be a symbolic link
// (a committed `.codex -> ~/.codex` turned a project's config into the user's own, holding a
// token and trusted without asking: a hostile review), and no file that will hold a token may be
// one git tracks (excluding it does nothing then, and the next `commit -a` publishes the token).
import { execFileSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { OperatorError } from '../../errors.js';

/** The first of the paths (relative to root) that is, or goes through, a symbolic link under root. */
export function linkedPath(root: string, rels: string[]): string | undefined {
  for (const rel of rels) {
    const parts = rel.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const part = parts.slice(0, i).join('/');
      try {
        if (lstatSync(path.join(root, part)).isSymbolicLink()) return part;
      } catch {
        break; // missing: nothing below it exists either
      }
    }
  }
  return undefined;
}

/** Those of the paths (relative to root) that git tracks in root's repository. */
export function trackedPaths(root: string, rels: string[]): string[] {
  if (rels.length === 0) return [];
  try {
    const out = execFileSync('git', ['ls-files', '-z', '--', ...rels], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return out.split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

/** Refuses (one line, exit 1) a checkout where writing `files`, or a token into `tokenFiles`, would go astray. */
export function checkCheckoutFiles(root: string, files: string[], tokenFiles: string[]): void {
  const linked = linkedPath(root, files);
  if (linked)
    throw new OperatorError(
      `${linked} in this checkout is a symbolic link: hooks install writes only files of the checkout itself (a link may point at your own settings); remove it and run again`,
    );
  const tracked = trackedPaths(root, tokenFiles);
  if (tracked.length)
    throw new OperatorError(
      `${tracked.join(', ')} ${tracked.length === 1 ? 'is' : 'are'} tracked by git, and install would write a token into ${tracked.length === 1 ? 'it' : 'them'}: untrack ${tracked.length === 1 ? 'it' : 'them'} (git rm --cached) and run again`,
    );
}
