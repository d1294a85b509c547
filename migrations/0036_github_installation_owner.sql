-- A GitHub App installation is a deployment credential like the Notion integration or a Slack
-- team: the deployment's App key turns an installation id into a token that reads every
-- repository the installation covers. Not claimed, any workspace could add a connector on
-- another workspace's installation id (ids are small numbers) and read its private repositories
-- (found by a hostile-input review). The first workspace on an installation now holds it
-- (sql/connectors.sql, doco.connector_credential).
--
-- Connectors added before this rule: the earliest workspace on each installation holds it; a
-- second workspace's connectors stay until someone removes them (doco connector list shows
-- each connector's workspace), as migration 0025 did for the others.
insert into doco.connector_owners (kind, routing_key, workspace_id, claimed_at)
select distinct on (kind, routing_key) kind, routing_key, workspace_id, created_at
  from doco.connectors
 where kind = 'github'
 order by kind, routing_key, created_at, id
on conflict (kind, routing_key) do nothing;

comment on table doco.connector_owners is 'Which workspace holds each deployment credential (notion integration, drive account, slack team, github installation): the first to add a connector on it; let go when its last connector on it is removed.';
