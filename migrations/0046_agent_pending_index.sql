-- The records each principal has awaiting review, by workspace: the trigger that caps an agent's
-- pending proposals (doco.agent_pending_reaches_cap, sql/agent_review.sql) counts them here,
-- up to the cap, on every record an agent proposes.
create index nodes_pending_by_principal on doco.nodes (workspace_id, principal_id) where lifecycle in ('drafting', 'queued');
