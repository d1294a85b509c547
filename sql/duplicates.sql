-- The duplicate guard's SQL side (docs/writes.md): a draft's text fingerprint, and the records a
-- changeset's drafts may duplicate among a workspace's active records of their type that share
-- their collection or one of their touches. Records written a moment ago count: this reads
-- doco.nodes and the outbox, not the (eventually consistent) index.

create or replace function doco.text_fingerprint(p_title text, p_prose text) returns text
language sql immutable parallel safe as $$
  -- Keep in step with the generated column doco.nodes.text_fingerprint (migration 0017).
  select md5(btrim(regexp_replace(lower(p_title || E'\n' || p_prose), '[^[:alnum:]]+', ' ', 'g')))
$$;
comment on function doco.text_fingerprint(text, text) is 'The normalised-text hash of a title and prose, as doco.nodes.text_fingerprint holds it.';

-- The touches a draft would have (no record ids: a shared mention of a third record does not
-- make two records comparable). PL/pgSQL so that it is not inlined: the touch extractor
-- inlined into the candidate query made planning that query cost more than running it.
create or replace function doco.draft_touch_keys(p_title text, p_prose text, p_body jsonb)
returns table (kind text, value text)
language plpgsql immutable as $$
begin
  return query select t.kind, t.value from doco.extract_touches(doco.node_text(p_title, p_prose, p_body)) t where t.kind <> 'record';
end $$;
comment on function doco.draft_touch_keys(text, text, jsonb) is 'The touches (but record ids) a draft''s text would yield: how the duplicate guard ties records across collections.';

-- The candidates of every draft of a changeset in one query. p_drafts is a JSON array, one
-- object per draft: {node_type, collection_id, title, prose, body, ids}, ids being the index's
-- hits for that draft. A draft's candidates are the active records of its type that the index
-- found for it, that are not indexed yet (the outbox's newest, read once for all drafts) or
-- that say exactly what it says; the caller keeps those that share the draft's collection or a
-- touch with it. One row per distinct candidate (draft is null): its title and the first
-- p_prefix_chars characters of its prose (prose_chars says whether that is all of it), whether
-- it is unindexed (every draft of its type compares it), the drafts it says exactly, and, when
-- it is a candidate of a draft in another collection, those drafts and its touches. Then one
-- row per such draft (id is null) with the draft's own touches. Each statement reads a few rows
-- by primary key or the fingerprint index, whatever the plan cache settles on and whether or
-- not the tables were analysed: joins here, priced on missing statistics, had the planner scan
-- every record of the workspace once per outbox row. p_exclude names the records the changeset
-- itself writes, for a check that runs beside its transaction.
create or replace function doco.duplicate_candidates_batch(
  p_workspace_id text, p_drafts jsonb, p_prefix_chars integer default 100000, p_exclude text[] default '{}')
returns table (draft integer, id text, title text, prose text, prose_chars integer, collection text, collection_id text,
               node_type text, recent boolean, exact_drafts integer[], cross_drafts integer[], touch_kinds text[], touch_values text[])
language plpgsql stable
-- No sequential scan where an index serves. After five calls the plan cache settles on a generic
-- plan, and one settled while the workspace was small (a seq scan is cheapest among ten records)
-- was kept as it grew until statistics changed: 1,800 rows read a call at 600 records, in a test.
set enable_seqscan = off as $$
declare
  -- Computed once per draft: as an expression in a query a fingerprint would be re-evaluated
  -- per row scanned (a regexp over the prose) and keep its index from being used.
  v_types text[];
  v_collections text[];
  v_fps text[];
  v_recent text[];
  v_exact text[];
  v_cross integer[] := '{}';
  r record;
begin
  select array_agg(e.d->>'node_type' order by e.ord), array_agg(e.d->>'collection_id' order by e.ord),
         array_agg(doco.text_fingerprint(e.d->>'title', e.d->>'prose') order by e.ord)
    into v_types, v_collections, v_fps
    from jsonb_array_elements(p_drafts) with ordinality e(d, ord);
  if v_types is null then return; end if;
  -- Written but not yet indexed: the records of the outbox's newest rows that are active and of
  -- a draft's type, so a near repeat of a record captured a moment ago is compared too, not
  -- only an exact one. Read once for every draft.
  v_recent := array(
    select n.id from (
      -- "offset 0" keeps the filters below out of this scan, so it goes by primary key: with
      -- them, a table not yet analysed had the planner walk every record of the type instead.
      select x.id, x.workspace_id, x.node_type, x.lifecycle from doco.nodes x
       where x.id = any(array(
               select o.node_id from doco.outbox o where o.workspace_id = p_workspace_id and o.node_id <> all(p_exclude) order by o.id desc limit 32)) offset 0) n
     where n.workspace_id = p_workspace_id and n.node_type = any(v_types) and n.lifecycle = 'active');
  -- The same text: the fingerprint index (the caller pairs each with its drafts). Asked for
  -- the fingerprint and the lifecycle alone, behind "offset 0", so no other index can serve it
  -- (migration 0021).
  v_exact := array(
    select n.id from (
      select x.id, x.workspace_id, x.node_type from doco.nodes x where x.text_fingerprint = any(v_fps) and x.lifecycle = 'active' offset 0) n
     where n.workspace_id = p_workspace_id and n.node_type = any(v_types) and n.id <> all(p_exclude));
  for r in
    -- A record's touches only where a draft in another collection needs them.
    select k.*,
           case when cardinality(k.cross_drafts) = 0 then '{}' else array(
             select t.kind from doco.touches t where t.node_id = k.id and t.kind <> 'record' order by t.kind, t.value) end as kinds,
           case when cardinality(k.cross_drafts) = 0 then '{}' else array(
             select t.value from doco.touches t where t.node_id = k.id and t.kind <> 'record' order by t.kind, t.value) end as vals
      from (
        select n.id, n.title, left(n.prose, p_prefix_chars) as prose, length(n.prose) as prose_chars,
               (select c.slug from doco.collections c where c.id = n.collection_id) as slug, n.collection_id, n.node_type,
               n.id = any(v_recent) as recent,
               array(select f.ord::integer from unnest(v_types, v_fps) with ordinality f(node_type, fp, ord)
                      where f.node_type = n.node_type and f.fp = n.text_fingerprint) as exact_drafts,
               -- The drafts in another collection this record is a candidate of: only they need touches.
               array(select f.ord::integer from unnest(v_types, v_collections, v_fps) with ordinality f(node_type, collection_id, fp, ord)
                      where f.node_type = n.node_type and f.collection_id <> n.collection_id
                        and (n.id = any(v_recent) or f.fp = n.text_fingerprint or (p_drafts->(f.ord::integer - 1)->'ids') ? n.id)) as cross_drafts
          from (select x.* from doco.nodes x
                 where x.id = any(v_recent || v_exact || array(select jsonb_array_elements_text(e->'ids') from jsonb_array_elements(p_drafts) e)) offset 0) n
         where n.workspace_id = p_workspace_id and n.node_type = any(v_types) and n.lifecycle = 'active' and n.id <> all(p_exclude)) k
  loop
    draft := null; id := r.id; title := r.title; prose := r.prose; prose_chars := r.prose_chars; collection := r.slug;
    collection_id := r.collection_id; node_type := r.node_type; recent := r.recent; exact_drafts := r.exact_drafts; cross_drafts := r.cross_drafts;
    touch_kinds := r.kinds; touch_values := r.vals;
    v_cross := v_cross || r.cross_drafts;
    return next;
  end loop;
  -- The touches of the drafts that have a candidate in another collection (about a millisecond each).
  for r in select distinct u.d from unnest(v_cross) u(d) loop
    draft := r.d; id := null; title := null; prose := null; prose_chars := null; collection := null; collection_id := null;
    node_type := null; recent := null; exact_drafts := null; cross_drafts := null;
    select coalesce(array_agg(k.kind), '{}'), coalesce(array_agg(k.value), '{}') into touch_kinds, touch_values
      from doco.draft_touch_keys(p_drafts->(r.d - 1)->>'title', p_drafts->(r.d - 1)->>'prose', p_drafts->(r.d - 1)->'body') k;
    return next;
  end loop;
end $$;
comment on function doco.duplicate_candidates_batch(text, jsonb, integer, text[]) is 'The duplicate guard''s one query per changeset: each distinct candidate of its drafts (index hits, unindexed outbox records, exact fingerprints) with a prefix of its text, then the touches of drafts with a candidate in another collection.';

-- The per-draft functions this replaces.
drop function if exists doco.duplicate_candidates(text, text, text, text, text, jsonb, text[]);
drop function if exists doco.claim_text_fingerprint(text, text, text, text, text, jsonb);

-- Under transaction-scoped locks on the drafts' fingerprints (taken in one order, so two
-- changesets never wait on each other crosswise), each draft that an active record of its type
-- says exactly (same collection or a shared touch), with that record's id. A blocking write
-- calls it inside its transaction, so of two identical concurrent writes the second waits for
-- the first to commit, then sees it and is refused.
create or replace function doco.claim_text_fingerprints(p_workspace_id text, p_drafts jsonb)
returns table (draft integer, id text)
language plpgsql volatile
-- As duplicate_candidates_batch: no generic plan settled on while the workspace was small.
set plan_cache_mode = force_custom_plan as $$
declare
  v_key bigint;
begin
  for v_key in
    select distinct hashtextextended(p_workspace_id || '/' || (e.d->>'node_type') || '/' || doco.text_fingerprint(e.d->>'title', e.d->>'prose'), 13)
      from jsonb_array_elements(p_drafts) e(d) order by 1
  loop
    perform pg_advisory_xact_lock(v_key);
  end loop;
  -- A statement after the waits: under READ COMMITTED it sees what the other writer committed.
  return query
  select f.ord::integer, x.id
    from (select e.d, e.ord, doco.text_fingerprint(e.d->>'title', e.d->>'prose') as fp from jsonb_array_elements(p_drafts) with ordinality e(d, ord)) f
   cross join lateral (
     -- By the fingerprint index alone, as in duplicate_candidates_batch.
     select n.id from (select x.id, x.workspace_id, x.node_type, x.collection_id from doco.nodes x where x.text_fingerprint = f.fp and x.lifecycle = 'active' offset 0) n
      where n.workspace_id = p_workspace_id and n.node_type = f.d->>'node_type'
        and (n.collection_id = f.d->>'collection_id' or exists (
              select 1 from doco.touches t
                join doco.draft_touch_keys(f.d->>'title', f.d->>'prose', f.d->'body') k on k.kind = t.kind and k.value = t.value
               where t.node_id = n.id))
      order by n.id limit 1) x
   order by f.ord;
end $$;
comment on function doco.claim_text_fingerprints(text, jsonb) is 'Locks drafts'' fingerprints until commit and returns each draft''s exact active duplicate, if any: race-safe block mode.';
