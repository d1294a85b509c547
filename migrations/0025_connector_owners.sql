-- Connectors (issue 25): one owner per deployment credential, and GitHub replays seen by body.
--
-- The Notion integration (NOTION_TOKEN), the Drive account and the Slack bot (one Slack team)
-- are the deployment's, and reach everything shared with them: the first workspace to add a
-- connector on one holds it, and another workspace's connector on it is refused
-- (sql/connectors.sql, tg_connectors__claim_credential). The claim is a row here, so two
-- workspaces adding at once meet on its primary key and exactly one wins.

create table doco.connector_owners (
  kind         text not null,
  routing_key  text not null,
  workspace_id text not null references doco.workspaces(id),
  claimed_at   timestamptz not null default now(),
  primary key (kind, routing_key)
);
comment on table doco.connector_owners is 'Which workspace holds each deployment credential (notion integration, drive account, slack team): the first to add a connector on it; let go when its last connector on it is removed.';

-- Connectors added before this rule: the earliest workspace on each credential holds it. A
-- second workspace's connectors stay until someone removes them (doco connector list shows
-- each connector's workspace).
insert into doco.connector_owners (kind, routing_key, workspace_id, claimed_at)
select distinct on (kind, routing_key) kind, routing_key, workspace_id, created_at
  from doco.connectors
 where kind in ('notion', 'drive', 'slack')
 order by kind, routing_key, created_at, id;

-- GitHub signs the body only, not X-GitHub-Delivery or X-GitHub-Event: a captured delivery sent
-- again under a new delivery id is known by the hash of its event name and body.
alter table doco.connector_deliveries add column body_hash text check (body_hash ~ '^[0-9a-f]{64}$');
create unique index connector_deliveries_body on doco.connector_deliveries (kind, body_hash) where body_hash is not null;
comment on column doco.connector_deliveries.body_hash is 'GitHub: sha256 of the event name and the raw body; a second delivery with the same hash is a replay, acknowledged and dropped.';
