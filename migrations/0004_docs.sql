-- Doc ingestion (DESIGN §6, seeds 001 and 003): the manifest mapping each section_key to the
-- record it became, per source (the filesystem ingester, or one docs pack), the runs with their
-- reap outcome, and the registered docs packs.

create table doco.doc_manifest (
  workspace_id text not null references doco.workspaces(id),
  -- 'fs' for the filesystem ingester, 'pack:<code>' for a docs pack: sources never touch each
  -- other's sections.
  source       text not null check (source = 'fs' or source ~ '^pack:[a-z0-9][a-z0-9_-]{0,62}$'),
  section_key  text not null,
  path         text not null,
  hash         text not null,
  node_id      text not null references doco.nodes(id),
  updated_at   timestamptz not null default now(),
  primary key (workspace_id, source, section_key)
);
create index doc_manifest_path on doco.doc_manifest (workspace_id, source, path);
comment on table doco.doc_manifest is 'section_key → {hash, record} per source: create, update or skip on each ingest; reaped keys are dropped.';

create table doco.doc_ingest_runs (
  id              bigserial primary key,
  workspace_id    text not null references doco.workspaces(id),
  source          text not null,
  root            text,
  only_files      text[],
  started_at      timestamptz not null default now(),
  finished_at     timestamptz,
  files           integer,
  unreadable      text[],
  created         integer,
  updated         integer,
  skipped         integer,
  unchanged_files integer,
  reap_outcome    text check (reap_outcome in ('reaped', 'nothing_to_reap', 'refused')),
  reap_reason     text,
  reap_count      integer,
  error           text
);
create index doc_ingest_runs_recent on doco.doc_ingest_runs (workspace_id, started_at desc);
comment on table doco.doc_ingest_runs is 'Every doc ingest with its counts and reap outcome; a refused reap is a condition to act on.';

create table doco.docs_packs (
  workspace_id    text not null references doco.workspaces(id),
  code            text not null check (code ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  base_url        text not null,
  registered_at   timestamptz not null default now(),
  last_fetched_at timestamptz,
  last_hash       text,
  last_error      text,
  primary key (workspace_id, code)
);
comment on table doco.docs_packs is 'Services that registered a docs pack; re-pulled at start-up, ingested with stale delete scoped to their code.';
