-- The full-text seed (src/retrieval/retrievers.ts, fulltextSeeds) searches nodes_search_tsv in
-- every brief. GIN adds new entries to a pending list that every search reads whole, and merges
-- it into the index only past gin_pending_list_limit (4 MB by default) or at a vacuum. After the
-- brief bench's 10k records were written, 315 pending pages made the seed 0.7-1.1 ms slower at
-- its median (2.0-2.6 against 1.3-1.5 ms once merged; docs/eval.md, "Session 15"). A 256 kB
-- list (32 pages) keeps that read small; a write that fills it merges ~100 records' entries,
-- which measured no slower at capture's p95 or p99.
alter index doco.nodes_search_tsv set (gin_pending_list_limit = 256);
