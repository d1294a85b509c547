-- A doc ingest run killed mid-run (kill -9, a crash, a lost connection) left its
-- doc_ingest_runs row unfinished forever, indistinguishable from one still running (issue 9).
-- A run now holds an advisory lock on its row for as long as it runs (src/ingest/docs/runs.ts);
-- the next run marks any `running` row whose lock nobody holds `abandoned`.
alter table doco.doc_ingest_runs
  add column status text not null default 'running'
    check (status in ('running', 'finished', 'failed', 'abandoned'));

update doco.doc_ingest_runs
   set status = case when finished_at is null then 'running' when error is null then 'finished' else 'failed' end;

comment on column doco.doc_ingest_runs.status is
  'running (its process holds the run''s lock), finished, failed (error says why), or abandoned: its process stopped before it finished (finished_at stays null); marked by the next run.';
