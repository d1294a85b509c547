// A checkout the agent works in may be one unpacked from someone else's archive, `.git` and all
// (src/hooks/git-dir-files.ts). What `doco hook` reads there never waits on a FIFO or reads a
// device or a huge file; what it writes there replaces a link instead of writing through it; what
// it remembers there is believed only when it holds paths git could track; an index it cannot
// read as git would goes to git. Found by a hostile review of the hook's own reading of git's files.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GIT_PATHS_ARGS, gitPathsFrom, installCommitHook } from '../../src/hooks/commit-trailer.js';
import { WORKTREE_DELETIONS, type GitRun } from '../../src/hooks/deleted-files.js';
import { readRegularFile, replaceFile } from '../../src/hooks/git-dir-files.js';
import { readCheckout } from '../../src/hooks/read-checkout.js';
import { readIndex } from '../../src/hooks/read-index.js';
import { STAGED_CACHE_FILE, worktreeDeletions } from '../../src/hooks/worktree-deletions.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function scratch(): Promise<string> {
  const dir = realpathSync(await mkdtemp(path.join(tmpdir(), 'doco-hostile-checkout-')));
  dirs.push(dir);
  return dir;
}

async function repo(files: string[]) {
  const dir = await scratch();
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], {
      cwd: dir,
      encoding: 'utf8',
    });
  git('init', '-q');
  for (const f of files) writeFileSync(path.join(dir, f), `${f}\n`);
  git('add', '-A');
  git('commit', '-qm', 'first');
  return { dir, git };
}

const gitIn = (dir: string) => {
  const calls: string[][] = [];
  const run = (args: string[]): GitRun => {
    calls.push(args);
    const r = spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
    return { ok: r.status === 0, out: r.stdout };
  };
  return { run, calls };
};

/** A version 2 index of one entry whose path is `name` (the object name and times are zeros). */
function indexNaming(name: string): Buffer {
  const pathBytes = Buffer.from(name, 'latin1');
  const entry = Buffer.alloc((62 + pathBytes.length + 8) & ~7);
  entry.writeUInt32BE(0o100644, 24);
  entry.writeUInt16BE(Math.min(pathBytes.length, 0xfff), 60);
  pathBytes.copy(entry, 62);
  const header = Buffer.alloc(12);
  header.write('DIRC', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(1, 8);
  return Buffer.concat([header, entry, Buffer.alloc(20)]);
}

describe('a hostile checkout', () => {
  it('a FIFO, a device or a huge file where .git is: no wait, no read, git asked', async () => {
    for (const make of [
      (f: string) => execFileSync('mkfifo', [f]),
      (f: string) => symlinkSync('/dev/zero', f),
      (f: string) => writeFileSync(f, Buffer.alloc((1 << 20) + 1, 0x61)),
    ]) {
      const dir = await scratch();
      make(path.join(dir, '.git'));
      mkdirSync(path.join(dir, 'work'));
      expect(readCheckout(path.join(dir, 'work'))).toBeUndefined();
      expect(readRegularFile(path.join(dir, '.git'), 1 << 20)).toBeNull();
    }
  });

  it('a link where the hook remembers staged changes is replaced, and what it pointed to is untouched', async () => {
    const { dir, git } = await repo(['a.ts', 'b.ts']);
    const outside = path.join(await scratch(), 'victim');
    writeFileSync(outside, 'echo original\n');
    symlinkSync(outside, path.join(dir, '.git', STAGED_CACHE_FILE));
    writeFileSync(path.join(dir, 'new.ts'), 'n\n');
    git('add', 'new.ts');
    const files = readCheckout(dir)!;
    worktreeDeletions(files.where!, files.gitDir, files.gitDir, gitIn(dir).run);
    expect(readFileSync(outside, 'utf8')).toBe('echo original\n');
    expect(lstatSync(path.join(dir, '.git', STAGED_CACHE_FILE)).isFile()).toBe(true);
    // replaceFile itself: the name is replaced, the target kept.
    const link = path.join(dir, 'link');
    symlinkSync(outside, link);
    replaceFile(link, 'ours\n');
    expect(readFileSync(outside, 'utf8')).toBe('echo original\n');
    expect(readFileSync(link, 'utf8')).toBe('ours\n');
  });

  it('remembered staged changes that name paths git could not track are not believed', async () => {
    const { dir } = await repo(['a.ts', 'b.ts']);
    rmSync(path.join(dir, 'b.ts'));
    const files = readCheckout(dir)!;
    const index = readIndex(path.join(files.gitDir, 'index'), 20)!;
    for (const deleted of [[1], ['../../../../etc/passwd'], ['/etc/passwd'], ['a/./b']]) {
      writeFileSync(
        path.join(files.gitDir, STAGED_CACHE_FILE),
        JSON.stringify({ head: files.where!.head, index: index.key, added: [], deleted }),
      );
      const { run, calls } = gitIn(dir);
      const out = worktreeDeletions(files.where!, files.gitDir, files.gitDir, run).out;
      expect(out).toBe('b.ts\0');
      expect(calls.length).toBe(1);
    }
    // A FIFO there is not waited on either.
    rmSync(path.join(files.gitDir, STAGED_CACHE_FILE));
    execFileSync('mkfifo', [path.join(files.gitDir, STAGED_CACHE_FILE)]);
    expect(worktreeDeletions(files.where!, files.gitDir, files.gitDir, gitIn(dir).run).out).toBe('b.ts\0');
  });

  it('an index naming a path git never tracks, or one too long, goes to git', async () => {
    const dir = await scratch();
    for (const name of ['../outside', '/etc/passwd', 'a//b', 'a/./b', 'x'.repeat(4097)]) {
      writeFileSync(path.join(dir, 'index'), indexNaming(name));
      expect(readIndex(path.join(dir, 'index'), 20), name.slice(0, 20)).toBeUndefined();
    }
    writeFileSync(path.join(dir, 'index'), indexNaming('src/fine.ts'));
    expect(readIndex(path.join(dir, 'index'), 20)?.entries.map((e) => e.raw)).toEqual(['src/fine.ts']);
  });

  it('a variable naming another index: git diff, and nothing remembered', async () => {
    const { dir } = await repo(['a.ts']);
    const files = readCheckout(dir)!;
    const { run, calls } = gitIn(dir);
    worktreeDeletions(files.where!, files.gitDir, files.gitDir, run, { ...process.env, GIT_INDEX_FILE: path.join(dir, 'other') });
    expect(calls).toEqual([WORKTREE_DELETIONS]);
    expect(existsSync(path.join(files.gitDir, STAGED_CACHE_FILE))).toBe(false);
  });

  it('a prepare-commit-msg that is a link, or a hooks folder that is one, is not written through', async () => {
    const { dir } = await repo(['a.ts']);
    const files = readCheckout(dir)!;
    const outside = path.join(await scratch(), 'target');
    symlinkSync(outside, path.join(files.paths.hooksDir, 'prepare-commit-msg'));
    expect(installCommitHook(files.paths).installed).toBe(false);
    expect(existsSync(outside)).toBe(false);
    rmSync(files.paths.hooksDir, { recursive: true });
    const elsewhere = await scratch();
    symlinkSync(elsewhere, files.paths.hooksDir);
    expect(installCommitHook(files.paths).installed).toBe(false);
    expect(existsSync(path.join(elsewhere, 'prepare-commit-msg'))).toBe(false);
  });

  it('a setting hidden after a line git joins with the next goes to git', async () => {
    const { dir } = await repo(['a.ts']);
    writeFileSync(
      path.join(dir, '.git', 'config'),
      `${readFileSync(path.join(dir, '.git', 'config'), 'utf8')}[core]\n\tx = a \\\n[alias]\n\thooksPath = /tmp/h\n`,
    );
    expect(execFileSync('git', ['config', '--get', 'core.hookspath'], { cwd: dir, encoding: 'utf8' }).trim()).toBe('/tmp/h');
    expect(readCheckout(dir)).toBeUndefined();
  });

  it("git's paths keep a link at their last part: the last-brief file is replaced, not what it links to", async () => {
    const { dir } = await repo(['a.ts']);
    const outside = path.join(await scratch(), 'victim');
    writeFileSync(outside, 'echo original\n');
    symlinkSync(outside, path.join(dir, '.git', 'doco-last-brief'));
    const lines = execFileSync('git', ['rev-parse', ...GIT_PATHS_ARGS], { cwd: dir, encoding: 'utf8' }).split('\n');
    const paths = gitPathsFrom(lines, dir)!;
    expect(paths.lastBrief).toBe(path.join(dir, '.git', 'doco-last-brief'));
    replaceFile(paths.lastBrief, 'brief\n');
    expect(readFileSync(outside, 'utf8')).toBe('echo original\n');
  });

  it('a loop of links where a tracked folder was is a deletion, as git says', async () => {
    const { dir, git } = await repo(['a.ts']);
    mkdirSync(path.join(dir, 'few'));
    writeFileSync(path.join(dir, 'few', 'f'), 'f\n');
    git('add', 'few/f');
    git('commit', '-qm', 'few');
    rmSync(path.join(dir, 'few'), { recursive: true });
    symlinkSync('few', path.join(dir, 'few'));
    const files = readCheckout(dir)!;
    const theirs = spawnSync('git', WORKTREE_DELETIONS, { cwd: dir, encoding: 'utf8' }).stdout;
    expect(worktreeDeletions(files.where!, files.gitDir, files.gitDir, gitIn(dir).run).out).toBe(theirs);
    expect(theirs).toBe('few/f\0');
  });

  it.runIf(process.getuid?.() === 0)("another user's .git or git directory goes to git (which refuses it)", async () => {
    const { dir } = await repo(['a.ts']);
    expect(readCheckout(dir)).not.toBeUndefined();
    chownSync(path.join(dir, '.git'), 65534, 65534);
    expect(readCheckout(dir)).toBeUndefined();
  });
});
