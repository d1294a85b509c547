-- A webhook delivery's job is found by its key, and a delivery left unprocessed with no job is
-- queued again (docs/jobs.md, connectors__delivery; doco.queue_delivery and
-- doco.requeue_lost_deliveries, sql/connectors.sql). One was lost so: its job completed while the
-- delivery stayed unprocessed (a driver fault since mended, scripts/patch-postgres.cjs fix 7).
-- What a second job needs of the first is kept with the delivery: the named queue it ran in.

alter table doco.connector_deliveries add column job_queue text check (job_queue <> '' and length(job_queue) <= 200);
comment on column doco.connector_deliveries.job_queue is 'The graphile-worker named queue its job runs in (a Slack channel''s, so its deliveries run one at a time), or null: a job queued again runs in the same one.';

-- The deliveries still waiting, for the sweep that looks for one with no job every minute.
create index connector_deliveries_unprocessed on doco.connector_deliveries (received_at) where processed_at is null;
