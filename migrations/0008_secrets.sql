-- The secrets guard (DESIGN §5): a doc ingest run records the sections it did not write because
-- they held a credential, by section_key, kind and field (never the value).

alter table doco.doc_ingest_runs
  add column secrets jsonb not null default '[]'::jsonb
    check (jsonb_typeof(secrets) = 'array');
comment on column doco.doc_ingest_runs.secrets is
  'Sections skipped because they hold a credential: [{section_key, path, kind, field, line?}]; the value is never stored. An existing record keeps its last clean version and is not reaped.';
