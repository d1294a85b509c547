-- Connector housekeeping. Delivery ids are kept for dedup; after 30 days a redelivery is
-- unlikely and harmless anyway (record writes are upserts that skip unchanged content).

create or replace function doco.prune_connector_deliveries(p_older_than interval default interval '30 days') returns integer
language plpgsql volatile as $$
declare
  n integer;
begin
  delete from doco.connector_deliveries where received_at < now() - p_older_than;
  get diagnostics n = row_count;
  return n;
end $$;
comment on function doco.prune_connector_deliveries(interval) is 'Deletes webhook delivery ids (and any payload left) older than the interval; returns how many.';

-- For psql: every connector with its workspace, last sync, cursors and last error, and how many
-- of its deliveries wait (or failed) unprocessed.
create or replace view doco.connector_status as
select c.id, w.slug as workspace, c.kind, c.routing_key, c.target, c.status, c.last_sync_at, c.last_error, c.last_error_at,
       (select jsonb_object_agg(s.key, s.value) from doco.connector_state s where s.connector_id = c.id and s.key like '%\_since') as cursors,
       (select count(*) from doco.connector_deliveries d where d.connector_id = c.id and d.processed_at is null)::int as deliveries_pending
  from doco.connectors c join doco.workspaces w on w.id = c.workspace_id;
comment on view doco.connector_status is 'Connectors with their last sync, cursors, last error and unprocessed deliveries.';
