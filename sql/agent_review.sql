-- Agents propose, people approve (docs/writes.md): a write by an `agent:` principal lands as queued
-- unless the collection (or, when the collection does not say, the workspace) lets agents
-- activate. Enforced here, beside the lifecycle rules, so a psql write obeys it too.
--
-- Who writes: the actor of the transaction's changeset (doco.changeset_id), or, for a new row,
-- the principal it names. A transaction that names no changeset is a person at psql.
-- What an agent may not do where review applies: insert a live row (it is queued instead), move
-- a row to active, retire an active row, change an active record's content, or change a row
-- that is not live but another principal's (a person's draft, another agent's proposal).
--
-- SQLSTATE raised here: DC007 (an agent asked for what needs a person's review) → forbidden.

-- In any case, as src/auth/principal-name.ts isAgentName: a principal is found by lower(title), so
-- `Agent:x` is the principal `agent:x` names, and an agent's token bound to it is an agent's.
create or replace function doco.is_agent_principal(p_id text) returns boolean
language sql stable as $$
  select coalesce((select lower(left(title, 6)) = 'agent:' from doco.nodes where id = p_id and node_type = 'principal'), false)
$$;
comment on function doco.is_agent_principal(text) is 'Whether the principal record names an agent (its name starts with agent:, in any case).';

create or replace function doco.agents_may_activate(p_collection text) returns boolean
language sql stable as $$
  select coalesce(c.agents_may_activate, w.agents_may_activate, false)
    from doco.collections c join doco.workspaces w on w.id = c.workspace_id
   where c.id = p_collection
$$;
comment on function doco.agents_may_activate(text) is 'The collection''s setting, else its workspace''s: may agent: principals make its records live without review?';

-- The actor of this transaction's changeset, without making one (a PageRank update names none).
create or replace function doco.writing_actor() returns text
language sql stable as $$
  select actor_id from doco.changesets where id = nullif(current_setting('doco.changeset_id', true), '')
$$;

create or replace function doco.agent_must_wait(p_principal text, p_collection text) returns boolean
language sql stable as $$
  select doco.is_agent_principal(coalesce(doco.writing_actor(), p_principal)) and not coalesce(doco.agents_may_activate(p_collection), false)
$$;

-- Body fields that say which of Doco's own sources wrote a record (the doc ingester and docs
-- packs: `shape`, `source_type`; the connectors: `source_kind`, `shape`). The brief reads them as
-- given: a record shaped as an architecture principle takes a must-obey slot, one with a
-- connector's source_kind counts as that connector's. Where agents may activate, an agent's
-- record claiming them went live as a principle (found by a hostile-input review): such a record
-- waits for a person even there.
create or replace function doco.claims_a_source(p_body jsonb) returns boolean
language sql immutable as $$
  select coalesce(p_body ?| array['shape', 'source_type', 'source_kind'], false)
$$;
comment on function doco.claims_a_source(jsonb) is 'Whether a record''s body holds a field only Doco''s own sources (ingester, docs packs, connectors) set.';

-- Whose a row is: the principal that wrote its first version. A proposal or a draft is its
-- author's to revise or withdraw, whoever changed its lifecycle since (a person sending it back).
create or replace function doco.record_author(p_id text) returns text
language sql stable as $$
  select principal_id from doco.node_versions where node_id = p_id and version = 1
$$;
create or replace function doco.edge_author(p_id text) returns text
language sql stable as $$
  select principal_id from doco.edge_versions where edge_id = p_id and version = 1
$$;

-- Whether the writing agent may change a row that is not live: its own, or anything in a
-- collection whose agents may activate. Not another's: an agent's sentence put in a person's
-- draft went live under "must obey" when the person activated the draft, and an agent retired a
-- person's draft for good (found by a hostile-input review).
create or replace function doco.agent_may_change_pending(p_author text, p_collection text) returns boolean
language sql stable as $$
  select not doco.is_agent_principal(doco.writing_actor())
      or p_author is not distinct from doco.writing_actor()
      or coalesce(doco.agents_may_activate(p_collection), false)
$$;

create or replace function doco.agent_versions_per_record() returns integer
language sql immutable as $$ select 1000 $$;
comment on function doco.agent_versions_per_record() is 'The most versions of one record an agent: principal may write (sql/agent_review.sql).';

-- How many records one agent: principal may have awaiting review (drafting or queued) in a
-- workspace, and how many relations. Past it, its next proposal is refused until a person approves or rejects some: one
-- agent's write token filled the review queue by the ten thousand, and no person reviews that
-- (the last sessions' hostile reviews). Where agents may activate, their records go live and are
-- not counted. Counted up to the cap only (indexes of pending records and relations by
-- principal, migration 0046).
create or replace function doco.agent_pending_per_workspace() returns integer
language sql immutable as $$ select 1000 $$;
comment on function doco.agent_pending_per_workspace() is 'The most records one agent: principal may have awaiting review in a workspace (sql/agent_review.sql).';

-- Records or relations (`p_edges`) awaiting review. The agent's own writes to the workspace are
-- counted one transaction at a time (a lock held to its end): concurrent ones, each counting
-- before the others committed, took an agent 50 operations a connection past the cap.
create or replace function doco.agent_pending_reaches_cap(p_workspace text, p_principal text, p_edges boolean default false) returns boolean
language plpgsql volatile as $$
begin
  perform pg_advisory_xact_lock(hashtext('doco.agent_pending'), hashtext(p_workspace || ' ' || p_principal));
  if p_edges then
    return (select count(*) >= doco.agent_pending_per_workspace()
              from (select 1 from doco.edges
                     where workspace_id = p_workspace and principal_id = p_principal and lifecycle in ('drafting', 'queued')
                     limit doco.agent_pending_per_workspace()) pending);
  end if;
  return (select count(*) >= doco.agent_pending_per_workspace()
            from (select 1 from doco.nodes
                   where workspace_id = p_workspace and principal_id = p_principal and lifecycle in ('drafting', 'queued')
                   limit doco.agent_pending_per_workspace()) pending);
end $$;

create or replace function doco.tg_nodes__agent_review() returns trigger
language plpgsql volatile as $$
begin
  -- Who is who is a person's to say, whatever agents may activate. An agent that wrote principal
  -- records planted the name a person's next install bound to (`cli:bob`, found by
  -- auth/workspaces.ts ensurePrincipal before Bob made his), and, where agents may activate,
  -- could rename its own principal to a person's name or retire a person's.
  if (new.node_type = 'principal' or (tg_op = 'UPDATE' and old.node_type = 'principal'))
     and doco.is_agent_principal(doco.writing_actor()) then
    raise exception 'an agent cannot write principal records: who is who is a person''s to say'
      using errcode = 'DC007';
  end if;
  if tg_op = 'INSERT' then
    if new.lifecycle = 'active' and (doco.agent_must_wait(new.principal_id, new.collection_id)
       or (doco.claims_a_source(new.body) and doco.is_agent_principal(coalesce(doco.writing_actor(), new.principal_id)))) then
      new.lifecycle := 'queued';
    end if;
    if new.lifecycle in ('drafting', 'queued') and doco.is_agent_principal(coalesce(doco.writing_actor(), new.principal_id))
       and doco.agent_pending_reaches_cap(new.workspace_id, coalesce(doco.writing_actor(), new.principal_id)) then
      raise exception '% has % records awaiting review in this workspace, the most an agent may: a person approves or rejects them before it proposes more',
        (select title from doco.nodes where id = coalesce(doco.writing_actor(), new.principal_id)), doco.agent_pending_per_workspace()
        using errcode = 'DC007';
    end if;
    return new;
  end if;
  -- Every version keeps the whole text and body (up to 256 KiB): an agent that rewrote its own
  -- proposal a thousand times made a record whose page a reviewer opens recompute a quarter of a
  -- gigabyte of hashes (a hostile review). No principal needs more versions of one record.
  if old.version >= doco.agent_versions_per_record()
     and (new.collection_id, new.lifecycle, new.title, new.prose, new.body) is distinct from (old.collection_id, old.lifecycle, old.title, old.prose, old.body)
     and doco.is_agent_principal(doco.writing_actor()) then
    raise exception 'an agent cannot write version % of record %: an agent writes at most % versions of one record (a person may write more, or the agent a new record)',
      old.version + 1, old.id, doco.agent_versions_per_record()
      using errcode = 'DC007';
  end if;
  if old.lifecycle <> 'active' and new.lifecycle <> 'active' then
    if (new.collection_id, new.lifecycle, new.title, new.prose, new.body) is distinct from (old.collection_id, old.lifecycle, old.title, old.prose, old.body)
       and not doco.agent_may_change_pending(doco.record_author(old.id), old.collection_id) then
      raise exception 'an agent cannot change record %: it is another principal''s %, and an agent revises or withdraws only its own', old.id, old.lifecycle
        using errcode = 'DC007';
    end if;
    return new;
  end if;
  if old.lifecycle = 'active' and new.lifecycle = 'active'
     and (new.collection_id, new.title, new.prose, new.body) is not distinct from (old.collection_id, old.title, old.prose, old.body) then
    return new;
  end if;
  if doco.is_agent_principal(doco.writing_actor()) and doco.claims_a_source(new.body) then
    raise exception 'an agent cannot % record %: its body says a source of Doco''s own wrote it (shape, source_type or source_kind), so a person reviews it',
      case when old.lifecycle = 'active' and new.lifecycle = 'active' then 'change active'
           when new.lifecycle = 'active' then 'activate'
           else 'retire active' end,
      old.id
      using errcode = 'DC007';
  end if;
  -- A live record moved to another collection is judged by both: moved from one where agents may
  -- activate, it went live into one where they may not, with new text (a hostile SQL review).
  if doco.is_agent_principal(doco.writing_actor())
     and not (coalesce(doco.agents_may_activate(old.collection_id), false) and coalesce(doco.agents_may_activate(new.collection_id), false)) then
    raise exception 'an agent cannot % record % in collection %: agents'' writes wait for a person''s review (the collection or workspace setting agents_may_activate allows it)',
      case when old.lifecycle = 'active' and new.lifecycle = 'active' then 'change active'
           when new.lifecycle = 'active' then 'activate'
           else 'retire active' end,
      old.id,
      (select slug from doco.collections
        where id = case when coalesce(doco.agents_may_activate(old.collection_id), false) then new.collection_id else old.collection_id end)
      using errcode = 'DC007';
  end if;
  return new;
end $$;

-- An edge binds both its records: agents may make one live, or retire a live one, only where they
-- may activate in both records' collections. With the setting on for one collection, an agent's
-- record there made live `replaces` and `constrained_by` edges onto a person's rule in a reviewed
-- collection (the rule could no longer be superseded, and the agent's record took its paths)
-- when only the edge's `from` record was asked about (found by a hostile-input review).
create or replace function doco.agents_may_activate_edge(p_from text, p_to text) returns boolean
language sql stable as $$
  select coalesce(bool_and(coalesce(doco.agents_may_activate(n.collection_id), false)), false)
         and count(*) = case when p_from = p_to then 1 else 2 end
    from doco.nodes n
   where n.id in (p_from, p_to)
$$;
comment on function doco.agents_may_activate_edge(text, text) is 'Whether agents may activate in the collections of both records an edge connects.';

create or replace function doco.tg_edges__agent_review() returns trigger
language plpgsql volatile as $$
begin
  if tg_op = 'INSERT' then
    -- A relation an agent proposes never retires a principal: approving a `replaces` relation
    -- retires its target, and a retired principal's tokens and sessions end (sql/workspaces.sql),
    -- so an agent's "X replaces cli:alice", approved by a person reading past it, locked Alice out
    -- (a hostile review). Who is who is a person's to say.
    if new.edge_type = 'replaces' and doco.is_agent_principal(coalesce(doco.writing_actor(), new.principal_id))
       and exists (select 1 from doco.nodes n where n.id in (new.from_id, new.to_id) and n.node_type = 'principal') then
      raise exception 'an agent cannot propose that a record replaces a principal, or a principal anything: who is who is a person''s to say'
        using errcode = 'DC007';
    end if;
    if new.lifecycle = 'active' and doco.is_agent_principal(coalesce(doco.writing_actor(), new.principal_id))
       and not doco.agents_may_activate_edge(new.from_id, new.to_id) then
      new.lifecycle := 'queued';
    end if;
    if new.lifecycle in ('drafting', 'queued') and doco.is_agent_principal(coalesce(doco.writing_actor(), new.principal_id))
       and doco.agent_pending_reaches_cap(new.workspace_id, coalesce(doco.writing_actor(), new.principal_id), true) then
      raise exception '% has % relations awaiting review in this workspace, the most an agent may: a person approves or rejects them before it proposes more',
        (select title from doco.nodes where id = coalesce(doco.writing_actor(), new.principal_id)), doco.agent_pending_per_workspace()
        using errcode = 'DC007';
    end if;
    return new;
  end if;
  if new.lifecycle is not distinct from old.lifecycle then return new; end if;
  if old.lifecycle <> 'active' and new.lifecycle <> 'active' then
    if doco.is_agent_principal(doco.writing_actor()) and doco.edge_author(old.id) is distinct from doco.writing_actor()
       and not doco.agents_may_activate_edge(old.from_id, old.to_id) then
      raise exception 'an agent cannot change edge %: it is another principal''s %, and an agent withdraws only its own', old.id, old.lifecycle
        using errcode = 'DC007';
    end if;
    return new;
  end if;
  if doco.is_agent_principal(doco.writing_actor()) and not doco.agents_may_activate_edge(old.from_id, old.to_id) then
    raise exception 'an agent cannot % edge %: agents'' writes wait for a person''s review', case when new.lifecycle = 'active' then 'activate' else 'retire active' end, old.id
      using errcode = 'DC007';
  end if;
  return new;
end $$;

-- Before the lifecycle checks (_100_): a queued row is then checked as queued.
create or replace trigger _050_agent_review before insert or update on doco.nodes
  for each row execute function doco.tg_nodes__agent_review();
create or replace trigger _050_agent_review before insert or update on doco.edges
  for each row execute function doco.tg_edges__agent_review();
