// Row types of the doco schema, for Kysely. Keep in step with migrations/.
import type { ColumnType, Generated } from 'kysely';

type Json = ColumnType<Record<string, unknown>, string | Record<string, unknown>, string | Record<string, unknown>>;

export const NODE_TYPES = ['intent', 'idea', 'rule', 'decision', 'action', 'log', 'eval', 'reference', 'state', 'principal'] as const;
export type NodeType = (typeof NODE_TYPES)[number];
export const EDGE_TYPES = ['flows_to', 'supports', 'constrained_by', 'attributed_to', 'has_parent', 'derived_from', 'replaces', 'relates_to'] as const;
export type EdgeType = (typeof EDGE_TYPES)[number];
export const LIFECYCLES = ['drafting', 'queued', 'active', 'retired'] as const;
export type Lifecycle = (typeof LIFECYCLES)[number];
export const SOURCES = ['api', 'mcp', 'ui', 'slack', 'import', 'connector', 'ingest', 'cli', 'sql'] as const;
export type Source = (typeof SOURCES)[number];

export interface WorkspaceTable { id: string; slug: string; name: string; created_at: Generated<Date>; agents_may_activate: Generated<boolean> }
export interface TemplateTable {
  slug: string; name: string; description: string; allowed_types: string[];
  policies: ColumnType<Policy[], string, string>; default_goal: string;
}
export interface CollectionTable {
  id: string; workspace_id: string; slug: string; template: string; name: string; goal: string; created_at: Generated<Date>;
  agents_may_activate: Generated<boolean | null>;
  duplicates: Generated<'warn' | 'block'>;
}
export interface ChangesetTable {
  id: string; workspace_id: string; txid: Generated<string>; actor_id: string | null; source: Source;
  summary: string | null; created_at: Generated<Date>;
}
export interface NodeTable {
  id: string; workspace_id: string; collection_id: string; node_type: NodeType; lifecycle: Lifecycle;
  title: string; prose: string; body: Json; version: Generated<number>; hash: Generated<string>;
  prev_hash: Generated<string | null>; principal_id: string | null;
  changeset_id: Generated<string>; created_at: Generated<Date>; updated_at: Generated<Date>;
}
/** A record's PageRank (migration 0024); none: 0. */
export interface NodeRankTable {
  node_id: string; pagerank: number;
}
export interface NodeVersionTable {
  node_id: string; version: number; workspace_id: string; collection_id: string; node_type: NodeType;
  lifecycle: Lifecycle; title: string; prose: string; body: Json; principal_id: string | null;
  changeset_id: string; recorded_at: Date; hash: string; prev_hash: string | null;
}
export interface EdgeTable {
  id: string; workspace_id: string; from_id: string; to_id: string; edge_type: EdgeType; lifecycle: Lifecycle;
  version: Generated<number>; hash: Generated<string>; prev_hash: Generated<string | null>;
  principal_id: string | null; changeset_id: Generated<string>; created_at: Generated<Date>; updated_at: Generated<Date>;
}
export interface EdgeVersionTable {
  edge_id: string; version: number; workspace_id: string; from_id: string; to_id: string; edge_type: EdgeType;
  lifecycle: Lifecycle; principal_id: string | null; changeset_id: string; recorded_at: Date; hash: string; prev_hash: string | null;
}
export interface TouchTable { node_id: string; workspace_id: string; kind: 'path' | 'url' | 'record' | 'issue'; value: string }
export interface TokenTable {
  id: string; workspace_id: string; principal_id: string; scope: 'read' | 'write'; token_hash: string;
  label: string | null; created_at: Generated<Date>; revoked_at: Date | null;
}
export interface GlossaryTable {
  id: string; workspace_id: string; term: string; definition: string; node_ids: string[]; created_at: Generated<Date>;
}

export type Policy =
  | { id: string; kind: 'required_fields'; node_types?: string[]; fields: string[] }
  | { id: string; kind: 'judge'; node_types?: string[]; text: string; action: 'warn' | 'block' };

export interface Database {
  'doco.workspaces': WorkspaceTable;
  'doco.templates': TemplateTable;
  'doco.collections': CollectionTable;
  'doco.changesets': ChangesetTable;
  'doco.nodes': NodeTable;
  'doco.node_ranks': NodeRankTable;
  'doco.node_versions': NodeVersionTable;
  'doco.edges': EdgeTable;
  'doco.edge_versions': EdgeVersionTable;
  'doco.touches': TouchTable;
  'doco.tokens': TokenTable;
  'doco.glossary': GlossaryTable;
}
