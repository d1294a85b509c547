-- Views for operators in psql.

create or replace view doco.active_rules as
  select w.slug as workspace, c.slug as collection, n.id, n.title, n.prose, n.version, n.updated_at
    from doco.nodes n
    join doco.collections c on c.id = n.collection_id
    join doco.workspaces w on w.id = n.workspace_id
   where n.node_type = 'rule' and n.lifecycle = 'active';
comment on view doco.active_rules is 'Every active rule, by workspace and collection.';

create or replace view doco.recent_changes as
  select w.slug as workspace, cs.created_at, cs.id as changeset_id, cs.source, cs.actor_id,
         v.node_id as id, v.version, v.node_type, v.lifecycle, v.title
    from doco.node_versions v
    join doco.changesets cs on cs.id = v.changeset_id
    join doco.workspaces w on w.id = v.workspace_id
   where cs.created_at > now() - interval '7 days';
comment on view doco.recent_changes is 'Record versions written in the last seven days, with who wrote them and how.';

create or replace view doco.chain_status as
  select count(*) = 0 as intact, count(*) as broken_links,
         (array_agg(kind || ' ' || id || ' v' || version || ': ' || problem order by ord))[1] as first_break
    from doco.verify_chains() with ordinality as b(kind, id, version, problem, ord);
comment on view doco.chain_status is 'Whether every hash chain verifies; recomputes them all, so it costs a full scan.';
