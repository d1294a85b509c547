// A small workspace for console tests: a product-decisions collection, an active decision with
// a second version, records an agent left queued or drafting, and helpers to capture more.
import { capture, changeset } from '../../src/graph/writes.js';
import { createCollection } from '../../src/graph/collections.js';
import { ensurePrincipal } from '../../src/auth/workspaces.js';
import { noJudge } from '../../src/providers/judge.js';
import { makeApp, makeWorkspace, type TestWorkspace } from './app.js';
import { signedIn, type ConsoleClient } from './console.js';
import { createTestDb, type TestDb } from './db.js';

export async function agentCapture(
  t: TestDb,
  ws: TestWorkspace,
  input: {
    title: string;
    prose: string;
    lifecycle: 'drafting' | 'queued';
    node_type?: string;
    collection?: string;
    body?: Record<string, unknown>;
  },
) {
  const agent = await ensurePrincipal(t.db, ws.id, 'agent:claude-code@checkout', 'mcp');
  const result = await capture(
    { db: t.db, judge: noJudge },
    { workspaceId: ws.id, principalId: agent, source: 'mcp' },
    {
      collection: input.collection ?? 'product-decisions',
      node_type: input.node_type ?? 'decision',
      title: input.title,
      prose: input.prose,
      lifecycle: input.lifecycle,
      ...(input.body ? { body: input.body } : {}),
    },
  );
  return result.node.id;
}

/** A relation an agent proposes (it waits in the review queue): the edge's id. */
export async function agentRelate(t: TestDb, ws: TestWorkspace, from: string, to: string, edge_type = 'supports') {
  const result = await agentChangeset(t, ws, [{ op: 'relate', from, to, edge_type }]);
  return result.edges[0]!.id;
}

/** A changeset written as the agent agentCapture and agentRelate write as (over MCP). */
export async function agentChangeset(t: TestDb, ws: TestWorkspace, operations: Record<string, unknown>[]) {
  const agent = await ensurePrincipal(t.db, ws.id, 'agent:claude-code@checkout', 'mcp');
  return changeset({ db: t.db, judge: noJudge }, { workspaceId: ws.id, principalId: agent, source: 'mcp' }, { operations });
}

/** An active record written by the workspace's person (an agent's write would wait in the queue). */
export async function personCapture(
  t: TestDb,
  ws: { id: string; principalId: string },
  input: { title: string; prose: string; node_type?: string; collection?: string; body?: Record<string, unknown> },
) {
  const result = await capture(
    { db: t.db, judge: noJudge },
    { workspaceId: ws.id, principalId: ws.principalId, source: 'api' },
    {
      collection: input.collection ?? 'product-decisions',
      node_type: input.node_type ?? 'decision',
      title: input.title,
      prose: input.prose,
      ...(input.body ? { body: input.body } : {}),
    },
  );
  return result.node.id;
}

export async function seedConsole(t: TestDb, ws: TestWorkspace) {
  await createCollection(t.db, ws.id, { slug: 'product-decisions', template: 'product-decisions', goal: 'How billing works' });
  const ctx = { workspaceId: ws.id, principalId: ws.principalId, source: 'api' as const };
  const deps = { db: t.db, judge: noJudge };
  const decision = (
    await capture(deps, ctx, {
      collection: 'product-decisions',
      node_type: 'decision',
      title: 'Refunds go back to the card',
      prose: 'Refunds go back to the card that paid, never as store credit.',
      body: { question: 'How do customers get their money back?' },
    })
  ).node.id;
  await changeset(deps, ctx, { operations: [{ op: 'append', target: decision, prose: 'Partial refunds included.' }] });
  const queued = await agentCapture(t, ws, {
    title: 'Card refunds',
    prose: 'When refunding, the card fee is kept by us.',
    lifecycle: 'queued',
  });
  const drafting = await agentCapture(t, ws, {
    title: 'Webhook retries back off',
    prose: 'Webhook deliveries retry with exponential backoff up to an hour.',
    lifecycle: 'drafting',
  });
  return { decision, queued, drafting };
}

export interface ConsoleFixture {
  t: TestDb;
  /** The signed-in workspace, seeded by seedConsole. */
  ws: TestWorkspace;
  /** Another workspace, whose records and tokens the console must never show. */
  other: TestWorkspace;
  app: ReturnType<typeof makeApp>;
  seed: Awaited<ReturnType<typeof seedConsole>>;
  /** Signed in to `ws` with a write session. */
  client: ConsoleClient;
}

/** A fresh database with a seeded workspace, a second one, the app and a signed-in client. */
export async function startConsoleFixture(name: string): Promise<ConsoleFixture> {
  const t = await createTestDb();
  const ws = await makeWorkspace(t, name);
  const other = await makeWorkspace(t, `${name}-other`);
  const app = makeApp(t);
  const seed = await seedConsole(t, ws);
  const client = await signedIn(t, app.app, ws);
  return { t, ws, other, app, seed, client };
}

/** A record's or relation's version now, as the review page shows it beside its buttons. */
export async function versionOf(t: TestDb, id: string): Promise<number> {
  const [row] = await t.sql<{ version: number }[]>`
    select version from doco.nodes where id = ${id} union all select version from doco.edges where id = ${id}`;
  return row!.version;
}
/** "ID VERSION", as a review button names what it acts on. */
export const shown = async (t: TestDb, id: string) => `${id} ${await versionOf(t, id)}`;
/** "ID@VERSION", as a review checkbox's value. */
export const selected = async (t: TestDb, id: string) => `${id}@${await versionOf(t, id)}`;
