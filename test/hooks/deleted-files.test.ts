// What `doco hook` finds its checkout deleted, in real git repositories (src/hooks/deleted-files.ts):
// deleted in a commit or since the last one (staged or not), less what is back in the working
// tree; never a file that was never there; relative to the cwd the agent named; bounded; and the
// history's deletions remembered per HEAD in the git directory, extended when HEAD moves on.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DELETED_CACHE_FILE, deletedFiles } from '../../src/hooks/deleted-files.js';
import { MAX_DELETED_PATHS } from '../../src/hooks/deleted-limits.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function newRepo(files: string[] = []): Promise<{ dir: string; git: (...args: string[]) => string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'doco-deleted-'));
  dirs.push(dir);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], {
      cwd: dir,
      encoding: 'utf8',
    });
  git('init', '-q');
  for (const f of files) {
    await mkdir(path.dirname(path.join(dir, f)), { recursive: true });
    await writeFile(path.join(dir, f), `${f}\n`);
  }
  return { dir, git };
}
const gitDir = (dir: string) => path.join(dir, '.git');

describe('deletedFiles', () => {
  it('finds nothing outside a repository or before the first commit', async () => {
    const plain = await mkdtemp(path.join(tmpdir(), 'doco-deleted-plain-'));
    dirs.push(plain);
    expect(await deletedFiles(plain, path.join(plain, '.git'))).toEqual([]);
    const { dir } = await newRepo(['a.ts']);
    expect(await deletedFiles(dir, gitDir(dir))).toEqual([]);
  });

  it('lists files deleted in a commit and since the last one, not one back in the tree, nor one never there', async () => {
    const { dir, git } = await newRepo(['src/gone.ts', 'src/unstaged.ts', 'src/staged.ts', 'src/back.ts', 'src/moved.ts', 'src/kept.ts']);
    git('add', '.');
    git('commit', '-qm', 'first');
    git('rm', '-q', 'src/gone.ts', 'src/back.ts');
    git('mv', 'src/moved.ts', 'src/renamed.ts');
    git('commit', '-qm', 'second');
    await writeFile(path.join(dir, 'src/back.ts'), 'again\n');
    git('add', 'src/back.ts');
    git('commit', '-qm', 'back');
    await rm(path.join(dir, 'src/unstaged.ts'));
    git('rm', '-q', 'src/staged.ts');
    const found = await deletedFiles(dir, gitDir(dir));
    // Since the last commit first (the freshest), then the history; a moved file is gone from its old path.
    expect(found.slice(0, 2).sort()).toEqual(['src/staged.ts', 'src/unstaged.ts']);
    expect(found.slice(2).sort()).toEqual(['src/gone.ts', 'src/moved.ts']);
    expect(found).not.toContain('src/back.ts');
    expect(found).not.toContain('src/kept.ts');
    expect(found).not.toContain('src/never.ts');
  });

  it('names them relative to the cwd the agent named, a subfolder too', async () => {
    const { dir, git } = await newRepo(['top.ts', 'pkg/inner.ts', 'pkg/keep.ts']);
    git('add', '.');
    git('commit', '-qm', 'first');
    git('rm', '-q', 'top.ts', 'pkg/inner.ts');
    git('commit', '-qm', 'gone');
    expect((await deletedFiles(path.join(dir, 'pkg'), gitDir(dir))).sort()).toEqual(['../top.ts', 'inner.ts']);
    expect((await deletedFiles(dir, gitDir(dir))).sort()).toEqual(['pkg/inner.ts', 'top.ts']);
  });

  it("remembers the history's deletions per HEAD, extends them when HEAD moves on, walks again when it moves back", async () => {
    const { dir, git } = await newRepo(['a.ts', 'b.ts']);
    git('add', '.');
    git('commit', '-qm', 'first');
    git('rm', '-q', 'a.ts');
    git('commit', '-qm', 'a gone');
    const cache = path.join(gitDir(dir), DELETED_CACHE_FILE);
    expect(await deletedFiles(dir, gitDir(dir))).toEqual(['a.ts']);
    const head1 = git('rev-parse', 'HEAD').trim();
    expect(JSON.parse(readFileSync(cache, 'utf8'))).toEqual({ head: head1, paths: ['a.ts'] });
    git('rm', '-q', 'b.ts');
    git('commit', '-qm', 'b gone');
    expect(await deletedFiles(dir, gitDir(dir))).toEqual(['b.ts', 'a.ts']);
    const head2 = git('rev-parse', 'HEAD').trim();
    expect(JSON.parse(readFileSync(cache, 'utf8'))).toEqual({ head: head2, paths: ['b.ts', 'a.ts'] });
    // Back to a commit before b.ts went: b.ts is in the tree again, and the memory is HEAD's own.
    git('reset', '-q', '--hard', head1);
    expect(await deletedFiles(dir, gitDir(dir))).toEqual(['a.ts']);
    expect(JSON.parse(readFileSync(cache, 'utf8')).head).toBe(head1);
  });

  it(`sends at most ${MAX_DELETED_PATHS} paths`, async () => {
    const names = Array.from({ length: MAX_DELETED_PATHS + 5 }, (_, i) => `many/f${i}.ts`);
    const { dir, git } = await newRepo(names);
    git('add', '.');
    git('commit', '-qm', 'many');
    git('rm', '-rq', 'many');
    git('commit', '-qm', 'none');
    const found = await deletedFiles(dir, gitDir(dir));
    expect(found).toHaveLength(MAX_DELETED_PATHS);
    expect(new Set(found).size).toBe(MAX_DELETED_PATHS);
    expect(existsSync(path.join(dir, found[0]!))).toBe(false);
  });
});
