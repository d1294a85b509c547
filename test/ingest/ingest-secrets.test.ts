// The doc ingester and docs packs against the secrets guard: a section holding a credential is
// not written (a new one is not created; an existing record keeps its last clean version and
// its manifest row), it still counts as seen (the reap leaves it alone), and it is reported by
// section_key, kind, field and line in the report, the run row (doc_ingest_runs.secrets), the
// log, `doco ingest-docs --json` (exit 1) and a pack's last_error. Nothing of it is stored.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestDocsCommand, type CommandIo } from '../../src/cli/commands/ingest-docs.js';
import { pullDocsPack } from '../../src/ingest/packs/pull.js';
import { findPack, registerPack } from '../../src/ingest/packs/registry.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { ingestTree, makeTree, manifestRecords, prose, removeTree, writeTree } from '../helpers/docs.js';
import { fakeCredentials } from '../helpers/fake-secrets.js';
import { LOOPBACK_PACK_HOSTS, markdown, startPackService, type PackService } from '../helpers/pack-service.js';
import { expectNoPieceOf, expectNowhereInDatabase } from '../helpers/secret-leaks.js';
import { LOCAL_ONLY } from '../helpers/cli.js';

let t: TestDb;
let ws: TestWorkspace;
let root: string;
const c = fakeCredentials(23);
const warnings: string[] = [];
const log = { warn: (m: string) => warnings.push(m) };

const deploySection = (extra = '') => `## Deploy\n\n${prose('deploy')}${extra}`;
const files = (deploy: string) => ({
  'docs/ops.md': `# Ops\n\n${deploy}\n\n## Rollback\n\n${prose('rollback')}`,
  'docs/a.md': `# A\n\n## Part\n\n${prose('a part')}`,
  'docs/b.md': `# B\n\n## Part\n\n${prose('b part')}`,
  'docs/c.md': `# C\n\n## Part\n\n${prose('c part')}`,
});

async function lastRun() {
  const [row] = await t.sql<{ secrets: unknown; created: number; updated: number; reap_outcome: string }[]>`
    select secrets, created, updated, reap_outcome from doco.doc_ingest_runs where workspace_id = ${ws.id} order by id desc limit 1`;
  return row!;
}

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'docsec');
  root = await makeTree(files(deploySection(`\n\nThe deploy bot authenticates with ${c.github_pat} on every push.`)));
});
afterAll(async () => {
  await removeTree(root);
  await t.drop();
});

describe('filesystem ingest', () => {
  it('does not create a new section holding a secret, reports it by key, kind, field and line, and creates the rest', async () => {
    const report = await ingestTree(t, ws, root, { log });
    expect(report.created).toBe(4);
    expect(report.secrets).toEqual([
      { section_key: 'docs/ops.md#deploy', path: 'docs/ops.md', kind: 'github_token', field: 'prose', line: 3 },
    ]);
    expect([...(await manifestRecords(t, ws)).keys()].sort()).toEqual([
      'docs/a.md#part',
      'docs/b.md#part',
      'docs/c.md#part',
      'docs/ops.md#rollback',
    ]);
    expect(await lastRun()).toMatchObject({ secrets: report.secrets, created: 4 });
    expect(warnings.at(-1)).toMatch(/1 section\(s\) not written: they hold credentials \(github_token\)/);
    await expectNowhereInDatabase(t, c.github_pat);
  });

  it('keeps an existing record at its last clean version when an edit adds a secret, and does not reap it', async () => {
    await writeTree(root, files(deploySection()));
    expect((await ingestTree(t, ws, root)).created).toBe(1);
    const before = (await manifestRecords(t, ws)).get('docs/ops.md#deploy')!;
    const [hashBefore] = await t.sql`select hash from doco.doc_manifest where section_key = 'docs/ops.md#deploy'`;

    // The edit adds a password to the deploy section and changes its neighbour: the neighbour is updated, deploy is not.
    await writeTree(root, {
      'docs/ops.md': `# Ops\n\n${deploySection(`\n\nDATABASE_URL=postgres://deploy:${c.password.replace(/[#!]/g, 'q')}@db.prod.internal/app`)}\n\n## Rollback\n\n${prose('rollback', 5)}`,
    });
    const report = await ingestTree(t, ws, root);
    expect(report).toMatchObject({ created: 0, updated: 1, unchanged_files: 3, reap: { outcome: 'nothing_to_reap', count: 0 } });
    expect(report.secrets).toEqual([
      { section_key: 'docs/ops.md#deploy', path: 'docs/ops.md', kind: 'url_password', field: 'prose', line: 3 },
    ]);
    const after = (await manifestRecords(t, ws)).get('docs/ops.md#deploy')!;
    expect(after).toMatchObject({ node_id: before.node_id, version: before.version, lifecycle: 'active', prose: before.prose });
    const [hashAfter] = await t.sql`select hash from doco.doc_manifest where section_key = 'docs/ops.md#deploy'`;
    expect(hashAfter).toEqual(hashBefore);
    await expectNowhereInDatabase(t, c.password.replace(/[#!]/g, 'q'));
  });

  it('updates the record in place once the secret is gone', async () => {
    const before = (await manifestRecords(t, ws)).get('docs/ops.md#deploy')!;
    await writeTree(root, {
      'docs/ops.md': `# Ops\n\n${deploySection('\n\nThe database URL comes from the vault at ops/db.')}\n\n## Rollback\n\n${prose('rollback', 5)}`,
    });
    const report = await ingestTree(t, ws, root);
    expect(report).toMatchObject({ updated: 1, secrets: [] });
    expect((await manifestRecords(t, ws)).get('docs/ops.md#deploy')).toMatchObject({
      node_id: before.node_id,
      version: before.version + 1,
    });
    expect((await lastRun()).secrets).toEqual([]);
  });
});

describe('doco ingest-docs', () => {
  let home: string;
  let tree: string;
  beforeAll(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'doco-cli-docsec-'));
    tree = await makeTree({
      'docs/keys.md': `# Keys\n\n## Signing\n\n${prose('signing')}\n\nexport ANTHROPIC_API_KEY=${c.anthropic}\n\n## Other\n\n${prose('other')}`,
    });
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
    await removeTree(tree);
  });
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
    const code = await ingestDocsCommand([tree, ...args], streams);
    return { code, ...io };
  };

  it('--json lists secrets as [{section_key, path, kind, field, line}] and exits 1', async () => {
    const res = await run(['--json', '--workspace', 'cli-docsec']);
    expect(res.code).toBe(1);
    const out = JSON.parse(res.out);
    expect(out).toMatchObject({
      created: 1,
      secrets: [{ section_key: 'docs/keys.md#signing', path: 'docs/keys.md', kind: 'anthropic_api_key', field: 'prose', line: 3 }],
    });
    expectNoPieceOf(res.out + res.err, c.anthropic);
  });

  it('the plain summary names each refused section first', async () => {
    const res = await run(['--workspace', 'cli-docsec']);
    expect(res.code).toBe(1);
    expect(res.out.split('\n').slice(0, 2)).toEqual([
      'not written: 1 section holding credentials (remove them from the docs; an existing record keeps its last clean version):',
      '  docs/keys.md#signing: an Anthropic API key (anthropic_api_key) in prose line 3',
    ]);
    await expectNowhereInDatabase(t, c.anthropic);
  });
});

describe('credentials that once got through, in docs', () => {
  let probeWs: TestWorkspace;
  let probeRoot: string;
  const leaks: Record<string, [string, string]> = {
    staging: [`DB_PASS=${c.password}`, 'password_assignment'],
    ci: [`GITHUB_TOKEN=${c.github_classic_hex}`, 'github_token'],
    bot: [`DISCORD_TOKEN=${c.discord_bot}`, 'discord_bot_token'],
    uploads: [
      `DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=${c.azure_storage_key};EndpointSuffix=core.windows.net`,
      'azure_storage_account_key',
    ],
    sms: [`const client = twilio('${c.twilio_api_key_sid}', '${c.twilio_api_secret}', { accountSid });`, 'twilio_api_key'],
    restore: [`mysql -u root -p${c.cli_password} shop < dump.sql`, 'command_line_password'],
  };
  beforeAll(async () => {
    probeWs = await makeWorkspace(t, 'docprobe');
    const sections = Object.entries(leaks).map(([name, [line]]) => `## ${name}\n\n${prose(name)}\n\n    ${line}\n`);
    probeRoot = await makeTree({
      'docs/runbook.md': `# Runbook\n\n${sections.join('\n')}`,
      'docs/a.md': `# A\n\n## Part\n\n${prose('a part')}`,
    });
  });
  afterAll(async () => removeTree(probeRoot));

  it('refuses each section holding one, by kind and line, and writes the rest', async () => {
    const report = await ingestTree(t, probeWs, probeRoot);
    expect(report.created).toBe(1);
    expect(report.secrets).toEqual(
      Object.entries(leaks).map(([name, [, kind]]) => ({
        section_key: `docs/runbook.md#${name}`,
        path: 'docs/runbook.md',
        kind,
        field: 'prose',
        line: 3,
      })),
    );
    for (const secret of [c.password, c.github_classic_hex, c.discord_bot, c.azure_storage_key, c.twilio_api_secret, c.cli_password])
      await expectNowhereInDatabase(t, secret);
  });
});

describe('the allow marker (doco:allow-secret)', () => {
  let allowWs: TestWorkspace;
  let allowRoot: string;
  let home: string;
  // An RFC-style sample whose password is made up: the author marks its line to let it through.
  const sample = `\`\`\`json\n{"user": "alice", "password": "${c.password}"}  // doco:allow-secret\n\`\`\``;
  const docs = {
    'docs/auth.md': [
      '# Auth API',
      `## Login request\n\n${prose('login')}\n\n${sample}`,
      // The marker covers its own line only: the unmarked key beside it still refuses the section.
      `## Tokens\n\n${prose('tokens')}\n\nexample: ${c.stripe_secret} <!-- doco:allow-secret -->\nCI uses ${c.npm}.`,
      `## Keys\n\n${prose('keys')}\n\nsigning key: ${c.anthropic}`,
    ].join('\n\n'),
  };
  beforeAll(async () => {
    allowWs = await makeWorkspace(t, 'docallow');
    allowRoot = await makeTree(docs);
    home = await mkdtemp(path.join(os.tmpdir(), 'doco-cli-docallow-'));
  });
  afterAll(async () => {
    await removeTree(allowRoot);
    await rm(home, { recursive: true, force: true });
  });

  it('writes a section whose only secret sits on a marked line, and reports it as allowed', async () => {
    const warned: string[] = [];
    const report = await ingestTree(t, allowWs, allowRoot, { log: { warn: (m) => warned.push(m) } });
    expect(report.allowed_secrets).toEqual([
      { section_key: 'docs/auth.md#login-request', path: 'docs/auth.md', kind: 'password_assignment', field: 'prose', line: 4 },
    ]);
    expect(report.secrets).toEqual([
      { section_key: 'docs/auth.md#tokens', path: 'docs/auth.md', kind: 'npm_token', field: 'prose', line: 4 },
      { section_key: 'docs/auth.md#keys', path: 'docs/auth.md', kind: 'anthropic_api_key', field: 'prose', line: 3 },
    ]);
    expect(report.created).toBe(1);
    const records = await manifestRecords(t, allowWs);
    expect([...records.keys()]).toEqual(['docs/auth.md#login-request']);
    expect(records.get('docs/auth.md#login-request')!.prose).toContain(c.password);
    expect(warned.join('\n')).toMatch(
      /1 section\(s\) written with 1 secret\(s\) on lines marked doco:allow-secret \(password_assignment\)/,
    );
    await expectNowhereInDatabase(t, c.stripe_secret);
  });

  it('doco ingest-docs --json lists allowed_secrets and the summary says how many, exit 0 when nothing was refused', async () => {
    const tree = await makeTree({ 'docs/auth.md': `# Auth API\n\n## Login request\n\n${prose('login')}\n\n${sample}` });
    try {
      const streams = () => {
        const io = { out: '', err: '' };
        const cio: CommandIo = {
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
        return { io, cio };
      };
      const json = streams();
      expect(await ingestDocsCommand([tree, '--json', '--workspace', 'cli-docallow'], json.cio)).toBe(0);
      expect(JSON.parse(json.io.out)).toMatchObject({
        created: 1,
        secrets: [],
        allowed_secrets: [
          { section_key: 'docs/auth.md#login-request', path: 'docs/auth.md', kind: 'password_assignment', field: 'prose', line: 4 },
        ],
      });

      await writeTree(tree, { 'docs/auth.md': `# Auth API\n\n## Login request\n\n${prose('login', 5)}\n\n${sample}` });
      const plain = streams();
      expect(await ingestDocsCommand([tree, '--workspace', 'cli-docallow'], plain.cio)).toBe(0);
      expect(plain.io.out.split('\n').slice(0, 2)).toEqual([
        'let through: 1 secret on a line marked doco:allow-secret (stored as written; remove the marker to refuse it):',
        '  docs/auth.md#login-request: a password or secret assignment (password_assignment) in prose line 4',
      ]);
      expectNoPieceOf(plain.io.out + json.io.out, c.password);
    } finally {
      await removeTree(tree);
    }
  });
});

describe('docs packs', () => {
  let svc: PackService;
  const pack = (extra: string) => ({
    format: 1,
    code: 'vault',
    files: [{ path: 'docs/setup.md', content: `${markdown('Setup', ['Install', 'Tokens'])}${extra}` }],
  });
  beforeAll(async () => {
    svc = await startPackService(pack(`\n\nUse the token ${c.slack_bot} for the bot.`));
    await registerPack(t.sql, ws.id, 'vault', svc.baseUrl);
  });
  afterAll(async () => svc.close());

  it('skips the pack section holding a secret, keeps no hash, and says why in last_error', async () => {
    const result = await pullDocsPack({ sql: t.sql, db: t.db, packHosts: LOOPBACK_PACK_HOSTS }, ws.id, 'vault');
    expect(result.outcome).toBe('ingested');
    const report = result.outcome === 'ingested' ? result.report : undefined;
    expect(report?.created).toBe(2);
    expect(report?.secrets).toEqual([
      { section_key: 'vault:docs/setup.md#tokens', path: 'vault:docs/setup.md', kind: 'slack_token', field: 'prose', line: 3 },
    ]);
    const registered = await findPack(t.sql, ws.id, 'vault');
    expect(registered).toMatchObject({
      last_hash: null,
      last_error: "1 section(s) not written: they hold credentials (slack_token); see the run's secrets",
    });
    await expectNowhereInDatabase(t, c.slack_bot);
  });

  it('ingests the section, and keeps the hash, once the pack no longer holds the secret', async () => {
    svc.pack = pack('\n\nThe bot token lives in the vault at bots/slack.');
    const result = await pullDocsPack({ sql: t.sql, db: t.db, packHosts: LOOPBACK_PACK_HOSTS }, ws.id, 'vault');
    expect(result.outcome === 'ingested' && result.report).toMatchObject({ created: 1, secrets: [] });
    expect(await findPack(t.sql, ws.id, 'vault')).toMatchObject({ last_hash: expect.any(String), last_error: null });
  });
});
