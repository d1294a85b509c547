-- Issue 29: a chunk's text is stored once.
--
-- A chunk's embedding input is its body with a header before it (or, for a title that is all of
-- its text, a heading path after it), and it was stored whole beside the body: each row held the
-- text twice, about 2.2 kB, past the size at which Postgres compresses a row's long values, so
-- both copies were compressed on every insert. The drain's insert of doco.chunks was two thirds
-- of its Postgres time (docs/eval.md, "Session 26"). Now the text before and after the body is
-- stored, and the whole input only when it does not hold the body. Rows written before keep their
-- input whole; doco.chunk_embed_input(c) reads either.
alter table doco.chunks
  add column embed_before text not null default '',
  add column embed_after text not null default '',
  alter column embed_input drop not null,
  add constraint chunks_embed_input_once check (embed_input is null or (embed_before = '' and embed_after = ''));

comment on column doco.chunks.embed_input is 'What the embedder was given, when it does not hold the body; null when it is embed_before || body || embed_after (doco.chunk_embed_input reads either).';
comment on column doco.chunks.embed_before is 'The embedding input before the body (its header), when embed_input is null.';
comment on column doco.chunks.embed_after is 'The embedding input after the body (a heading path after a title that is all the text), when embed_input is null.';

-- What the embedder was given, whichever way the row holds it: for the readers that rebuild points
-- from doco.chunks (the start-up catch-up, the drain's repair sweep), and psql. Here rather than
-- in sql/, since it reads the columns this migration adds.
create function doco.chunk_embed_input(c doco.chunks) returns text
language sql immutable parallel safe as $$
  select coalesce(c.embed_input, c.embed_before || c.body || c.embed_after)
$$;
comment on function doco.chunk_embed_input(doco.chunks) is 'What the embedder was given for this chunk: embed_input, or embed_before || body || embed_after.';
