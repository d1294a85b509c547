-- What Doco derives from a record's text by SQL function and keeps in a table (the touches
-- index) was derived by whatever version of those functions ran when the record was last
-- written. An upgrade that changes the extractor (a URL glued to a colon, a Dockerfile in a
-- folder) left every older record with its old touches until its text changed. Each derivation
-- now records a fingerprint of the functions it was derived by; when sql/ is applied with other
-- functions, a catch-up re-derives every record in the background (sql/derivations.sql).
create table doco.derivations (
  name        text primary key,
  -- Of the functions the stored rows were derived by ('unknown': derived before this table).
  fingerprint text not null,
  -- The fingerprint a catch-up is re-deriving towards; null when none is under way.
  pending     text,
  -- Records are re-derived in id order: those up to this id are done (null: the scan is over,
  -- only the backlog is left).
  after_id    text default '',
  updated_at  timestamptz not null default now()
);
comment on table doco.derivations is 'Each SQL derivation (the touches index) with the fingerprint of the functions that derived what is stored, and the progress of a catch-up.';

-- Records the scan could not lock (a write held them) are re-derived after the scan.
create table doco.derivation_backlog (
  name    text not null references doco.derivations (name) on delete cascade,
  node_id text not null,
  primary key (name, node_id)
);
comment on table doco.derivation_backlog is 'Records a catch-up skipped because a write held them; re-derived once the scan is over.';
