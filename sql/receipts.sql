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
