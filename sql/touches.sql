-- The touches index: every file path, URL, record id and pull-request/issue number a record
-- names, kept by trigger so psql writes are indexed too. The brief's exact-match retriever
-- reads it. A repository blob/tree URL also yields its repo-relative path; `owner/repo#12`
-- and pull/issue URLs also yield the bare `#12`. A replacement also inherits the touches of the
-- record it replaced (inherited_from, migration 0006).

create or replace function doco.extract_touches(p_text text)
returns table (kind text, value text)
language sql immutable as $$
  with raw as (
    -- A URL glued to what precedes it (a Markdown reference definition written without its
    -- space, `[link]:https://…`, or `url=https://…`) starts at its scheme.
    select regexp_replace(regexp_replace(regexp_replace(t, '^[^/]*?[:=](https?://)', '\1', 'i'), '^[*_~]+', ''), '([.:!?*_~]+|:[0-9]+(:[0-9]+)?)$', '') as tok
    from regexp_split_to_table(coalesce(p_text, ''), '[\s()\[\]{}<>"''`|,;]+') as t
   -- Only a token with a slash, dot or hash can be a path, URL or issue: plain words, most of
   -- any text, skip the regular expressions below (this filter makes the trigger ~4x cheaper).
   where t ~ '[/.#]' or t ~ '(file|CODEOWNERS)'
  ), tokens as (
    select distinct tok from raw where length(tok) between 2 and 500
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
    select 'issue', substring(tok from '#[0-9]+$') from tokens where tok ~ '^[\w.-]+/[\w.-]+#[0-9]+$'
    union all
    select 'path', rtrim(p, '/') from (
      select regexp_replace(tok, '^(\.{1,2}/|/)+', '') as p from tokens where tok !~ '://' and tok !~ '#'
    ) paths
    where p ~ '^[\w@+-][\w@.+-]*(/[\w@.+-]+)*/?$' and p ~ '[A-Za-z]'
      and (
        (p ~ '/' and (p ~ '/$' or p ~ '\.[A-Za-z][A-Za-z0-9]{0,9}$' or p ~ '^[^/]+/[^/]+/[^/]+'
                      or p ~ '/(Dockerfile|Makefile|Rakefile|Gemfile|Procfile|Jenkinsfile|CODEOWNERS)$'))
        or (p !~ '/' and p ~* '\.(ts|tsx|js|jsx|mjs|cjs|go|rs|py|rb|java|kt|kts|swift|scala|c|h|cc|cpp|hpp|cs|fs|php|sql|md|mdx|rst|adoc|json|jsonc|yaml|yml|toml|proto|graphql|sh|bash|zsh|ps1|css|scss|less|html|vue|svelte|tf|hcl|lock|ini|cfg|conf|env|xml|gradle|ex|exs|erl|hs|ml|clj|dart|lua|r|jl|zig|nim|sol|dockerfile|mk|cmake)$'
            or p ~ '^(Dockerfile|Makefile|Rakefile|Gemfile|Procfile|Jenkinsfile|CODEOWNERS)$')
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
   where jsonb_typeof(e) = 'string' and length(p) between 1 and 500 and p ~ '[A-Za-z0-9]' and p !~ '[[:space:]<>"''`|\\]' and p !~ '://' and p !~ '(^|/)\.\.(/|$)'
$$;
comment on function doco.declared_touch_paths(jsonb) is 'The paths a record declares in body.touch_paths, as path touches.';

create or replace function doco.node_text(p_title text, p_prose text, p_body jsonb) returns text
language sql immutable as $$
  select concat_ws(E'\n', p_title, p_prose,
    (select string_agg(s #>> '{}', E'\n') from jsonb_path_query(p_body, 'strict $.** ? (@.type() == "string")') as s))
$$;
comment on function doco.node_text(text, text, jsonb) is 'All the text of a record: title, prose and every string inside body.';

-- Re-extracts a record's own touches. Inherited ones (inherited_from set) are not its text's
-- to drop: a replacement keeps governing what the record it replaced governed, however it is
-- edited later. The trigger runs it on every write of a record's text, and a derivation
-- catch-up (sql/derivations.sql) on every record when these functions change.
create or replace function doco.refresh_own_touches(p_id text, p_workspace_id text, p_title text, p_prose text, p_body jsonb, p_replace boolean)
returns void language plpgsql volatile as $$
begin
  if p_replace then
    delete from doco.touches where node_id = p_id and inherited_from is null;
  end if;
  insert into doco.touches (node_id, workspace_id, kind, value)
  select distinct p_id, p_workspace_id, t.kind, t.value
    from (select * from doco.extract_touches(doco.node_text(p_title, p_prose, p_body))
          union select * from doco.declared_touch_paths(p_body)) as t
   where (t.kind <> 'record' or t.value <> p_id) and t.value <> ''
  on conflict (node_id, kind, value) do nothing;
end $$;
comment on function doco.refresh_own_touches(text, text, text, text, jsonb, boolean) is 'Derives a record''s own touches from its title, prose and body (replacing those it had when p_replace).';

create or replace function doco.tg_nodes__refresh_touches() returns trigger
language plpgsql volatile as $$
begin
  perform doco.refresh_own_touches(new.id, new.workspace_id, new.title, new.prose, new.body, tg_op = 'UPDATE');
  return null;
end $$;

-- Supersede carries touches over (docs/writes.md): a new `replaces` edge copies every touch of the
-- replaced record (its own and those it inherited in turn) to the replacement, marked
-- inherited_from. A touch the replacement also names itself becomes inherited, so a later edit
-- that stops naming it does not drop it.
create or replace function doco.tg_edges__inherit_touches() returns trigger
language plpgsql volatile as $$
begin
  insert into doco.touches (node_id, workspace_id, kind, value, inherited_from)
  select new.from_id, t.workspace_id, t.kind, t.value, new.to_id
    from doco.touches t
   where t.node_id = new.to_id and not (t.kind = 'record' and t.value = new.from_id)
  on conflict (node_id, kind, value) do update
    set inherited_from = coalesce(doco.touches.inherited_from, excluded.inherited_from);
  return null;
end $$;

create or replace trigger _700_refresh_touches after insert or update of title, prose, body on doco.nodes
  for each row execute function doco.tg_nodes__refresh_touches();
create or replace trigger _700_inherit_touches after insert on doco.edges
  for each row when (new.edge_type = 'replaces' and new.lifecycle <> 'retired')
  execute function doco.tg_edges__inherit_touches();
