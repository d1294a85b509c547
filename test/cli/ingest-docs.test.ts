// `doco ingest-docs` through the built binary (on a test database, no server: the command
// indexes what it wrote), and in process with a terminal for stderr: the --json shape, the
// summary with the refusal reason first, the exit codes (0 clean, 1 reap refused, 2 bad
// arguments), and progress on a terminal only, never with --json.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestDocsCommand, type CommandIo } from '../../src/cli/commands/ingest-docs.js';
import { LOCAL_ONLY, runDoco } from '../helpers/cli.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { makeTree, prose, removeTree, writeTree } from '../helpers/docs.js';

let t: TestDb;
let home: string;
let root: string;
let env: NodeJS.ProcessEnv;
const tree = (n: number) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`docs/d${i}.md`, `# D${i}\n\n## Part\n\n${prose(`d${i} part`)}`]));

beforeAll(async () => {
  t = await createTestDb();
  home = await mkdtemp(path.join(os.tmpdir(), 'doco-cli-ingest-'));
  root = await makeTree(tree(4));
  env = {
    DATABASE_URL: t.url,
    DOCO_HOME: home,
    ...LOCAL_ONLY,
    DOCO_DOCS_ROOT: '',
    DOCO_WORKSPACE: 'cli-docs',
    DOCO_LOG_LEVEL: 'warn',
  };
});
afterAll(async () => {
  await t.drop();
  await rm(home, { recursive: true, force: true });
  await removeTree(root);
});

const doco = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
  runDoco(['ingest-docs', ...args], { env: { ...env, ...extra }, timeoutMs: 60_000 });

describe('doco ingest-docs (built)', () => {
  it('--json prints {created, updated, skipped, unchanged_files, reap: {outcome, reason, count}} (with unreadable, skipped_links, secrets, allowed_secrets and run_id) and exits 0', async () => {
    const res = await doco([root, '--json']);
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(Object.keys(out)).toEqual([
      'created',
      'updated',
      'skipped',
      'unchanged_files',
      'reap',
      'unreadable',
      'skipped_links',
      'secrets',
      'allowed_secrets',
      'run_id',
    ]);
    expect(out).toMatchObject({
      created: 4,
      updated: 0,
      skipped: 0,
      unchanged_files: 0,
      reap: { outcome: 'nothing_to_reap', reason: null, count: 0 },
      unreadable: [],
      skipped_links: [],
      secrets: [],
      allowed_secrets: [],
    });
    expect(res.stderr).toBe('');
    const [chunks] =
      await t.sql`select count(*)::int as n from doco.chunks c join doco.workspaces w on w.id = c.workspace_id where w.slug = 'cli-docs'`;
    expect(chunks!.n).toBe(4);
  });

  it('takes its root from DOCO_DOCS_ROOT and skips an unchanged tree', async () => {
    const res = await doco(['--json'], { DOCO_DOCS_ROOT: root });
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ created: 0, skipped: 4, unchanged_files: 4 });
  });

  it('ends a plain run with a readable summary', async () => {
    await writeTree(root, { 'docs/d0.md': `# D0\n\n## Part\n\n${prose('d0 part', 5)}` });
    const res = await doco([root]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`ingested ${root}: 4 files, 4 sections (0 under the 200-character floor, 0 truncated at 2,400)`);
    expect(res.stdout).toContain('0 created, 1 updated, 3 unchanged; 3 files unchanged');
    expect(res.stdout).toContain('reap: nothing to reap');
    expect(res.stdout).toContain('embeddings: 1 record indexed, 1 chunk embedded');
  });

  it('says why a run read nothing, and where to run it when given a docs folder', async () => {
    const ws = { DOCO_WORKSPACE: 'cli-docs-nothing' };
    const docsFolder = path.join(root, 'docs');
    const res = await doco([docsFolder], ws);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`ingested ${docsFolder}: 0 files, 0 sections`);
    expect(res.stdout).toContain(
      `nothing read: ${docsFolder} has no docs/ folder; ingest-docs reads a checkout: its README.md and CLAUDE.md and docs/**/*.md (docs/ingest.md). For this folder's Markdown, run: doco ingest-docs ${root}`,
    );
    const bare = await makeTree({ 'src/a.ts': 'export {};\n' });
    try {
      const none = await doco([bare], ws);
      expect(none.stdout).toMatch(
        /nothing read: .* has no docs\/ folder; ingest-docs reads a checkout: its README\.md and CLAUDE\.md and docs\/\*\*\/\*\.md \(docs\/ingest\.md\)\n/,
      );
      expect(none.stdout).not.toContain('For this folder');
      // A run that read files says nothing of the kind.
      expect((await doco([root], ws)).stdout).not.toContain('nothing read');
    } finally {
      await removeTree(bare);
    }
  });

  it('reads only the --only files, given repository-relative', async () => {
    const res = await doco([root, '--only', 'docs/d1.md', '--json']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ created: 0, skipped: 1, unchanged_files: 1 });
  });

  it('exits 2 for an --only path outside the watched set, and for a root that is not a directory', async () => {
    const bad = await doco([root, '--only', 'docs/archive/x.md']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not a watched document/);
    const missing = await doco([path.join(root, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/is not a directory/);
  });

  it('exits 1 when the reap is refused, the reason first in the summary and in the JSON', async () => {
    await rm(path.join(root, 'docs/d1.md'));
    await rm(path.join(root, 'docs/d2.md'));
    const plain = await doco([root]);
    expect(plain.code).toBe(1);
    expect(plain.stdout.split('\n')[0]).toBe(
      'reap refused: 2 of 4 sections would be reaped, more than a quarter of the manifest: a truncated walk or an emptied docs/ looks like this, so nothing was reaped',
    );
    const json = await doco([root, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).reap).toEqual({ outcome: 'refused', reason: expect.stringMatching(/^2 of 4 sections/), count: 0 });
  });
});

describe('progress', () => {
  const capture = (isTTY: boolean) => {
    const io = { out: '', err: '' };
    const streams: CommandIo = {
      stdout: { write: (s: string) => (io.out += s), isTTY: false },
      stderr: { write: (s: string) => (io.err += s), isTTY },
      env: { ...process.env, ...env },
    };
    return { io, streams };
  };

  it('shows files, sections and embeddings on a terminal, on stderr', async () => {
    const fresh = await makeTree(tree(3));
    const { io, streams } = capture(true);
    expect(await ingestDocsCommand([fresh, '--workspace', 'cli-progress'], streams)).toBe(0);
    expect(io.err).toContain('files: 3');
    expect(io.err).toContain('sections: 3/3');
    expect(io.err).toContain('embeddings: 3/3 records, 3 chunks embedded');
    expect(io.out).toContain('3 created, 0 updated, 0 unchanged');
    expect(io.out).not.toContain('sections: ');
    await removeTree(fresh);
  });

  it('shows no progress with --json, even on a terminal', async () => {
    const fresh = await makeTree(tree(2));
    const { io, streams } = capture(true);
    expect(await ingestDocsCommand([fresh, '--json', '--workspace', 'cli-progress-json'], streams)).toBe(0);
    expect(io.err).toBe('');
    expect(JSON.parse(io.out)).toMatchObject({ created: 2 });
    await removeTree(fresh);
  });

  it('shows no progress when stderr is not a terminal', async () => {
    const fresh = await makeTree(tree(1));
    const { io, streams } = capture(false);
    expect(await ingestDocsCommand([fresh, '--workspace', 'cli-progress-pipe'], streams)).toBe(0);
    expect(io.err).toBe('');
    expect(io.out).toContain('1 created');
    await removeTree(fresh);
  });
});
