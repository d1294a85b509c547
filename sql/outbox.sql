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

-- Inserted records are queued once per statement, from its transition table, in the order the
-- statement inserted them (one insert, where a row trigger made one per record). An update keeps
-- the row trigger: a transition table cannot go with a column list, and the list is what queues a
-- record whose text was written (even unchanged) and skips a write of other columns.
create or replace function doco.tg_nodes__enqueue_inserted() returns trigger
language plpgsql volatile as $$
begin
  insert into doco.outbox (node_id, workspace_id)
  select n.id, n.workspace_id from inserted_nodes n where n.node_type <> 'principal';
  return null;
end $$;

create or replace trigger _900_enqueue_index after update of title, prose, body, lifecycle, collection_id on doco.nodes
  for each row
  when (new.node_type <> 'principal')
  execute function doco.tg_nodes__enqueue_index();
create or replace trigger _900_enqueue_inserted after insert on doco.nodes
  referencing new table as inserted_nodes
  for each statement execute function doco.tg_nodes__enqueue_inserted();

create or replace trigger _910_notify_outbox after insert or update of title, prose, body, lifecycle, collection_id on doco.nodes
  for each statement execute function doco.tg_nodes__notify_outbox();

-- doco.outbox_backlog, what the index drain has yet to do, is defined by migration
-- 0043_outbox_claims.sql: it reads that migration's table, and sql/ is applied to databases of
-- every earlier migration too.
