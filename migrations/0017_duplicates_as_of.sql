-- Issue 13, parts 3 and 4: the near-duplicate guard on capture and briefs as of a time.
--
-- A collection's duplicate policy: `warn` (the write succeeds with a possible_duplicate verdict)
-- or `block` (it is refused as conflict).
alter table doco.collections
  add column duplicates text not null default 'warn' check (duplicates in ('warn', 'block'));
comment on column doco.collections.duplicates is 'What a capture very close to an active record of the same type gets: warn (a possible_duplicate verdict) or block (refused as conflict).';

-- A record's normalised text (title and prose, lowercased, runs of anything but letters and
-- digits as one space), hashed: two records with this equal say the same thing. Kept by
-- Postgres itself, so a record written a moment ago is found before the index has it.
-- doco.text_fingerprint() (sql/duplicates.sql) computes the same for a draft; a test holds
-- them equal.
alter table doco.nodes
  add column text_fingerprint text generated always as (
    md5(btrim(regexp_replace(lower(title || E'\n' || prose), '[^[:alnum:]]+', ' ', 'g')))) stored;
comment on column doco.nodes.text_fingerprint is 'md5 of the normalised title and prose: equal for records that say the same thing (the duplicate guard''s exact check).';
create index nodes_active_fingerprint on doco.nodes (workspace_id, node_type, text_fingerprint) where lifecycle = 'active';

-- A brief as of a time reads the constitution as it stood then from the version rows.
create index node_versions_by_collection on doco.node_versions (collection_id, node_id);
