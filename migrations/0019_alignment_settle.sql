-- Issue 13: alignment logs settle when a section they list is revised (sql/alignment.sql). The
-- live logs that list a section, found from the section's id without reading every log.
create index nodes_alignment_expectations on doco.nodes
  using gin ((body->'align'->'expectations') jsonb_path_ops)
  where node_type = 'log' and lifecycle <> 'retired';
