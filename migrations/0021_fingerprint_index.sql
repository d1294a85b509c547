-- Issue 13: the duplicate guard's exact lookup by text fingerprint, on an index that no other
-- query can be answered from. With the fingerprint third in (workspace_id, node_type,
-- text_fingerprint), a table without statistics had the planner take nodes_workspace_type for
-- the same lookup (both looked equally cheap) and filter every active record of the type.
-- Leading with the fingerprint, and asked only for it and the lifecycle (sql/duplicates.sql), it
-- has no rival. Built inside the migration's transaction: writes to doco.nodes wait for it.
create index nodes_text_fingerprint on doco.nodes (text_fingerprint) where lifecycle = 'active';
drop index if exists doco.nodes_active_fingerprint;
