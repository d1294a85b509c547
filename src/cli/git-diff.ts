// The change `doco align` scans, computed with git itself: the working tree against HEAD by
// default, against --base when given, `--base…--head` (from their merge base, as a pull request
// sees it) when both are, and a commit's own change for --head alone. Untracked files count as
// added. Revisions are checked before anything else runs.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { splitGitDiff, type ChangedFile } from '../align/diff.js';
import { MAX_CHANGED_FILES, MAX_PATCH_CHARS } from '../align/request.js';
import { UsageError } from './output.js';

const run = promisify(execFile);

async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', ['-c', 'core.quotepath=false', ...args], {
    cwd,
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, GIT_PAGER: 'cat', GIT_EXTERNAL_DIFF: '' },
  });
  return stdout;
}

const DIFF_FLAGS = ['--no-color', '--no-ext-diff', '--find-renames', '-U3'];

async function checkRevision(cwd: string, flag: string, rev: string): Promise<void> {
  // A revision starting with '-' would be read by git as an option.
  if (rev.startsWith('-') || /[\s\0]/.test(rev)) throw new UsageError(`${flag} ${JSON.stringify(rev)} is not a revision`);
  try {
    await git(cwd, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
  } catch {
    throw new UsageError(`${flag} ${rev}: no such revision in ${cwd}`);
  }
}

/** An untracked text file as an all-added patch (binary files: the path alone). */
async function untracked(top: string, rel: string): Promise<ChangedFile> {
  const text = await readFile(path.join(top, rel), 'utf8').catch(() => '');
  if (!text || text.includes('\0')) return { path: rel };
  const lines = text.slice(0, MAX_PATCH_CHARS).split('\n');
  return { path: rel, patch: `@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}`).join('\n')}` };
}

export interface GitChange {
  root: string;
  base: string | null;
  head: string | null;
  changed: ChangedFile[];
  /** Files left out past the request's limit. */
  omitted: number;
}

export async function gitChange(dir: string, opts: { base?: string | undefined; head?: string | undefined }): Promise<GitChange> {
  let top: string;
  try {
    top = (await git(dir, ['rev-parse', '--show-toplevel'])).trim();
  } catch {
    throw new UsageError(`${dir} is not inside a git checkout (doco align compares git revisions)`);
  }
  if (opts.base) await checkRevision(top, '--base', opts.base);
  if (opts.head) await checkRevision(top, '--head', opts.head);
  let diff: string;
  let withUntracked = false;
  if (opts.base && opts.head) diff = await git(top, ['diff', ...DIFF_FLAGS, `${opts.base}...${opts.head}`, '--']);
  else if (opts.head) diff = await git(top, ['show', '--format=', '--first-parent', ...DIFF_FLAGS, opts.head, '--']);
  else {
    const base = opts.base ?? 'HEAD';
    if (!opts.base)
      await checkRevision(top, 'HEAD', 'HEAD').catch(() => {
        throw new UsageError(`${top} has no commit yet: nothing to compare the working tree with`);
      });
    diff = await git(top, ['diff', ...DIFF_FLAGS, base, '--']);
    withUntracked = true;
  }
  const changed = splitGitDiff(diff).map((f) =>
    f.patch && f.patch.length > MAX_PATCH_CHARS ? { ...f, patch: f.patch.slice(0, MAX_PATCH_CHARS) } : f,
  );
  if (withUntracked) {
    const names = (await git(top, ['ls-files', '--others', '--exclude-standard', '-z'])).split('\0').filter(Boolean);
    for (const name of names) changed.push(await untracked(top, name));
  }
  return {
    root: top,
    base: opts.base ?? (opts.head ? `${opts.head}^` : 'HEAD'),
    head: opts.head ?? null,
    changed: changed.slice(0, MAX_CHANGED_FILES),
    omitted: Math.max(0, changed.length - MAX_CHANGED_FILES),
  };
}
