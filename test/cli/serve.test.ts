// End to end through the built `doco` command: serve on the embedded default, write through
// REST and the CLI against the same database, verify, catch tampering, shut down cleanly.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCO_BIN, runDoco } from '../helpers/cli.js';

let home: string;
let env: NodeJS.ProcessEnv;
let server: ChildProcess;
let serverLog = '';
let baseUrl: string;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server never logged ${pattern}: ${serverLog}`)), timeoutMs);
    const check = () => {
      if (pattern.test(serverLog)) {
        clearTimeout(timer);
        resolve();
      } else setTimeout(check, 50);
    };
    check();
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'doco-cli-'));
  await chmod(home, 0o755);
  const port = await freePort();
  env = {
    DOCO_HOME: home,
    DOCO_PORT: String(port),
    DOCO_LOG_LEVEL: 'info',
    DATABASE_URL: '',
    ANTHROPIC_API_KEY: '',
    DOCO_PG_SHARED_BUFFERS: '96MB',
  };
  baseUrl = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, [DOCO_BIN, 'serve'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout!.on('data', (d) => (serverLog += d));
  server.stderr!.on('data', (d) => (serverLog += d));
  // Start-up (initdb, the embedded Postgres, the migrations) took over 30 s once on a machine
  // running other suites beside this one: the wait is bounded by the hook's own 60 s instead.
  await waitFor(/serving REST/, 55_000);
});

afterAll(async () => {
  if (server.exitCode === null) server.kill('SIGKILL');
  const pidFile = path.join(home, 'pg', 'postmaster.pid');
  if (existsSync(pidFile)) process.kill(Number((await readFile(pidFile, 'utf8')).split('\n')[0]), 'SIGQUIT');
  await rm(home, { recursive: true, force: true });
});

describe('doco serve and the CLI on one embedded database', () => {
  let token: string;
  const rest = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('serves health without a token', async () => {
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
  });

  it('writes through REST and the CLI, and reads history', async () => {
    const created = await runDoco(['token', 'create', '--scope', 'write'], { env });
    expect(created.code).toBe(0);
    token = created.stdout.trim();
    expect(token).toMatch(/^doco_\S+$/);

    expect((await rest('POST', '/api/v1/collections', { slug: 'decisions', template: 'product-decisions', goal: 'Billing' })).status).toBe(
      201,
    );
    const rule = await runDoco(
      [
        'capture',
        '--collection',
        'constitution',
        '--type',
        'rule',
        '--title',
        'Refunds over $500 need an owner',
        '--prose',
        'Any refund over $500 needs an owner approval.',
      ],
      { env },
    );
    expect(rule.code, rule.stderr).toBe(0);
    const ruleId = JSON.parse(rule.stdout).node.id as string;

    const decision = await rest('POST', '/api/v1/capture', {
      collection: 'decisions',
      node_type: 'decision',
      prose: 'Refunds go back to the card that paid.',
    });
    expect(decision.status).toBe(201);
    const decisionId = decision.body.node.id as string;

    const rel = await runDoco(['relate'], { env, stdin: JSON.stringify({ from: decisionId, to: ruleId, edge_type: 'constrained_by' }) });
    expect(rel.code, rel.stderr).toBe(0);
    expect(JSON.parse(rel.stdout).edge.edge_type).toBe('constrained_by');

    const sup = await runDoco(['changeset'], {
      env,
      stdin: JSON.stringify({
        collection: 'decisions',
        operations: [
          {
            op: 'supersede',
            target: decisionId,
            node_type: 'decision',
            body: { prose: 'Refunds, partial ones included, go back to the card.' },
          },
        ],
      }),
    });
    expect(sup.code, sup.stderr).toBe(0);

    const got = await runDoco(['get', decisionId], { env });
    const history = JSON.parse(got.stdout);
    expect(history.node.lifecycle).toBe('retired');
    expect(history.versions).toHaveLength(2);
    expect((await rest('GET', `/api/v1/nodes/${decisionId}/versions`)).body.versions).toHaveLength(2);
  });

  it('gives an operator psql on the same database', async () => {
    const res = await runDoco(['psql', '-At', '-c', 'select count(*) from doco.nodes where node_type = $$decision$$'], { env });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim()).toBe('2');
  });

  it("puts no password on psql's command line, which every user of the machine can read", async () => {
    // psql's \! runs a shell whose parent is psql: it prints psql's own arguments.
    const res = await runDoco(['psql', '-At', '-c', 'select 1', '-c', `\\! tr '\\0' ' ' < /proc/$PPID/cmdline`], { env });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^1\n\S*psql postgres:\/\/doco@127\.0\.0\.1:\d+\/doco -At -c select 1 -c /);
    expect(res.stdout).not.toMatch(/postgres:\/\/[^@\s]*:[^@\s]*@/);
  });

  it('starts the embedded Postgres with the page cache DOCO_PG_SHARED_BUFFERS asks for', async () => {
    const res = await runDoco(['psql', '-At', '-c', 'show shared_buffers'], { env });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim()).toBe('96MB');
  });

  it('catches a version row altered behind the triggers', async () => {
    expect((await runDoco(['verify'], { env })).code).toBe(0);
    // The intact check kept the chain's heads in the home, for the next to check against.
    const kept = Object.values(JSON.parse(readFileSync(path.join(env.DOCO_HOME!, 'chain-anchor.json'), 'utf8')));
    expect(kept).toEqual([expect.objectContaining({ versions: expect.any(Number), digest: expect.stringMatching(/^[0-9a-f]{64}$/) })]);
    const url = (await runDoco(['db-url'], { env })).stdout.trim();
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    const [victim] = await sql`select node_id from doco.node_versions where node_type = 'rule' limit 1`;
    await sql.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      await tx`update doco.node_versions set prose = 'Refunds of any size are fine.' where node_id = ${victim!.node_id}`;
    });
    await sql.end();
    const res = await runDoco(['verify'], { env });
    expect(res.code).toBe(1);
    expect(res.stdout).toContain(`BROKEN: node ${victim!.node_id} version 1`);
    const json = JSON.parse((await runDoco(['verify', '--json'], { env })).stdout);
    expect(json).toMatchObject({ ok: false, first_broken: { id: victim!.node_id } });
    // Every break is named, not the first alone.
    expect(json.broken_links).toHaveLength(json.broken);
    expect(json.broken_links[0]).toMatchObject({ id: victim!.node_id, version: 1 });
  });

  it('rejects bad usage and bad input with exit 2 and the error shape', async () => {
    expect((await runDoco(['frobnicate'], { env })).code).toBe(2);
    const bad = await runDoco(['capture'], { env, stdin: '{"collection":"decisions","node_type":"wish"}' });
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr).error.code).toBe('validation_failed');
    const badJson = await runDoco(['changeset'], { env, stdin: '{not json' });
    expect(badJson.code).toBe(2);
    const badEnv = await runDoco(['verify'], { env: { ...env, DOCO_PORT: 'eighty' } });
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toContain('DOCO_PORT');
  });

  it('writes no credential to its log: no token, no sign-in code, after a whole session', async () => {
    // A console link minted now, and the write token of the session above: neither may be in the log.
    const link = await runDoco(['console', '--url', baseUrl], { env });
    expect(link.code, link.stderr).toBe(0);
    const code = new URL(link.stdout.trim()).searchParams.get('code');
    expect(code).toBeTruthy();
    expect(serverLog).toContain('run `doco console` for a one-time sign-in link');
    expect(serverLog).not.toContain(token);
    expect(serverLog).not.toContain(code!);
    expect(serverLog).not.toMatch(/doco_[A-Za-z0-9_-]{16,}/);
    expect(serverLog).not.toMatch(/[?&]code=/);
  });

  it('shuts down cleanly on SIGINT: no orphan Postgres', async () => {
    const pid = Number((await readFile(path.join(home, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    expect(alive(pid)).toBe(true);
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(alive(pid)).toBe(false);
    expect(existsSync(path.join(home, 'server.json'))).toBe(false);
    expect(serverLog).toContain('stopped cleanly');
  });
});
