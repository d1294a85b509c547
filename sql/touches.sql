-- The touches index: every file path, URL, record id and pull-request/issue number a record
-- names, kept by trigger so psql writes are indexed too. The brief's exact-match retriever
-- reads it. A repository blob/tree URL also yields its repo-relative path; `owner/repo#12`
-- and pull/issue URLs also yield the bare `#12`. A replacement also inherits the touches of the
-- record it replaced (inherited_from, migration 0006). Each touch says whether the record names
-- it only among its links (links_only, migration 0027): weaker evidence (docs/brief.md, "Touches").

create or replace function doco.extract_touches(p_text text)
returns table (kind text, value text)
language sql immutable as $$
  with raw as (
    -- A URL glued to what precedes it (a Markdown reference definition written without its
    -- space, `[link]:https://…`, or `url=https://…`) starts at its scheme.
    select regexp_replace(regexp_replace(regexp_replace(m[1], '^[^/]*?[:=](https?://)', '\1', 'i'), '^[*_~]+', ''), '([.:!?*_~]+|:[0-9]+(:[0-9]+)?)$', '') as tok
    -- The text's tokens are its runs of characters other than blanks, brackets, quotes and
    -- `|,;`. Only a token with a slash, hash or dot (or naming a file) can be a path, URL or
    -- issue: plain words, most of any text, skip the regular expressions below. One expression
    -- finds those tokens whole (a match cannot cross a separator, and from its leftmost start
    -- the longest match is the whole run), where splitting the text into every token and
    -- testing each cost ~6x more (docs/eval.md, "Writes and upkeep"). A dot that ends its token
    -- does not count: a word that ends a sentence ("flow.") would name nothing once cut below,
    -- as cutting only takes characters away, the last dot always among them.
    from regexp_matches(coalesce(p_text, ''), '[^\s()\[\]{}<>"''`|,;]*(?:[/#]|\.[^\s()\[\]{}<>"''`|,;]|file|CODEOWNERS)[^\s()\[\]{}<>"''`|,;]*', 'g') as m
  ), tokens as (
    -- The filter again, on the token as cut: one whose dots all end it ("etc..", "e.g.:")
    -- passed it above and may name nothing once cut. Each token left meets a dozen expressions
    -- below. Cutting never adds a slash, dot, hash or letter. A test for a plain substring is
    -- strpos, not `~`, here and below: Postgres keeps the last 32 compiled expressions per
    -- connection, and a capture's statements together used more, so every write compiled some
    -- of these again (a third of the trigger's time; docs/eval.md, "Session 12"). One
    -- expression serves both Dockerfile tests below for the same reason.
    select distinct tok from raw
     where length(tok) between 2 and 500
       and (strpos(tok, '/') > 0 or strpos(tok, '.') > 0 or strpos(tok, '#') > 0 or strpos(tok, 'file') > 0 or strpos(tok, 'CODEOWNERS') > 0)
  ), found as (
    select 'url' as kind, tok as value from tokens where tok ~* '^https?://[^/]+'
    union all
    select 'issue', m[1] || '/' || m[2] || '#' || m[3]
      from tokens, regexp_match(tok, '^https?://github\.com/([\w.-]+)/([\w.-]+)/(?:pull|issues)/([0-9]+)', 'i') as m
     where m is not null
    union all
    select 'issue', '#' || m[3]
      from tokens, regexp_match(tok, '^https?://github\.com/([\w.-]+)/([\w.-]+)/(?:pull|issues)/([0-9]+)', 'i') as m
     where m is not null
    union all
    select 'path', rtrim(m[1], '/')
      from tokens, regexp_match(tok, '^https?://[^/]+/[\w.-]+/[\w.-]+(?:/-)?/(?:blob|tree)/[^/]+/([^?#]+)', 'i') as m
     where m is not null
    union all
    select 'issue', tok from tokens where tok ~ '^([\w.-]+/[\w.-]+)?#[0-9]+$'
    union all
    select 'issue', substring(tok from strpos(tok, '#')) from tokens where tok ~ '^[\w.-]+/[\w.-]+#[0-9]+$'
    union all
    select 'path', rtrim(p, '/') from (
      select regexp_replace(tok, '^(\.{1,2}/|/)+', '') as p from tokens where strpos(tok, '://') = 0 and strpos(tok, '#') = 0
    ) paths
    where p ~ '^[\w@+-][\w@.+-]*(/[\w@.+-]+)*/?$' and p ~ '[A-Za-z]'
      and (
        (strpos(p, '/') > 0 and (right(p, 1) = '/' or p ~ '\.[A-Za-z][A-Za-z0-9]{0,9}$' or p ~ '^[^/]+/[^/]+/[^/]+'
                      or p ~ '(^|/)(Dockerfile|Makefile|Rakefile|Gemfile|Procfile|Jenkinsfile|CODEOWNERS)$'))
        or (strpos(p, '/') = 0 and p ~* '\.(ts|tsx|js|jsx|mjs|cjs|go|rs|py|rb|java|kt|kts|swift|scala|c|h|cc|cpp|hpp|cs|fs|php|sql|md|mdx|rst|adoc|json|jsonc|yaml|yml|toml|proto|graphql|sh|bash|zsh|ps1|css|scss|less|html|vue|svelte|tf|hcl|lock|ini|cfg|conf|env|xml|gradle|ex|exs|erl|hs|ml|clj|dart|lua|r|jl|zig|nim|sol|dockerfile|mk|cmake)$'
            or p ~ '(^|/)(Dockerfile|Makefile|Rakefile|Gemfile|Procfile|Jenkinsfile|CODEOWNERS)$')
      )
    union all
    select 'record', m[1]
      from regexp_matches(coalesce(p_text, ''), '\m((?:intent|idea|rule|decision|action|log|eval|reference|state|principal)_[0-9A-HJKMNP-TV-Z]{26})\M', 'g') as m
  )
  select distinct kind, value from found where value is not null and value <> ''
$$;
comment on function doco.extract_touches(text) is 'Paths, URLs, record ids and issue numbers named in a text.';

-- Paths a record declares outright in body.touch_paths (a PR's changed files, from the files
-- API): taken as given, so a dotfile (.github/workflows/ci.yml) or an extension-less path
-- (bin/deploy) the prose rules above would take for a word is still a touch. Only what reads as
-- a relative path counts: no spaces, quotes, URLs or `..` segments.
create or replace function doco.declared_touch_paths(p_body jsonb)
returns table (kind text, value text)
language sql immutable as $$
  select distinct 'path', rtrim(regexp_replace(p, '^(\./|/)+', ''), '/')
    from jsonb_array_elements(case when jsonb_typeof(p_body->'touch_paths') = 'array' then p_body->'touch_paths' else '[]'::jsonb end) as e,
         lateral (select e #>> '{}' as p) as x
   where jsonb_typeof(e) = 'string' and length(p) between 1 and 500 and p ~ '[A-Za-z0-9]' and p !~ '[[:space:]<>"''`|\\]' and strpos(p, '://') = 0 and p !~ '(^|/)\.\.(/|$)'
$$;
comment on function doco.declared_touch_paths(jsonb) is 'The paths a record declares in body.touch_paths, as path touches.';

create or replace function doco.node_text(p_title text, p_prose text, p_body jsonb) returns text
language sql immutable as $$
  select concat_ws(E'\n', p_title, p_prose,
    (select string_agg(s #>> '{}', E'\n') from jsonb_path_query(p_body, 'strict $.** ? (@.type() == "string")') as s))
$$;
comment on function doco.node_text(text, text, jsonb) is 'All the text of a record: title, prose and every string inside body.';

-- Whether a heading titles a list of links rather than prose: References, Links, See also,
-- Further reading, Bibliography, Related work… (a leading number or "Appendix A:" aside).
-- "Reference" alone is not one: it usually titles reference documentation.
create or replace function doco.is_references_heading(p_heading text) returns boolean
language sql immutable as $$
  select coalesce(lower(btrim(p_heading)) ~ '^(#+\s*)?([0-9]+(\.[0-9]+)*\.?\s+|appendix\s+[a-z0-9]+[.:]?\s*)?(see also|further reading|((useful|external|related|additional|other|further) )?(references|links|bibliography|citations)|(useful|external|related|additional|other|further) (resources|sources)|related (work|works|documents|projects))( and (further reading|((useful|external|related|additional|other|further) )?(references|links|resources)))?[\s:#]*$', false)
$$;
comment on function doco.is_references_heading(text) is 'Whether a heading titles a list of links (References, See also, Further reading…).';

-- A record's prose in two parts: what it says (false) and what it only lists among its links
-- (true). Among the links: a Markdown link reference definition (`[label]: url`) whose label
-- nothing outside the links uses; every line under a heading that titles a list of links
-- (p_heading for the lines before the prose's first heading, e.g. a doc section's own
-- heading); and, under any other heading, lines that are a link with at most a short note
-- (`- [ADR 61](./adr-061.md): the scope`) when they are most of its lines. A definition whose
-- label the prose uses (`… the [Signable] interface …`) is the prose's own link, and
-- `[label]: # (file)` is Markdown's comment idiom (embedmd names the file the code below
-- shows): neither is among the links. Headings and fenced code are never among them.
-- Few distinct regular expressions on purpose: Postgres keeps the last 32 compiled, and
-- doco.extract_touches, run beside this in every trigger call, uses most of them.
create or replace function doco.split_link_lists(p_heading text, p_prose text)
returns table (links_only boolean, text text)
language sql immutable as $$
  with lines as (
    -- m[1]: a code fence; m[2]: a heading; m[3]: a definition's label, m[4] `#` for the comment idiom.
    select l, n, regexp_match(l, '^ {0,3}(?:(```|~~~)|(#{1,6})[ \t]|\[([^\]]+)\]:\s*(#)?)') as m
      from string_to_table(coalesce(p_prose, ''), E'\n') with ordinality as x(l, n)
  ), marked as (
    select l, n, m, m[1] is not null as fence,
           (count(*) filter (where m[1] is not null) over (order by n rows between unbounded preceding and 1 preceding)) % 2 = 1 as in_code
      from lines
  ), kinds as (
    select l, n,
           not in_code and m[2] is not null as heading,
           case when not in_code and m[4] is null then lower(m[3]) end as defines,
           -- A link (inline, reference, autolink or bare URL) first, after a list marker and an
           -- optional short label ("State sync ADR: <url>"), and at most 60 letters and digits
           -- outside links.
           not in_code and not fence and (strpos(l, '[') > 0 or strpos(l, '://') > 0)
             and l ~ '^\s*(>\s*)*([-*+]|[0-9]+[.)])?\s*([^\[<(]{1,40}:\s*)?(\[[^\]]*\](\([^)]*\)|\[[^\]]*\])?|<https?://[^>]+>|https?://\S+)'
             and length(regexp_replace(l, '\[([^\]]*)\]\([^)]*\)|\[[^\]]*\]\[[^\]]*\]|<https?://[^>]+>|https?://\S+|[^A-Za-z0-9]+', '', 'g')) <= 60 as link_line
      from marked
  ), blocks as (
    select *, count(*) filter (where heading) over (order by n) as block from kinds
  ), block_kinds as (
    select block,
           doco.is_references_heading(coalesce(max(l) filter (where heading), p_heading)) as refs,
           count(*) filter (where not heading and defines is null and btrim(l) <> '') as lines,
           count(*) filter (where link_line and defines is null) as links
      from blocks group by block
  ), placed as (
    select b.l, b.n, b.defines,
           not b.heading and b.defines is null and (k.refs or (b.link_line and k.links * 2 > k.lines)) as in_list
      from blocks b join block_kinds k using (block)
  ), used as materialized (
    select distinct lower(m[1]) as label
      from placed, regexp_matches(l, '\[([^\]]+)\]', 'g') as m
     where not in_list and defines is null
  )
  select w, string_agg(l, E'\n' order by n)
    from (select p.l, p.n, p.in_list or (p.defines is not null and not exists (select 1 from used u where u.label = p.defines)) as w
            from placed p) as x
   group by w
$$;
comment on function doco.split_link_lists(text, text) is 'A record''s prose split into what it says (false) and what it only lists among its links (true).';

-- Every touch of a record (its own: title, prose, every string in body, body.touch_paths) with
-- whether it names it only among its links. A title is a heading and body strings are fields:
-- what they name is never links-only. Prose without a link, a definition or a URL, under a
-- heading of prose, lists nothing: the split only runs for the others (a filter evaluated once per
-- record), and the prose is taken whole. One SQL query, which Postgres inlines into the statement
-- that calls it, so the insert trigger derives a whole statement's records in one query (in
-- plpgsql it cost a function call and its query's start-up per record, a fifth of its time).
create or replace function doco.record_touches(p_title text, p_prose text, p_body jsonb)
returns table (kind text, value text, links_only boolean)
language sql immutable as $$
  select f.kind, f.value, bool_and(f.links_only)
    from (select coalesce(p_body #>> '{pointer,heading}', p_title) as heading) h
    cross join lateral (
      select coalesce(strpos(p_prose, '](') > 0 or strpos(p_prose, '][') > 0 or strpos(p_prose, ']:') > 0 or strpos(p_prose, '://') > 0
                      or doco.is_references_heading(h.heading), false) as split) w
    cross join lateral (
      select max(s.text) filter (where not s.links_only) as said, max(s.text) filter (where s.links_only) as listed
        from doco.split_link_lists(h.heading, p_prose) as s
       where w.split) sp
    cross join lateral (
      select t.kind, t.value, false as links_only
        from doco.extract_touches(doco.node_text(p_title, case when w.split then sp.said else p_prose end, p_body)) as t
      union all
      select t.kind, t.value, true from doco.extract_touches(sp.listed) as t
      union all
      select d.kind, d.value, false from doco.declared_touch_paths(p_body) as d) as f
   group by f.kind, f.value
$$;
comment on function doco.record_touches(text, text, jsonb) is 'A record''s own touches (title, prose, body) and whether it names each only among its links.';

-- Re-extracts a record's own touches. Inherited ones (inherited_from set) are not its text's
-- to drop: a replacement keeps governing what the record it replaced governed, however it is
-- edited later. A touch it also names itself stays inherited, and is links-only only when both
-- name it only among links. The trigger runs it on every write of a record's text, and a
-- derivation catch-up (sql/derivations.sql) on every record when these functions change.
create or replace function doco.refresh_own_touches(p_id text, p_workspace_id text, p_title text, p_prose text, p_body jsonb, p_replace boolean)
returns void language plpgsql volatile
-- Planned once a connection: a plan for each call's values cost ~2 ms an update, the touch
-- extraction's expressions folded at planning then run again. Such a plan must not depend on
-- how many touches there were when it was made, so no sequential scan where an index serves.
set plan_cache_mode = force_generic_plan
set enable_seqscan = off as $$
begin
  if p_replace then
    delete from doco.touches where node_id = p_id and inherited_from is null;
  end if;
  insert into doco.touches (node_id, workspace_id, kind, value, links_only)
  select p_id, p_workspace_id, t.kind, t.value, t.links_only
    from doco.record_touches(p_title, p_prose, p_body) as t
   where (t.kind <> 'record' or t.value <> p_id) and t.value <> ''
  on conflict (node_id, kind, value) do update
    set links_only = doco.touches.links_only and excluded.links_only;
end $$;
comment on function doco.refresh_own_touches(text, text, text, text, jsonb, boolean) is 'Derives a record''s own touches from its title, prose and body (replacing those it had when p_replace).';

create or replace function doco.tg_nodes__refresh_touches() returns trigger
language plpgsql volatile as $$
begin
  perform doco.refresh_own_touches(new.id, new.workspace_id, new.title, new.prose, new.body, tg_op = 'UPDATE');
  return null;
end $$;

-- Supersede carries touches over (docs/writes.md): a `replaces` edge, once live, copies every
-- touch of the replaced record (its own and those it inherited in turn) to the replacement,
-- marked inherited_from, with its links_only. A touch the replacement also names itself becomes
-- inherited, so a later edit that stops naming it does not drop it, and strong if either names
-- it outside links. Only a live edge: one waiting for review (an agent's) gave an active record
-- the paths of any record it named, for good, before a person had looked, and a rejection left
-- them (found by a hostile-input review; migrations/0038 takes back what such edges gave).
create or replace function doco.tg_edges__inherit_touches() returns trigger
language plpgsql volatile as $$
begin
  insert into doco.touches (node_id, workspace_id, kind, value, inherited_from, links_only)
  select new.from_id, t.workspace_id, t.kind, t.value, new.to_id, t.links_only
    from doco.touches t
   where t.node_id = new.to_id and not (t.kind = 'record' and t.value = new.from_id)
  on conflict (node_id, kind, value) do update
    set inherited_from = coalesce(doco.touches.inherited_from, excluded.inherited_from),
        links_only = doco.touches.links_only and excluded.links_only;
  return null;
end $$;

-- Inserted records' touches, once per INSERT statement from its transition table: what
-- refresh_own_touches(…, false) inserts for each row, in one statement (the doc ingester's
-- batches of 200 had paid a trigger call, two nested function calls and an insert per record).
-- An update keeps the row trigger, which replaces the touches a record had.
create or replace function doco.tg_nodes__derive_inserted_touches() returns trigger
language plpgsql volatile as $$
begin
  insert into doco.touches (node_id, workspace_id, kind, value, links_only)
  select n.id, n.workspace_id, t.kind, t.value, t.links_only
    from inserted_nodes n, lateral doco.record_touches(n.title, n.prose, n.body) as t
   where (t.kind <> 'record' or t.value <> n.id) and t.value <> ''
  on conflict (node_id, kind, value) do update
    set links_only = doco.touches.links_only and excluded.links_only;
  return null;
end $$;

create or replace trigger _700_refresh_touches after update of title, prose, body on doco.nodes
  for each row execute function doco.tg_nodes__refresh_touches();
create or replace trigger _700_derive_inserted_touches after insert on doco.nodes
  referencing new table as inserted_nodes
  for each statement execute function doco.tg_nodes__derive_inserted_touches();
create or replace trigger _700_inherit_touches after insert on doco.edges
  for each row when (new.edge_type = 'replaces' and new.lifecycle = 'active')
  execute function doco.tg_edges__inherit_touches();
create or replace trigger _700_inherit_touches_when_approved after update of lifecycle on doco.edges
  for each row when (new.edge_type = 'replaces' and new.lifecycle = 'active' and old.lifecycle <> 'active')
  execute function doco.tg_edges__inherit_touches();
