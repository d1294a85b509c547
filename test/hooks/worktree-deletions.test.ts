// What `doco hook` works out its checkout deleted without `git diff` (src/hooks/worktree-deletions.ts,
// src/hooks/read-index.ts) is what `git diff --name-only --diff-filter=D -z HEAD` says, in real
// repositories: deletions staged and not, a file added and lost before a commit, files git does
// not look at (skip-worktree, assume-unchanged, intent-to-add), a folder or a file where a tracked
// path was, links, index versions 2 to 4, SHA-256 object names, names beyond ASCII. A split
// index or a merge in progress goes to git; `git diff --cached` runs once per HEAD and set of paths.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WORKTREE_DELETIONS, type GitRun } from '../../src/hooks/deleted-files.js';
import { readIndex } from '../../src/hooks/read-index.js';
import { readCheckout } from '../../src/hooks/read-checkout.js';
import { stagedChanges, worktreeDeletions } from '../../src/hooks/worktree-deletions.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const gitIn =
  (dir: string) =>
  (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });

async function repo(files: string[], init: string[] = []) {
  const dir = realpathSync(await mkdtemp(path.join(tmpdir(), 'doco-wt-deleted-')));
  dirs.push(dir);
  const git = gitIn(dir);
  git('init', '-q', ...init);
  for (const f of files) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), `${f}\n`);
  }
  git('add', '-A');
  git('commit', '-qm', 'first');
  return { dir, git };
}

/** The hook's answer and git's, both less what is in the work tree (as deletedIn keeps them), and the git runs it took. */
function both(dir: string, remember = true) {
  const files = readCheckout(dir);
  if (!files?.where) throw new Error(`no checkout at ${dir}`);
  const asked: string[][] = [];
  const run = (args: string[]): GitRun => {
    asked.push(args);
    const r = spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
    return { ok: r.status === 0, out: r.stdout };
  };
  const list = (out: string) => out.split('\0').filter((p) => p && !existsSync(path.join(dir, p)));
  const ours = worktreeDeletions(files.where, files.gitDir, remember ? files.gitDir : undefined, run);
  const theirs = spawnSync('git', WORKTREE_DELETIONS, { cwd: dir, encoding: 'utf8' }).stdout;
  return { ours: list(ours.out), theirs: list(theirs), asked, cached: [stagedChanges(files.where.head)] };
}

describe('worktreeDeletions', () => {
  it('finds what git diff finds: staged, unstaged, nested, a file where a folder was, never what was only added', async () => {
    const { dir, git } = await repo(['a.ts', 'src/b.ts', 'src/deep/c.ts', 'src/deep/d.ts', 'lib/e.ts', 'kept.ts', 'dir/f.ts']);
    expect(both(dir).ours).toEqual([]);
    rmSync(path.join(dir, 'a.ts'));
    git('rm', '-q', 'src/b.ts');
    rmSync(path.join(dir, 'src', 'deep'), { recursive: true });
    git('rm', '-q', '--cached', 'kept.ts');
    // Added, then lost before any commit: HEAD never had it.
    writeFileSync(path.join(dir, 'new.ts'), 'new\n');
    git('add', 'new.ts');
    rmSync(path.join(dir, 'new.ts'));
    // A file where a tracked folder was: its files are gone.
    rmSync(path.join(dir, 'dir'), { recursive: true });
    writeFileSync(path.join(dir, 'dir'), 'now a file\n');
    // A link where a tracked folder was, to one that has its file: git lists it, and it is there.
    mkdirSync(path.join(dir, 'elsewhere'));
    writeFileSync(path.join(dir, 'elsewhere', 'e.ts'), 'e\n');
    rmSync(path.join(dir, 'lib'), { recursive: true });
    symlinkSync('elsewhere', path.join(dir, 'lib'));
    const { ours, theirs } = both(dir);
    expect(ours).toEqual(theirs);
    expect(ours).toEqual(['a.ts', 'dir/f.ts', 'src/b.ts', 'src/deep/c.ts', 'src/deep/d.ts']);
  });

  it('leaves out what git does not look at, and a link to nothing', async () => {
    const { dir, git } = await repo(['skip.ts', 'assumed.ts', 'target.ts']);
    symlinkSync('target.ts', path.join(dir, 'link.ts'));
    git('add', 'link.ts');
    git('commit', '-qm', 'a link');
    git('update-index', '--skip-worktree', 'skip.ts');
    git('update-index', '--assume-unchanged', 'assumed.ts');
    rmSync(path.join(dir, 'skip.ts'));
    rmSync(path.join(dir, 'assumed.ts'));
    rmSync(path.join(dir, 'target.ts'));
    writeFileSync(path.join(dir, 'intent.ts'), 'i\n');
    git('add', '-N', 'intent.ts');
    rmSync(path.join(dir, 'intent.ts'));
    const { ours, theirs } = both(dir);
    expect(ours).toEqual(theirs);
    expect(ours).toEqual(['target.ts']);
  });

  it('reads index versions 2, 3 and 4, SHA-256 names, and paths beyond ASCII in git order', async () => {
    const names = ['é.ts', 'e.ts', 'z/日本.ts', 'z/😀.ts', 'z/\uffef.ts', 'a b.ts'];
    for (const [version, init] of [
      ['2', []],
      ['3', []],
      ['4', []],
      ['4', ['--object-format=sha256']],
    ] as const) {
      const { dir, git } = await repo(names, [...init]);
      git('update-index', '--index-version', version);
      if (version === '3') git('update-index', '--skip-worktree', 'e.ts');
      for (const n of names) rmSync(path.join(dir, n));
      const files = readCheckout(dir)!;
      expect(readIndex(path.join(files.gitDir, 'index'), files.where!.head.length / 2)?.entries.length).toBe(names.length);
      const { ours, theirs, asked, cached } = both(dir);
      expect(ours).toEqual(theirs);
      expect(ours.length).toBe(version === '3' ? names.length - 1 : names.length);
      expect(asked).toEqual(cached);
    }
  });

  it('asks git diff --cached once per HEAD and set of paths, not when only file times change; without a place to remember it, git diff', async () => {
    const { dir, git } = await repo(['a.ts', 'b.ts']);
    const first = both(dir);
    expect(first.asked).toEqual(first.cached);
    expect(both(dir).asked).toEqual([]);
    // git status rewrites the index with fresh times: the paths are the same.
    utimesSync(path.join(dir, 'a.ts'), new Date(), new Date(Date.now() + 5000));
    git('status', '--porcelain');
    expect(both(dir).asked).toEqual([]);
    writeFileSync(path.join(dir, 'c.ts'), 'c\n');
    git('add', 'c.ts');
    const added = both(dir);
    expect(added.asked).toEqual(added.cached);
    git('commit', '-qm', 'c');
    rmSync(path.join(dir, 'c.ts'));
    const moved = both(dir);
    expect(moved.asked).toEqual(moved.cached);
    expect(moved.ours).toEqual(['c.ts']);
    expect(moved.ours).toEqual(moved.theirs);
    expect(both(dir, false).asked).toEqual([WORKTREE_DELETIONS]);
  });

  it('leaves a split index and a merge in progress to git', async () => {
    const split = await repo(['a.ts', 'b.ts']);
    split.git('update-index', '--split-index');
    rmSync(path.join(split.dir, 'a.ts'));
    const s = both(split.dir);
    expect(s.asked).toEqual([WORKTREE_DELETIONS]);
    expect(s.ours).toEqual(['a.ts']);

    const { dir, git } = await repo(['a.ts', 'b.ts']);
    const branch = git('rev-parse', '--abbrev-ref', 'HEAD').trim();
    git('checkout', '-q', '-b', 'side');
    writeFileSync(path.join(dir, 'a.ts'), 'side\n');
    git('commit', '-qam', 'side');
    git('checkout', '-q', branch);
    writeFileSync(path.join(dir, 'a.ts'), 'main\n');
    git('commit', '-qam', 'main');
    expect(() => git('merge', '-q', 'side')).toThrow();
    rmSync(path.join(dir, 'b.ts'));
    const m = both(dir);
    expect(m.asked).toEqual([WORKTREE_DELETIONS]);
    expect(m.ours).toEqual(m.theirs);
  });
});
