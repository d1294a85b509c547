-- The review queue lists relations waiting for a person (an agent's `relate`s), newest first, and
-- the overview counts them: without an index each page load read every edge of the workspace
-- (~150k at 100k records). The records' queue has nodes_review (0016) for the same reason.
create index edges_review on doco.edges (workspace_id, updated_at desc) where lifecycle in ('drafting', 'queued');
comment on index doco.edges_review is 'Edges waiting for review, by workspace, newest first (the console''s review queue and overview).';
