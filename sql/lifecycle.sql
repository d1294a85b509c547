-- Lifecycle drafting → queued → active → retired, forward only, on records and edges alike;
-- retired is final. An active edge connects only active records, except `replaces` (new → old),
-- which may point at the retired record it replaced. Retiring a record retires its edges.
--
-- SQLSTATEs raised here: DC001 (lifecycle violation), DC004 (cross-workspace reference).
--
-- Concurrency (READ COMMITTED, the default of the app and of psql): an edge check and a retire
-- read each other's records, and the foreign key's KEY SHARE lock does not conflict with a
-- lifecycle update, so they meet on a transaction-scoped advisory lock per record instead:
-- making an edge live holds its endpoints' lock shared, a record leaving `active` (and a new
-- `replaces` edge, which retires its target) takes it exclusive. Whoever comes second waits for
-- the first to commit and then reads what it committed: the edge check sees the retired record
-- and refuses, or the retire's edge sweep sees the new edge and retires it. Advisory locks, not
-- row locks, so the PageRank sweep's updates of the same rows neither wait nor deadlock on them.

-- The lock a record's lifecycle is guarded by: key (7341, hashtext(id)); a hash collision only
-- makes two unrelated writes wait for each other.
create or replace function doco.lock_record_lifecycle(p_id text, p_exclusive boolean) returns void
language plpgsql volatile as $$
begin
  if p_exclusive then
    perform pg_advisory_xact_lock(7341, hashtext(p_id));
  else
    perform pg_advisory_xact_lock_shared(7341, hashtext(p_id));
  end if;
end $$;
comment on function doco.lock_record_lifecycle(text, boolean) is
  'Takes the transaction-scoped lock that orders edge checks against retires of record p_id.';

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
  -- Leaving active: wait for edges being made live on this record to commit (see above), so the
  -- edge sweep of _600_retire_edges, a later statement with a fresh snapshot, finds them.
  if old.lifecycle = 'active' and new.lifecycle <> 'active' then
    perform doco.lock_record_lifecycle(old.id, true);
  end if;
  return new;
end $$;

create or replace function doco.tg_edges__check_lifecycle() returns trigger
language plpgsql volatile as $$
declare
  v_from doco.nodes;
  v_to doco.nodes;
  v_other doco.edges;
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
  -- An edge becoming live takes its endpoints' locks before reading them (see above). A new
  -- `replaces` edge takes its target's exclusively: its writer retires the target, and a second
  -- replacement must wait and then find the first. Locks are taken in key order.
  if new.lifecycle <> 'retired' and (tg_op = 'INSERT' or (new.lifecycle = 'active' and old.lifecycle <> 'active')) then
    if hashtext(new.from_id) <= hashtext(new.to_id) then
      perform doco.lock_record_lifecycle(new.from_id, false);
      perform doco.lock_record_lifecycle(new.to_id, tg_op = 'INSERT' and new.edge_type = 'replaces');
    else
      perform doco.lock_record_lifecycle(new.to_id, tg_op = 'INSERT' and new.edge_type = 'replaces');
      perform doco.lock_record_lifecycle(new.from_id, false);
    end if;
  end if;
  select * into v_from from doco.nodes where id = new.from_id;
  select * into v_to from doco.nodes where id = new.to_id;
  -- A live edge takes the place of the proposals in its way: a `replaces` of the same record, or
  -- an edge of its kind between the same records, that waits for review. Counted as live, an
  -- agent's queued edge blocked a person's supersede and relate for as long as it waited, and
  -- nothing reviews a lone edge (found by a hostile-input review). An edge an agent writes is
  -- pending here already (_050_agent_review), so only a person's (or a trusted agent's) clears.
  -- (Each statement's predicate is its index's: edges_one_live, edges_one_live_replacement.)
  if tg_op = 'INSERT' and new.lifecycle = 'active' then
    update doco.edges set lifecycle = 'retired'
     where from_id = new.from_id and to_id = new.to_id and edge_type = new.edge_type
       and lifecycle <> 'retired' and lifecycle <> 'active' and id <> new.id;
    if new.edge_type = 'replaces' then
      update doco.edges set lifecycle = 'retired'
       where to_id = new.to_id and edge_type = 'replaces' and lifecycle <> 'retired' and lifecycle <> 'active' and id <> new.id;
    end if;
  end if;
  if tg_op = 'INSERT' and new.edge_type = 'replaces' and new.lifecycle <> 'retired' then
    select * into v_other from doco.edges
     where to_id = new.to_id and edge_type = 'replaces' and lifecycle <> 'retired' and id <> new.id
     limit 1;
    if found then
      raise exception 'record % is already replaced by %: it can be superseded once', new.to_id, v_other.from_id
        using errcode = 'DC001';
    end if;
  end if;
  if v_from.workspace_id <> new.workspace_id or v_to.workspace_id <> new.workspace_id then
    raise exception 'edge % must connect records of its own workspace', new.id using errcode = 'DC004';
  end if;
  -- A new edge to a retired record (but a `replaces` edge's target) could never go live: as a
  -- proposal it waited in the review queue for ever, approvable "once the record is active"
  -- (found by a hostile-input review). Retiring a record retires its edges, so none is left after.
  if tg_op = 'INSERT' and new.lifecycle <> 'retired'
     and (v_from.lifecycle = 'retired' or (v_to.lifecycle = 'retired' and new.edge_type <> 'replaces')) then
    raise exception 'record % is retired: a % edge to it would never go live', case when v_from.lifecycle = 'retired' then v_from.id else v_to.id end, new.edge_type
      using errcode = 'DC001';
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
