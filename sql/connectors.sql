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

-- A delivery's job (docs/jobs.md, connectors__delivery), keyed by its delivery: one delivery
-- never has two jobs, and one left unprocessed with none can be told. Queued by the webhook
-- route in the transaction that records the delivery, in the named queue recorded with it, and
-- again by doco.requeue_lost_deliveries. 'unsafe_dedupe' never replaces a job of that key, even
-- a running one: a delivery's work never changes, so a second add while it runs brings nothing new.
-- plpgsql: graphile-worker's schema may be created after sql/ is applied (worker_heartbeats.sql).
create or replace function doco.delivery_job_key(p_kind text, p_delivery_id text) returns text
language sql immutable as $$
  select 'connectors__delivery:' || p_kind || ':' || p_delivery_id
$$;
comment on function doco.delivery_job_key(text, text) is 'The graphile-worker job key of a webhook delivery''s job.';

create or replace function doco.queue_delivery(p_kind text, p_delivery_id text) returns void
language plpgsql volatile as $$
declare
  v_queue text;
begin
  select d.job_queue into v_queue from doco.connector_deliveries d where d.kind = p_kind and d.delivery_id = p_delivery_id;
  perform graphile_worker.add_job('connectors__delivery', json_build_object('kind', p_kind, 'deliveryId', p_delivery_id),
    queue_name := v_queue, max_attempts := 10,
    job_key := doco.delivery_job_key(p_kind, p_delivery_id), job_key_mode := 'unsafe_dedupe');
end $$;
comment on function doco.queue_delivery(text, text) is 'Queues a recorded webhook delivery''s job (10 attempts, in the delivery''s job_queue), unless a job of its key exists.';

-- The safety net: an acknowledged delivery is processed, or has a job (which records its error
-- when it fails), or is queued again here. Its route writes the delivery and its job in one
-- transaction, and the job ends only after the delivery is marked processed, so an unprocessed
-- delivery with no job has lost it. The bound leaves alone a delivery whose job an older Doco
-- queued with no key (it runs, or ran, once more: a second run changes nothing, docs/jobs.md).
create or replace function doco.requeue_lost_deliveries(p_after interval default interval '2 minutes') returns text[]
language plpgsql volatile as $$
declare
  r record;
  v_lost text[] := '{}';
begin
  for r in
    select d.kind, d.delivery_id from doco.connector_deliveries d
     where d.processed_at is null and d.received_at < now() - p_after
       and not exists (select 1 from graphile_worker.jobs j where j.key = doco.delivery_job_key(d.kind, d.delivery_id))
     order by d.received_at
  loop
    perform doco.queue_delivery(r.kind, r.delivery_id);
    v_lost := v_lost || doco.delivery_job_key(r.kind, r.delivery_id);
  end loop;
  return v_lost;
end $$;
comment on function doco.requeue_lost_deliveries(interval) is 'Queues again every delivery unprocessed for longer than p_after that has no job; returns their job keys.';

-- For psql: every connector with its workspace, last sync, cursors and last error, and how many
-- of its deliveries wait (or failed) unprocessed.
create or replace view doco.connector_status as
select c.id, w.slug as workspace, c.kind, c.routing_key, c.target, c.status, c.last_sync_at, c.last_error, c.last_error_at,
       (select jsonb_object_agg(s.key, s.value) from doco.connector_state s where s.connector_id = c.id and s.key like '%\_since') as cursors,
       (select count(*) from doco.connector_deliveries d where d.connector_id = c.id and d.processed_at is null)::int as deliveries_pending
  from doco.connectors c join doco.workspaces w on w.id = c.workspace_id;
comment on view doco.connector_status is 'Connectors with their last sync, cursors, last error and unprocessed deliveries.';

-- One owner per deployment credential (migrations 0025 and 0036, docs/connectors.md "Who owns a
-- connector"). The Notion integration, the Drive account, a Slack team (the bot token) and a
-- GitHub App installation are the deployment's and reach everything shared with them. The name
-- a refusal gives the credential, or null for a kind that holds none.
create or replace function doco.connector_credential(p_kind text, p_routing_key text) returns text
language sql immutable as $$
  select case p_kind
    when 'notion' then 'Notion integration'
    when 'drive' then 'Google Drive account'
    when 'slack' then 'Slack team ' || p_routing_key
    -- The App's key makes a token for any installation id: one installation, one workspace.
    when 'github' then 'GitHub App installation ' || p_routing_key
  end $$;
comment on function doco.connector_credential(text, text) is 'The deployment credential a connector of this kind and routing key reads through, as a refusal names it; null when the kind holds none.';

-- The first workspace to add a connector on a credential claims it; another workspace's is
-- refused. The claim is one row (doco.connector_owners' primary key), so two workspaces adding at
-- once meet there: the second waits for the first and sees its claim. The refusal names the
-- credential only, never the workspace or connector that holds it, and reads the same however
-- it is held. A Slack channel counts too: a channel connector takes that channel's events from a
-- team-wide one.
create or replace function doco.tg_connectors__claim_credential() returns trigger
language plpgsql volatile as $$
declare
  v_credential text := doco.connector_credential(new.kind, new.routing_key);
  v_owner      text;
begin
  if v_credential is null then
    return new;
  end if;
  insert into doco.connector_owners as o (kind, routing_key, workspace_id)
  values (new.kind, new.routing_key, new.workspace_id)
  on conflict (kind, routing_key) do update set kind = o.kind
  returning o.workspace_id into v_owner;
  if v_owner <> new.workspace_id then
    raise exception 'this deployment''s % is not available to this workspace: whoever runs this Doco deployment decides which workspace it serves', v_credential
      using errcode = 'DC009';
  end if;
  return new;
end $$;
comment on function doco.tg_connectors__claim_credential() is 'Claims the deployment credential a new connector reads through for its workspace; DC009 when another workspace holds it.';

-- The holder's last connector on a credential gone, the claim goes too (or passes to a
-- connector another workspace added before migration 0025). The claim row is locked before the
-- holder's connectors are counted, so one the holder adds meanwhile is seen and keeps it.
create or replace function doco.tg_connectors__release_credential() returns trigger
language plpgsql volatile as $$
begin
  if doco.connector_credential(old.kind, old.routing_key) is null
     or (tg_op = 'UPDATE' and (new.kind, new.routing_key, new.workspace_id) is not distinct from (old.kind, old.routing_key, old.workspace_id)) then
    return null;
  end if;
  perform 1 from doco.connector_owners
   where kind = old.kind and routing_key = old.routing_key and workspace_id = old.workspace_id for update;
  if not found or exists (
    select 1 from doco.connectors where kind = old.kind and routing_key = old.routing_key and workspace_id = old.workspace_id
  ) then
    return null;
  end if;
  delete from doco.connector_owners where kind = old.kind and routing_key = old.routing_key;
  insert into doco.connector_owners (kind, routing_key, workspace_id)
  select kind, routing_key, workspace_id from doco.connectors
   where kind = old.kind and routing_key = old.routing_key
   order by created_at, id limit 1;
  return null;
end $$;
comment on function doco.tg_connectors__release_credential() is 'Lets a deployment credential go when its holder''s last connector on it is removed or moved.';

create or replace trigger _100_claim_credential before insert or update of kind, routing_key, workspace_id on doco.connectors
  for each row execute function doco.tg_connectors__claim_credential();
create or replace trigger _900_release_credential after delete or update of kind, routing_key, workspace_id on doco.connectors
  for each row execute function doco.tg_connectors__release_credential();

-- Kept comments follow the remote's order (migration 0028, docs/jobs.md connectors__delivery): a
-- webhook retried after a newer event for the same comment, or after a sweep that read its newer
-- text, must not put the older text back, nor bring a deleted comment back. An update older than
-- the row's remote_updated_at is skipped (the row stays, the statement counts it as not
-- updated), whoever writes it; a tombstone (deleted) also refuses a write of its own time, since
-- a deletion comes after the edit whose time it carries. A deletion is never older than what it
-- deletes: it takes the later of the two times. A write with no remote time is not checked and
-- keeps the row's time (a source that gives none behaves as before this rule).
create or replace function doco.tg_connector_item_comments__remote_order() returns trigger
language plpgsql volatile as $$
begin
  if new.deleted then
    new.remote_updated_at := greatest(old.remote_updated_at, new.remote_updated_at);
    return new;
  end if;
  if new.remote_updated_at is null then
    new.remote_updated_at := old.remote_updated_at;
    return new;
  end if;
  if old.remote_updated_at is not null
     and (new.remote_updated_at < old.remote_updated_at or (old.deleted and new.remote_updated_at = old.remote_updated_at)) then
    return null;
  end if;
  return new;
end $$;
comment on function doco.tg_connector_item_comments__remote_order() is 'Skips an update of a kept comment older than its remote time (or not newer than its tombstone); a deletion keeps the later time.';

create or replace trigger _100_remote_order before update on doco.connector_item_comments
  for each row execute function doco.tg_connector_item_comments__remote_order();
