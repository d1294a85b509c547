-- Workers' heartbeats (migration 0029; docs/jobs.md, "What a dead worker leaves"). A worker
-- beats every few seconds with the database's clock; a worker whose last beat is older than a
-- bound is dead, and what it locked in graphile-worker is freed at once rather than after
-- graphile-worker's 4 hours.

create or replace function doco.beat_workers(p_worker_ids text[], p_host text, p_pid integer) returns void
language sql volatile as $$
  insert into doco.worker_heartbeats (worker_id, host, pid)
    select id, p_host, p_pid from unnest(p_worker_ids) as id
  on conflict (worker_id) do update set beat_at = now()
$$;
comment on function doco.beat_workers(text[], text, integer) is 'Records a heartbeat, at the database''s now(), for each of a running worker''s pool ids (a row deleted as stale comes back).';

-- plpgsql, not sql: graphile-worker creates its schema when a runner first starts, which may be
-- after sql/ is applied, and a plpgsql body is not resolved until it runs. The rows are deleted
-- and the locks freed in one transaction; two workers freeing at once free each row once (the
-- second waits on the row and finds it gone).
--
-- An id with no row at all is dead too once what it locks has been locked longer than the bound:
-- a pool killed between locking its first job and its first beat never wrote one (the scale
-- suite saw a pack pull wait so, graphile-worker's 4 hours). A live pool beats at once when it
-- is created, so its row is there long before its locks are that old.
create or replace function doco.free_dead_workers(p_stale interval) returns text[]
language plpgsql volatile as $$
declare
  v_dead text[];
begin
  with gone as (
    delete from doco.worker_heartbeats where beat_at < now() - p_stale returning worker_id
  ),
  never_beat as (
    select j.locked_by as worker_id from graphile_worker._private_jobs j
     where j.locked_at < now() - p_stale
    union
    select q.locked_by from graphile_worker._private_job_queues q
     where q.locked_at < now() - p_stale
  )
  select coalesce(array_agg(worker_id order by worker_id), '{}') into v_dead
    from (select worker_id from gone
          union
          select n.worker_id from never_beat n
           where n.worker_id is not null
             and not exists (select 1 from doco.worker_heartbeats h where h.worker_id = n.worker_id)) as dead;
  if cardinality(v_dead) > 0 then
    -- graphile-worker's own: unlocks the jobs and the named queues these ids hold.
    perform graphile_worker.force_unlock_workers(v_dead);
  end if;
  return v_dead;
end
$$;
comment on function doco.free_dead_workers(interval) is 'Deletes the heartbeats older than p_stale and frees (graphile_worker.force_unlock_workers) the jobs and named queues those worker ids locked, and those of ids with no heartbeat at all whose locks are older than p_stale; returns the ids.';

create or replace function doco.forget_workers(p_worker_ids text[]) returns void
language sql volatile as $$
  delete from doco.worker_heartbeats where worker_id = any(p_worker_ids)
$$;
comment on function doco.forget_workers(text[]) is 'Deletes a stopping worker''s heartbeats (its jobs have finished).';

-- An earlier form of free_idle_jobs below, for a whole worker id; applied by some databases.
drop function if exists doco.free_workers(text[]);

-- graphile-worker's own tables, as its force_unlock_workers writes them (0.17.3, pinned), for a
-- part of what one worker id locks.
create or replace function doco.free_idle_jobs(p_worker_id text, p_running bigint[]) returns integer
language plpgsql volatile as $$
declare
  v_jobs integer;
begin
  with freed as (
    update graphile_worker._private_jobs set locked_at = null, locked_by = null
     where locked_by = p_worker_id and id <> all(p_running)
    returning id
  )
  select count(*)::int into v_jobs from freed;
  update graphile_worker._private_job_queues as q set locked_at = null, locked_by = null
   where q.locked_by = p_worker_id
     and not exists (select 1 from graphile_worker._private_jobs j where j.id = any(p_running) and j.job_queue_id = q.id);
  return v_jobs;
end
$$;
comment on function doco.free_idle_jobs(text, bigint[]) is 'Frees what this worker id locks but the jobs p_running and their named queues (all of it for an empty p_running); returns how many jobs it freed: for a worker pool of a live process that stopped taking jobs, whose other jobs'' ends were never recorded.';
