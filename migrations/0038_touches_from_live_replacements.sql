-- A `replaces` edge gives the replacement the touches of the record it replaces once the edge is
-- live (sql/touches.sql). Before, one waiting for review (an agent's) gave them at once and kept
-- them given when a person rejected it: an active record took the file paths of any record an
-- agent named. Taken back here: what a record inherited from a record that no `replaces` edge
-- between them ever made live. Then the record's own touches are derived again from its text, so
-- a path it names itself (kept as inherited while it was) stays. A record that replaced such a
-- record in turn keeps the copies it took: supersede it again to drop them.
create temporary table inherited_unreviewed on commit drop as
  select distinct t.node_id, t.inherited_from
    from doco.touches t
   where t.inherited_from is not null
     and not exists (
       select 1 from doco.edge_versions v
        where v.from_id = t.node_id and v.to_id = t.inherited_from and v.edge_type = 'replaces' and v.lifecycle = 'active');

delete from doco.touches t using inherited_unreviewed u where t.node_id = u.node_id and t.inherited_from = u.inherited_from;

-- A fresh database has no touches yet, and its sql/ (which defines the function) is applied after
-- the migrations.
do $$
begin
  if to_regprocedure('doco.refresh_own_touches(text,text,text,text,jsonb,boolean)') is not null then
    perform doco.refresh_own_touches(n.id, n.workspace_id, n.title, n.prose, n.body, false)
       from doco.nodes n
      where n.id in (select node_id from inherited_unreviewed);
  end if;
end $$;
