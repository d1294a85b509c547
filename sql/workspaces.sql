-- Workspace bootstrap: a workspace always has its constitution and its team directory (where
-- the principals that write live).

create or replace function doco.ensure_workspace(p_slug text) returns text
language plpgsql volatile as $$
declare
  v_id text;
begin
  select id into v_id from doco.workspaces where slug = p_slug;
  if v_id is not null then return v_id; end if;
  v_id := doco.new_id('ws');
  insert into doco.workspaces (id, slug, name) values (v_id, p_slug, p_slug)
  on conflict (slug) do nothing;
  select id into v_id from doco.workspaces where slug = p_slug;
  insert into doco.collections (id, workspace_id, slug, template, name, goal)
  values (doco.new_id('collection'), v_id, 'constitution', 'constitution', 'Constitution',
          (select default_goal from doco.templates where slug = 'constitution')),
         (doco.new_id('collection'), v_id, 'people', 'team-directory', 'People',
          (select default_goal from doco.templates where slug = 'team-directory'))
  on conflict do nothing;
  return v_id;
end $$;
comment on function doco.ensure_workspace(text) is 'The id of the workspace with this slug, created with its constitution and people collections if missing.';

-- The tokens a token minted, directly or through the tokens it minted (doco.tokens.minted_by,
-- migration 0045), each once: the console's token page counts them and revokes them with it.
-- plpgsql: sql/ is applied to databases of every migration, and a SQL function's body is checked
-- against the tables as they are (migration 0045 adds the column).
create or replace function doco.tokens_minted_from(p_id text) returns setof doco.tokens
language plpgsql stable as $$
begin
  return query
    with recursive minted as (
      select t.* from doco.tokens t where t.minted_by = p_id
      union
      select t.* from doco.tokens t join minted m on t.minted_by = m.id
    )
    select * from minted;
end $$;
comment on function doco.tokens_minted_from(text) is 'Every token minted from the given one, directly or through tokens it minted.';
