-- The alignment scan counts a record as an ingested doc section only when the manifest holds it
-- (src/align/lookups.ts): one probe by record id per candidate, where the primary key's
-- (workspace, source, section_key) order would read every section of the workspace.
create index doc_manifest_node on doco.doc_manifest (node_id);
comment on index doco.doc_manifest_node is 'Which manifest row, if any, a record is (the alignment scan''s check that a section was ingested).';
