// `doco align` through the built binary in a real git checkout, on a test database holding the
// ingested fixture docs (no server: the command indexes and scans in-process): the working tree
// against HEAD by default, --base/--head, exit 0 with nothing found, exit 1 for --fail-on high
// when a high-confidence expectation exists, and exit 2 with a clear message for bad arguments.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlignReport } from '../../src/align/report.js';
import { makeApp, makeWorkspace } from '../helpers/app.js';
import { ingestAlignFixture } from '../helpers/align-fixture.js';
import { LOCAL_ONLY, runDoco } from '../helpers/cli.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
let home: string;
let repo: string;
let env: NodeJS.ProcessEnv;
const WAL =
  'package consensus\n\n// WriteSync writes, flushes and fsyncs.\nfunc (w *WAL) WriteSync(msg Message) error {\n\treturn w.file.Sync()\n}\n';
const ZQ = 'package zq\n\nfunc frobnicate() {\n\tquux := zorblax(9)\n}\n';

const git = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: repo,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
  });
const put = async (rel: string, text: string) => {
  await mkdir(path.dirname(path.join(repo, rel)), { recursive: true });
  await writeFile(path.join(repo, rel), text);
};
const align = (args: string[]) => runDoco(['align', ...args], { env, timeoutMs: 60_000, cwd: repo });

beforeAll(async () => {
  t = await createTestDb();
  const ws = await makeWorkspace(t, 'cli-align');
  await ingestAlignFixture(t, ws, makeApp(t).deps);
  home = await mkdtemp(path.join(os.tmpdir(), 'doco-cli-align-'));
  repo = await mkdtemp(path.join(os.tmpdir(), 'doco-align-repo-'));
  env = {
    DATABASE_URL: t.url,
    DOCO_HOME: home,
    ...LOCAL_ONLY,
    DOCO_WORKSPACE: 'cli-align',
    DOCO_LOG_LEVEL: 'warn',
  };
  git('init', '-q', '-b', 'main');
  await put('consensus/wal.go', WAL);
  await put('tools/zq/zq.go', ZQ);
  git('add', '.');
  git('commit', '-qm', 'first');
}, 60_000);
afterAll(async () => {
  await t.drop();
  await rm(home, { recursive: true, force: true });
  await rm(repo, { recursive: true, force: true });
});

describe('doco align (built)', () => {
  it('with nothing changed says so and exits 0, also with --fail-on high', async () => {
    const res = await align(['--fail-on', 'high']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim()).toBe('no doc section expects the 0 changed file(s) (HEAD → working tree)');
  });

  it('a change nothing names: an empty report, exit 0 even with --fail-on high', async () => {
    await put('tools/zq/zq.go', ZQ.replace('9', '10'));
    const res = await align(['--json', '--fail-on', 'high']);
    expect(res.code, res.stderr).toBe(0);
    const report = JSON.parse(res.stdout) as AlignReport;
    expect(report).toMatchObject({ base: 'HEAD', head: null, summary: { files: 1, expectations: 0 } });
    expect(report.files[0]!.path).toBe('tools/zq/zq.go');
    git('checkout', '--', 'tools/zq/zq.go');
  });

  it('the working tree against HEAD: the WAL change lists the doc naming consensus/wal.go as high; --fail-on high exits 1, --fail-on medium too', async () => {
    await put('consensus/wal.go', WAL.replace('WriteSync(msg Message)', 'WriteSync(msg Message, fsync bool)'));
    const plain = await align([]);
    expect(plain.code, plain.stderr).toBe(0);
    const lines = plain.stdout.split('\n');
    expect(lines[0]).toBe('consensus/wal.go');
    expect(lines[1]).toMatch(
      /^ {2}high {3}0\.\d\d {2}docs\/architecture\/wal\.md#every-entry-is-logged-before-it-is-acknowledged {2}Write-ahead log — Every entry is logged before it is acknowledged$/,
    );
    expect(lines[2]).toContain('because: touches consensus/wal.go');
    expect((await align(['--fail-on', 'high'])).code).toBe(1);
    expect((await align(['--fail-on', 'medium'])).code).toBe(1);
  });

  it("--base and --head compare two commits (from their merge base); --head alone is that commit's own change", async () => {
    git('commit', '-qam', 'WriteSync takes fsync');
    const both = await align(['--base', 'HEAD~1', '--head', 'HEAD', '--json']);
    expect(both.code, both.stderr).toBe(0);
    const report = JSON.parse(both.stdout) as AlignReport;
    expect(report).toMatchObject({ base: 'HEAD~1', head: 'HEAD' });
    expect(report.files.map((f) => f.path)).toEqual(['consensus/wal.go']);
    expect(report.files[0]!.identifiers).toContain('WriteSync');
    const one = JSON.parse((await align(['--head', 'HEAD', '--json'])).stdout) as AlignReport;
    expect(one.files[0]!.expectations[0]!.confidence).toBe('high');
  });

  it.each([
    [['--fail-on', 'low'], /--fail-on must be high or medium/],
    [['--base', 'no-such-branch'], /--base no-such-branch: no such revision/],
    [['--head=-rf'], /--head "-rf" is not a revision/],
    [['--frobnicate'], /align: unknown option --frobnicate$/m],
    [['a', 'b'], /usage: doco align/],
  ])('bad arguments %j exit 2 with a clear message', async (args, message) => {
    const res = await align(args);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(message);
    expect(res.stdout).toBe('');
  });

  it('outside a git checkout exits 2', async () => {
    const res = await runDoco(['align', os.tmpdir()], { env, timeoutMs: 60_000 });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('is not inside a git checkout');
  });
});
