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
