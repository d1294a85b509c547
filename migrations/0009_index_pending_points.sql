-- Crash recovery for the vector index (issue 9): a drain writes its points to the vector store
-- (Qdrant, or the embedded index) before the transaction that records them in doco.chunks
-- commits. A drain killed in between leaves points no chunk row names, and the next drain cannot
-- find them: a new chunk's id is random. So a drain first records every point id it is about to
-- write here, in a statement of its own that commits at once, and deletes those rows in the
-- transaction that records the chunks. A row left behind names a point a drain that died (or
-- failed) may have written; the next drain removes that point unless a chunk row now holds it.
create table doco.index_pending_points (
  point_id   uuid primary key,
  node_id    text not null,
  embedder   text not null,
  created_at timestamptz not null default now()
);
comment on table doco.index_pending_points is
  'Point ids a drain is writing to the vector store, before its commit records them in doco.chunks; a row left behind is a possible orphan point, removed from the store by the next drain.';
