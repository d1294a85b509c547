-- Connectors (DESIGN §6, issue 10): the configured connectors of every kind, their cursors and
-- state, the records their items became, and the webhook deliveries seen (for dedup).
-- Generic by kind: GitHub is the first; Slack, Notion and Drive add rows, not tables.

create table doco.connectors (
  id            text primary key check (id ~ '^connector_[0-9A-HJKMNP-TV-Z]{26}$'),
  workspace_id  text not null references doco.workspaces(id),
  kind          text not null check (kind ~ '^[a-z][a-z0-9_]{0,30}$'),
  -- How an incoming event finds its connector: a GitHub installation id, a Slack team_id.
  routing_key   text not null check (routing_key <> ''),
  -- What within the routing key this connector copies: a GitHub repository (owner/name,
  -- lowercase), a Slack channel; '' for everything the key reaches.
  target        text not null default '',
  config        jsonb not null default '{}'::jsonb check (jsonb_typeof(config) = 'object'),
  status        text not null default 'active' check (status in ('active', 'paused')),
  created_at    timestamptz not null default now(),
  last_sync_at  timestamptz,
  last_error    text,
  last_error_at timestamptz,
  unique (kind, routing_key, target)
);
create index connectors_by_workspace on doco.connectors (workspace_id, kind);
comment on table doco.connectors is 'One row per configured connector: its kind, workspace, routing key (installation id, team id), target (repo, channel) and non-secret config. Secrets live in env or files, never here.';
comment on column doco.connectors.last_error is 'The last sync''s failure, kept until a sync succeeds; never holds a credential.';

-- Cursors and other state, one row per (connector, key): advanced in the transaction that commits
-- the batch they cover, never before.
create table doco.connector_state (
  connector_id text not null references doco.connectors(id) on delete cascade,
  key          text not null check (key <> ''),
  value        jsonb not null,
  updated_at   timestamptz not null default now(),
  primary key (connector_id, key)
);
comment on table doco.connector_state is 'Per-connector cursors and state (issues_since, pulls_since, ETags), written only with the batch they describe.';

-- An external item (a PR or issue, a Slack thread) → the one record it became. Keyed by
-- workspace and kind rather than connector, so removing and re-adding a connector finds its
-- records again instead of duplicating them.
create table doco.connector_items (
  workspace_id      text not null references doco.workspaces(id),
  kind              text not null,
  external_id       text not null check (external_id <> ''),
  node_id           text not null references doco.nodes(id),
  hash              text not null,
  meta              jsonb not null default '{}'::jsonb,
  remote_updated_at timestamptz,
  updated_at        timestamptz not null default now(),
  primary key (workspace_id, kind, external_id)
);
create index connector_items_node on doco.connector_items (node_id);
comment on table doco.connector_items is 'external id (owner/repo#N, channel:thread_ts) → record, with the hash of what was last written: equal hash, nothing to write.';

-- Comments and reviews on an item, joined into its record's text (bounded) rather than made
-- records of their own. One holding a credential is never stored here.
create table doco.connector_item_comments (
  workspace_id text not null references doco.workspaces(id),
  kind         text not null,
  external_id  text not null,
  comment_id   text not null check (comment_id <> ''),
  author       text not null default '',
  body         text not null,
  updated_at   timestamptz not null default now(),
  primary key (workspace_id, kind, external_id, comment_id)
);
comment on table doco.connector_item_comments is 'Comments and reviews of an item (a PR''s review, an issue comment), shown in its record''s text; the newest few, each cut short.';

-- Webhook deliveries seen: a redelivery (same id) is acknowledged and dropped. The payload is kept
-- until its job has processed it, then cleared.
create table doco.connector_deliveries (
  kind          text not null,
  delivery_id   text not null check (delivery_id <> '' and length(delivery_id) <= 200),
  connector_id  text references doco.connectors(id) on delete cascade,
  event         text not null,
  payload       jsonb,
  received_at   timestamptz not null default now(),
  processed_at  timestamptz,
  error         text,
  primary key (kind, delivery_id)
);
create index connector_deliveries_received on doco.connector_deliveries (received_at);
comment on table doco.connector_deliveries is 'Webhook deliveries by id (X-GitHub-Delivery, Slack event_id): dedup on redelivery; payload cleared once processed.';
