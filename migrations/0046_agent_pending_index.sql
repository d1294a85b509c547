-- The records and relations each principal has awaiting review, by workspace: the triggers that
-- cap an agent's pending proposals (doco.agent_pending_reaches_cap, sql/agent_review.sql) count
-- them here, up to the cap, on every record or relation an agent proposes.
create index nodes_pending_by_principal on doco.nodes (workspace_id, principal_id) where lifecycle in ('drafting', 'queued');
create index edges_pending_by_principal on doco.edges (workspace_id, principal_id) where lifecycle in ('drafting', 'queued');
