// `doco lint-docs` through the built binary: exit codes for CI (0 clean, 1 on an error, 2 for bad
// usage), the --json shape, and the renamed-heading rule against a manifest row in a test database.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePrincipal, ensureWorkspace } from '../../src/auth/workspaces.js';
import { runDoco } from '../helpers/cli.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

const prose = (n: number) =>
  'ledger entries settle in order. '
    .repeat(Math.ceil(n / 32))
    .slice(0, n)
    .trimEnd()
    .padEnd(n, 'x');
const ARCH = 'docs/architecture/ledger.md';

let db: TestDb;
let tmp: string;
let clean: string;
let broken: string;
/** No DATABASE_URL and an empty DOCO_HOME: no database reachable. */
let noDb: NodeJS.ProcessEnv;
let withDb: NodeJS.ProcessEnv;

async function tree(name: string, files: Record<string, string>): Promise<string> {
  const root = path.join(tmp, name);
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
  return root;
}

beforeAll(async () => {
  db = await createTestDb();
  tmp = await mkdtemp(path.join(os.tmpdir(), 'doco-cli-lint-'));
  noDb = { DATABASE_URL: '', DOCO_HOME: path.join(tmp, 'home'), DOCO_WORKSPACE: '', DOCO_LOG_LEVEL: 'warn' };
  withDb = { ...noDb, DATABASE_URL: db.url, DOCO_WORKSPACE: 'docs-ci' };
  clean = await tree('clean', {
    [ARCH]: `# Ledger\n\n## Settlement ordering\n\n${prose(300)}\n\n## Finality\n\n${prose(300)}\n`,
    'docs/guide.md': `## Setup\n\n${prose(250)}\n`,
  });
  broken = await tree('broken', {
    [ARCH]: `## Stub\n\nToo short to ingest.\n\n## Settlement\n\n${prose(250)} Currently sharded.\n`,
    'README.md': `## Install\n\n${prose(250)}\n\n## Install\n\n${prose(250)}\n`,
  });
  // The last ingest saw "Settlement order", which the clean tree now calls "Settlement ordering".
  const workspaceId = await ensureWorkspace(db.sql, 'docs-ci');
  const nodeId = await ensurePrincipal(db.db, workspaceId, 'ingester', 'cli');
  for (const key of ['settlement-order', 'finality']) {
    await db.sql`insert into doco.doc_manifest (workspace_id, source, section_key, path, hash, node_id) values (${workspaceId}, 'fs', ${`${ARCH}#${key}`}, ${ARCH}, 'h', ${nodeId})`;
  }
});

afterAll(async () => {
  await db?.drop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('exit codes and output', () => {
  it('exits 0 for a tree with no errors and says the rename check was skipped without a database', async () => {
    const res = await runDoco(['lint-docs', clean], { env: noDb });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe(
      '0 errors, 0 warnings in 2 files\nrenamed-heading: skipped (no database reachable: set DATABASE_URL or run `doco serve`; --no-db to say so)\n',
    );
  });

  it('exits 1 on an error, grouped by file with line numbers and a summary line', async () => {
    const res = await runDoco(['lint-docs', broken, '--no-db'], { env: noDb });
    expect(res.code, res.stderr).toBe(1);
    const lines = res.stdout.split('\n');
    expect(lines[0]).toBe('README.md');
    expect(lines[1]).toMatch(
      /^  5  error    duplicate-key    Install: section_key "README\.md#install" is also the key of "Install" on line 1/,
    );
    expect(lines[2]).toBe('');
    expect(lines[3]).toBe(ARCH);
    expect(lines[4]).toMatch(/^  1  error    below-floor      Stub: body is 20 characters, under the 200-character floor/);
    expect(lines[5]).toMatch(/^  7  warning  dated-claim      Settlement: dated claim "Currently"/);
    expect(lines.slice(6)).toEqual(['', '2 errors, 1 warning in 2 files', 'renamed-heading: skipped (--no-db)', '']);
  });

  it('--json prints {findings, errors, warnings} on stdout and its notes on stderr', async () => {
    const res = await runDoco(['lint-docs', broken, '--json', '--no-db'], { env: noDb });
    expect(res.code).toBe(1);
    const out = JSON.parse(res.stdout);
    expect(Object.keys(out)).toEqual(['findings', 'errors', 'warnings']);
    expect(out.errors).toBe(2);
    expect(out.warnings).toBe(1);
    expect(out.findings[0]).toEqual({
      rule: 'duplicate-key',
      severity: 'error',
      path: 'README.md',
      line: 5,
      heading: 'Install',
      section_key: 'README.md#install-2',
      message: expect.stringContaining('README.md#install'),
    });
    expect(out.findings.map((f: { rule: string }) => f.rule)).toEqual(['duplicate-key', 'below-floor', 'dated-claim']);
    expect(res.stderr).toBe('renamed-heading: skipped (--no-db)\n');
  });

  it('exits 2 for bad usage: two roots, a root that is not a directory, an unknown flag', async () => {
    for (const args of [[clean, broken], [path.join(tmp, 'missing')], [path.join(clean, ARCH)], [clean, '--fix']]) {
      const res = await runDoco(['lint-docs', ...args], { env: noDb });
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stdout).toBe('');
      expect(res.stderr).toContain('doco:');
    }
  });
});

describe('renamed-heading against the last ingest', () => {
  it('warns on an architecture heading renamed since the manifest, without failing the run', async () => {
    const res = await runDoco(['lint-docs', clean, '--json'], { env: withDb });
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({
      findings: [
        {
          rule: 'renamed-heading',
          severity: 'warning',
          path: ARCH,
          line: 3,
          heading: 'Settlement ordering',
          section_key: `${ARCH}#settlement-ordering`,
          message: expect.stringContaining(
            `renamed "${ARCH}#settlement-order" → "${ARCH}#settlement-ordering" since the last ingest; headings under docs/architecture are a frozen interface`,
          ),
        },
      ],
      errors: 0,
      warnings: 1,
    });
    expect(res.stderr).toBe('renamed-heading: compared with the manifest of workspace "docs-ci" (2 section keys)\n');
  });

  it('skips it, and says so, with --no-db or for a workspace with no manifest', async () => {
    const human = await runDoco(['lint-docs', clean], { env: withDb });
    expect(human.stdout).toContain(`${ARCH}\n  3  warning  renamed-heading  Settlement ordering: renamed`);
    const noFlag = await runDoco(['lint-docs', clean, '--no-db'], { env: withDb });
    expect(noFlag.code).toBe(0);
    expect(noFlag.stdout).not.toContain('renamed-heading  ');
    expect(noFlag.stdout).toContain('renamed-heading: skipped (--no-db)');
    const other = await runDoco(['lint-docs', clean, '--workspace', 'elsewhere'], { env: withDb });
    expect(other.code).toBe(0);
    expect(other.stdout).toBe(
      '0 errors, 0 warnings in 2 files\nrenamed-heading: skipped (no manifest: workspace "elsewhere" has no filesystem ingest)\n',
    );
  });

  it('skips it, and says so, when DATABASE_URL points at nothing', async () => {
    const res = await runDoco(['lint-docs', clean], { env: { ...withDb, DATABASE_URL: 'postgres://doco:x@127.0.0.1:1/doco' } });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^0 errors, 0 warnings in 2 files\nrenamed-heading: skipped \(database not usable: .+\)\n$/);
  });
});
