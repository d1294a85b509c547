-- Versions and the tamper-evident hash chain of records and edges.
-- Every content change of a node or edge becomes a new version row whose
-- hash = sha256(prev_hash || canonical JSON of the version). Version rows are append-only;
-- doco.verify_chains() recomputes every chain so tampering that bypassed the triggers is found.
--
-- SQLSTATEs raised here: DC002 (version rows are append-only), DC003 (immutable column),
-- DC005 (records and edges are retired, never deleted).

create or replace function doco.utc_text(p_ts timestamptz) returns text
language sql immutable as $$
  select to_char(p_ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
$$;

create or replace function doco.chain_hash(p_prev text, p_doc jsonb) returns text
language sql immutable as $$
  select encode(sha256(convert_to(coalesce(p_prev, '') || p_doc::text, 'UTF8')), 'hex')
$$;
comment on function doco.chain_hash(text, jsonb) is 'sha256(prev_hash || canonical JSON): jsonb text output is canonical (sorted keys, fixed spacing).';

create or replace function doco.node_version_doc(v doco.node_versions) returns jsonb
language sql immutable as $$
  select jsonb_build_object(
    'id', v.node_id, 'version', v.version, 'workspace_id', v.workspace_id,
    'collection_id', v.collection_id, 'node_type', v.node_type, 'lifecycle', v.lifecycle,
    'title', v.title, 'prose', v.prose, 'body', v.body, 'principal_id', v.principal_id,
    'changeset_id', v.changeset_id, 'recorded_at', doco.utc_text(v.recorded_at))
$$;

create or replace function doco.edge_version_doc(v doco.edge_versions) returns jsonb
language sql immutable as $$
  select jsonb_build_object(
    'id', v.edge_id, 'version', v.version, 'workspace_id', v.workspace_id,
    'from_id', v.from_id, 'to_id', v.to_id, 'edge_type', v.edge_type, 'lifecycle', v.lifecycle,
    'principal_id', v.principal_id, 'changeset_id', v.changeset_id,
    'recorded_at', doco.utc_text(v.recorded_at))
$$;

-- The same canonical JSON as text, written out directly, for verify_chains(), which computes one
-- for every version: jsonb's output orders keys by length, then bytes, and writes ", " and ": "
-- between them; to_json(text) escapes a string as jsonb's output does
-- (test/sql/hash-chain-text.test.ts holds the two forms equal). The triggers hash
-- node_version_doc's jsonb, as always. These are STABLE, as what they call is (to_char,
-- convert_to, to_json): a SQL function declared more strictly than its body is never inlined,
-- and the helpers above, IMMUTABLE, cost verify_chains three SQL function calls per version
-- when it used them. PARALLEL SAFE, so the scan that recomputes every hash can use workers.
create or replace function doco.node_version_text(v doco.node_versions) returns text
language sql stable parallel safe as $$
  select concat('{"id": ', to_json(v.node_id), ', "body": ', v.body, ', "prose": ', to_json(v.prose), ', "title": ', to_json(v.title),
    ', "version": ', v.version, ', "lifecycle": ', to_json(v.lifecycle), ', "node_type": ', to_json(v.node_type),
    ', "recorded_at": "', to_char(v.recorded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    '", "changeset_id": ', to_json(v.changeset_id), ', "principal_id": ', coalesce(to_json(v.principal_id)::text, 'null'),
    ', "workspace_id": ', to_json(v.workspace_id), ', "collection_id": ', to_json(v.collection_id), '}')
$$;

create or replace function doco.edge_version_text(v doco.edge_versions) returns text
language sql stable parallel safe as $$
  select concat('{"id": ', to_json(v.edge_id), ', "to_id": ', to_json(v.to_id), ', "from_id": ', to_json(v.from_id),
    ', "version": ', v.version, ', "edge_type": ', to_json(v.edge_type), ', "lifecycle": ', to_json(v.lifecycle),
    ', "recorded_at": "', to_char(v.recorded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    '", "changeset_id": ', to_json(v.changeset_id), ', "principal_id": ', coalesce(to_json(v.principal_id)::text, 'null'),
    ', "workspace_id": ', to_json(v.workspace_id), '}')
$$;

-- chain_hash over the canonical text itself.
create or replace function doco.chain_hash_text(p_prev text, p_doc text) returns text
language sql stable parallel safe as $$
  select encode(sha256(convert_to(coalesce(p_prev, '') || p_doc, 'UTF8')), 'hex')
$$;

-- The version row a node would write, built from the node row itself.
create or replace function doco.node_as_version(n doco.nodes) returns doco.node_versions
language sql immutable parallel safe as $$
  select row(n.id, n.version, n.workspace_id, n.collection_id, n.node_type, n.lifecycle, n.title,
             n.prose, n.body, n.principal_id, n.changeset_id, n.updated_at, n.hash, n.prev_hash)::doco.node_versions
$$;

create or replace function doco.edge_as_version(e doco.edges) returns doco.edge_versions
language sql immutable parallel safe as $$
  select row(e.id, e.version, e.workspace_id, e.from_id, e.to_id, e.edge_type, e.lifecycle,
             e.principal_id, e.changeset_id, e.updated_at, e.hash, e.prev_hash)::doco.edge_versions
$$;

-- BEFORE INSERT OR UPDATE on nodes: stamp version, changeset, time and hash.
create or replace function doco.tg_nodes__stamp_version() returns trigger
language plpgsql volatile as $$
begin
  if tg_op = 'UPDATE' then
    if new.id <> old.id or new.workspace_id <> old.workspace_id or new.node_type <> old.node_type
       or new.created_at <> old.created_at then
      raise exception 'the id, workspace, type and creation time of record % never change', old.id using errcode = 'DC003';
    end if;
    if (new.collection_id, new.lifecycle, new.title, new.prose, new.body)
       is not distinct from (old.collection_id, old.lifecycle, old.title, old.prose, old.body) then
      -- Not a content change (e.g. a PageRank refresh): the chain columns stay as they were.
      new.version := old.version; new.hash := old.hash; new.prev_hash := old.prev_hash;
      new.changeset_id := old.changeset_id; new.updated_at := old.updated_at;
      new.principal_id := old.principal_id;
      return new;
    end if;
    new.version := old.version + 1;
    new.prev_hash := old.hash;
  else
    new.version := 1;
    new.prev_hash := null;
    new.created_at := now();
  end if;
  new.changeset_id := doco.current_changeset(new.workspace_id);
  new.principal_id := coalesce(doco.changeset_actor(new.changeset_id),
                               case when tg_op = 'INSERT' then new.principal_id end);
  new.updated_at := now();
  new.hash := doco.chain_hash(new.prev_hash, doco.node_version_doc(doco.node_as_version(new)));
  return new;
end $$;

create or replace function doco.tg_nodes__record_version() returns trigger
language plpgsql volatile as $$
begin
  if tg_op = 'INSERT' or new.version <> old.version then
    insert into doco.node_versions select (doco.node_as_version(new)).*;
  end if;
  return null;
end $$;

create or replace function doco.tg_edges__stamp_version() returns trigger
language plpgsql volatile as $$
begin
  if tg_op = 'UPDATE' then
    if new.id <> old.id or new.workspace_id <> old.workspace_id or new.from_id <> old.from_id
       or new.to_id <> old.to_id or new.edge_type <> old.edge_type or new.created_at <> old.created_at then
      raise exception 'the endpoints and type of edge % never change', old.id using errcode = 'DC003';
    end if;
    if new.lifecycle is not distinct from old.lifecycle then
      new.version := old.version; new.hash := old.hash; new.prev_hash := old.prev_hash;
      new.changeset_id := old.changeset_id; new.updated_at := old.updated_at;
      new.principal_id := old.principal_id;
      return new;
    end if;
    new.version := old.version + 1;
    new.prev_hash := old.hash;
  else
    new.version := 1;
    new.prev_hash := null;
    new.created_at := now();
  end if;
  new.changeset_id := doco.current_changeset(new.workspace_id);
  new.principal_id := coalesce(doco.changeset_actor(new.changeset_id),
                               case when tg_op = 'INSERT' then new.principal_id end);
  new.updated_at := now();
  new.hash := doco.chain_hash(new.prev_hash, doco.edge_version_doc(doco.edge_as_version(new)));
  return new;
end $$;

create or replace function doco.tg_edges__record_version() returns trigger
language plpgsql volatile as $$
begin
  if tg_op = 'INSERT' or new.version <> old.version then
    insert into doco.edge_versions select (doco.edge_as_version(new)).*;
  end if;
  return null;
end $$;

create or replace function doco.tg__refuse_change() returns trigger
language plpgsql volatile as $$
begin
  if tg_table_name in ('node_versions', 'edge_versions', 'changesets') then
    raise exception '% rows are append-only: % refused', tg_table_name, lower(tg_op) using errcode = 'DC002';
  end if;
  raise exception '% are never deleted: retire them instead', tg_table_name using errcode = 'DC005';
end $$;

create or replace trigger _200_stamp_version before insert or update on doco.nodes
  for each row execute function doco.tg_nodes__stamp_version();
-- A record's first version is written once per INSERT statement, for every row it inserted, in
-- one insert from the statement's transition table: a row trigger's insert per record cost the
-- doc ingester's batches of 200 a statement each (docs/eval.md, "Writes and upkeep"). The
-- versions are the same rows (node_as_version of the row as stored, after the BEFORE triggers
-- stamped it), written before the statement ends as before. A trigger with a transition table
-- takes one event, so an UPDATE keeps the row trigger.
create or replace function doco.tg_nodes__record_inserted_versions() returns trigger
language plpgsql volatile as $$
begin
  insert into doco.node_versions select (doco.node_as_version(n)).* from inserted_nodes n;
  return null;
end $$;

create or replace trigger _500_record_version after update on doco.nodes
  for each row execute function doco.tg_nodes__record_version();
create or replace trigger _500_record_inserted_versions after insert on doco.nodes
  referencing new table as inserted_nodes
  for each statement execute function doco.tg_nodes__record_inserted_versions();
create or replace trigger _200_stamp_version before insert or update on doco.edges
  for each row execute function doco.tg_edges__stamp_version();
create or replace trigger _500_record_version after insert or update on doco.edges
  for each row execute function doco.tg_edges__record_version();

-- A version is written by its record's own triggers, as the record now stands. One inserted by
-- hand, correctly hashed on top of the chain, showed in the history and in briefs as of a time,
-- and took the next version's number, so every later write to the record failed (a hostile SQL
-- review): a version row must be its record's current version, hash and all.
create or replace function doco.tg_versions__as_the_row_stands() returns trigger
language plpgsql stable as $$
begin
  if tg_table_name = 'node_versions' then
    if not exists (select 1 from doco.nodes n where n.id = new.node_id and n.version = new.version and n.hash = new.hash) then
      raise exception 'version % of record % is not the record as it stands: versions are written by changing the record', new.version, new.node_id
        using errcode = 'DC002';
    end if;
  elsif not exists (select 1 from doco.edges e where e.id = new.edge_id and e.version = new.version and e.hash = new.hash) then
    raise exception 'version % of edge % is not the edge as it stands: versions are written by changing the edge', new.version, new.edge_id
      using errcode = 'DC002';
  end if;
  return new;
end $$;

create or replace trigger _050_as_the_row_stands before insert on doco.node_versions
  for each row execute function doco.tg_versions__as_the_row_stands();
create or replace trigger _050_as_the_row_stands before insert on doco.edge_versions
  for each row execute function doco.tg_versions__as_the_row_stands();

-- Who wrote a changeset, through what, and when is what the console, the history and the
-- alignment scan's settling believe: a changeset row is never changed or removed.
create or replace trigger _100_append_only before update or delete on doco.changesets
  for each row execute function doco.tg__refuse_change();
create or replace trigger _100_append_only_truncate before truncate on doco.changesets
  for each statement execute function doco.tg__refuse_change();

create or replace trigger _100_append_only before update or delete on doco.node_versions
  for each row execute function doco.tg__refuse_change();
create or replace trigger _100_append_only before update or delete on doco.edge_versions
  for each row execute function doco.tg__refuse_change();
create or replace trigger _100_append_only_truncate before truncate on doco.node_versions
  for each statement execute function doco.tg__refuse_change();
create or replace trigger _100_append_only_truncate before truncate on doco.edge_versions
  for each statement execute function doco.tg__refuse_change();
create or replace trigger _100_never_delete before delete on doco.nodes
  for each row execute function doco.tg__refuse_change();
create or replace trigger _100_never_delete before delete on doco.edges
  for each row execute function doco.tg__refuse_change();
create or replace trigger _100_never_truncate before truncate on doco.nodes
  for each statement execute function doco.tg__refuse_change();
create or replace trigger _100_never_truncate before truncate on doco.edges
  for each statement execute function doco.tg__refuse_change();

-- Every broken link, ordered so the first row is the first break: a version whose hash does
-- not match its content, whose prev_hash does not match the version before it, a gap in the
-- version numbers, a record/edge row that differs from its latest version, or a record/edge row
-- that is gone while its versions remain (deleted with the triggers bypassed). Within one version,
-- a break of the chain itself comes before the row's mismatch with it.
create or replace function doco.verify_chains() returns table (kind text, id text, version integer, problem text)
-- PARALLEL SAFE (it only reads): a query calling a function that is not may use no parallel
-- worker anywhere, even where the function's body is inlined into it.
language sql stable parallel safe as $$
  -- The chain's order (version numbers, prev_hash against the version before) is read from the
  -- narrow columns alone, through the primary key's order; each version's hash is recomputed in a
  -- plain scan beside it (parallel where Postgres may). (Carrying whole rows through the window
  -- cost a third more.) Each record or edge row is then met with its latest version in one merge
  -- of the two primary keys' orders: a record whose latest version is another number (a later
  -- version exists, or none at its own) or another content differs from it, and a latest version
  -- with no record row left is a missing record. (A hash join of whole rows spilled to disk, and
  -- a probe per record for a later version cost as much again.) The two are compared column by
  -- column, as doco.node_as_version / edge_as_version pair them: building each record's row as a
  -- version row and comparing the composites cost the merge twice as much.
  with nchain as (
    select v.node_id as id, v.version, v.version <> row_number() over w as bad_seq, v.prev_hash is distinct from lag(v.hash) over w as bad_prev
    from doco.node_versions v window w as (partition by v.node_id order by v.version)
  ), nhash as (
    -- Aggregated, so the planner sees two rows come out of the scan and runs it with parallel
    -- workers: rows it expects many of (it cannot know that almost no hash is wrong) it keeps in
    -- one process. The two arrays list the same rows in the same order.
    select u.id, u.version
      from (select array_agg(v.node_id) as ids, array_agg(v.version) as versions from doco.node_versions v
             where v.hash <> doco.chain_hash_text(v.prev_hash, doco.node_version_text(v))) b,
           unnest(b.ids, b.versions) as u(id, version)
  ), echain as (
    select v.edge_id as id, v.version, v.version <> row_number() over w as bad_seq, v.prev_hash is distinct from lag(v.hash) over w as bad_prev
    from doco.edge_versions v window w as (partition by v.edge_id order by v.version)
  ), ehash as (
    select u.id, u.version
      from (select array_agg(v.edge_id) as ids, array_agg(v.version) as versions from doco.edge_versions v
             where v.hash <> doco.chain_hash_text(v.prev_hash, doco.edge_version_text(v))) b,
           unnest(b.ids, b.versions) as u(id, version)
  ), nlatest as (
    select distinct on (v.node_id) v.* from doco.node_versions v order by v.node_id, v.version desc
  ), elatest as (
    select distinct on (v.edge_id) v.* from doco.edge_versions v order by v.edge_id, v.version desc
  ), broken as (
    select 'node' as kind, c.id, c.version,
      case when c.bad_seq then 'version number out of sequence'
           when c.bad_prev then 'prev_hash does not match the previous version'
           else 'hash does not match the version''s content' end as problem,
      1 as rank
    from nchain c left join nhash h on h.id = c.id and h.version = c.version
    where c.bad_seq or c.bad_prev or h.id is not null
    union all
    select 'edge', c.id, c.version,
      case when c.bad_seq then 'version number out of sequence'
           when c.bad_prev then 'prev_hash does not match the previous version'
           else 'hash does not match the version''s content' end,
      1
    from echain c left join ehash h on h.id = c.id and h.version = c.version
    where c.bad_seq or c.bad_prev or h.id is not null
    union all
    select 'node', coalesce(n.id, l.node_id), coalesce(n.version, l.version),
      case when n.id is null then 'record is missing: its versions remain but the record row is gone'
           else 'record differs from its latest version' end,
      2
    from doco.nodes n full join nlatest l on l.node_id = n.id
    where n.id is null or l.node_id is null
       or (n.version, n.workspace_id, n.collection_id, n.node_type, n.lifecycle, n.title, n.prose, n.body,
           n.principal_id, n.changeset_id, n.updated_at, n.hash, n.prev_hash)
          is distinct from
          (l.version, l.workspace_id, l.collection_id, l.node_type, l.lifecycle, l.title, l.prose, l.body,
           l.principal_id, l.changeset_id, l.recorded_at, l.hash, l.prev_hash)
    union all
    select 'edge', coalesce(e.id, l.edge_id), coalesce(e.version, l.version),
      case when e.id is null then 'edge is missing: its versions remain but the edge row is gone'
           else 'edge differs from its latest version' end,
      2
    from doco.edges e full join elatest l on l.edge_id = e.id
    where e.id is null or l.edge_id is null
       or (e.version, e.workspace_id, e.from_id, e.to_id, e.edge_type, e.lifecycle, e.principal_id, e.changeset_id,
           e.updated_at, e.hash, e.prev_hash)
          is distinct from
          (l.version, l.workspace_id, l.from_id, l.to_id, l.edge_type, l.lifecycle, l.principal_id, l.changeset_id,
           l.recorded_at, l.hash, l.prev_hash)
  )
  select kind, id, version, problem from broken order by kind desc, id, version, rank, problem
$$;
comment on function doco.verify_chains() is 'Recomputes every node and edge hash chain; one row per broken link, first break first. No rows: intact.';

-- The chain as it stood at a time: the head (latest version recorded by then) of every record
-- and edge, as one digest, and how many versions lie under those heads. Whoever can switch the
-- triggers off can rewrite history and recompute every hash after it, so verify_chains() alone
-- cannot see it: `doco verify` keeps this digest outside the database (in DOCO_HOME) after a
-- check that found every chain intact, and the next check computes it again for the same time
-- (src/graph/chain-checks.ts). A head's hash covers every version before it, so a version
-- rewritten, removed or slipped in before that time, or a record removed whole, changes it.
create or replace function doco.chain_heads(p_at timestamptz) returns table (versions bigint, digest text)
language sql stable parallel safe as $$
  with heads as (
    select 'node' as kind, node_id as id, version, hash from (
      select distinct on (node_id) node_id, version, hash from doco.node_versions
       where recorded_at <= p_at order by node_id, version desc) n
    union all
    select 'edge', edge_id, version, hash from (
      select distinct on (edge_id) edge_id, version, hash from doco.edge_versions
       where recorded_at <= p_at order by edge_id, version desc) e
  )
  select coalesce(sum(version), 0)::bigint,
         encode(sha256(convert_to(coalesce(string_agg(kind || ' ' || id || ' ' || version || ' ' || hash, E'\n' order by kind, id), ''), 'UTF8')), 'hex')
    from heads
$$;
comment on function doco.chain_heads(timestamptz) is 'The heads of every chain as recorded by the time: their versions counted and one sha256 digest of them (doco verify keeps it outside the database).';

-- A time no write still in progress can record a version at or before: a version's recorded_at is
-- its transaction's start, so the chain's heads as of this time are final once read after it.
create or replace function doco.chain_settled_at() returns timestamptz
language sql volatile as $$
  select least(clock_timestamp(),
               (select min(xact_start) from pg_stat_activity
                 where datname = current_database() and pid <> pg_backend_pid() and xact_start is not null))
         - interval '1 millisecond'
$$;
comment on function doco.chain_settled_at() is 'Now, or just before the oldest transaction still open in this database: the latest time whose versions are all committed.';
