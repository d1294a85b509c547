-- Pruning the hooks' per-session memory: sessions not seen for a while go (their sent items with
-- them, by cascade), except each principal's latest session in each checkout, which "changed
-- since the last session" starts from. Run daily by the worker's `hooks__prune` cron.

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
