-- Issue 13: the duplicate guard's exact lookup by text fingerprint, on an index that no other
-- query can be answered from. With the fingerprint third in (workspace_id, node_type,
-- text_fingerprint), a table without statistics had the planner take nodes_workspace_type for
-- the same lookup (both looked equally cheap) and filter every active record of the type: a
-- capture's guard query went from 1.7 to 10.8 ms at 3,000 records before the first ANALYZE.
-- Leading with the fingerprint, and asked only for it (sql/duplicates.sql), it has no rival.
create index nodes_text_fingerprint on doco.nodes (text_fingerprint);
drop index doco.nodes_active_fingerprint;
