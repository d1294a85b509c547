-- The duplicate guard's SQL side (issue 13): a draft's text fingerprint, and the exact
-- duplicates of a draft among a workspace's active records of its type that share its
-- collection or one of its touches. Records written a moment ago count: this reads
-- doco.nodes, not the (eventually consistent) index.

create or replace function doco.text_fingerprint(p_title text, p_prose text) returns text
language sql immutable parallel safe as $$
  -- Keep in step with the generated column doco.nodes.text_fingerprint (migration 0017).
  select md5(btrim(regexp_replace(lower(p_title || E'\n' || p_prose), '[^[:alnum:]]+', ' ', 'g')))
$$;
comment on function doco.text_fingerprint(text, text) is 'The normalised-text hash of a title and prose, as doco.nodes.text_fingerprint holds it.';

-- The active records of p_node_type in the workspace that are candidates (p_ids, from the
-- index), not yet indexed (the outbox's newest) or say exactly what the draft says, and share its collection or a touch with it:
-- each with its text (for the caller's similarity check), whether it is an exact match, and
-- the touches it shares.
create or replace function doco.duplicate_candidates(
  p_workspace_id text, p_node_type text, p_collection_id text, p_title text, p_prose text, p_body jsonb, p_ids text[])
returns table (id text, title text, prose text, collection text, exact boolean, same_collection boolean, shared_touches text[])
language plpgsql stable as $$
declare
  -- Computed once: as an expression in the queries below it would be re-evaluated per row
  -- scanned (a regexp over the prose) and keep the fingerprint index from being used.
  v_fp text := doco.text_fingerprint(p_title, p_prose);
  v_ids text[];
begin
  -- The few candidate ids first (the fingerprint index, the index's hits), then their rows by
  -- primary key, so nothing walks every record of the type.
  select array_agg(distinct f.id) into v_ids from (
    select n.id from doco.nodes n
     where n.workspace_id = p_workspace_id and n.node_type = p_node_type and n.lifecycle = 'active' and n.text_fingerprint = v_fp
    union all
    select unnest(p_ids)
    union all
    -- Written but not yet indexed (the outbox's newest rows): a near repeat of a record captured
    -- a moment ago is compared too, not only an exact one.
    select o.node_id from (select ob.node_id from doco.outbox ob where ob.workspace_id = p_workspace_id order by ob.id desc limit 32) o) f;
  if v_ids is null then return; end if;
  return query
  with draft_touches as materialized (
    -- Read only for a candidate in another collection (extracting costs about a millisecond).
    select t.kind, t.value from doco.extract_touches(doco.node_text(p_title, p_prose, p_body)) t where t.kind <> 'record'
  ), candidates as (
    select n.id, n.title, left(n.prose, 20000) as prose, c.slug as collection, n.text_fingerprint = v_fp as exact,
           n.collection_id = p_collection_id as same_collection,
           case when n.collection_id = p_collection_id then '{}'::text[] else (
             select coalesce(array_agg(t.value order by t.value), '{}')
               from doco.touches t
              where t.node_id = n.id and (t.kind, t.value) in (select d.kind, d.value from draft_touches d)) end as shared_touches
      from doco.nodes n
      join doco.collections c on c.id = n.collection_id
     where n.id = any(v_ids) and n.workspace_id = p_workspace_id and n.node_type = p_node_type and n.lifecycle = 'active')
  select r.id, r.title, r.prose, r.collection, r.exact, r.same_collection, r.shared_touches
    from candidates r where r.same_collection or cardinality(r.shared_touches) > 0;
end $$;
comment on function doco.duplicate_candidates(text, text, text, text, text, jsonb, text[]) is 'Active records of a type that the index found (p_ids), that are not indexed yet (the newest outbox rows) or that say exactly what a draft says, sharing its collection or a touch: the duplicate guard''s one query per draft.';

-- Under a transaction-scoped lock on the draft's fingerprint, the id of an active record of the
-- type that says exactly what the draft says (same collection or a shared touch), or null.
-- A blocking write calls it inside its transaction, so of two identical concurrent writes the
-- second waits for the first to commit, then sees it and is refused.
create or replace function doco.claim_text_fingerprint(
  p_workspace_id text, p_node_type text, p_collection_id text, p_title text, p_prose text, p_body jsonb)
returns text
language plpgsql volatile as $$
declare
  v_id text;
begin
  perform pg_advisory_xact_lock(hashtextextended(p_workspace_id || '/' || p_node_type || '/' || doco.text_fingerprint(p_title, p_prose), 13));
  select d.id into v_id from doco.duplicate_candidates(p_workspace_id, p_node_type, p_collection_id, p_title, p_prose, p_body, '{}') d
   where d.exact limit 1;
  return v_id;
end $$;
comment on function doco.claim_text_fingerprint(text, text, text, text, text, jsonb) is 'Locks a draft''s fingerprint until commit and returns an exact active duplicate of it, if any: race-safe block mode.';
