-- Lifecycle drafting → queued → active → retired, forward only, on records and edges alike;
-- retired is final. An active edge connects only active records, except `replaces` (new → old),
-- which may point at the retired record it replaced. Retiring a record retires its edges.
--
-- SQLSTATEs raised here: DC001 (lifecycle violation), DC004 (cross-workspace reference).

create or replace function doco.lifecycle_rank(p_lifecycle text) returns integer
language sql immutable as $$
  select case p_lifecycle when 'drafting' then 0 when 'queued' then 1 when 'active' then 2 when 'retired' then 3 end
$$;

create or replace function doco.tg_nodes__check_lifecycle() returns trigger
language plpgsql volatile as $$
begin
  if old.lifecycle = 'retired'
     and (new.collection_id, new.lifecycle, new.title, new.prose, new.body)
         is distinct from (old.collection_id, old.lifecycle, old.title, old.prose, old.body) then
    raise exception 'record % is retired, and retired is final', old.id using errcode = 'DC001';
  end if;
  if doco.lifecycle_rank(new.lifecycle) < doco.lifecycle_rank(old.lifecycle) then
    raise exception 'record % cannot move back from % to %: lifecycle only moves forward', old.id, old.lifecycle, new.lifecycle
      using errcode = 'DC001';
  end if;
  return new;
end $$;

create or replace function doco.tg_edges__check_lifecycle() returns trigger
language plpgsql volatile as $$
declare
  v_from doco.nodes;
  v_to doco.nodes;
begin
  if tg_op = 'UPDATE' then
    if old.lifecycle = 'retired' and new.lifecycle <> 'retired' then
      raise exception 'edge % is retired, and retired is final', old.id using errcode = 'DC001';
    end if;
    if doco.lifecycle_rank(new.lifecycle) < doco.lifecycle_rank(old.lifecycle) then
      raise exception 'edge % cannot move back from % to %: lifecycle only moves forward', old.id, old.lifecycle, new.lifecycle
        using errcode = 'DC001';
    end if;
  end if;
  select * into v_from from doco.nodes where id = new.from_id;
  select * into v_to from doco.nodes where id = new.to_id;
  if v_from.workspace_id <> new.workspace_id or v_to.workspace_id <> new.workspace_id then
    raise exception 'edge % must connect records of its own workspace', new.id using errcode = 'DC004';
  end if;
  if new.lifecycle = 'active' then
    if v_from.lifecycle <> 'active' then
      raise exception 'an active % edge needs active records: % is %', new.edge_type, v_from.id, v_from.lifecycle
        using errcode = 'DC001';
    end if;
    if v_to.lifecycle <> 'active' and not (new.edge_type = 'replaces' and v_to.lifecycle = 'retired') then
      raise exception 'an active % edge needs active records: % is %', new.edge_type, v_to.id, v_to.lifecycle
        using errcode = 'DC001';
    end if;
  end if;
  return new;
end $$;

-- Retiring a record retires its live edges in the same transaction; a `replaces` edge pointing
-- at it stays, since that is how a brief reaching the retired record finds its replacement.
create or replace function doco.tg_nodes__retire_edges() returns trigger
language plpgsql volatile as $$
begin
  update doco.edges set lifecycle = 'retired'
   where lifecycle <> 'retired'
     and (from_id = new.id or (to_id = new.id and edge_type <> 'replaces'));
  return null;
end $$;

create or replace trigger _100_check_lifecycle before update on doco.nodes
  for each row execute function doco.tg_nodes__check_lifecycle();
create or replace trigger _100_check_lifecycle before insert or update on doco.edges
  for each row execute function doco.tg_edges__check_lifecycle();
create or replace trigger _600_retire_edges after update of lifecycle on doco.nodes
  for each row when (new.lifecycle = 'retired' and old.lifecycle <> 'retired')
  execute function doco.tg_nodes__retire_edges();
