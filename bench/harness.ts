// A Doco on the embedded defaults for benchmarks: a fresh embedded Postgres in a temporary
// DOCO_HOME (durable settings, as `doco serve` runs it), migrated, with the real HTTP server on
// a loopback port and a write token.
import { serve, type ServerType } from '@hono/node-server';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/api/app.js';
import { createToken } from '../src/auth/tokens.js';
import { connect, type DbHandles } from '../src/db/connect.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { migrate } from '../src/db/migrate.js';
import { ensurePrincipal, ensureWorkspace } from '../src/graph/workspaces.js';
import { noJudge } from '../src/providers/judge.js';
import { loadConfig } from '../src/config.js';
import { makeSearchProviders, userCacheDir, type SearchProviders } from '../src/runtime/providers.js';

export interface BenchDoco extends DbHandles {
  providers: SearchProviders;
  baseUrl: string;
  token: string;
  workspaceId: string;
  post(path: string, body: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/** `githubWebhookSecret` turns on POST /webhooks/github (the connectors suite). */
export async function startBenchDoco(opts: { githubWebhookSecret?: string } = {}): Promise<BenchDoco> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'doco-bench-'));
  await chmod(home, 0o755);
  const cluster = await startEmbeddedPostgres({ home });
  const handles = connect(cluster.url);
  await migrate(handles.sql, { connectionString: cluster.url });
  const workspaceId = await ensureWorkspace(handles.db, 'bench');
  const principalId = await ensurePrincipal(handles.db, workspaceId, 'bench', 'cli');
  const token = await createToken(handles.db, { workspaceId, principalId, scope: 'write' });
  // The embedded defaults, but the local embedder is the environment's choice (to compare
  // them), and the converted word table is cached where it outlives this throwaway home.
  const { DOCO_LOCAL_EMBEDDER, DOCO_GLOVE_WEIGHT, DOCO_CACHE_DIR = userCacheDir() } = process.env;
  const providers = makeSearchProviders(loadConfig({ DOCO_HOME: home, DOCO_LOCAL_EMBEDDER, DOCO_GLOVE_WEIGHT, DOCO_CACHE_DIR }));
  await providers.store.init(providers.embedder.identity, providers.embedder.dimensions);
  const app = buildApp({ db: handles.db, sql: handles.sql, judge: noJudge, version: 'bench', ...providers, ...(opts.githubWebhookSecret ? { githubWebhookSecret: opts.githubWebhookSecret } : {}) });
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const { port } = server.address() as { port: number };
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    ...handles,
    providers,
    baseUrl,
    token,
    workspaceId,
    async post(p, body) {
      const res = await fetch(`${baseUrl}${p}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    },
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await handles.close();
      await cluster.stop();
      await rm(home, { recursive: true, force: true });
    },
  };
}
