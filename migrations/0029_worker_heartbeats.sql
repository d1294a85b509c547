-- Workers' heartbeats (issue 28, point 4; docs/jobs.md, "What a dead worker leaves").
--
-- graphile-worker 0.17.3 frees a job a dead worker locked only after `interval '4 hours'`
-- (resetLockedAt). Each running worker now records the ids it locks jobs under (the worker
-- pool's id, graphile-worker's `locked_by`) with the database's time of its last heartbeat;
-- live workers free the jobs and named queues of ids whose heartbeat stopped
-- (doco.free_dead_workers, sql/worker_heartbeats.sql).

create table doco.worker_heartbeats (
  worker_id text primary key,
  beat_at timestamptz not null default now(),
  started_at timestamptz not null default now(),
  host text not null default '',
  pid integer
);

comment on table doco.worker_heartbeats is 'One row per graphile-worker pool a running Doco worker locks jobs under; a row whose beat_at is old is a dead worker''s, and its jobs are freed (docs/jobs.md).';
comment on column doco.worker_heartbeats.worker_id is 'graphile-worker''s pool id, the value its jobs'' and named queues'' locked_by take.';
comment on column doco.worker_heartbeats.beat_at is 'The database''s now() at the last heartbeat (never the process clock).';
comment on column doco.worker_heartbeats.host is 'The host name of the process, for an operator reading the table.';
comment on column doco.worker_heartbeats.pid is 'The process id on that host, for an operator reading the table.';
