-- Derivations kept current across upgrades (migration 0023). A derivation is a table Doco fills
-- from each record's text by SQL function — today the touches index (sql/touches.sql). Its
-- fingerprint is a hash of those functions' signatures and source; when sql/ is applied with
-- functions whose fingerprint differs from the one that derived what is stored, a catch-up is
-- marked pending, and the worker's `derivations__catch_up` job re-derives every record in
-- batches (doco.rederive_step) while writes go on. Records written meanwhile are derived by the
-- new functions anyway (their trigger calls them), so the catch-up only has to reach the rest.

create or replace function doco.derivation_functions(p_name text) returns regprocedure[]
language sql stable as $$
  select case p_name
    when 'touches' then array[
      'doco.extract_touches(text)', 'doco.declared_touch_paths(jsonb)', 'doco.node_text(text,text,jsonb)',
      'doco.is_references_heading(text)', 'doco.split_link_lists(text,text)', 'doco.record_touches(text,text,jsonb)',
      'doco.refresh_own_touches(text,text,text,text,jsonb,boolean)', 'doco.tg_nodes__derive_inserted_touches()']::regprocedure[]
  end
$$;
comment on function doco.derivation_functions(text) is 'The functions a derivation''s rows are computed by (null for an unknown name).';

-- The source text as written (prosrc), not pg_get_functiondef: the latter's formatting may change
-- with the Postgres version, which would re-derive everything for nothing after a server upgrade.
create or replace function doco.derivation_fingerprint(p_name text) returns text
language sql stable as $$
  select md5(string_agg(f::text || E'\n' || p.prosrc, E'\n' order by f::text))
    from unnest(doco.derivation_functions(p_name)) as f
    join pg_proc p on p.oid = f
$$;
comment on function doco.derivation_fingerprint(text) is 'A hash of the signatures and source of the functions a derivation is computed by.';

-- Run each time sql/ is applied (the end of this file). A database with no records has nothing
-- to catch up; one whose records predate the fingerprints gets one catch-up, as its touches may
-- come from any older extractor. A change during a catch-up starts it over: records it already
-- did were derived by the functions in between.
create or replace function doco.note_derivations() returns integer
language plpgsql volatile as $$
declare
  v_name text;
  v_now text;
  d doco.derivations;
  v_pending integer := 0;
begin
  foreach v_name in array array['touches'] loop
    v_now := doco.derivation_fingerprint(v_name);
    select * into d from doco.derivations where name = v_name for update;
    if not found then
      if exists (select 1 from doco.nodes) then
        insert into doco.derivations (name, fingerprint, pending) values (v_name, 'unknown', v_now);
        v_pending := v_pending + 1;
      else
        insert into doco.derivations (name, fingerprint) values (v_name, v_now);
      end if;
    elsif coalesce(d.pending, d.fingerprint) <> v_now then
      update doco.derivations set pending = v_now, after_id = '', updated_at = now() where name = v_name;
      delete from doco.derivation_backlog where name = v_name;
      v_pending := v_pending + 1;
    end if;
  end loop;
  return v_pending;
end $$;
comment on function doco.note_derivations() is 'Marks a catch-up pending for each derivation whose functions changed since it was derived; returns how many.';

create or replace function doco.rederive_record(p_name text, p_id text, p_workspace_id text, p_title text, p_prose text, p_body jsonb)
returns void language plpgsql volatile as $$
begin
  case p_name
    when 'touches' then perform doco.refresh_own_touches(p_id, p_workspace_id, p_title, p_prose, p_body, true);
  end case;
end $$;

-- One step of a catch-up, in the caller's transaction: the next p_limit records in id order, or,
-- once the scan is over, one record of the backlog; when nothing is left the derivation takes
-- the new fingerprint. Returns how many records it took up, re-derived or set aside for the
-- backlog (0: nothing was pending, or the catch-up just finished); a record set aside counts again
-- when the backlog re-derives it. A step never makes a write wait long or fail: it skips the records a
-- write holds (they join the backlog, done after the scan), and waits at most 500 ms for one of
-- them later, failing with lock_not_available (55P03, retried by the job) rather than holding a
-- lock a writer needs while it waits, which could end in a deadlock that aborts the writer.
create or replace function doco.rederive_step(p_name text, p_limit integer default 100) returns integer
language plpgsql volatile set lock_timeout = '500ms' as $$
declare
  d doco.derivations;
  v_scanned text[];
  v_done text[] := '{}';
  v_node text;
  r record;
begin
  if doco.derivation_functions(p_name) is null then
    raise exception 'unknown derivation %', p_name using errcode = '22023';
  end if;
  select * into d from doco.derivations where name = p_name for update;
  if not found or d.pending is null then
    return 0;
  end if;
  if d.after_id is not null then
    select array_agg(id order by id) into v_scanned
      from (select id from doco.nodes where id > d.after_id order by id limit greatest(p_limit, 1)) as s;
    if v_scanned is not null then
      for r in select id, workspace_id, title, prose, body from doco.nodes where id = any(v_scanned) order by id for update skip locked loop
        perform doco.rederive_record(p_name, r.id, r.workspace_id, r.title, r.prose, r.body);
        v_done := v_done || r.id;
      end loop;
      insert into doco.derivation_backlog (name, node_id)
      select p_name, x from unnest(v_scanned) as x where x <> all (v_done)
      on conflict do nothing;
      update doco.derivations set after_id = v_scanned[array_length(v_scanned, 1)], updated_at = now() where name = p_name;
      return array_length(v_scanned, 1);
    end if;
    update doco.derivations set after_id = null, updated_at = now() where name = p_name;
  end if;
  select node_id into v_node from doco.derivation_backlog where name = p_name order by node_id limit 1;
  if v_node is null then
    update doco.derivations set fingerprint = pending, pending = null, after_id = '', updated_at = now() where name = p_name;
    return 0;
  end if;
  for r in select id, workspace_id, title, prose, body from doco.nodes where id = v_node for update loop
    perform doco.rederive_record(p_name, r.id, r.workspace_id, r.title, r.prose, r.body);
  end loop;
  delete from doco.derivation_backlog where name = p_name and node_id = v_node;
  return 1;
end $$;
comment on function doco.rederive_step(text, integer) is 'Re-derives the next records of a pending catch-up (skipping, then retrying, those a write holds); returns how many it took up, 0 when done.';

select doco.note_derivations();
