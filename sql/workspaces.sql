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

-- A retired principal signs nobody in (docs/security.md, "Tokens"): retiring a person's or an
-- agent's principal record is how a team says they are gone, and their tokens, console sessions
-- and unused sign-in links went on working. Retiring it revokes them in the same transaction
-- (the token page then shows them revoked, and when), and no token, session or link is made for
-- a retired principal afterwards, through psql either. plpgsql, as above: the tables' columns
-- are checked when the trigger fires, not when this file is applied.
create or replace function doco.tg_nodes__retired_principal_signs_out() returns trigger
language plpgsql volatile as $$
begin
  update doco.tokens set revoked_at = now() where principal_id = new.id and revoked_at is null;
  update doco.console_sessions set signed_out_at = now()
   where principal_id = new.id and signed_out_at is null and expires_at > now();
  update doco.console_codes set used_at = now() where principal_id = new.id and used_at is null;
  return null;
end $$;

create or replace trigger _650_retired_principal_signs_out after update of lifecycle on doco.nodes
  for each row when (new.node_type = 'principal' and new.lifecycle = 'retired' and old.lifecycle <> 'retired')
  execute function doco.tg_nodes__retired_principal_signs_out();

create or replace function doco.tg__refuse_retired_principal() returns trigger
language plpgsql volatile as $$
begin
  -- FOR SHARE: a retire still open is waited for, so a token made meanwhile is refused, not
  -- left live beside the ones the retire revoked (a hostile review).
  perform 1 from doco.nodes p where p.id = new.principal_id for share;
  if exists (select 1 from doco.nodes p where p.id = new.principal_id and p.lifecycle = 'retired') then
    raise exception 'principal % is retired: nothing signs in as it', new.principal_id using errcode = 'DC011';
  end if;
  return new;
end $$;

create or replace trigger _100_refuse_retired_principal before insert on doco.tokens
  for each row execute function doco.tg__refuse_retired_principal();
create or replace trigger _100_refuse_retired_principal before insert on doco.console_sessions
  for each row execute function doco.tg__refuse_retired_principal();
create or replace trigger _100_refuse_retired_principal before insert on doco.console_codes
  for each row execute function doco.tg__refuse_retired_principal();
