// Row types of the doco schema, for Kysely. GENERATED from the migrated schema by
// `npm run db:types` (scripts/db-types/): do not edit. What the catalog cannot say (the named
// unions, a jsonb column's shape, columns a trigger fills) is in scripts/db-types/refinements.ts;
// test/db/schema-types.test.ts fails when this file and migrations/ disagree.
import type { ColumnType, Generated, GeneratedAlways } from 'kysely';
import type { Policy } from './policy.js';

export type { Policy } from './policy.js';

/** jsonb holding an object (unless its check says array): read parsed, written as an object or JSON text. */
type Json = ColumnType<Record<string, unknown>, string | Record<string, unknown>, string | Record<string, unknown>>;
/** jsonb holding an array (its check says so). */
type JsonArray = ColumnType<unknown[], string | unknown[], string | unknown[]>;
/** A column typed by a ColumnType that has a default: an insert may leave it out (Generated<> for these). */
type Defaulted<C> = C extends ColumnType<infer S, infer I, infer U> ? ColumnType<S, I | undefined, U> : C;

/** The values of doco.nodes.node_type. */
export const NODE_TYPES = ['intent', 'idea', 'rule', 'decision', 'action', 'log', 'eval', 'reference', 'state', 'principal'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

/** The values of doco.edges.edge_type. */
export const EDGE_TYPES = ['flows_to', 'supports', 'constrained_by', 'attributed_to', 'has_parent', 'derived_from', 'replaces', 'relates_to'] as const;
export type EdgeType = (typeof EDGE_TYPES)[number];

/** The values of doco.nodes.lifecycle. */
export const LIFECYCLES = ['drafting', 'queued', 'active', 'retired'] as const;
export type Lifecycle = (typeof LIFECYCLES)[number];

/** The values of doco.changesets.source. */
export const SOURCES = ['api', 'mcp', 'ui', 'slack', 'import', 'connector', 'ingest', 'cli', 'sql'] as const;
export type Source = (typeof SOURCES)[number];

export interface BriefTable {
  id: string;
  workspace_id: string;
  principal_id: string | null;
  request: Json;
  response: Json | null;
  created_at: Generated<Date>;
  response_deflated: Buffer | null;
  receipt: string;
  item_ids: string[];
}

export interface ChainCheckTable {
  id: Generated<string>;
  workspace_id: string;
  principal_id: string | null;
  checked_at: Generated<Date>;
  intact: boolean;
  broken_links: number;
  first_break: string | null;
  elapsed_ms: number;
  via: Generated<'console' | 'cli'>;
}

export interface ChangesetTable {
  id: string;
  workspace_id: string;
  txid: Generated<string>;
  actor_id: string | null;
  source: Source;
  summary: string | null;
  created_at: Generated<Date>;
}

export interface ChunkTable {
  id: Generated<string>;
  workspace_id: string;
  collection_id: string;
  node_id: string;
  ordinal: number;
  node_type: string;
  shape: Generated<string>;
  source_kind: Generated<string>;
  heading_path: Generated<string>;
  body: string;
  embed_input: string | null;
  content_hash: string;
  embedder: string;
  seq: Generated<string>;
  updated_at: Generated<Date>;
  tokenizer: number;
  embed_before: Generated<string>;
  embed_after: Generated<string>;
}

export interface CollectionTable {
  id: string;
  workspace_id: string;
  slug: string;
  template: string;
  name: string;
  goal: string;
  created_at: Generated<Date>;
  agents_may_activate: boolean | null;
  duplicates: Generated<'warn' | 'block'>;
}

export interface ConnectorDeliveryTable {
  kind: string;
  delivery_id: string;
  connector_id: string | null;
  event: string;
  payload: Json | null;
  received_at: Generated<Date>;
  processed_at: Date | null;
  error: string | null;
  body_hash: string | null;
  job_queue: string | null;
}

export interface ConnectorItemCommentTable {
  workspace_id: string;
  kind: string;
  external_id: string;
  comment_id: string;
  author: Generated<string>;
  body: string;
  updated_at: Generated<Date>;
  remote_updated_at: Date | null;
  deleted: Generated<boolean>;
}

export interface ConnectorItemTable {
  workspace_id: string;
  kind: string;
  external_id: string;
  node_id: string;
  hash: string;
  meta: Defaulted<Json>;
  remote_updated_at: Date | null;
  updated_at: Generated<Date>;
  connector_id: string | null;
}

export interface ConnectorOwnerTable {
  kind: string;
  routing_key: string;
  workspace_id: string;
  claimed_at: Generated<Date>;
}

export interface ConnectorStateTable {
  connector_id: string;
  key: string;
  value: Json;
  updated_at: Generated<Date>;
}

export interface ConnectorTable {
  id: string;
  workspace_id: string;
  kind: string;
  routing_key: string;
  target: Generated<string>;
  config: Defaulted<Json>;
  status: Generated<'active' | 'paused'>;
  created_at: Generated<Date>;
  last_sync_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
}

export interface ConsoleCodeTable {
  code_hash: string;
  workspace_id: string;
  principal_id: string;
  scope: 'read' | 'write';
  created_at: Generated<Date>;
  expires_at: Date;
  used_at: Date | null;
}

export interface ConsoleKeyTable {
  id: number;
  secret: string;
  created_at: Generated<Date>;
}

export interface ConsoleSessionTable {
  id_hash: string;
  workspace_id: string;
  principal_id: string;
  scope: 'read' | 'write';
  token_id: string | null;
  created_at: Generated<Date>;
  expires_at: Date;
  signed_out_at: Date | null;
}

export interface DatabaseIdentityTable {
  only_row: Generated<boolean>;
  id: Generated<string>;
  created_at: Generated<Date>;
}

export interface DerivationBacklogTable {
  name: string;
  node_id: string;
}

export interface DerivationTable {
  name: string;
  fingerprint: string;
  pending: string | null;
  after_id: Generated<string | null>;
  updated_at: Generated<Date>;
}

export interface DocIngestRunTable {
  id: Generated<string>;
  workspace_id: string;
  source: string;
  root: string | null;
  only_files: string[] | null;
  started_at: Generated<Date>;
  finished_at: Date | null;
  files: number | null;
  unreadable: string[] | null;
  created: number | null;
  updated: number | null;
  skipped: number | null;
  unchanged_files: number | null;
  reap_outcome: 'reaped' | 'nothing_to_reap' | 'refused' | null;
  reap_reason: string | null;
  reap_count: number | null;
  error: string | null;
  secrets: Defaulted<JsonArray>;
  status: Generated<'running' | 'finished' | 'failed' | 'abandoned'>;
}

export interface DocManifestTable {
  workspace_id: string;
  source: string;
  section_key: string;
  path: string;
  hash: string;
  node_id: string;
  updated_at: Generated<Date>;
}

export interface DocsPackTable {
  workspace_id: string;
  code: string;
  base_url: string;
  registered_at: Generated<Date>;
  last_fetched_at: Date | null;
  last_hash: string | null;
  last_error: string | null;
  registered_over: Generated<'rest' | 'nats'>;
}

export interface EdgeVersionTable {
  edge_id: string;
  version: number;
  workspace_id: string;
  from_id: string;
  to_id: string;
  edge_type: EdgeType;
  lifecycle: Lifecycle;
  principal_id: string | null;
  changeset_id: string;
  recorded_at: Date;
  hash: string;
  prev_hash: string | null;
}

export interface EdgeTable {
  id: string;
  workspace_id: string;
  from_id: string;
  to_id: string;
  edge_type: EdgeType;
  lifecycle: Generated<Lifecycle>;
  version: Generated<number>;
  hash: Generated<string>;
  prev_hash: string | null;
  principal_id: string | null;
  changeset_id: Generated<string>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface GlossaryTable {
  id: string;
  workspace_id: string;
  term: string;
  definition: string;
  node_ids: Generated<string[]>;
  created_at: Generated<Date>;
}

export interface HookSentTable {
  workspace_id: string;
  session_id: string;
  node_id: string;
  version: number;
  sent_at: Generated<Date>;
  principal_id: string;
}

export interface HookSessionTable {
  workspace_id: string;
  session_id: string;
  agent: 'claude-code' | 'codex' | 'gemini';
  cwd: string;
  started_at: Generated<Date>;
  last_seen_at: Generated<Date>;
  checkout: string | null;
  principal_id: string;
}

export interface IndexPendingPointTable {
  point_id: string;
  node_id: string;
  embedder: string;
  created_at: Generated<Date>;
}

export interface IndexStatTable {
  workspace_id: string;
  chunks: Generated<string>;
  chars: Generated<string>;
  shard: Generated<number>;
}

export interface MigrationTable {
  name: string;
  checksum: string;
  applied_at: Generated<Date>;
}

export interface NodeRankTable {
  node_id: string;
  pagerank: number;
}

export interface NodeVersionTable {
  node_id: string;
  version: number;
  workspace_id: string;
  collection_id: string;
  node_type: NodeType;
  lifecycle: Lifecycle;
  title: string;
  prose: string;
  body: Json;
  principal_id: string | null;
  changeset_id: string;
  recorded_at: Date;
  hash: string;
  prev_hash: string | null;
}

export interface NodeTable {
  id: string;
  workspace_id: string;
  collection_id: string;
  node_type: NodeType;
  lifecycle: Generated<Lifecycle>;
  title: string;
  prose: Generated<string>;
  body: Defaulted<Json>;
  version: Generated<number>;
  hash: Generated<string>;
  prev_hash: string | null;
  principal_id: string | null;
  changeset_id: Generated<string>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  search_tsv: GeneratedAlways<string | null>;
  text_fingerprint: GeneratedAlways<string | null>;
}

export interface OutboxTable {
  id: Generated<string>;
  node_id: string;
  workspace_id: string;
  enqueued_at: Generated<Date>;
  attempts: Generated<number>;
  last_error: string | null;
  last_attempt_at: Date | null;
  next_attempt_at: Generated<Date>;
}

export interface OutboxClaimTable {
  outbox_id: string;
  claims: Generated<number>;
  last_claimed_at: Generated<Date>;
}

export interface PagerankDirtyTable {
  collection_id: string;
  marked_at: Generated<Date>;
}

export interface SqlFileTable {
  name: string;
  checksum: string;
  applied_at: Generated<Date>;
}

export interface TemplateTable {
  slug: string;
  name: string;
  description: string;
  allowed_types: string[];
  policies: Defaulted<ColumnType<Policy[], string, string>>;
  default_goal: string;
}

export interface TokenTable {
  id: string;
  workspace_id: string;
  principal_id: string;
  scope: 'read' | 'write';
  token_hash: string;
  label: string | null;
  created_at: Generated<Date>;
  revoked_at: Date | null;
  last_used_at: Date | null;
  minted_by: string | null;
}

export interface TouchTable {
  node_id: string;
  workspace_id: string;
  kind: 'path' | 'url' | 'record' | 'issue';
  value: string;
  inherited_from: string | null;
  links_only: Generated<boolean>;
}

export interface WorkerHeartbeatTable {
  worker_id: string;
  beat_at: Generated<Date>;
  started_at: Generated<Date>;
  host: Generated<string>;
  pid: number | null;
}

export interface WorkspaceTable {
  id: string;
  slug: string;
  name: string;
  created_at: Generated<Date>;
  agents_may_activate: Generated<boolean>;
}

export interface Database {
  'doco.briefs': BriefTable;
  'doco.chain_checks': ChainCheckTable;
  'doco.changesets': ChangesetTable;
  'doco.chunks': ChunkTable;
  'doco.collections': CollectionTable;
  'doco.connector_deliveries': ConnectorDeliveryTable;
  'doco.connector_item_comments': ConnectorItemCommentTable;
  'doco.connector_items': ConnectorItemTable;
  'doco.connector_owners': ConnectorOwnerTable;
  'doco.connector_state': ConnectorStateTable;
  'doco.connectors': ConnectorTable;
  'doco.console_codes': ConsoleCodeTable;
  'doco.console_keys': ConsoleKeyTable;
  'doco.console_sessions': ConsoleSessionTable;
  'doco.database_identity': DatabaseIdentityTable;
  'doco.derivation_backlog': DerivationBacklogTable;
  'doco.derivations': DerivationTable;
  'doco.doc_ingest_runs': DocIngestRunTable;
  'doco.doc_manifest': DocManifestTable;
  'doco.docs_packs': DocsPackTable;
  'doco.edge_versions': EdgeVersionTable;
  'doco.edges': EdgeTable;
  'doco.glossary': GlossaryTable;
  'doco.hook_sent': HookSentTable;
  'doco.hook_sessions': HookSessionTable;
  'doco.index_pending_points': IndexPendingPointTable;
  'doco.index_stats': IndexStatTable;
  'doco.migrations': MigrationTable;
  'doco.node_ranks': NodeRankTable;
  'doco.node_versions': NodeVersionTable;
  'doco.nodes': NodeTable;
  'doco.outbox': OutboxTable;
  'doco.outbox_claims': OutboxClaimTable;
  'doco.pagerank_dirty': PagerankDirtyTable;
  'doco.sql_files': SqlFileTable;
  'doco.templates': TemplateTable;
  'doco.tokens': TokenTable;
  'doco.touches': TouchTable;
  'doco.worker_heartbeats': WorkerHeartbeatTable;
  'doco.workspaces': WorkspaceTable;
}
