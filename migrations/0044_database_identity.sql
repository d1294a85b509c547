-- Which database this is, for what is kept outside it: the embedded index's snapshot in DOCO_HOME
-- (src/indexing/index-sync.ts). A snapshot said only which embedder made it, so a home that moved
-- to another database (DATABASE_URL set after the embedded default, two deployments on one volume)
-- loaded the other database's index and caught up only past its watermark: the records of the
-- database in use below that watermark were never searchable (a hostile review). One row, made
-- once; a copy of the database (a backup restored) keeps it, and the snapshot's watermark says the
-- rest.

create table doco.database_identity (
  only_row boolean primary key default true check (only_row),
  id uuid not null default gen_random_uuid(),
  created_at timestamptz not null default now()
);
insert into doco.database_identity default values;

comment on table doco.database_identity is 'One row: this database''s id, written into what Doco keeps outside it (the embedded index''s snapshot) to tell it from another database''s.';
