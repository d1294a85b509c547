-- Issue 29: drains in several worker processes no longer wait for each other on one row.
--
-- doco.index_stats held one row a workspace, and every drain's chunk insert upserted it from a
-- statement trigger (sql/index_stats.sql): a second drain of the workspace, in another worker
-- process (`--scale worker=M`), waited at its insert until the first committed, and a drain holds
-- its transaction while it embeds. A workspace's figures are now spread over up to 16 rows, one
-- per shard, each transaction adding its counts to the shard of its connection; readers sum them.
alter table doco.index_stats add column shard smallint not null default 0 check (shard between 0 and 15);
alter table doco.index_stats drop constraint index_stats_pkey;
alter table doco.index_stats add primary key (workspace_id, shard);
comment on table doco.index_stats is 'Chunks and characters indexed per workspace, as the sum of its shards'' rows; maintained by triggers on doco.chunks.';
comment on column doco.index_stats.shard is 'The writing connection''s shard (its backend pid modulo 16): concurrent drains update different rows.';
