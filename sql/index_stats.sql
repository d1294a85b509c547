-- Keeps doco.index_stats in step with doco.chunks (one statement-level trigger per event:
-- transition tables allow no more). Each statement adds its counts to its connection's shard of
-- the workspace's figures (migration 0033), so drains in different processes never wait for
-- each other here; a reader sums the shards.

-- The shard a connection writes: its backend pid modulo 16, the same for all its transactions.
create or replace function doco.index_stats_shard() returns smallint
language sql stable as $$
  select (pg_backend_pid() % 16)::smallint
$$;
comment on function doco.index_stats_shard() is 'The doco.index_stats shard this connection adds its counts to.';

create or replace function doco.tg_chunks__count() returns trigger
language plpgsql volatile as $$
begin
  insert into doco.index_stats as s (workspace_id, shard, chunks, chars)
  select workspace_id, doco.index_stats_shard(), sum(n), sum(c) from (
    select workspace_id, 1 as n, length(body) as c from new_rows
    union all
    select workspace_id, -1, -length(body) from old_rows
  ) d group by workspace_id
  order by workspace_id
  on conflict (workspace_id, shard) do update set chunks = s.chunks + excluded.chunks, chars = s.chars + excluded.chars;
  return null;
end $$;

create or replace function doco.tg_chunks__count_insert() returns trigger
language plpgsql volatile as $$
begin
  insert into doco.index_stats as s (workspace_id, shard, chunks, chars)
  select workspace_id, doco.index_stats_shard(), count(*), sum(length(body)) from new_rows group by workspace_id
  order by workspace_id
  on conflict (workspace_id, shard) do update set chunks = s.chunks + excluded.chunks, chars = s.chars + excluded.chars;
  return null;
end $$;

create or replace function doco.tg_chunks__count_delete() returns trigger
language plpgsql volatile as $$
begin
  -- An upsert, not an update: this connection's shard may hold no row yet (its counts go negative).
  insert into doco.index_stats as s (workspace_id, shard, chunks, chars)
  select workspace_id, doco.index_stats_shard(), -count(*), -sum(length(body)) from old_rows group by workspace_id
  order by workspace_id
  on conflict (workspace_id, shard) do update set chunks = s.chunks + excluded.chunks, chars = s.chars + excluded.chars;
  return null;
end $$;

create or replace trigger _100_count_insert after insert on doco.chunks
  referencing new table as new_rows for each statement execute function doco.tg_chunks__count_insert();
create or replace trigger _100_count_update after update on doco.chunks
  referencing old table as old_rows new table as new_rows for each statement execute function doco.tg_chunks__count();
create or replace trigger _100_count_delete after delete on doco.chunks
  referencing old table as old_rows for each statement execute function doco.tg_chunks__count_delete();
