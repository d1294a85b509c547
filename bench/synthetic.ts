// A synthetic team knowledge base for benchmarks: services with their own vocabulary, files
// and issues; docs of several chunks, decisions, rules, work in flight; edges within a service,
// a glossary. Deterministic for a seed, so runs compare.
import type { Sql } from '../src/db/connect.js';
import { newId } from '../src/lib/ids.js';

const SERVICES = [
  'billing',
  'auth',
  'search',
  'notifications',
  'ledger',
  'reports',
  'webhooks',
  'payouts',
  'onboarding',
  'audit',
  'catalog',
  'pricing',
  'tax',
  'exports',
  'gateway',
  'scheduler',
  'storage',
  'sessions',
  'accounts',
  'fraud',
];
const NOUNS = [
  'invoice',
  'refund',
  'token',
  'session',
  'queue',
  'retry',
  'ledger entry',
  'webhook',
  'cursor',
  'batch',
  'schema',
  'migration',
  'cache',
  'quota',
  'tenant',
  'currency',
  'receipt',
  'payout',
  'subscription',
  'audit log',
  'export',
  'index',
  'shard',
  'lock',
];
const VERBS = [
  'validates',
  'retries',
  'records',
  'rejects',
  'caches',
  'signs',
  'reconciles',
  'publishes',
  'throttles',
  'archives',
  'encrypts',
  'batches',
];
const WHEN = [
  'when the customer cancels',
  'before the nightly close',
  'after a failed charge',
  'during a deploy',
  'when the tenant is suspended',
  'on every write',
  'if the clock skews',
  'once the webhook is acknowledged',
  'while a migration runs',
  'before anything leaves the region',
];
const WHY = [
  'so that totals always reconcile',
  'because the auditors read it',
  'to keep the p95 under budget',
  'since retries must be idempotent',
  'so support can answer the customer',
  'because the partner API rate-limits us',
  'to avoid double charges',
  'so rollbacks stay safe',
];

/** A small deterministic PRNG (mulberry32). */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
  };
}

type Rng = ReturnType<typeof rng>;

const fileOf = (r: Rng, svc: string) =>
  r.pick([
    `services/${svc}/${r.pick(NOUNS).replace(/ /g, '_')}.go`,
    `web/app/routes/${svc}.tsx`,
    `services/${svc}/handlers/${r.pick(VERBS)}.go`,
    `docs/${svc}/README.md`,
  ]);

function sentence(r: Rng, svc: string): string {
  const parts = [`The ${svc} service ${r.pick(VERBS)} every ${r.pick(NOUNS)} ${r.pick(WHEN)}, ${r.pick(WHY)}.`];
  if (r.next() < 0.3) parts.push(`See ${fileOf(r, svc)}.`);
  if (r.next() < 0.1) parts.push(`Tracked in #${r.int(100, 5000)}.`);
  return parts.join(' ');
}

function paragraph(r: Rng, svc: string, sentences: number): string {
  return Array.from({ length: sentences }, () => sentence(r, svc)).join(' ');
}

export interface SyntheticRecord {
  id: string;
  collection: string;
  node_type: string;
  title: string;
  prose: string;
  body: Record<string, unknown>;
  svc: string;
}

export interface SyntheticCorpus {
  collections: { slug: string; template: string }[];
  records: SyntheticRecord[];
  edges: { from: string; to: string; edge_type: string }[];
  glossary: { term: string; definition: string; node_ids: string[] }[];
  asks: { about: string; touching: string[] }[];
}

export function generateCorpus(records: number, seed = 7): SyntheticCorpus {
  const r = rng(seed);
  const collections = [
    { slug: 'constitution', template: 'constitution' },
    ...SERVICES.flatMap((svc) => [
      { slug: `${svc}-docs`, template: 'documentation' },
      // Rules and decisions: a template that allows both (sql/template_rules.sql holds SQL inserts to it).
      { slug: `${svc}-decisions`, template: 'architecture-principles' },
      { slug: `${svc}-work`, template: 'backlog' },
    ]),
  ];
  const out: SyntheticRecord[] = [];
  for (let i = 0; i < records; i++) {
    const svc = SERVICES[i % SERVICES.length]!;
    const roll = r.next();
    const [node_type, collection, paragraphs] =
      i < 30
        ? (['rule', 'constitution', 1] as const)
        : roll < 0.5
          ? (['reference', `${svc}-docs`, r.int(4, 9)] as const)
          : roll < 0.65
            ? (['decision', `${svc}-decisions`, r.int(1, 3)] as const)
            : roll < 0.7
              ? (['rule', `${svc}-decisions`, 1] as const)
              : (['state', `${svc}-work`, r.int(1, 2)] as const);
    const prose = Array.from({ length: paragraphs }, () => paragraph(r, svc, r.int(3, 6))).join('\n\n');
    const body: Record<string, unknown> = node_type === 'decision' ? { question: `How should ${svc} handle ${r.pick(NOUNS)}s?` } : {};
    out.push({ id: newId(node_type), collection, node_type, title: `${svc}: ${r.pick(NOUNS)} ${r.pick(VERBS)} (${i})`, prose, body, svc });
  }
  const bySvc = new Map<string, SyntheticRecord[]>();
  for (const rec of out) bySvc.set(rec.svc, [...(bySvc.get(rec.svc) ?? []), rec]);
  const edges: SyntheticCorpus['edges'] = [];
  for (const rec of out) {
    const peers = bySvc.get(rec.svc)!;
    const n = r.int(0, 3);
    for (let k = 0; k < n; k++) {
      const other = r.pick(peers);
      if (other.id !== rec.id)
        edges.push({
          from: rec.id,
          to: other.id,
          edge_type:
            rec.node_type === 'decision' && other.node_type === 'rule'
              ? 'constrained_by'
              : r.pick(['relates_to', 'supports', 'derived_from']),
        });
    }
  }
  const seen = new Set<string>();
  const uniqueEdges = edges.filter((e) => {
    const key = `${e.from}|${e.to}|${e.edge_type}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const glossary = NOUNS.flatMap((noun) =>
    SERVICES.slice(0, 12).map((svc) => ({
      term: `${svc} ${noun}`,
      definition: `What the ${svc} service means by ${noun}.`,
      node_ids: [r.pick(bySvc.get(svc)!).id],
    })),
  );
  const asks = Array.from({ length: 120 }, () => {
    const svc = r.pick(SERVICES);
    return {
      about: `Change how the ${svc} service ${r.pick(VERBS)} ${r.pick(NOUNS)}s ${r.pick(WHEN)}`,
      touching: r.next() < 0.5 ? [fileOf(r, svc)] : [],
    };
  });
  return { collections, records: out, edges: uniqueEdges, glossary, asks };
}

/**
 * How records reach the table, which decides where each lands in the heap (and so how many pages
 * a query visits for the records of one service). `round-robin`: in generation order, every 20th
 * record one service's (the worst case for locality). `bursts`: runs of 1–100 records of one
 * service, the runs of all services interleaved at random, as ingest runs and connector pages
 * write them. The records are the same either way.
 */
export type ArrivalOrder = 'bursts' | 'round-robin';

export function arrivalOrder(records: SyntheticRecord[], order: ArrivalOrder, seed = 13): SyntheticRecord[] {
  if (order === 'round-robin') return records;
  const r = rng(seed);
  // The constitution is written first, as a workspace starts.
  const first = records.filter((rec) => rec.collection === 'constitution');
  const queues = new Map<string, SyntheticRecord[]>();
  for (const rec of records) {
    if (rec.collection === 'constitution') continue;
    const q = queues.get(rec.svc);
    if (q) q.push(rec);
    else queues.set(rec.svc, [rec]);
  }
  const out = [...first];
  const left = [...queues.values()].map((q) => ({ q, at: 0 }));
  while (left.length) {
    const k = r.int(0, left.length - 1);
    const run = left[k]!;
    const n = r.int(1, 100);
    out.push(...run.q.slice(run.at, run.at + n));
    run.at += n;
    if (run.at >= run.q.length) left.splice(k, 1);
  }
  return out;
}

/** Loads a corpus straight through SQL (the triggers still version, touch and outbox it), in bursts unless asked otherwise. */
export async function loadCorpus(sql: Sql, workspaceId: string, corpus: SyntheticCorpus, order: ArrivalOrder = 'bursts'): Promise<void> {
  const collectionIds = new Map<string, string>();
  for (const c of corpus.collections) {
    const [row] = await sql<{ id: string }[]>`
      insert into doco.collections (id, workspace_id, slug, template, name, goal)
      values (${newId('collection')}, ${workspaceId}, ${c.slug}, ${c.template}, ${c.slug}, ${`Benchmark ${c.slug}`})
      on conflict (workspace_id, slug) do update set name = excluded.name returning id`;
    collectionIds.set(c.slug, row!.id);
  }
  const inBatches = async <T>(items: T[], size: number, fn: (tx: Sql, batch: T[]) => Promise<unknown>) => {
    for (let i = 0; i < items.length; i += size) {
      await sql.begin(async (tx) => {
        const cs = newId('changeset');
        await tx`insert into doco.changesets (id, workspace_id, source, summary) values (${cs}, ${workspaceId}, 'import', 'benchmark corpus')`;
        await tx`select set_config('doco.changeset_id', ${cs}, true)`;
        await fn(tx as unknown as Sql, items.slice(i, i + size));
      });
    }
  };
  await inBatches(
    arrivalOrder(corpus.records, order),
    1000,
    (tx, batch) =>
      tx`insert into doco.nodes ${tx(
        batch.map((rec) => ({
          id: rec.id,
          workspace_id: workspaceId,
          collection_id: collectionIds.get(rec.collection)!,
          node_type: rec.node_type,
          lifecycle: 'active',
          title: rec.title,
          prose: rec.prose,
          body: tx.json(rec.body as never),
        })),
      )}`,
  );
  await inBatches(
    corpus.edges,
    2000,
    (tx, batch) =>
      tx`insert into doco.edges ${tx(batch.map((e) => ({ id: newId('edge'), workspace_id: workspaceId, from_id: e.from, to_id: e.to, edge_type: e.edge_type, lifecycle: 'active' })))}`,
  );
  for (const g of corpus.glossary) {
    await sql`insert into doco.glossary (id, workspace_id, term, definition, node_ids) values (${newId('term')}, ${workspaceId}, ${g.term}, ${g.definition}, ${g.node_ids}) on conflict do nothing`;
  }
  await sql`select doco.pagerank_sweep()`;
}
