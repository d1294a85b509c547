// A Doco on the embedded defaults for benchmarks: a fresh embedded Postgres in a temporary
// DOCO_HOME (durable settings, as `doco serve` runs it), migrated, with the real HTTP server on
// a loopback port and a write token. startBenchCluster is the database half alone, for a suite
// that runs `doco serve` itself.
import { serve, type ServerType } from '@hono/node-server';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/http/app.js';
import { createToken } from '../src/auth/tokens.js';
import { connect, type DbHandles } from '../src/db/connect.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { migrate } from '../src/db/migrate.js';
import { ensurePrincipal, ensureWorkspace } from '../src/auth/workspaces.js';
import { noJudge } from '../src/providers/judge.js';
import { loadConfig } from '../src/config/environment.js';
import { makeSearchProviders, userCacheDir, type SearchProviders } from '../src/providers/from-config.js';

export interface BenchDoco extends DbHandles {
  providers: SearchProviders;
  baseUrl: string;
  token: string;
  workspaceId: string;
  post(path: string, body: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

export interface BenchCluster extends DbHandles {
  /** The throwaway DOCO_HOME: the cluster's data under pg/, removed by stop(). */
  home: string;
  /** The cluster's connection string (DATABASE_URL for a `doco serve` child). */
  url: string;
  /** The postmaster's pid, for reading its processes' memory. */
  postmasterPid: number;
  workspaceId: string;
  principalId: string;
  /** A write token of the bench principal. */
  token: string;
  stop(): Promise<void>;
}

/** The database half of a bench Doco: a fresh embedded cluster, migrated, a workspace and a write token. */
export async function startBenchCluster(): Promise<BenchCluster> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'doco-bench-'));
  await chmod(home, 0o755);
  const cluster = await startEmbeddedPostgres({ home });
  const handles = connect(cluster.url);
  await migrate(handles.sql, { connectionString: cluster.url });
  const workspaceId = await ensureWorkspace(handles.sql, 'bench');
  const principalId = await ensurePrincipal(handles.db, workspaceId, 'bench', 'cli');
  const token = await createToken(handles.db, { workspaceId, principalId, scope: 'write' });
  const postmasterPid = Number((await readFile(path.join(home, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0]);
  return {
    ...handles,
    home,
    url: cluster.url,
    postmasterPid,
    workspaceId,
    principalId,
    token,
    async stop() {
      await handles.close();
      await cluster.stop();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** The bench's search providers on the embedded defaults, their store under `home`. */
export function benchProviders(home: string): Promise<SearchProviders> {
  // The embedded defaults, but the local embedder is the environment's choice (to compare
  // them), and the converted word table is cached where it outlives this throwaway home.
  const { DOCO_LOCAL_EMBEDDER, DOCO_GLOVE_WEIGHT, DOCO_SCAN_THREADS, DOCO_CACHE_DIR = userCacheDir() } = process.env;
  return makeSearchProviders(loadConfig({ DOCO_HOME: home, DOCO_LOCAL_EMBEDDER, DOCO_GLOVE_WEIGHT, DOCO_SCAN_THREADS, DOCO_CACHE_DIR }));
}

/**
 * POSTs JSON with a bearer token over one kept-alive connection at a time, through node:http's
 * client rather than fetch: the client shares the server's thread, and fetch's own work (~1.3 ms
 * of CPU more a request, docs/eval.md, "Session 30") was timed as if it were the server's. And
 * fetch's failure said only "fetch failed" (the first 100k brief, in four of five runs on a
 * loaded machine, cause unknown): a failure here names the request and the socket's error code.
 */
export function postJson(baseUrl: string, token: string): BenchDoco['post'] {
  // An idle socket is dropped after 2 s, before the server's 5 s: a request never meets one it is closing.
  const agent = new http.Agent({ keepAlive: true, timeout: 2000 });
  const { hostname, port } = new URL(baseUrl);
  return (p, body) =>
    new Promise((resolve, reject) => {
      const payload = JSON.stringify(body);
      const headers = {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(payload),
      };
      const req = http.request({ hostname, port, path: p, method: 'POST', agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
        res.on('error', reject);
      });
      req.on('error', (err: NodeJS.ErrnoException) => reject(new Error(`POST ${p}: ${err.code ?? err.message}`, { cause: err })));
      req.end(payload);
    });
}

/** `githubWebhookSecret` turns on POST /webhooks/github, `slackSigningSecret` POST /webhooks/slack/events (the connectors suite). */
export async function startBenchDoco(opts: { githubWebhookSecret?: string; slackSigningSecret?: string } = {}): Promise<BenchDoco> {
  const cluster = await startBenchCluster();
  const { home, workspaceId, token } = cluster;
  const providers = await benchProviders(home);
  await providers.store.init(providers.embedder.identity, providers.embedder.dimensions);
  const app = buildApp({
    db: cluster.db,
    sql: cluster.sql,
    judge: noJudge,
    version: 'bench',
    ...providers,
    ...(opts.githubWebhookSecret ? { githubWebhookSecret: opts.githubWebhookSecret } : {}),
    ...(opts.slackSigningSecret ? { slackSigningSecret: opts.slackSigningSecret } : {}),
  });
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const { port } = server.address() as { port: number };
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    sql: cluster.sql,
    db: cluster.db,
    close: cluster.close,
    providers,
    baseUrl,
    token,
    workspaceId,
    post: postJson(baseUrl, token),
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await cluster.stop();
    },
  };
}
