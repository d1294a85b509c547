-- Keeps doco.index_stats in step with doco.chunks (one statement-level trigger per event:
-- transition tables allow no more).

create or replace function doco.tg_chunks__count() returns trigger
language plpgsql volatile as $$
begin
  insert into doco.index_stats as s (workspace_id, chunks, chars)
  select workspace_id, sum(n), sum(c) from (
    select workspace_id, 1 as n, length(body) as c from new_rows
    union all
    select workspace_id, -1, -length(body) from old_rows
  ) d group by workspace_id
  on conflict (workspace_id) do update set chunks = s.chunks + excluded.chunks, chars = s.chars + excluded.chars;
  return null;
end $$;

create or replace function doco.tg_chunks__count_insert() returns trigger
language plpgsql volatile as $$
begin
  insert into doco.index_stats as s (workspace_id, chunks, chars)
  select workspace_id, count(*), sum(length(body)) from new_rows group by workspace_id
  on conflict (workspace_id) do update set chunks = s.chunks + excluded.chunks, chars = s.chars + excluded.chars;
  return null;
end $$;

create or replace function doco.tg_chunks__count_delete() returns trigger
language plpgsql volatile as $$
begin
  update doco.index_stats s set chunks = s.chunks - d.n, chars = s.chars - d.c
    from (select workspace_id, count(*) as n, sum(length(body)) as c from old_rows group by workspace_id) d
   where s.workspace_id = d.workspace_id;
  return null;
end $$;

create or replace trigger _100_count_insert after insert on doco.chunks
  referencing new table as new_rows for each statement execute function doco.tg_chunks__count_insert();
create or replace trigger _100_count_update after update on doco.chunks
  referencing old table as old_rows new table as new_rows for each statement execute function doco.tg_chunks__count();
create or replace trigger _100_count_delete after delete on doco.chunks
  referencing old table as old_rows for each statement execute function doco.tg_chunks__count_delete();
