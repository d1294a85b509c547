// The doc ingester stays inside its root (docs/ingest.md, "The contract"), with real symbolic
// links: a file link and a directory link out of the root are not followed, nor is a link of the
// root's own docs/, README.md or repos/<x>; links that stay inside are followed; a loop (a link to
// itself, a directory linking back up) and a link to nothing are skipped. What was skipped is
// reported: the walk's skippedLinks, a FileRead error (so doco.doc_ingest_runs.unreadable lists it),
// `doco ingest-docs --json`'s skipped_links and its summary, the docs__ingest job's log (on demand
// and as the cron runs it, with the configured root). Nothing outside the root is ever read: its
// marker is in no section, no record, no answer of GET /system/docs/document, the own pack or lint.
import type { JobHelpers } from 'graphile-worker';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestDocsCommand, type CommandIo } from '../../src/cli/commands/ingest-docs.js';
import { lintDocsTree } from '../../src/ingest/docs/lint.js';
import { readCorpus } from '../../src/ingest/docs/sections.js';
import { readDocTree } from '../../src/ingest/docs/walk.js';
import { readOwnPack } from '../../src/ingest/packs/own-pack.js';
import { docsIngest } from '../../src/jobs/docs-tasks.js';
import { makeApp, makeWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { ingestTree, makeTree, prose, removeTree } from '../helpers/docs.js';
import { LOCAL_ONLY } from '../helpers/cli.js';

const MARK = 'OUTSIDE-THE-ROOT-MARKER';
const outsideDoc = (title: string) => `# ${title}\n\n## Secret\n\n${prose(`${MARK} ${title}`)}`;

let t: TestDb;
let outside: string;
let root: string;
let home: string;

/** What the walk read and what it did not follow, in order. */
const summary = async (r: string, only?: string[]) => {
  const tree = await readDocTree(r, only ? { only } : {});
  return {
    read: tree.files.filter((f) => 'sections' in f).map((f) => f.path),
    skipped: tree.skippedLinks,
    errors: tree.files.filter((f) => 'error' in f).map((f) => f.path),
    text: JSON.stringify(tree.files),
  };
};

beforeAll(async () => {
  t = await createTestDb();
  home = await mkdtemp(path.join(os.tmpdir(), 'doco-links-home-'));
  outside = await makeTree({
    passwd: `root:x:0:0:${MARK}:/root:/bin/bash\n`,
    'notes.md': outsideDoc('Notes'),
    'more/deep.md': outsideDoc('Deep'),
  });
  root = await makeTree({
    'README.md': `# Readme\n\n## Intro\n\n${prose('readme')}`,
    'docs/a.md': `# A\n\n## One\n\n${prose('a one')}`,
    'docs/sub/b.md': `# B\n\n## Two\n\n${prose('b two')}`,
    'shared/guide.md': `# Guide\n\n## Shared\n\n${prose('shared guide')}`,
    'repos/api/README.md': `# Api\n\n## Api\n\n${prose('api')}`,
  });
  const link = (target: string, at: string) => symlink(target, path.join(root, at));
  await link(path.join(outside, 'passwd'), 'docs/passwd.md'); // a file link out of the root (absolute)
  await link('../../../' + path.basename(outside) + '/notes.md', 'docs/sub/notes.md'); // out, relative
  await link(outside, 'docs/ext'); // a directory link out of the root
  await link(path.join(outside, 'notes.md'), 'CLAUDE.md'); // the root's own CLAUDE.md, out
  await link(outside, 'repos/elsewhere'); // a repos/<x> out
  await link('../shared/guide.md', 'docs/guide.md'); // a file link inside the root
  await link('../shared', 'docs/shared'); // a directory link inside the root
  await link('self.md', 'docs/self.md'); // a loop: a link to itself
  await link('..', 'docs/sub/up'); // a loop: a directory linking back up
  await link('nowhere.md', 'docs/dangling.md'); // a link to nothing
});
afterAll(async () => {
  await t.drop();
  await Promise.all([removeTree(outside), removeTree(root), rm(home, { recursive: true, force: true })]);
});

describe('the walk', () => {
  it('follows the links that stay inside the root and reports every other, reading nothing outside', async () => {
    const s = await summary(root);
    expect(s.read).toEqual(['README.md', 'repos/api/README.md', 'docs/a.md', 'docs/guide.md', 'docs/shared/guide.md', 'docs/sub/b.md']);
    const out = 'a symbolic link that resolves outside the root: not followed';
    expect(s.skipped).toEqual([
      { path: 'CLAUDE.md', reason: out },
      { path: 'repos/elsewhere/', reason: out },
      { path: 'docs/dangling.md', reason: 'a symbolic link to nothing: not followed' },
      { path: 'docs/ext/', reason: out },
      { path: 'docs/passwd.md', reason: out },
      { path: 'docs/self.md', reason: 'a loop of symbolic links: not followed' },
      { path: 'docs/sub/notes.md', reason: out },
      { path: 'docs/sub/up/', reason: 'a loop of symbolic links: not followed' },
    ]);
    // Each is a file the run could not read: its sections (from before it was a link) are kept, not reaped.
    expect(s.errors).toEqual(s.skipped.map((l) => l.path));
    expect(s.text).not.toContain(MARK);
  });

  it('refuses a named file (--only) that is a link out, or lies under one', async () => {
    const s = await summary(root, ['docs/passwd.md', 'docs/ext/notes.md', 'docs/ext/more/deep.md', 'docs/guide.md', 'docs/gone.md']);
    expect(s.read).toEqual(['docs/guide.md', 'docs/gone.md']);
    expect(s.skipped.map((l) => l.path)).toEqual(['docs/passwd.md', 'docs/ext/notes.md', 'docs/ext/more/deep.md']);
    expect(s.text).not.toContain(MARK);
  });

  it('does not follow a docs/ that is itself a link out of the root', async () => {
    const other = await mkdtemp(path.join(os.tmpdir(), 'doco-links-docs-'));
    try {
      await writeFile(path.join(other, 'README.md'), `# Other\n\n## Intro\n\n${prose('other readme')}`);
      await symlink(outside, path.join(other, 'docs'));
      const s = await summary(other);
      expect(s.read).toEqual(['README.md']);
      expect(s.skipped).toEqual([{ path: 'docs/', reason: 'a symbolic link that resolves outside the root: not followed' }]);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('follows a link inside the root only to what the walk itself reads: no dotted, skipped, archived or non-Markdown target', async () => {
    const secret = 'DB_PASSWORD=hunter2-LINKED-IN';
    const tree = await makeTree({
      '.env': `${secret}\n`,
      '.git/config': `[core]\n\t${secret}\n`,
      'node_modules/pkg/README.md': `# Pkg\n\n## Pkg\n\n${prose(secret)}`,
      'docs/archive/old.md': `# Old\n\n## Old\n\n${prose(secret)}`,
      'notes/plan.txt': `${secret}\n`,
      'notes/plan.md': `# Plan\n\n## Plan\n\n${prose('the plan')}`,
    });
    try {
      const link = (target: string, at: string) => symlink(target, path.join(tree, at));
      await mkdir(path.join(tree, 'docs'), { recursive: true });
      await link('../.env', 'docs/env.md');
      await link('../.git/config', 'docs/gitconfig.md');
      await link('../node_modules/pkg/README.md', 'docs/pkg.md');
      await link('archive/old.md', 'docs/old.md');
      await link('../notes/plan.txt', 'docs/plan-text.md');
      await link('../notes/plan.md', 'docs/plan.md');
      await link('../.git', 'docs/git');
      const s = await summary(tree);
      expect(s.read).toEqual(['docs/plan.md']);
      const leftOut = 'a symbolic link into a path the docs tree leaves out (dotted, node_modules, dist or docs/archive): not followed';
      expect(s.skipped).toEqual([
        { path: 'docs/env.md', reason: leftOut },
        { path: 'docs/git/', reason: leftOut },
        { path: 'docs/gitconfig.md', reason: leftOut },
        { path: 'docs/old.md', reason: leftOut },
        { path: 'docs/pkg.md', reason: leftOut },
        { path: 'docs/plan-text.md', reason: 'a symbolic link to a file that is not Markdown (.md): not followed' },
      ]);
      expect(s.text).not.toContain(secret);
      const only = await summary(tree, ['docs/env.md', 'docs/plan.md']);
      expect(only.read).toEqual(['docs/plan.md']);
      expect(only.text).not.toContain(secret);
    } finally {
      await removeTree(tree);
    }
  });

  it('takes a root that is itself a link as the directory it names', async () => {
    const parent = await mkdtemp(path.join(os.tmpdir(), 'doco-links-root-'));
    try {
      await symlink(root, path.join(parent, 'checkout'));
      expect((await summary(path.join(parent, 'checkout'))).read).toContain('docs/guide.md');
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it("keeps lint-docs, the corpus reader and Doco's own pack inside the root too", async () => {
    expect(JSON.stringify(await lintDocsTree(root))).not.toContain('passwd');
    expect(JSON.stringify(await readCorpus(root))).not.toContain(MARK);
    const own = await readOwnPack(root);
    expect(own.files.map((f) => f.path)).toEqual(['README.md', 'docs/a.md', 'docs/guide.md', 'docs/shared/guide.md', 'docs/sub/b.md']);
  });
});

describe('an ingest of a tree with links', () => {
  it('stores nothing from outside, lists the skipped links in doco.doc_ingest_runs, and serves none of them', async () => {
    const ws = await makeWorkspace(t, 'links');
    const report = await ingestTree(t, ws, root);
    expect(report.unreadable).toEqual(expect.arrayContaining(['docs/passwd.md', 'docs/ext/', 'CLAUDE.md', 'docs/self.md']));
    const [run] = await t.sql<{ unreadable: string[] }[]>`select unreadable from doco.doc_ingest_runs where id = ${report.run_id}`;
    expect(run!.unreadable).toEqual(report.unreadable);
    expect(await t.sql`select 1 from doco.nodes where prose like ${`%${MARK}%`} or title like ${`%${MARK}%`}`).toHaveLength(0);
    const api = makeApp(t);
    const doc = (p: string) => api.call('GET', `/api/v1/system/docs/document?path=${encodeURIComponent(p)}`, ws.readToken);
    expect((await doc('docs/passwd.md')).status).toBe(404);
    expect((await doc('docs/ext/notes.md')).status).toBe(404);
    expect((await doc('docs/guide.md')).status).toBe(200);
  });
});

describe('doco ingest-docs', () => {
  const run = async (args: string[]) => {
    const io = { out: '', err: '' };
    const streams: CommandIo = {
      stdout: { write: (s: string) => (io.out += s), isTTY: false },
      stderr: { write: (s: string) => (io.err += s), isTTY: false },
      env: {
        ...process.env,
        DATABASE_URL: t.url,
        DOCO_HOME: home,
        ...LOCAL_ONLY,
        DOCO_DOCS_ROOT: '',
        DOCO_LOG_LEVEL: 'warn',
      },
    };
    const code = await ingestDocsCommand([root, ...args], streams);
    return { code, ...io };
  };

  it('--json lists skipped_links [{path, reason}], and the summary names them apart from unreadable files', async () => {
    const json = await run(['--json', '--workspace', 'links-cli']);
    expect(json.code).toBe(0);
    const out = JSON.parse(json.out);
    expect(out.skipped_links).toContainEqual({
      path: 'docs/passwd.md',
      reason: 'a symbolic link that resolves outside the root: not followed',
    });
    expect(out.skipped_links).toHaveLength(8);
    expect(out.unreadable).toEqual(expect.arrayContaining(out.skipped_links.map((l: { path: string }) => l.path)));
    const text = await run(['--workspace', 'links-cli']);
    expect(text.out).toMatch(
      /^not followed: 8 symbolic links \(a link is followed only when it stays inside .*\):\n {2}CLAUDE\.md: a symbolic link that resolves outside the root/,
    );
    expect(text.out).not.toMatch(/could not read/);
    expect(json.out + json.err + text.out + text.err).not.toContain(MARK);
  });
});

describe('the docs__ingest job', () => {
  const helpers = (warnings: string[]) =>
    ({ logger: { info: () => {}, debug: () => {}, warn: (m: string) => warnings.push(m), error: () => {} } }) as unknown as JobHelpers;

  it('as the cron runs it (the configured DOCO_DOCS_ROOT) and on demand: logs the links not followed, reads nothing outside', async () => {
    for (const [docs, payload] of [
      [{ root, workspace: 'links-cron' }, {}],
      [undefined, { root, workspace: 'links-job' }],
    ] as const) {
      const warnings: string[] = [];
      await docsIngest({ sql: t.sql, db: t.db, ...(docs ? { docs } : {}) })(payload, helpers(warnings));
      expect(warnings).toEqual([
        expect.stringMatching(
          /^doc ingest of .*: not following CLAUDE\.md \(a symbolic link that resolves outside the root: not followed\), .*docs\/passwd\.md .*; a link is followed only inside the root$/,
        ),
      ]);
    }
    expect(await t.sql`select 1 from doco.nodes where prose like ${`%${MARK}%`}`).toHaveLength(0);
  });
});
