-- The search side: chunks of record text (what the vector index holds), the outbox that feeds
-- the index from the writing transaction, stored briefs, and full-text search on records.

create sequence doco.chunk_seq;

create table doco.chunks (
  id            uuid primary key default gen_random_uuid(),
  workspace_id  text not null references doco.workspaces(id),
  collection_id text not null references doco.collections(id),
  node_id       text not null references doco.nodes(id),
  ordinal       integer not null check (ordinal >= 0),
  node_type     text not null,
  shape         text not null default '',
  source_kind   text not null default 'record',
  heading_path  text not null default '',
  body          text not null,
  embed_input   text not null,
  content_hash  text not null,
  embedder      text not null,
  seq           bigint not null default nextval('doco.chunk_seq'),
  updated_at    timestamptz not null default now(),
  unique (node_id, ordinal)
);
create index chunks_seq on doco.chunks (embedder, seq);
create index chunks_workspace on doco.chunks (workspace_id);
comment on table doco.chunks is 'Chunks of record text as indexed; content_hash covers embedder identity, embedding input and metadata.';

create table doco.outbox (
  id              bigserial primary key,
  node_id         text not null references doco.nodes(id),
  workspace_id    text not null references doco.workspaces(id),
  enqueued_at     timestamptz not null default now(),
  attempts        integer not null default 0,
  last_error      text,
  last_attempt_at timestamptz,
  next_attempt_at timestamptz not null default now()
);
create index outbox_due on doco.outbox (next_attempt_at, id);
create index outbox_node on doco.outbox (node_id);
comment on table doco.outbox is 'Records whose chunks must be (re)indexed; filled by trigger in the writing transaction, drained by the worker.';

create table doco.briefs (
  id           text primary key check (id ~ '^brief_[0-9A-HJKMNP-TV-Z]{26}$'),
  workspace_id text not null references doco.workspaces(id),
  principal_id text references doco.nodes(id),
  request      jsonb not null,
  response     jsonb not null,
  created_at   timestamptz not null default now()
);
create index briefs_workspace on doco.briefs (workspace_id, created_at desc);
comment on table doco.briefs is 'Every brief served, with its request and response, so receipts and commit trailers can link to it.';

alter table doco.nodes add column search_tsv tsvector generated always as (
  setweight(to_tsvector('english', title), 'A') ||
  setweight(to_tsvector('english', prose), 'B') ||
  setweight(jsonb_to_tsvector('english', body, '["string"]'), 'C')
) stored;
create index nodes_search_tsv on doco.nodes using gin (search_tsv);
