-- The outbox: a record whose indexed text may have changed (its content, lifecycle or
-- collection) is queued for the index drain in the same transaction as the write. A
-- notification, delivered by Postgres at commit, tells listening workers to queue a drain job
-- at once, so a new record is searchable within seconds; the worker's minute cron drains too.
-- (A notification rather than add_job here: a job row shared by every writer would serialise
-- concurrent writes on its lock.)

create or replace function doco.tg_nodes__enqueue_index() returns trigger
language plpgsql volatile as $$
begin
  insert into doco.outbox (node_id, workspace_id) values (new.id, new.workspace_id);
  return null;
end $$;

create or replace function doco.tg_nodes__notify_outbox() returns trigger
language plpgsql volatile as $$
begin
  perform pg_notify('doco_outbox', '');
  return null;
end $$;

create or replace trigger _900_enqueue_index after insert or update of title, prose, body, lifecycle, collection_id on doco.nodes
  for each row
  when (new.node_type <> 'principal')
  execute function doco.tg_nodes__enqueue_index();

create or replace trigger _910_notify_outbox after insert or update of title, prose, body, lifecycle, collection_id on doco.nodes
  for each statement execute function doco.tg_nodes__notify_outbox();

create or replace view doco.outbox_backlog as
  select count(*) as pending,
         count(*) filter (where attempts > 0) as failing,
         min(enqueued_at) as oldest,
         max(attempts) as max_attempts,
         (array_agg(last_error order by last_attempt_at desc) filter (where last_error is not null))[1] as last_error
    from doco.outbox;
comment on view doco.outbox_backlog is 'What the index drain has yet to do, and the latest failure.';
