-- What retrieval reads of a record's body (src/retrieval/candidates.ts): the few fields a brief and
-- a search use, each bounded, never the body whole. A body may hold 256 KiB whoever wrote it; a
-- search loads up to 300 candidates and a brief 100-400, and every search result and brief item
-- carried the record's pointer as written: an agent's 100 queued records with a 240 KB pointer
-- each made a person's search answer 24 MB (48 MB over MCP) and every later brief ~1 MB (a
-- hostile review).

-- A pointer (where a record comes from: a path and heading, a URL, a repository and number) as
-- written when it is small, as every pointer Doco writes is (well under 1 KB); else its
-- string, number and true/false fields, at most 20 of them in key order, a string cut to 500
-- characters with "…".
create or replace function doco.bounded_pointer(p jsonb) returns jsonb
language sql immutable parallel safe as $$
  select case
    when jsonb_typeof(p) is distinct from 'object' then null
    when octet_length(p::text) <= 2048 then p
    else (select coalesce(jsonb_object_agg(e.key,
                    case when jsonb_typeof(e.value) = 'string' and length(e.value #>> '{}') > 500
                         then to_jsonb(left(e.value #>> '{}', 499) || '…') else e.value end), '{}'::jsonb)
            from (select key, value from jsonb_each(p)
                   where jsonb_typeof(value) in ('string', 'number', 'boolean') and length(key) <= 100
                   order by key limit 20) e)
  end
$$;
comment on function doco.bounded_pointer(jsonb) is 'A body''s pointer as written when under 2 KB, else its first 20 scalar fields with strings cut to 500 characters.';

-- A short text field of a body (shape, source_kind, an ADR's status …): as written up to 1,000 characters, else none.
create or replace function doco.short_body_text(p jsonb) returns jsonb
language sql immutable parallel safe as $$
  select case when jsonb_typeof(p) = 'string' and length(p #>> '{}') <= 1000 then p end
$$;

-- The body fields retrieval reads: shape, source_kind, source_type, adr_status, heading_path (10
-- headings of 300 characters at most) and pointer (doco.bounded_pointer). A field absent, or not
-- of its kind, is left out.
create or replace function doco.candidate_body(b jsonb) returns jsonb
language sql immutable parallel safe as $$
  select jsonb_strip_nulls(jsonb_build_object(
           'shape', doco.short_body_text(b->'shape'),
           'source_kind', doco.short_body_text(b->'source_kind'),
           'source_type', doco.short_body_text(b->'source_type'),
           'adr_status', doco.short_body_text(b->'adr_status'),
           'heading_path', case when jsonb_typeof(b->'heading_path') = 'array' then
             (select jsonb_agg(case when jsonb_typeof(h.value) = 'string' then to_jsonb(left(h.value #>> '{}', 300)) else h.value end order by h.n)
                from jsonb_array_elements(b->'heading_path') with ordinality as h(value, n) where h.n <= 10) end))
         || coalesce((select jsonb_build_object('pointer', p) from doco.bounded_pointer(b->'pointer') as p where p is not null), '{}'::jsonb)
$$;
comment on function doco.candidate_body(jsonb) is 'The bounded body fields a brief or a search reads of a candidate record (src/retrieval/candidates.ts).';
