-- Writes that are receipts, not knowledge: a stored brief (doco.briefs) and the hooks' session
-- memory (doco.hook_sessions, doco.hook_sent). Their transactions commit without waiting for the
-- write-ahead log to reach the disk. Postgres's WAL writer flushes it within 3 × wal_writer_delay
-- (600 ms by default), so a crash of Postgres or the machine in that window can lose the last
-- such rows; it can never corrupt anything or lose a record, an edge or a changeset, whose
-- transactions still wait for the flush. Storing a brief of the 10k-record bench took 2.37 ms at
-- the median, 1.64-1.68 without the wait, on every brief and every hook call (docs/eval.md,
-- "Session 24").

-- For the rest of the calling transaction (a statement outside a transaction block is one):
-- commit without waiting for the flush. Call it from the statement that writes the receipt.
create or replace function doco.commit_receipt_unflushed() returns void
language plpgsql volatile as $$
begin
  -- Local: the setting ends with the transaction, so the connection's next one waits again.
  perform set_config('synchronous_commit', 'off', true);
end $$;
comment on function doco.commit_receipt_unflushed() is 'Lets the calling transaction commit without waiting for the WAL flush: for receipts (briefs, hook session memory), never for records.';

-- Stored briefs older than the interval, oldest first, at most p_limit of them (the daily
-- briefs__prune job calls it until it returns less, each call its own transaction): every hook
-- call stores one (~5 kB at the hooks' 1,500 tokens), so a team's agents add gigabytes a year.
-- Workspace by workspace, on the (workspace_id, created_at) index the console's lists use.
create or replace function doco.prune_briefs(p_older_than interval, p_limit integer default 5000) returns integer
language plpgsql volatile as $$
declare
  n integer;
begin
  delete from doco.briefs where id in (
    select b.id from doco.workspaces w
      cross join lateral (
        select id, created_at from doco.briefs
         where workspace_id = w.id and created_at < now() - p_older_than
         order by created_at limit p_limit) b
     order by b.created_at limit p_limit);
  get diagnostics n = row_count;
  return n;
end $$;
comment on function doco.prune_briefs(interval, integer) is 'Deletes up to p_limit stored briefs older than the interval, oldest first; returns how many.';
