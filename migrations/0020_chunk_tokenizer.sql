-- Issue 8: which BM25 tokenizer (src/search/tokenize.ts, TOKENIZER_VERSION) made a chunk's
-- sparse vector. Start-up re-queues the records whose chunks an older tokenizer made, as it does
-- for another embedder, so an upgrade that changes BM25 terms or weights re-indexes by itself.
-- Every chunk before this migration was made by version 1; from now on the drain says which.
alter table doco.chunks add column tokenizer smallint not null default 1;
alter table doco.chunks alter column tokenizer drop default;
comment on column doco.chunks.tokenizer is 'The BM25 tokenizer version (TOKENIZER_VERSION) that made this chunk''s sparse vector.';
