// A Hono app over a per-file test database, with tokens for a workspace, and request helpers
// that go through app.request() (the real HTTP handling, in process).
import { buildApp } from '../../src/http/app.js';
import type { AppDeps } from '../../src/http/deps.js';
import { createToken } from '../../src/auth/tokens.js';
import { ensurePrincipal, ensureWorkspace } from '../../src/auth/workspaces.js';
import { noJudge, type PolicyJudge } from '../../src/providers/judge.js';
import type { TestDb } from './db.js';
import { localProviders } from './search.js';
import type { SearchProviders } from '../../src/providers/from-config.js';

export interface TestWorkspace {
  id: string;
  slug: string;
  principalId: string;
  writeToken: string;
  readToken: string;
}

export async function makeWorkspace(t: TestDb, slug: string): Promise<TestWorkspace> {
  const id = await ensureWorkspace(t.sql, slug);
  const principalId = await ensurePrincipal(t.db, id, `tester-${slug}`, 'cli');
  return {
    id,
    slug,
    principalId,
    writeToken: await createToken(t.db, { workspaceId: id, principalId, scope: 'write' }),
    readToken: await createToken(t.db, { workspaceId: id, principalId, scope: 'read' }),
  };
}

/** `extra`: more of what main.ts hands the app (e.g. `packHosts`, the operator's DOCO_PACK_HOSTS). */
export function makeApp(
  t: TestDb,
  judge: PolicyJudge = noJudge,
  providers: SearchProviders = localProviders(),
  extra: Partial<AppDeps> = {},
) {
  const deps: AppDeps = { db: t.db, sql: t.sql, judge, version: 'test', ...providers, ...extra };
  const app = buildApp(deps);
  const call = async (method: string, path: string, token: string | undefined, body?: unknown) => {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await app.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  return { app, deps, call };
}

/** Row counts of everything a write can touch: a rejected write must leave them all unchanged. */
export async function graphCounts(t: TestDb) {
  const [row] = await t.sql`
    select (select count(*) from doco.nodes)::int as nodes, (select count(*) from doco.edges)::int as edges,
           (select count(*) from doco.node_versions)::int as node_versions, (select count(*) from doco.edge_versions)::int as edge_versions,
           (select count(*) from doco.changesets)::int as changesets, (select count(*) from doco.collections)::int as collections`;
  return row;
}
