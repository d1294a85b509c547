-- Supersede, made safe under concurrency and made to carry over (DESIGN §5):
-- * at most one live `replaces` edge per replaced record, so two writers superseding one record
--   cannot both win (sql/lifecycle.sql turns the loser into a lifecycle violation first);
-- * touches a replacement inherits from the record it replaced are kept apart from the ones
--   extracted from its own text (sql/touches.sql), so editing it never drops them.

-- Before this guard, two concurrent supersedes of one record could both commit. Keep the first
-- replacement's edge live and retire the others' (their records stay as they are; the retire is
-- a new edge version, in a changeset of source 'sql'), so the index below can be built.
update doco.edges e set lifecycle = 'retired'
 where e.edge_type = 'replaces' and e.lifecycle <> 'retired'
   and exists (
     select 1 from doco.edges first
      where first.to_id = e.to_id and first.edge_type = 'replaces' and first.lifecycle <> 'retired'
        and (first.created_at, first.id) < (e.created_at, e.id));

create unique index edges_one_live_replacement on doco.edges (to_id)
  where edge_type = 'replaces' and lifecycle <> 'retired';
comment on index doco.edges_one_live_replacement is 'A record has at most one live replacement.';

alter table doco.touches add column inherited_from text references doco.nodes(id);
comment on column doco.touches.inherited_from is
  'Null for a touch extracted from the record''s own text; else the record it replaced, whose touch it inherited (kept for the record''s life).';

-- Replacements made before this migration inherit now, along whole chains (a record replacing a
-- replacement inherits what that one inherited).
with recursive inherited (node_id, workspace_id, kind, value, inherited_from) as (
  select e.from_id, t.workspace_id, t.kind, t.value, e.to_id
    from doco.edges e join doco.touches t on t.node_id = e.to_id
   where e.edge_type = 'replaces'
  union
  select e.from_id, i.workspace_id, i.kind, i.value, e.to_id
    from inherited i join doco.edges e on e.to_id = i.node_id and e.edge_type = 'replaces'
)
insert into doco.touches (node_id, workspace_id, kind, value, inherited_from)
select distinct on (node_id, kind, value) node_id, workspace_id, kind, value, inherited_from
  from inherited
 where not (kind = 'record' and value = node_id)
 order by node_id, kind, value, inherited_from
on conflict (node_id, kind, value) do update
  set inherited_from = coalesce(doco.touches.inherited_from, excluded.inherited_from);
