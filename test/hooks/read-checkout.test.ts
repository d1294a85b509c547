// What `doco hook` reads of a checkout from its files (src/hooks/read-checkout.ts) is what
// `git rev-parse` says there, in real repositories of every layout the hook meets: the top and a
// subfolder, a linked worktree, a submodule, a cwd reached through a link, a detached HEAD,
// packed refs, an unborn branch, no repository. Where it cannot say as git would (a variable or a
// setting that moves things, a folder inside .git), it answers undefined and the hook asks git.
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIT_PATHS_ARGS, gitPathsFrom } from '../../src/hooks/commit-trailer.js';
import { WHERE_ARGS } from '../../src/hooks/deleted-files.js';
import { readCheckout } from '../../src/hooks/read-checkout.js';

let root: string;
const git = (cwd: string, ...args: string[]) =>
  execFileSync(
    'git',
    ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', '-c', 'protocol.file.allow=always', ...args],
    {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );

/** What the hook made of `git rev-parse` in `cwd` before read-checkout.ts: its paths, and where the checkout is. */
function fromGit(cwd: string) {
  let out = '';
  let ok = true;
  try {
    out = execFileSync('git', ['rev-parse', ...GIT_PATHS_ARGS, ...WHERE_ARGS], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch (err) {
    ok = false;
    out = String((err as { stdout?: string }).stdout ?? '');
  }
  const lines = out.split('\n');
  const paths = lines.length > 4 ? gitPathsFrom(lines, cwd) : undefined;
  const [top, prefix, head] = lines.slice(4);
  return { paths, where: ok && top && prefix !== undefined && head ? { top, prefix, head } : undefined };
}

function expectSameAsGit(cwd: string) {
  const files = readCheckout(cwd);
  expect(files, `read-checkout gave up in ${cwd}`).not.toBeUndefined();
  const asked = fromGit(cwd);
  expect(files?.paths).toEqual(asked.paths);
  expect(files?.where).toEqual(asked.where);
  return files;
}

beforeAll(async () => {
  root = realpathSync(await mkdtemp(path.join(tmpdir(), 'doco-read-checkout-')));
  const main = path.join(root, 'main');
  mkdirSync(path.join(main, 'src', 'deep'), { recursive: true });
  git(root, 'init', '-q', '-b', 'trunk', 'main');
  writeFileSync(path.join(main, 'src', 'deep', 'a.ts'), 'a\n');
  git(main, 'add', '.');
  git(main, 'commit', '-qm', 'first');
  git(main, 'worktree', 'add', '-q', '-b', 'side', path.join(root, 'wt'));
  mkdirSync(path.join(root, 'wt', 'inner'), { recursive: true });
  git(root, 'init', '-q', '-b', 'trunk', 'lib');
  writeFileSync(path.join(root, 'lib', 'l.ts'), 'l\n');
  git(path.join(root, 'lib'), 'add', '.');
  git(path.join(root, 'lib'), 'commit', '-qm', 'lib');
  git(main, 'submodule', '-q', 'add', path.join(root, 'lib'), 'vendor/lib');
  symlinkSync(main, path.join(root, 'link'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('readCheckout', () => {
  it('says what rev-parse says at the top, in a subfolder, and through a link', () => {
    const main = path.join(root, 'main');
    const top = expectSameAsGit(main);
    expect(top?.where?.prefix).toBe('');
    expect(expectSameAsGit(path.join(main, 'src', 'deep'))?.where?.prefix).toBe('src/deep/');
    // A cwd reached through a link names the checkout by its real path, as the files do.
    expect(expectSameAsGit(path.join(root, 'link', 'src'))?.paths.commonDir).toBe(path.join(main, '.git'));
  });

  it('in a linked worktree: the shared hooks and refs, its own HEAD and last-brief file', () => {
    const files = expectSameAsGit(path.join(root, 'wt', 'inner'));
    expect(files?.paths.commonDir).toBe(path.join(root, 'main', '.git'));
    expect(files?.paths.head).toBe(path.join(root, 'main', '.git', 'worktrees', 'wt', 'HEAD'));
    expect(files?.where?.top).toBe(path.join(root, 'wt'));
  });

  it('in a submodule, with packed refs, and on a detached HEAD', () => {
    expectSameAsGit(path.join(root, 'main', 'vendor', 'lib'));
    const main = path.join(root, 'main');
    git(main, 'pack-refs', '--all');
    expectSameAsGit(main);
    git(main, 'checkout', '-q', '--detach');
    expectSameAsGit(main);
    git(main, 'checkout', '-q', 'trunk');
  });

  it('on an unborn branch the paths and no where; outside a repository null', async () => {
    const fresh = path.join(root, 'fresh');
    git(root, 'init', '-q', 'fresh');
    const files = expectSameAsGit(fresh);
    expect(files?.where).toBeUndefined();
    const outside = realpathSync(await mkdtemp(path.join(tmpdir(), 'doco-read-checkout-none-')));
    try {
      // Outside any repository (unless the machine's temporary folder is in one: git says which).
      if (fromGit(outside).paths === undefined) expect(readCheckout(outside)).toBeNull();
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('leaves to git what it cannot read as git would', () => {
    const main = path.join(root, 'main');
    expect(readCheckout(main, { ...process.env, GIT_DIR: path.join(main, '.git') })).toBeUndefined();
    expect(readCheckout(main, { ...process.env, GIT_WORK_TREE: main })).toBeUndefined();
    expect(readCheckout(path.join(main, '.git'))).toBeUndefined();
    expect(readCheckout(path.join(main, '.git', 'refs'))).toBeUndefined();
    git(main, 'config', 'core.hooksPath', '.husky');
    try {
      expect(readCheckout(main)).toBeUndefined();
    } finally {
      git(main, 'config', '--unset', 'core.hooksPath');
    }
    // A user's own configuration counts too.
    const home = path.join(root, 'home');
    mkdirSync(home, { recursive: true });
    writeFileSync(path.join(home, '.gitconfig'), '[include]\n\tpath = elsewhere\n');
    expect(readCheckout(main, { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') })).toBeUndefined();
    expect(readCheckout(main)).not.toBeUndefined();
  });
});
