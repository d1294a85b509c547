-- What each workspace's index holds, kept by statement triggers on doco.chunks, so a brief's
-- receipt ("searched 70.7M tokens") costs one row lookup instead of a scan of every chunk.
create table doco.index_stats (
  workspace_id text primary key references doco.workspaces(id),
  chunks       bigint not null default 0,
  chars        bigint not null default 0
);
comment on table doco.index_stats is 'Chunks and characters indexed per workspace; maintained by triggers on doco.chunks.';

insert into doco.index_stats (workspace_id, chunks, chars)
select workspace_id, count(*), sum(length(body)) from doco.chunks group by workspace_id;
