-- The changeset a write belongs to. The app opens one per transaction and names it in the
-- transaction-local setting doco.changeset_id; a write from psql that did not gets one made for
-- it (source 'sql'), so every version row still names the transaction that wrote it. A changeset
-- belongs to one workspace, so a psql transaction writing to two gets one per workspace (found
-- again by the transaction id it records), never a refusal for a changeset it did not name.

create or replace function doco.current_changeset(p_workspace text) returns text
language plpgsql volatile as $$
declare
  v_id text := nullif(current_setting('doco.changeset_id', true), '');
  v_ws text;
begin
  if v_id is not null then
    select workspace_id into v_ws from doco.changesets where id = v_id;
    if v_ws is null then
      raise exception 'changeset % named by doco.changeset_id does not exist', v_id using errcode = 'DC004';
    end if;
    if v_ws <> p_workspace then
      raise exception 'changeset % belongs to another workspace', v_id using errcode = 'DC004';
    end if;
    return v_id;
  end if;
  -- created_at defaults to now(), the transaction's start, which keeps this lookup on an index.
  select id into v_id from doco.changesets
   where workspace_id = p_workspace and created_at = now() and txid = txid_current() and source = 'sql'
   order by id limit 1;
  if v_id is not null then
    return v_id;
  end if;
  v_id := doco.new_id('changeset');
  insert into doco.changesets (id, workspace_id, source, summary) values (v_id, p_workspace, 'sql', 'direct SQL write');
  return v_id;
end $$;
comment on function doco.current_changeset(text) is 'The changeset of this transaction, made on demand for direct SQL writes.';

create or replace function doco.changeset_actor(p_changeset text) returns text
language sql stable as $$ select actor_id from doco.changesets where id = p_changeset $$;
