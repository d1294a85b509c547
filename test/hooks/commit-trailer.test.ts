// The prepare-commit-msg hook `doco hook session-start` installs, exercised by real `git commit`s
// in temporary repositories: the Doco-Brief trailer within two hours of a brief, never on old
// briefs, merges, squashes or empty messages, never twice; an existing hook is left alone.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitPaths, installCommitHook, lastBriefRecord, PREPARE_COMMIT_MSG } from '../../src/hooks/commit-trailer.js';

const dirs: string[] = [];
const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
  GIT_EDITOR: 'true',
};
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const URL = 'http://127.0.0.1:8787/api/v1/briefs/brief_01';

function repo(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'doco-trailer-'));
  dirs.push(dir);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'commit.gpgsign', 'false');
  writeFileSync(path.join(dir, 'a.txt'), 'a\n');
  git(dir, 'add', 'a.txt');
  git(dir, 'commit', '-q', '-m', 'first');
  return dir;
}

function withHook(dir: string, briefAgeSeconds: number | undefined): void {
  const paths = gitPaths(dir)!;
  expect(installCommitHook(paths)).toEqual({ installed: true });
  if (briefAgeSeconds !== undefined)
    writeFileSync(paths.lastBrief, lastBriefRecord('brief_01', URL, new Date(Date.now() - briefAgeSeconds * 1000)));
}

const lastMessage = (dir: string) => git(dir, 'log', '-1', '--format=%B');
const change = (dir: string, name: string) => {
  writeFileSync(path.join(dir, name), `${name}\n`);
  git(dir, 'add', name);
};

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the prepare-commit-msg hook', () => {
  it('adds the trailer when the last brief is recent', () => {
    const dir = repo();
    withHook(dir, 60);
    change(dir, 'b.txt');
    git(dir, 'commit', '-q', '-m', 'Add b');
    expect(lastMessage(dir)).toBe(`Add b\n\nDoco-Brief: ${URL}\n\n`);
  });

  it('adds nothing when the last brief is older than two hours, or there is none', () => {
    const dir = repo();
    withHook(dir, 2 * 3600 + 60);
    change(dir, 'b.txt');
    git(dir, 'commit', '-q', '-m', 'Add b');
    expect(lastMessage(dir)).toBe('Add b\n\n');
    rmSync(gitPaths(dir)!.lastBrief);
    change(dir, 'c.txt');
    git(dir, 'commit', '-q', '-m', 'Add c');
    expect(lastMessage(dir)).toBe('Add c\n\n');
  });

  it('adds it once: amending a commit that has it keeps one trailer', () => {
    const dir = repo();
    withHook(dir, 10);
    change(dir, 'b.txt');
    git(dir, 'commit', '-q', '-m', 'Add b');
    git(dir, 'commit', '-q', '--amend', '--no-edit');
    expect(lastMessage(dir).match(/Doco-Brief:/g)).toHaveLength(1);
  });

  it('leaves an empty message empty, so git still aborts the commit', () => {
    const dir = repo();
    withHook(dir, 10);
    change(dir, 'b.txt');
    expect(() => git(dir, 'commit', '-q', '-m', '')).toThrow(/empty commit message/);
    git(dir, 'commit', '-q', '--allow-empty-message', '-m', '');
    expect(lastMessage(dir).trim()).toBe('');
  });

  it('skips merge and squash messages', () => {
    const dir = repo();
    withHook(dir, 10);
    git(dir, 'checkout', '-q', '-b', 'side');
    change(dir, 'side.txt');
    git(dir, 'commit', '-q', '-m', 'Side work');
    git(dir, 'checkout', '-q', 'main');
    change(dir, 'main.txt');
    git(dir, 'commit', '-q', '-m', 'Main work');
    git(dir, 'merge', '-q', '--no-ff', 'side');
    expect(lastMessage(dir)).toMatch(/^Merge branch 'side'/);
    expect(lastMessage(dir)).not.toMatch(/^Doco-Brief/m);

    git(dir, 'checkout', '-q', '-b', 'other');
    change(dir, 'other.txt');
    git(dir, 'commit', '-q', '-m', 'Other');
    git(dir, 'checkout', '-q', 'main');
    git(dir, 'merge', '-q', '--squash', 'other');
    git(dir, 'commit', '-q', '--no-edit');
    expect(lastMessage(dir)).toMatch(/^Squashed commit/);
    expect(lastMessage(dir)).not.toMatch(/^Doco-Brief/m);
  });

  it('never overwrites an existing hook, and says so', () => {
    const dir = repo();
    const paths = gitPaths(dir)!;
    const mine = '#!/bin/sh\necho mine >/dev/null\n';
    writeFileSync(path.join(paths.hooksDir, 'prepare-commit-msg'), mine, { mode: 0o755 });
    const result = installCommitHook(paths);
    expect(result.installed).toBe(false);
    expect(result.note).toMatch(/already exists; left as is/);
    expect(readFileSync(path.join(paths.hooksDir, 'prepare-commit-msg'), 'utf8')).toBe(mine);
  });

  it('installs where core.hooksPath points, and is quiet about its own hook', () => {
    const dir = repo();
    git(dir, 'config', 'core.hooksPath', '.husky');
    const paths = gitPaths(dir)!;
    expect(paths.hooksDir).toBe(path.join(dir, '.husky'));
    expect(installCommitHook(paths)).toEqual({ installed: true });
    expect(readFileSync(path.join(dir, '.husky', 'prepare-commit-msg'), 'utf8')).toBe(PREPARE_COMMIT_MSG);
    expect(installCommitHook(paths)).toEqual({ installed: false });
  });
});
