// What the overview shows, read in parallel: records by lifecycle and type, this week's changes,
// the last chain check, the outbox, doc-ingest runs, docs packs, connectors and recent briefs;
// with DATABASE_READ_URL, the read replica's state as its last interval check found it.
import type { Sql } from '../../../db/connect.js';
import type { ReplicaStatus } from '../../../db/read-replica.js';
import { handshakeStatus, type HandshakeStatus } from '../../../connectors/notion/handshake.js';
import { listConnectors, readState, type ConnectorRow } from '../../../connectors/store.js';
import { listPacks, type PackRow } from '../../../ingest/packs/registry.js';
import { lastChainCheck, type ChainCheck } from './chain.js';
import { countPendingEdges } from './review.js';

export interface TypeCounts {
  node_type: string;
  drafting: number;
  queued: number;
  active: number;
  retired: number;
  total: number;
}

export interface IngestRun {
  id: string;
  source: string;
  root: string | null;
  status: string;
  started_at: Date;
  finished_at: Date | null;
  files: number | null;
  created: number | null;
  updated: number | null;
  skipped: number | null;
  unreadable: string[] | null;
  reap_outcome: string | null;
  reap_reason: string | null;
  reap_count: number | null;
  error: string | null;
}

export interface BriefSummary {
  id: string;
  created_at: Date;
  about: string;
  touching: string[];
  principal: string | null;
  receipt: string | null;
}

export interface Overview {
  types: TypeCounts[];
  changedThisWeek: number;
  /** Edges waiting for review (an agent's relations): the review queue lists them beside the records. */
  pendingRelations: number;
  recent: { id: string; title: string; node_type: string; lifecycle: string; version: number; updated_at: Date }[];
  chain: ChainCheck | undefined;
  outbox: { pending: number; failing: number; oldest: Date | null; last_error: string | null };
  runs: IngestRun[];
  packs: PackRow[];
  connectors: OverviewConnector[];
  briefs: BriefSummary[];
  /** Where briefs and searches read (DATABASE_READ_URL); undefined without a replica. */
  replica: ReplicaStatus | undefined;
}

/** A connector as the overview lists it; a Notion one with where its webhook handshake stands. */
export type OverviewConnector = ConnectorRow & { webhook?: HandshakeStatus };

/** `reveal`: Notion's verification token is shown (a person's write session, as with a write token over REST). */
async function overviewConnectors(sql: Sql, workspaceId: string, reveal: boolean): Promise<OverviewConnector[]> {
  const rows = await listConnectors(sql, workspaceId);
  return Promise.all(
    rows.map(async (row) =>
      row.kind === 'notion' ? { ...row, webhook: handshakeStatus(row, await readState(sql, row.id), { reveal }) } : row,
    ),
  );
}

export async function recentIngestRuns(sql: Sql, workspaceId: string, limit: number): Promise<IngestRun[]> {
  return sql<IngestRun[]>`
    select id::text, source, root, status, started_at, finished_at, files, created, updated, skipped, unreadable,
           reap_outcome, reap_reason, reap_count, error
      from doco.doc_ingest_runs where workspace_id = ${workspaceId} order by started_at desc, id desc limit ${limit}`;
}

export async function recentBriefs(sql: Sql, workspaceId: string, limit: number): Promise<BriefSummary[]> {
  return sql<BriefSummary[]>`
    select b.id, b.created_at, b.request->>'about' as about,
           coalesce(array(select jsonb_array_elements_text(coalesce(b.request->'touching', '[]'::jsonb))), '{}') as touching,
           p.title as principal, b.receipt
      from doco.briefs b left join doco.nodes p on p.id = b.principal_id
     where b.workspace_id = ${workspaceId}
     order by b.created_at desc limit ${limit}`;
}

export async function readOverview(
  sql: Sql,
  workspaceId: string,
  opts: { reveal: boolean; replica?: ReplicaStatus | undefined },
): Promise<Overview> {
  const [types, week, relations, recent, chain, outbox, runs, packs, connectors, briefs] = await Promise.all([
    sql<TypeCounts[]>`
      select node_type,
             count(*) filter (where lifecycle = 'drafting')::int as drafting, count(*) filter (where lifecycle = 'queued')::int as queued,
             count(*) filter (where lifecycle = 'active')::int as active, count(*) filter (where lifecycle = 'retired')::int as retired,
             count(*)::int as total
        from doco.nodes where workspace_id = ${workspaceId} and node_type <> 'principal'
       group by node_type order by count(*) desc, node_type`,
    sql<
      { n: number }[]
    >`select count(*)::int as n from doco.nodes where workspace_id = ${workspaceId} and updated_at > now() - interval '7 days' and node_type <> 'principal'`,
    countPendingEdges(sql, workspaceId),
    sql<Overview['recent']>`
      select id, title, node_type, lifecycle, version, updated_at from doco.nodes
       where workspace_id = ${workspaceId} and updated_at > now() - interval '7 days' and node_type <> 'principal'
       order by updated_at desc limit 8`,
    lastChainCheck(sql, workspaceId),
    sql<Overview['outbox'][]>`
      select count(*)::int as pending, count(*) filter (where last_error is not null)::int as failing, min(enqueued_at) as oldest,
             (array_agg(last_error order by last_attempt_at desc nulls last) filter (where last_error is not null))[1] as last_error
        from doco.outbox where workspace_id = ${workspaceId}`,
    recentIngestRuns(sql, workspaceId, 5),
    listPacks(sql, workspaceId),
    overviewConnectors(sql, workspaceId, opts.reveal),
    recentBriefs(sql, workspaceId, 6),
  ]);
  return {
    types,
    changedThisWeek: week[0]!.n,
    pendingRelations: relations,
    recent,
    chain,
    outbox: outbox[0]!,
    runs,
    packs,
    connectors,
    briefs,
    replica: opts.replica,
  };
}
