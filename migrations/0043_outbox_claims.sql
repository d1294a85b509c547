-- How often the index drain took up each outbox row (src/indexing/drain.ts). The drain claims its
-- rows and indexes them in one transaction, and counted an attempt (doco.outbox.attempts) only when
-- indexing threw: a record that killed the process, or broke its connection, rolled the claim back
-- with its count, so every restart took the same batch again and died again. The claim is now
-- counted here first, committed apart from the claiming transaction (a row of its own, so counting
-- never waits on the claim's row locks): a row claimed more often than it failed was being indexed
-- when the drain stopped, and is tried alone; after three such claims it is set aside
-- (doco.outbox_backlog shows it).

create table doco.outbox_claims (
  outbox_id bigint primary key,
  claims integer not null default 1,
  last_claimed_at timestamptz not null default now()
);

comment on table doco.outbox_claims is 'How many times the index drain took up each outbox row (no foreign key: counting must not wait on the claim''s row lock); deleted with the row once indexed.';
comment on column doco.outbox_claims.claims is 'Claims of the row; more than its outbox row''s attempts means the drain stopped while indexing it.';

-- What the index drain has yet to do and its latest failure (it was sql/outbox.sql's; it reads the
-- table above now, and sql/ is applied to databases of earlier migrations too). `stopped_on`: rows
-- a drain was indexing when it stopped (its process killed, its connection broken) three times,
-- set aside untried (src/indexing/drain.ts, MAX_UNFINISHED_CLAIMS); they count as failing too.
create or replace view doco.outbox_backlog as
  select count(*) as pending,
         count(*) filter (where o.attempts > 0 or coalesce(c.claims, 0) > o.attempts) as failing,
         min(o.enqueued_at) as oldest,
         max(o.attempts) as max_attempts,
         (array_agg(o.last_error order by o.last_attempt_at desc) filter (where o.last_error is not null))[1] as last_error,
         count(*) filter (where coalesce(c.claims, 0) - o.attempts >= 3) as stopped_on
    from doco.outbox o left join doco.outbox_claims c on c.outbox_id = o.id;
comment on view doco.outbox_backlog is 'What the index drain has yet to do, the latest failure, and the rows set aside after a drain stopped on them three times.';
