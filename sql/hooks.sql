-- Pruning the hooks' per-session memory: sessions not seen for a while go (their sent items with
-- them, by cascade), except each principal's latest session in each checkout, which "changed
-- since the last session" starts from. Run daily by the worker's `hooks__prune` cron. And a
-- bound on how many sessions a principal keeps at all, below.

create or replace function doco.prune_hook_sessions(p_older_than interval default interval '30 days') returns integer
language plpgsql volatile as $$
declare
  n integer;
begin
  delete from doco.hook_sessions s
   where s.last_seen_at < now() - p_older_than
     and exists (
       select 1 from doco.hook_sessions newer
        where newer.workspace_id = s.workspace_id and newer.principal_id = s.principal_id
          and coalesce(newer.checkout, newer.cwd) = coalesce(s.checkout, s.cwd) and newer.last_seen_at > s.last_seen_at);
  get diagnostics n = row_count;
  return n;
end $$;
comment on function doco.prune_hook_sessions(interval) is 'Deletes hook sessions idle longer than the interval, keeping each principal''s latest in each checkout; returns how many.';

-- A principal keeps its 200 newest sessions, whatever their age: a hook's read token could
-- otherwise grow the table without end (a session start per made-up checkout, each row kept as
-- its checkout's latest, ~8 kB with a long cwd). Checked when a session is new, not on every
-- hook call; ties at the 200th are kept.
create or replace function doco._hook_sessions_keep_newest() returns trigger
language plpgsql as $$
begin
  delete from doco.hook_sessions s
   where s.workspace_id = new.workspace_id and s.principal_id = new.principal_id
     and s.last_seen_at < (
       select k.last_seen_at from doco.hook_sessions k
        where k.workspace_id = new.workspace_id and k.principal_id = new.principal_id
        order by k.last_seen_at desc offset 199 limit 1);
  return null;
end $$;
comment on function doco._hook_sessions_keep_newest() is 'After a new hook session: deletes the principal''s sessions older than its 200 newest (their sent items by cascade).';

drop trigger if exists _hook_sessions_keep_newest on doco.hook_sessions;
create trigger _hook_sessions_keep_newest after insert on doco.hook_sessions
  for each row execute function doco._hook_sessions_keep_newest();
