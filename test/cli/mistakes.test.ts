// Expected failures through the built `doco` command (issue 26): each mistake a user can make
// answers one line on stderr (an AppError: one JSON line in the API's error shape), no stack
// frame, nothing on stdout, and its exit code: 2 for a usage or input error, 1 for a failure.
// One `doco serve` on this file's database serves the cases that need a live server; every other
// child runs on one empty temp DOCO_HOME (or a second one, to reach that database with no server
// up), from a temp folder outside any git checkout, so nothing touches a real home. A mistake
// changes nothing: where one could have written (a token, a principal, a workspace), it checks.
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../src/errors.js';
import { runDoco, type CliResult } from '../helpers/cli.js';
import { cleanUp, DocoHome, DocoServer, freePort } from '../helpers/doco-process.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

const FRAME = /^\s+at /;
const SOME_DECISION = 'decision_01K8Z3QH4V6X9M2T7R5B3N8P1D';
const SOME_RULE = 'rule_01K8Z3QH4V6X9M2T7R5B3N8P1E';

interface World {
  /** The live server, on `serverHome` with this file's database. */
  live: DocoServer;
  serverHome: DocoHome;
  db: TestDb;
  /** An empty home: no database, no server record. */
  empty: DocoHome;
  /** Another empty home, for commands that reach this file's database through DATABASE_URL with no server up. */
  serverless: DocoHome;
  /** A folder outside any git checkout: every child's cwd but a case's own. */
  bare: string;
  /** An empty git checkout, for `doco hooks install`. */
  repo: string;
  /** A read token of the live server's default workspace. */
  readToken: string;
  /** A loopback port nothing listens on. */
  closedPort: number;
}

interface Mistake {
  name: string;
  args: (w: World) => string[];
  /** The child's environment beyond the empty home's (the home itself can be replaced). */
  env?: (w: World) => NodeJS.ProcessEnv;
  stdin?: string;
  /** The child's folder, when not the bare one. */
  cwd?: (w: World) => string;
  code: number;
  /** The one stderr line (for an AppError, its message). */
  says: (w: World) => RegExp;
  /** An AppError: the code of the one JSON line on stderr. */
  error?: ErrorCode;
  /** What stdout holds when the command's contract is not "nothing". */
  stdout?: string;
  after?: (w: World) => void | Promise<void>;
}

const onServer = (w: World): NodeJS.ProcessEnv => ({ DOCO_HOME: w.serverHome.dir, DATABASE_URL: w.db.url });
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A refused --principal made nothing: no principal the rule refuses (auth/principal-name.ts), and no token of one. */
async function noBadPrincipal(w: World): Promise<void> {
  const bad = await w.db.sql<{ title: string; tokens: number }[]>`
    select p.title, (select count(*)::int from doco.tokens t where t.principal_id = p.id) as tokens
      from doco.nodes p
     where p.node_type = 'principal'
       and (btrim(p.title) = '' or p.title <> btrim(p.title) or p.title ~ '[[:cntrl:]]' or p.title ~ '^agent:\\s*$' or length(p.title) > 300)`;
  expect(bad).toEqual([]);
}

/** A read of an unknown workspace made nothing: the workspaces are the ones there were, and no CLI token was kept for it. */
async function onlyTheWorkspaces(w: World, slug: string): Promise<void> {
  const rows = await w.db.sql<{ slug: string }[]>`select slug from doco.workspaces order by slug`;
  expect(rows.map((r) => r.slug)).toEqual(['default']);
  expect(existsSync(path.join(w.serverHome.dir, `cli-token-${slug}.json`))).toBe(false);
}

/**
 * A command that names an unknown workspace changed nothing: no workspace (so nothing in one: no
 * record, principal, token, sign-in code or connector), and no CLI write token kept for it.
 */
async function nothingMade(w: World, slug: string): Promise<void> {
  await onlyTheWorkspaces(w, slug);
  expect(await w.db.sql`select id from doco.connectors`).toEqual([]);
  expect(existsSync(path.join(w.serverHome.dir, `cli-write-token-${slug}.json`))).toBe(false);
}

const NO_WORKSPACE = (slug: string) =>
  new RegExp(
    `^doco: no workspace "${slug}" here \\(the workspaces: default\\)\\. Check --workspace and DOCO_WORKSPACE; .*--workspace ${slug}`,
  );

const MISTAKES: Mistake[] = [
  {
    name: 'an unknown command',
    args: () => ['serach', 'refunds'],
    code: 2,
    says: () => /^doco: unknown command "serach"; did you mean search\?$/,
  },
  {
    name: 'an unknown flag',
    args: () => ['brief', 'refunds', '--touchin', 'src/billing.ts'],
    code: 2,
    says: () => /^doco: brief: unknown option --touchin; did you mean --touching\?$/,
  },
  {
    name: 'a flag missing its value',
    args: () => ['brief', 'refunds', '--budget'],
    code: 2,
    says: () => /^doco: brief: --budget needs a value$/,
  },
  {
    name: 'a bad --scope',
    args: () => ['token', 'create', '--scope', 'admin'],
    code: 2,
    says: () => /^doco: --scope must be read or write$/,
  },
  {
    name: 'DOCO_PORT that is not a number',
    args: () => ['serve'],
    env: () => ({ DOCO_PORT: 'abc' }),
    code: 2,
    says: () => /^doco: invalid configuration: DOCO_PORT: .*"abc"/,
  },
  {
    name: 'serve --port abc',
    args: () => ['serve', '--port', 'abc'],
    code: 2,
    says: () => /^doco: --port must be a port number, got abc$/,
  },
  {
    name: 'serve --port 0',
    args: () => ['serve', '--port', '0'],
    code: 2,
    says: () => /^doco: --port must be a port number, got 0$/,
  },
  {
    name: 'a second serve on the live server’s port',
    args: (w) => ['serve', '--port', String(w.live.port)],
    env: onServer,
    code: 1,
    says: (w) => new RegExp(`^doco: a Doco server \\(pid ${w.live.child.pid}\\) already serves .*--port ${w.live.port + 1}\\b`),
  },
  {
    name: 'a server that does not answer',
    args: () => ['search', 'refunds'],
    env: (w) => ({ DOCO_URL: `http://127.0.0.1:${w.closedPort}`, DOCO_TOKEN: 'doco_unused' }),
    code: 1,
    says: (w) => new RegExp(`^doco: cannot reach the Doco server at ${escape(`http://127.0.0.1:${w.closedPort}`)} \\(ECONNREFUSED\\)`),
  },
  {
    name: 'no database in DOCO_HOME',
    args: () => ['token', 'create', '--scope', 'write'],
    code: 1,
    says: (w) => new RegExp(`^doco: no Doco database in DOCO_HOME=${escape(w.empty.dir)}: start one there with \`doco serve\``),
    after: (w) => {
      expect(existsSync(`${w.empty.dir}/pg`), 'a pg/ folder left in the empty home').toBe(false);
      expect(readdirSync(w.empty.dir)).toEqual([]);
    },
  },
  {
    name: 'a bad record id for get',
    args: () => ['get', 'nope'],
    code: 2,
    error: 'validation_failed',
    says: () => /^id is invalid: .*record id/,
  },
  {
    name: 'a page of history that is no page, for get',
    args: () => ['get', SOME_RULE, '--limit', '101'],
    code: 2,
    error: 'validation_failed',
    says: () => /^get is invalid: limit must be a number of versions from 1 to 100$/,
  },
  {
    name: 'a version to read before that is no version number, for get',
    args: () => ['get', SOME_RULE, '--before', '0'],
    code: 2,
    error: 'validation_failed',
    says: () => /^get is invalid: before must be a version number \(1, 2, …\)$/,
  },
  {
    name: 'get of a record that does not exist',
    args: () => ['get', SOME_RULE],
    env: onServer,
    code: 1,
    error: 'not_found',
    says: () => new RegExp(`^record ${SOME_RULE} does not exist in this workspace$`),
  },
  {
    name: 'a token the server refuses',
    args: () => ['brief', 'retry failed refunds'],
    env: (w) => ({ DOCO_URL: w.live.url, DOCO_TOKEN: 'doco_bogus' }),
    code: 1,
    error: 'unauthorized',
    says: () => /token/i,
  },
  {
    name: 'capture into an unknown collection',
    args: () => ['capture', '--collection', 'nope', '--type', 'rule', '--title', 'A rule', '--prose', 'Say what the rule is.'],
    env: onServer,
    code: 1,
    error: 'not_found',
    says: () => /nope/,
  },
  {
    name: 'capture with JSON that does not parse',
    args: () => ['capture'],
    env: onServer,
    stdin: '{"collection": ',
    code: 2,
    error: 'validation_failed',
    says: () => /^the input is not valid JSON/,
  },
  {
    name: 'capture --file of a missing file',
    args: (w) => ['capture', '--file', `${w.bare}/no-such.json`],
    code: 2,
    says: (w) => new RegExp(`^doco: --file ${escape(`${w.bare}/no-such.json`)}: no such file$`),
  },
  {
    name: 'relate with an edge type that does not exist',
    args: () => ['relate', '--from', SOME_DECISION, '--to', SOME_RULE, '--type', 'likes'],
    env: onServer,
    code: 2,
    error: 'validation_failed',
    says: () => /edge_type/,
  },
  {
    name: 'a brief of a collection the server does not have',
    args: () => ['brief', 'retry failed refunds', '--collection', 'nope'],
    env: (w) => ({ DOCO_URL: w.live.url, DOCO_TOKEN: w.readToken }),
    code: 1,
    error: 'not_found',
    says: () => /^collection nope does not exist/,
  },
  {
    name: 'workspace set with a setting that is not true or false',
    args: () => ['workspace', 'set', '--agents-may-activate', 'maybe'],
    code: 2,
    says: () => /^doco: --agents-may-activate must be true or false, not "maybe"$/,
  },
  {
    name: 'ingest-docs of a missing folder',
    args: (w) => ['ingest-docs', `${w.bare}/no-such-folder`],
    code: 2,
    says: (w) => new RegExp(`^doco: ${escape(`${w.bare}/no-such-folder`)} is not a directory$`),
  },
  {
    name: 'a workspace that is a path, where it would name a token file',
    args: () => ['brief', 'refunds', '--workspace', 'x/../../escaped'],
    env: onServer,
    code: 2,
    says: () => /^doco: --workspace must be a slug, not "x\/\.\.\/\.\.\/escaped"$/,
    // joined into the home's token file name, it would have named <home>/../escaped.json
    after: (w) => expect(existsSync(path.join(path.dirname(w.serverHome.dir), 'escaped.json'))).toBe(false),
  },
  {
    name: 'connector add of an unknown kind',
    args: () => ['connector', 'add', 'nope'],
    code: 2,
    says: () => /^doco: unknown connector kind "nope": github, notion, drive or slack/,
  },
  {
    name: 'connector add github with an installation id that is no number',
    args: () => ['connector', 'add', 'github', '--installation-id', 'abc', '--repo', 'acme/shop'],
    code: 2,
    says: () => /^doco: --installation-id must be the GitHub App installation's number .* not "abc"$/,
  },
  {
    name: 'connector remove of an unknown id',
    args: () => ['connector', 'remove', 'con_nope'],
    env: onServer,
    code: 1,
    says: () => /^doco: no connector con_nope$/,
  },
  {
    name: 'a hook for an unknown agent (hooks always exit 0)',
    args: () => ['hook', 'prompt', '--agent', 'nobody'],
    code: 0,
    says: () => /^doco hook: unknown agent "nobody"; usage: doco hook/,
  },
  {
    name: 'token create for a blank --principal',
    args: () => ['token', 'create', '--scope', 'write', '--principal', ''],
    env: onServer,
    code: 2,
    says: () => /^doco: --principal must not be blank, not ""$/,
    after: noBadPrincipal,
  },
  {
    name: 'token create for a --principal of spaces',
    args: () => ['token', 'create', '--scope', 'write', '--principal', '   '],
    env: onServer,
    code: 2,
    says: () => /^doco: --principal must not be blank, not " {3}"$/,
    after: noBadPrincipal,
  },
  {
    name: 'token create for an agent with no name',
    args: () => ['token', 'create', '--scope', 'write', '--principal', 'agent:'],
    env: onServer,
    code: 2,
    says: () => /^doco: --principal must name the agent after "agent:" \(agent:<agent>@<checkout>\), not "agent:"$/,
    after: noBadPrincipal,
  },
  {
    name: 'token create for a --principal longer than a title may be',
    args: () => ['token', 'create', '--scope', 'read', '--principal', `cli:${'x'.repeat(400)}`],
    env: onServer,
    code: 2,
    says: () => /^doco: --principal must be at most 300 characters, not "cli:x+…"$/,
    after: noBadPrincipal,
  },
  {
    name: 'capture as a blank --principal',
    args: () => ['capture', '--principal', '', '--collection', 'constitution', '--type', 'rule', '--title', 'A rule', '--prose', 'Say it.'],
    env: onServer,
    code: 2,
    says: () => /^doco: --principal must not be blank, not ""$/,
    after: async (w) => {
      await noBadPrincipal(w);
      expect((await w.db.sql`select 1 from doco.nodes where title = 'A rule'`).length).toBe(0);
    },
  },
  {
    name: 'capture as a --principal with a control character',
    args: () => [
      'capture',
      '--principal',
      'cli:a\u0007b',
      '--collection',
      'constitution',
      '--type',
      'rule',
      '--title',
      'A rule',
      '--prose',
      'Say it.',
    ],
    env: onServer,
    code: 2,
    says: () => /^doco: --principal must not hold control characters, not "cli:a\\u0007b"$/,
    after: noBadPrincipal,
  },
  {
    name: 'a brief in a workspace that does not exist, with the server up',
    args: () => ['brief', 'retry failed refunds'],
    env: (w) => ({ ...onServer(w), DOCO_WORKSPACE: 'othr' }),
    code: 2,
    says: () => NO_WORKSPACE('othr'),
    after: (w) => onlyTheWorkspaces(w, 'othr'),
  },
  {
    name: 'a search in a workspace that does not exist, with the server up',
    args: () => ['search', 'refunds', '--workspace', 'othr'],
    env: onServer,
    code: 2,
    says: () => NO_WORKSPACE('othr'),
    after: (w) => onlyTheWorkspaces(w, 'othr'),
  },
  {
    name: 'a brief in a workspace that does not exist, with no server',
    args: () => ['brief', 'retry failed refunds'],
    env: (w) => ({ DOCO_HOME: w.serverless.dir, DATABASE_URL: w.db.url, DOCO_WORKSPACE: 'othr' }),
    code: 2,
    says: () => NO_WORKSPACE('othr'),
    after: (w) => onlyTheWorkspaces(w, 'othr'),
  },
  {
    name: 'get in a workspace that does not exist',
    args: () => ['get', SOME_RULE, '--workspace', 'othr'],
    env: onServer,
    code: 2,
    says: () => NO_WORKSPACE('othr'),
    after: (w) => onlyTheWorkspaces(w, 'othr'),
  },
  {
    name: 'workspace show of a workspace that does not exist',
    args: () => ['workspace', 'show', '--workspace', 'othr'],
    env: onServer,
    code: 2,
    says: () => NO_WORKSPACE('othr'),
    after: (w) => onlyTheWorkspaces(w, 'othr'),
  },
  // A command that points at, opens or writes into a workspace never makes a mistyped one (only
  // token create, collection create and ingest-docs set one up): refused, naming those there are.
  {
    name: 'console for a workspace that does not exist',
    args: (w) => ['console', '--workspace', 'othr', '--url', w.live.url],
    env: onServer,
    code: 2,
    says: () => NO_WORKSPACE('othr'),
    after: (w) => nothingMade(w, 'othr'),
  },
  {
    name: 'console in a DOCO_WORKSPACE that does not exist',
    args: (w) => ['console', '--url', w.live.url],
    env: (w) => ({ ...onServer(w), DOCO_WORKSPACE: 'othr' }),
    code: 2,
    says: () => NO_WORKSPACE('othr'),
    after: (w) => nothingMade(w, 'othr'),
  },
  {
    name: 'console for an agent whose name is in capitals',
    args: (w) => ['console', '--principal', 'AGENT:codex@shop', '--url', w.live.url],
    env: onServer,
    code: 1,
    error: 'forbidden',
    says: () => /^AGENT:codex@shop is an agent: the console is for people/,
    after: async (w) => {
      expect(await w.db.sql`select title from doco.nodes where node_type = 'principal' and lower(title) like 'agent:%'`).toEqual([]);
      expect(await w.db.sql`select 1 from doco.console_codes`).toEqual([]);
    },
  },
  {
    name: 'workspace set of a workspace that does not exist',
    args: () => ['workspace', 'set', '--agents-may-activate', 'true', '--workspace', 'othr'],
    env: onServer,
    code: 2,
    says: () => NO_WORKSPACE('othr'),
    after: (w) => nothingMade(w, 'othr'),
  },
  {
    name: 'collection set in a workspace that does not exist',
    args: () => ['collection', 'set', 'constitution', '--agents-may-activate', 'true', '--workspace', 'othr'],
    env: onServer,
    code: 2,
    says: () => NO_WORKSPACE('othr'),
    after: (w) => nothingMade(w, 'othr'),
  },
  {
    name: 'connector add into a workspace that does not exist',
    args: () => ['connector', 'add', 'github', '--installation-id', '42', '--repo', 'acme/shop', '--workspace', 'othr'],
    env: onServer,
    code: 2,
    says: () => NO_WORKSPACE('othr'),
    after: (w) => nothingMade(w, 'othr'),
  },
  {
    name: 'connector list of a workspace that does not exist',
    args: () => ['connector', 'list', '--workspace', 'othr'],
    env: onServer,
    code: 2,
    says: () => NO_WORKSPACE('othr'),
    after: (w) => nothingMade(w, 'othr'),
  },
  {
    name: 'capture into a workspace that does not exist',
    args: () => [
      'capture',
      '--workspace',
      'othr',
      '--collection',
      'constitution',
      '--type',
      'rule',
      '--title',
      'A rule',
      '--prose',
      'Say it.',
    ],
    env: onServer,
    code: 2,
    says: () => NO_WORKSPACE('othr'),
    after: (w) => nothingMade(w, 'othr'),
  },
  {
    name: 'relate in a DOCO_WORKSPACE that does not exist',
    args: () => ['relate', '--from', SOME_DECISION, '--to', SOME_RULE, '--type', 'constrained_by'],
    env: (w) => ({ ...onServer(w), DOCO_WORKSPACE: 'othr' }),
    code: 2,
    says: () => NO_WORKSPACE('othr'),
    after: (w) => nothingMade(w, 'othr'),
  },
  {
    name: 'changeset into a workspace that does not exist',
    args: () => ['changeset', '--workspace', 'othr'],
    env: onServer,
    stdin: JSON.stringify({
      collection: 'constitution',
      operations: [{ op: 'create', node_type: 'rule', title: 'A rule', prose: 'Say it.' }],
    }),
    code: 2,
    says: () => NO_WORKSPACE('othr'),
    after: (w) => nothingMade(w, 'othr'),
  },
  {
    name: 'hooks install into a workspace that does not exist, beside the local server',
    args: () => ['hooks', 'install', '--agent', 'claude-code', '--workspace', 'othr'],
    env: onServer,
    cwd: (w) => w.repo,
    code: 2,
    says: () => NO_WORKSPACE('othr'),
    after: async (w) => {
      await nothingMade(w, 'othr');
      expect(readdirSync(w.repo).sort()).toEqual(['.git']);
      expect(existsSync(path.join(w.repo, '.git', 'doco-hooks.json'))).toBe(false);
    },
  },
  {
    name: 'DOCO_HOOK_TIMEOUT_MS that is not a number, for a command other than the hook',
    args: () => ['brief', 'refunds'],
    env: () => ({ DOCO_HOOK_TIMEOUT_MS: 'abc' }),
    code: 2,
    says: () => /^doco: invalid configuration: DOCO_HOOK_TIMEOUT_MS: must be a whole number of milliseconds \(got "abc"\)$/,
  },
  {
    name: 'hooks install outside a git checkout',
    args: () => ['hooks', 'install', '--agent', 'claude-code'],
    code: 2,
    says: () => /^doco: doco hooks must run inside a git checkout$/,
  },
  {
    name: 'hooks install for an unknown agent',
    args: () => ['hooks', 'install', '--agent', 'nope'],
    code: 2,
    says: () => /^doco: unknown agent "nope": --agent claude-code\|codex\|gemini$/,
  },
];

let w: World;

/** The child runs on the empty home unless the case names another; nothing inherited points anywhere real. */
function run(args: string[], extra: NodeJS.ProcessEnv = {}, stdin?: string, cwd = w.bare): Promise<CliResult> {
  const env = w.empty.env({ DOCO_PORT: '', DOCO_DEBUG: '', DOCO_ADMIN_TOKEN: '', ...extra });
  return runDoco(args, { env, cwd, timeoutMs: 30_000, ...(stdin === undefined ? {} : { stdin }) });
}

const psqlInstalled = (() => {
  try {
    execFileSync('psql', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

beforeAll(async () => {
  const [db, serverHome, empty, serverless, bare, repo, closedPort] = await Promise.all([
    createTestDb(),
    DocoHome.make(),
    DocoHome.make(),
    DocoHome.make(),
    DocoHome.make(),
    DocoHome.make(),
    freePort(),
  ]);
  execFileSync('git', ['init', '-q'], { cwd: repo.dir });
  const live = await DocoServer.start(serverHome, { env: { DATABASE_URL: db.url } });
  const token = await serverHome.run(['token', 'create', '--scope', 'read'], { DATABASE_URL: db.url });
  if (token.code !== 0) throw new Error(`token create failed: ${token.stderr}`);
  w = { live, serverHome, db, empty, serverless, bare: bare.dir, repo: repo.dir, closedPort, readToken: token.stdout.trim() };
}, 120_000);

afterAll(async () => {
  if (w?.live.running) await w.live.stop();
  await w?.db.drop();
  await cleanUp();
});

describe('a mistake answers one line and its exit code, never a stack', () => {
  const answersOneLine = async (m: Mistake) => {
    const res = await run(m.args(w), m.env?.(w), m.stdin, m.cwd?.(w));
    const shown = `doco ${m.args(w).join(' ')} → ${res.code}\nstdout: ${res.stdout}\nstderr: ${res.stderr}`;
    const lines = res.stderr.split('\n');
    expect(
      lines.filter((l) => FRAME.test(l)),
      shown,
    ).toEqual([]);
    expect(res.stderr.endsWith('\n') && lines.length === 2 && lines[0] !== '', `one line on stderr: ${shown}`).toBe(true);
    expect(res.stdout, shown).toBe(m.stdout ?? '');
    expect(res.code, shown).toBe(m.code);
    if (m.error) {
      const body = JSON.parse(lines[0]!) as { error: { code: string; message: string } };
      expect(body.error.code, shown).toBe(m.error);
      expect(body.error.message, shown).toMatch(m.says(w));
    } else expect(lines[0], shown).toMatch(m.says(w));
    await m.after?.(w);
  };
  it.each(MISTAKES.map((m) => [m.name, m] as const))('%s', (_, m) => answersOneLine(m));

  it.skipIf(psqlInstalled)('psql when psql is not installed', async () => {
    const res = await run(['psql'], onServer(w));
    const shown = `stdout: ${res.stdout}\nstderr: ${res.stderr}`;
    expect(res.stderr, shown).toMatch(/^doco: psql is not installed \(Debian\/Ubuntu: apt-get install postgresql-client\)\n$/);
    expect(res.stdout, shown).toBe('');
    expect(res.code, shown).toBe(1);
  });

  it('DOCO_DEBUG=1 adds the stack after the same line', async () => {
    const url = `http://127.0.0.1:${w.closedPort}`;
    const res = await run(['search', 'refunds'], { DOCO_URL: url, DOCO_TOKEN: 'doco_unused', DOCO_DEBUG: '1' });
    const [first, ...rest] = res.stderr.split('\n');
    expect(first, res.stderr).toMatch(new RegExp(`^doco: cannot reach the Doco server at ${escape(url)} \\(ECONNREFUSED\\)`));
    expect(rest.filter((l) => FRAME.test(l)).length, res.stderr).toBeGreaterThan(0);
    expect(res.stdout).toBe('');
    expect(res.code).toBe(1);
  });
});
