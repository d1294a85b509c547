-- PageRank per collection over live (active) edges between its live records, stored in
-- doco.node_ranks (migration 0024) as a multiple of the average (1.0 = average authority). A trigger marks a collection
-- dirty when its edges or records' lifecycles change; the minute sweep (graphile-worker cron
-- `pagerank__sweep`) recomputes only dirty collections.

create or replace function doco.compute_pagerank(p_collection text) returns integer
language plpgsql volatile as $$
declare
  damping constant float8 := 0.85;
  ids text[];
  n int;
  src int[];
  dst int[];
  outdeg int[];
  pr float8[];
  nxt float8[];
  dangling float8;
  delta float8;
  k int;
  it int;
begin
  select array_agg(id order by id) into ids
    from doco.nodes where collection_id = p_collection and lifecycle <> 'retired';
  n := coalesce(array_length(ids, 1), 0);
  if n = 0 then return 0; end if;

  select coalesce(array_agg(s.ord::int), '{}'), coalesce(array_agg(t.ord::int), '{}') into src, dst
    from doco.edges e
    join unnest(ids) with ordinality as s(id, ord) on s.id = e.from_id
    join unnest(ids) with ordinality as t(id, ord) on t.id = e.to_id
   where e.lifecycle = 'active';

  outdeg := array_fill(0, array[n]);
  for k in 1 .. coalesce(array_length(src, 1), 0) loop
    outdeg[src[k]] := outdeg[src[k]] + 1;
  end loop;

  pr := array_fill(1.0 / n, array[n]);
  for it in 1 .. 50 loop
    dangling := 0;
    for k in 1 .. n loop
      if outdeg[k] = 0 then dangling := dangling + pr[k]; end if;
    end loop;
    nxt := array_fill((1 - damping) / n + damping * dangling / n, array[n]);
    for k in 1 .. coalesce(array_length(src, 1), 0) loop
      nxt[dst[k]] := nxt[dst[k]] + damping * pr[src[k]] / outdeg[src[k]];
    end loop;
    delta := 0;
    for k in 1 .. n loop
      delta := delta + abs(nxt[k] - pr[k]);
    end loop;
    pr := nxt;
    exit when delta < 1e-9 * n;
  end loop;

  insert into doco.node_ranks as nr (node_id, pagerank)
  select r.id, r.score * n from unnest(ids, pr) as r(id, score)
  on conflict (node_id) do update set pagerank = excluded.pagerank
   where nr.pagerank is distinct from excluded.pagerank;
  -- A retired record has no authority left (no row reads as 0).
  delete from doco.node_ranks nr using doco.nodes nd
   where nd.id = nr.node_id and nd.collection_id = p_collection and nd.lifecycle = 'retired';
  return n;
end $$;
comment on function doco.compute_pagerank(text) is 'Recomputes PageRank for one collection; returns the number of live records scored.';

create or replace function doco.pagerank_sweep() returns integer
language plpgsql volatile as $$
declare
  v_collection text;
  done int := 0;
begin
  for v_collection in delete from doco.pagerank_dirty returning collection_id loop
    perform doco.compute_pagerank(v_collection);
    done := done + 1;
  end loop;
  return done;
end $$;
comment on function doco.pagerank_sweep() is 'Recomputes PageRank for every dirty collection; returns how many.';

-- One dirty collection's PageRank, as a statement of its own: the worker's sweep calls this
-- until none is left (src/jobs/tasks.ts). A write that marks a collection dirty while a sweep
-- has deleted its mark but not committed waits for that commit (the insert's ON CONFLICT must
-- know whether the row is gone): swept in one transaction, every collection's mark stayed
-- locked until all were computed, and writes under load queued behind the whole sweep. Skip
-- locked, so two sweeps never take the same collection.
create or replace function doco.pagerank_sweep_one() returns text
language plpgsql volatile as $$
declare
  v_collection text;
begin
  delete from doco.pagerank_dirty d
   where d.collection_id = (select x.collection_id from doco.pagerank_dirty x order by x.collection_id limit 1 for update skip locked)
  returning d.collection_id into v_collection;
  if v_collection is not null then
    perform doco.compute_pagerank(v_collection);
  end if;
  return v_collection;
end $$;
comment on function doco.pagerank_sweep_one() is 'Recomputes PageRank for one dirty collection and clears its mark; returns its id, or null when none is dirty (or every dirty one is being swept).';

create or replace function doco.tg_edges__mark_pagerank_dirty() returns trigger
language plpgsql volatile as $$
begin
  insert into doco.pagerank_dirty (collection_id)
  select collection_id from doco.nodes where id in (new.from_id, new.to_id)
  on conflict do nothing;
  return null;
end $$;

create or replace function doco.tg_nodes__mark_pagerank_dirty() returns trigger
language plpgsql volatile as $$
begin
  insert into doco.pagerank_dirty (collection_id) values (new.collection_id) on conflict do nothing;
  return null;
end $$;

create or replace trigger _800_mark_pagerank_dirty after insert or update of lifecycle on doco.edges
  for each row execute function doco.tg_edges__mark_pagerank_dirty();
create or replace trigger _800_mark_pagerank_dirty after update of lifecycle on doco.nodes
  for each row when (new.lifecycle is distinct from old.lifecycle)
  execute function doco.tg_nodes__mark_pagerank_dirty();
