-- The versioned knowledge graph: workspaces, collections, records (nodes), edges, their
-- append-only version rows, changesets, touches, glossary and tokens.
-- Functions, triggers and views live in sql/*.sql and are re-applied when they change.

create schema if not exists doco;

create table doco.workspaces (
  id         text primary key,
  slug       text not null unique check (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  name       text not null,
  created_at timestamptz not null default now()
);
comment on table doco.workspaces is 'A tenant: every record, edge, collection and token belongs to exactly one.';

create table doco.templates (
  slug          text primary key,
  name          text not null,
  description   text not null,
  allowed_types text[] not null,
  policies      jsonb not null default '[]',
  default_goal  text not null,
  check (allowed_types <@ array['intent','idea','rule','decision','action','log','eval','reference','state','principal'])
);
comment on table doco.templates is 'Built-in collection templates (sql/templates.sql): allowed record types and policies.';

create table doco.collections (
  id             text primary key,
  workspace_id   text not null references doco.workspaces(id),
  slug           text not null check (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  template       text not null references doco.templates(slug),
  name           text not null,
  goal           text not null,
  created_at     timestamptz not null default now(),
  unique (workspace_id, slug),
  unique (workspace_id, id)
);
create unique index collections_one_constitution on doco.collections (workspace_id) where template = 'constitution';
comment on table doco.collections is 'A workspace''s collections, each made from a template; one constitution per workspace.';

create table doco.changesets (
  id           text primary key check (id ~ '^changeset_[0-9A-HJKMNP-TV-Z]{26}$'),
  workspace_id text not null references doco.workspaces(id),
  txid         bigint not null default txid_current(),
  actor_id     text,
  source       text not null check (source in ('api','mcp','ui','slack','import','connector','ingest','cli','sql')),
  summary      text,
  created_at   timestamptz not null default now()
);
create index changesets_workspace on doco.changesets (workspace_id, created_at desc);
comment on table doco.changesets is 'One row per write transaction: who wrote, through what, in which Postgres transaction.';

create table doco.nodes (
  id            text primary key,
  workspace_id  text not null references doco.workspaces(id),
  collection_id text not null,
  node_type     text not null check (node_type in ('intent','idea','rule','decision','action','log','eval','reference','state','principal')),
  lifecycle     text not null default 'active' check (lifecycle in ('drafting','queued','active','retired')),
  title         text not null check (length(title) between 1 and 300),
  prose         text not null default '' check (length(prose) <= 100000),
  body          jsonb not null default '{}' check (jsonb_typeof(body) = 'object'),
  version       integer not null default 0,
  hash          text not null default '',
  prev_hash     text,
  pagerank      double precision not null default 0,
  principal_id  text references doco.nodes(id),
  changeset_id  text not null references doco.changesets(id),
  created_at    timestamptz not null default now(),
  updated_at    timestamptz not null default now(),
  check (id ~ ('^' || node_type || '_[0-9A-HJKMNP-TV-Z]{26}$')),
  foreign key (workspace_id, collection_id) references doco.collections(workspace_id, id)
);
create index nodes_collection on doco.nodes (collection_id, lifecycle);
create index nodes_workspace_type on doco.nodes (workspace_id, node_type, lifecycle);
create index nodes_updated on doco.nodes (workspace_id, updated_at desc);
create unique index nodes_one_principal_per_name on doco.nodes (workspace_id, lower(title)) where node_type = 'principal' and lifecycle <> 'retired';
comment on table doco.nodes is 'Records of ten types. Lifecycle, versions and hash chain are enforced by triggers.';

create table doco.node_versions (
  node_id       text not null references doco.nodes(id),
  version       integer not null check (version >= 1),
  workspace_id  text not null,
  collection_id text not null,
  node_type     text not null,
  lifecycle     text not null,
  title         text not null,
  prose         text not null,
  body          jsonb not null,
  principal_id  text,
  changeset_id  text not null references doco.changesets(id),
  recorded_at   timestamptz not null,
  hash          text not null,
  prev_hash     text,
  primary key (node_id, version)
);
comment on table doco.node_versions is 'Append-only history of every record; hash = sha256(prev_hash || canonical JSON).';

create table doco.edges (
  id           text primary key check (id ~ '^edge_[0-9A-HJKMNP-TV-Z]{26}$'),
  workspace_id text not null references doco.workspaces(id),
  from_id      text not null references doco.nodes(id),
  to_id        text not null references doco.nodes(id),
  edge_type    text not null check (edge_type in ('flows_to','supports','constrained_by','attributed_to','has_parent','derived_from','replaces','relates_to')),
  lifecycle    text not null default 'active' check (lifecycle in ('drafting','queued','active','retired')),
  version      integer not null default 0,
  hash         text not null default '',
  prev_hash    text,
  principal_id text references doco.nodes(id),
  changeset_id text not null references doco.changesets(id),
  created_at   timestamptz not null default now(),
  updated_at   timestamptz not null default now(),
  check (from_id <> to_id)
);
create unique index edges_one_live on doco.edges (from_id, to_id, edge_type) where lifecycle <> 'retired';
create index edges_to on doco.edges (to_id) where lifecycle <> 'retired';
create index edges_from on doco.edges (from_id) where lifecycle <> 'retired';
comment on table doco.edges is 'Typed edges between records of one workspace, with their own lifecycle and hash chain.';

create table doco.edge_versions (
  edge_id      text not null references doco.edges(id),
  version      integer not null check (version >= 1),
  workspace_id text not null,
  from_id      text not null,
  to_id        text not null,
  edge_type    text not null,
  lifecycle    text not null,
  principal_id text,
  changeset_id text not null references doco.changesets(id),
  recorded_at  timestamptz not null,
  hash         text not null,
  prev_hash    text,
  primary key (edge_id, version)
);
comment on table doco.edge_versions is 'Append-only history of every edge, hash-chained like node_versions.';

create table doco.touches (
  node_id      text not null references doco.nodes(id),
  workspace_id text not null,
  kind         text not null check (kind in ('path','url','record','issue')),
  value        text not null,
  primary key (node_id, kind, value)
);
create index touches_lookup on doco.touches (workspace_id, kind, value);
comment on table doco.touches is 'Paths, URLs, record ids and issue numbers each record names; kept by trigger.';

create table doco.pagerank_dirty (
  collection_id text primary key references doco.collections(id),
  marked_at     timestamptz not null default now()
);
comment on table doco.pagerank_dirty is 'Collections whose live edges changed since the last PageRank sweep.';

create table doco.glossary (
  id           text primary key,
  workspace_id text not null references doco.workspaces(id),
  term         text not null check (length(term) between 1 and 200),
  definition   text not null,
  node_ids     text[] not null default '{}',
  created_at   timestamptz not null default now()
);
create unique index glossary_term on doco.glossary (workspace_id, lower(term));
comment on table doco.glossary is 'Terms with definitions pointing at records; the brief''s glossary retriever matches them.';

create table doco.tokens (
  id           text primary key,
  workspace_id text not null references doco.workspaces(id),
  principal_id text not null references doco.nodes(id),
  scope        text not null check (scope in ('read','write')),
  token_hash   text not null unique,
  label        text,
  created_at   timestamptz not null default now(),
  revoked_at   timestamptz
);
comment on table doco.tokens is 'Bearer tokens, stored as sha256 hashes, bound to one workspace, principal and scope.';
