-- PageRank moves off doco.nodes into a narrow table of its own. The sweep wrote each score
-- onto its record: a new version of a wide row (its tsvector is stored inline), rarely HOT, so
-- every index of doco.nodes was updated too, and every row trigger of nodes ran, for a column no
-- trigger reads. On the brief bench's largest collection (2,573 records) that UPDATE took 2.7 s
-- (the same scores into a two-column table: 4 ms), left as many dead rows every minute its
-- edges changed, and held row locks a write of those records had to wait for.
create table doco.node_ranks (
  node_id  text primary key references doco.nodes (id),
  pagerank double precision not null
);
comment on table doco.node_ranks is 'Each live record''s PageRank in its collection, as a multiple of the average (1.0 = average); a record without a row scores 0. Written by doco.compute_pagerank.';

insert into doco.node_ranks (node_id, pagerank) select id, pagerank from doco.nodes where pagerank <> 0;
alter table doco.nodes drop column pagerank;
