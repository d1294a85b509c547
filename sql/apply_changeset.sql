-- The write path's one statement (src/graph/apply-changeset.ts): a changeset's row and every
-- operation of it, applied in order, and the records and edges it wrote read back, all in one
-- round trip. Planning, policies and the duplicate guard happen before, in the application; the
-- rules that protect the data are the tables' triggers, which fire here as for any write.
-- A changeset that supersedes no committed record and has no create that must not duplicate
-- (every capture) runs as this one statement with no transaction around it (a statement is
-- atomic); any other runs it inside the transaction that opened the changeset and took its
-- locks first.
--
-- p_changeset as doco.open_changeset takes it. p_operations: one object per
-- operation, every id already chosen and every alias resolved by the caller:
--   {op: 'create' | 'supersede', id, collection_id, node_type, lifecycle, title, prose, body, old_id?, edge_id?}
--   {op: 'relate', edge_id, from, to, edge_type, lifecycle}
--   {op: 'append', id, prose}          (prose already trimmed)
--   {op: 'lifecycle', id, lifecycle}   (activate, queue, retire; a record's or an edge's id)
-- An operation that fails raises its own error with the hint 'operations[i]', so the caller
-- can say which one; nothing is written.
-- A changeset's row, and the transaction-local setting the triggers name it from
-- (sql/changesets.sql). p_changeset: {id, workspace_id, actor_id, source, summary}.
create or replace function doco.open_changeset(p_changeset jsonb) returns void
language plpgsql volatile as $$
begin
  insert into doco.changesets (id, workspace_id, actor_id, source, summary)
  values (p_changeset->>'id', p_changeset->>'workspace_id', p_changeset->>'actor_id', p_changeset->>'source', p_changeset->>'summary');
  perform set_config('doco.changeset_id', p_changeset->>'id', true);
end $$;
comment on function doco.open_changeset(jsonb) is 'Inserts a changeset row and names it in doco.changeset_id for the rest of the transaction.';

-- The creates p_operations[p_from..p_to] (all of op 'create') as one insert, in their order.
-- True when they are written; false, with nothing written, when the insert fails, so the caller
-- writes them one at a time and the failing create raises its own error under its own index.
create or replace function doco.insert_created_nodes(p_ws text, p_actor text, p_operations jsonb, p_from integer, p_to integer)
returns boolean
language plpgsql volatile as $$
begin
  insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose, body, principal_id)
  select o->>'id', p_ws, o->>'collection_id', o->>'node_type', o->>'lifecycle', o->>'title', o->>'prose', o->'body', p_actor
    from generate_series(p_from, p_to) k, lateral (select p_operations->k) as op(o)
   order by k;
  return true;
exception when others then
  return false;
end $$;
comment on function doco.insert_created_nodes(text, text, jsonb, integer, integer) is 'Inserts a run of a changeset''s creates as one statement; false, having written nothing, when it fails.';

-- The records and edges a changeset wrote, read back by id as a read after commit would see
-- them. Planned once a connection, not per call: planning this (its JSON and its joins) cost a
-- capture ~0.45 ms, ten times running it. The plan must not depend on how large the workspace
-- was when it was made: a plan cached while a workspace was small (a seq scan, or nodes_updated
-- through the workspace) was kept as it grew, 22-57 ms a capture once 100k records had been
-- bulk-written. So no sequential scan where an index serves, and the ids asked for alone behind
-- "offset 0", which only the primary keys can answer (test/sql/write-plan.test.ts).
create or replace function doco.written_records(p_nodes text[], p_edges text[], p_ws text)
returns json
language plpgsql stable
set plan_cache_mode = force_generic_plan
set enable_seqscan = off as $$
begin
  return json_build_object(
    'nodes', coalesce((
      select json_agg(json_build_object(
               'id', n.id, 'node_type', n.node_type, 'collection', c.slug, 'lifecycle', n.lifecycle, 'title', n.title, 'prose', n.prose,
               'body', n.body, 'version', n.version, 'hash', n.hash, 'prev_hash', n.prev_hash,
               'pagerank', coalesce((select r.pagerank from doco.node_ranks r where r.node_id = n.id), 0),
               'principal_id', n.principal_id, 'changeset_id', n.changeset_id, 'created_at', n.created_at, 'updated_at', n.updated_at))
        from (select x.* from doco.nodes x where x.id = any(p_nodes) offset 0) n
        join doco.collections c on c.id = n.collection_id
       where n.workspace_id = p_ws), '[]'),
    'edges', coalesce((
      select json_agg(json_build_object(
               'id', x.id, 'edge_type', x.edge_type, 'from', x.from_id, 'to', x.to_id, 'lifecycle', x.lifecycle, 'version', x.version,
               'hash', x.hash, 'changeset_id', x.changeset_id, 'updated_at', x.updated_at))
        from (select e.* from doco.edges e where e.id = any(p_edges) offset 0) x
       where x.workspace_id = p_ws), '[]'));
end $$;
comment on function doco.written_records(text[], text[], text) is 'The records and edges of the given ids in a workspace, as doco.apply_operations returns them.';

create or replace function doco.apply_operations(p_changeset jsonb, p_operations jsonb)
returns json
language plpgsql volatile as $$
declare
  v_ws text := p_changeset->>'workspace_id';
  v_actor text := p_changeset->>'actor_id';
  v_op jsonb;
  v_i integer := 0;
  v_count integer := jsonb_array_length(p_operations);
  v_run_end integer;
  v_one_by_one_until integer := -1;
  v_existing text;
  v_nodes text[] := '{}';
  v_edges text[] := '{}';
  v_state text;
  v_message text;
  v_detail text;
  v_constraint text;
  v_written json;
begin
  -- Opened here, unless the transaction this runs in opened it before taking its locks.
  if current_setting('doco.changeset_id', true) is distinct from p_changeset->>'id' then
    perform doco.open_changeset(p_changeset);
  end if;
  begin
    while v_i < v_count loop
      v_op := p_operations->v_i;
      -- A run of creates is one insert: the statement-level triggers of doco.nodes (versions,
      -- touches, outbox) then run once for the run rather than once a record, most of what a
      -- 30-create changeset cost (docs/eval.md, "Writes and upkeep"). Row triggers fire per row
      -- either way. A run whose insert fails is written one create at a time below, so the
      -- create that fails raises its own error under its own index.
      if v_op->>'op' = 'create' and v_i > v_one_by_one_until then
        v_run_end := v_i;
        while v_run_end + 1 < v_count and p_operations->(v_run_end + 1)->>'op' = 'create' loop
          v_run_end := v_run_end + 1;
        end loop;
        if v_run_end > v_i then
          if doco.insert_created_nodes(v_ws, v_actor, p_operations, v_i, v_run_end) then
            v_nodes := v_nodes || array(select p_operations->k->>'id' from generate_series(v_i, v_run_end) k order by k);
            v_i := v_run_end + 1;
            continue;
          end if;
          v_one_by_one_until := v_run_end;
        end if;
      end if;
      case v_op->>'op'
      when 'create', 'supersede' then
        insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose, body, principal_id)
        values (v_op->>'id', v_ws, v_op->>'collection_id', v_op->>'node_type', v_op->>'lifecycle', v_op->>'title', v_op->>'prose', v_op->'body', v_actor);
        v_nodes := v_nodes || (v_op->>'id');
        if v_op->>'op' = 'supersede' then
          insert into doco.edges (id, workspace_id, from_id, to_id, edge_type, lifecycle, principal_id)
          values (v_op->>'edge_id', v_ws, v_op->>'id', v_op->>'old_id', 'replaces', 'active', v_actor);
          update doco.nodes set lifecycle = 'retired' where id = v_op->>'old_id' and workspace_id = v_ws;
        end if;
      when 'relate' then
        -- The unique index would refuse it too; this names the edge that is in the way. A live
        -- edge is in the way of any; a pending one only of another pending one (a live edge
        -- takes its place: sql/lifecycle.sql).
        select x.id into v_existing from doco.edges x
         where x.from_id = v_op->>'from' and x.to_id = v_op->>'to' and x.edge_type = v_op->>'edge_type' and x.lifecycle <> 'retired'
           and (x.lifecycle = 'active' or v_op->>'lifecycle' <> 'active'
                or doco.agent_must_wait(v_actor, (select n.collection_id from doco.nodes n where n.id = v_op->>'from')));
        if v_existing is not null then
          raise exception 'a live % edge from % to % already exists (%)', v_op->>'edge_type', v_op->>'from', v_op->>'to', v_existing
            using errcode = 'DC008', detail = json_build_object('id', v_existing)::text;
        end if;
        insert into doco.edges (id, workspace_id, from_id, to_id, edge_type, lifecycle, principal_id)
        values (v_op->>'edge_id', v_ws, v_op->>'from', v_op->>'to', v_op->>'edge_type', v_op->>'lifecycle', v_actor);
        v_edges := v_edges || (v_op->>'edge_id');
      when 'append' then
        update doco.nodes set prose = case when prose = '' then v_op->>'prose' else prose || E'\n\n' || (v_op->>'prose') end
         where id = v_op->>'id' and workspace_id = v_ws;
        v_nodes := v_nodes || (v_op->>'id');
      when 'lifecycle' then
        -- An edge's own move: a person approving (or rejecting) a relation an agent proposed. With
        -- a version, only that version moves: the row's lock is taken by the update, and a change
        -- committed meanwhile is read before its condition is (READ COMMITTED's recheck), so an
        -- agent's rewrite between a review page's load and its approval is refused, not approved.
        if left(v_op->>'id', 5) = 'edge_' then
          update doco.edges set lifecycle = v_op->>'lifecycle'
           where id = v_op->>'id' and workspace_id = v_ws and (v_op->'version' is null or version = (v_op->>'version')::integer);
          v_edges := v_edges || (v_op->>'id');
        else
          update doco.nodes set lifecycle = v_op->>'lifecycle'
           where id = v_op->>'id' and workspace_id = v_ws and (v_op->'version' is null or version = (v_op->>'version')::integer);
          v_nodes := v_nodes || (v_op->>'id');
        end if;
        if not found and v_op ? 'version' then
          raise exception '% changed since version %: read it again before you %', v_op->>'id', v_op->>'version',
            case v_op->>'lifecycle' when 'active' then 'approve it' when 'queued' then 'queue it' else 'retire it' end
            using errcode = 'DC010', detail = json_build_object('id', v_op->>'id', 'version', (v_op->>'version')::integer)::text;
        end if;
      else
        raise exception 'unknown operation %', v_op->>'op' using errcode = 'DC003';
      end case;
      v_i := v_i + 1;
    end loop;
  exception when others then
    -- The same error, marked with the operation that raised it (one subtransaction per call).
    get stacked diagnostics v_state = returned_sqlstate, v_message = message_text, v_detail = pg_exception_detail, v_constraint = constraint_name;
    raise exception using errcode = v_state, message = v_message, detail = v_detail, constraint = v_constraint, hint = format('operations[%s]', v_i);
  end;
  -- What was written, as a read after commit would see it (no trigger changes a row later).
  v_written := doco.written_records(v_nodes, v_edges, v_ws);
  return v_written;
end $$;
comment on function doco.apply_operations(jsonb, jsonb) is 'Writes a planned changeset in one statement: its row, each operation in order (an error names its operation in the hint), and returns the records and edges written.';
