-- Alignment logs settle themselves (docs/writes.md): a push's log lists the doc sections that expect
-- the code it changed ("docs that expect `consensus/wal.go`, changed in a1b2c3d"). When one of
-- those sections is revised (its title or text changes) or retired, someone has dealt with it:
-- the section leaves the log's list (recorded under body.align.settled, with the changeset that
-- did it), the prose is rebuilt from what is left, and a log with nothing left retires. In SQL,
-- so a section edited through psql settles its logs as a re-ingest does. The log's new version
-- is stamped with the revising write's changeset.
--
-- Only the logs a connector wrote (the scan's, through src/connectors/items.ts) settle.
-- The log's shape (src/connectors/github/push-align.ts): body.align.intro, and
-- body.align.expectations [{id, section_key, line, …}]; prose = intro and the lines, one per row.

create or replace function doco.settle_alignment_logs(p_workspace_id text, p_section_id text, p_how text) returns integer
language plpgsql volatile as $$
declare
  r record;
  v_left jsonb;
  v_settled jsonb;
  n integer := 0;
begin
  for r in
    select l.id, l.body from doco.nodes l
     where l.workspace_id = p_workspace_id and l.node_type = 'log' and l.lifecycle <> 'retired'
       and (l.body->'align'->'expectations') @> jsonb_build_array(jsonb_build_object('id', p_section_id))
       -- The scan's logs only: a connector's changeset wrote their first version. Any writer may
       -- put `align` in a body, and an agent's log, approved for its harmless prose, had that
       -- prose replaced by the hidden `intro` once a listed record was revised, in a version
       -- credited to whoever revised it (found by a hostile-input review).
       and exists (select 1 from doco.node_versions v join doco.changesets cs on cs.id = v.changeset_id
                    where v.node_id = l.id and v.version = 1 and cs.source = 'connector')
     order by l.id
       for update of l
  loop
    select coalesce(jsonb_agg(e order by ord), '[]'::jsonb) into v_left
      from jsonb_array_elements(r.body->'align'->'expectations') with ordinality as x(e, ord)
     where e->>'id' is distinct from p_section_id;
    select coalesce(r.body->'align'->'settled', '[]'::jsonb) || coalesce(jsonb_agg(
             jsonb_build_object('id', p_section_id, 'section_key', e->>'section_key', 'how', p_how,
                                'changeset_id', nullif(current_setting('doco.changeset_id', true), ''), 'at', doco.utc_text(now()))), '[]'::jsonb)
      into v_settled
      from jsonb_array_elements(r.body->'align'->'expectations') as x(e)
     where e->>'id' = p_section_id;
    update doco.nodes n
       set body = jsonb_set(jsonb_set(n.body, '{align,expectations}', v_left), '{align,settled}', v_settled),
           prose = case
             when n.body->'align' ? 'intro' and jsonb_array_length(v_left) > 0 then
               (n.body->'align'->>'intro') || E'\n' || (select string_agg(e->>'line', E'\n' order by ord) from jsonb_array_elements(v_left) with ordinality as x(e, ord))
             else n.prose end,
           lifecycle = case when jsonb_array_length(v_left) = 0 then 'retired' else n.lifecycle end
     where n.id = r.id;
    n := n + 1;
  end loop;
  return n;
end $$;
comment on function doco.settle_alignment_logs(text, text, text) is 'Takes a revised or retired doc section out of the alignment logs that list it; retires a log left with none. Returns the logs changed.';

create or replace function doco.tg_nodes__settle_alignment() returns trigger
language plpgsql volatile as $$
begin
  perform doco.settle_alignment_logs(new.workspace_id, new.id, case when new.lifecycle = 'retired' then 'retired' else 'revised' end);
  return null;
end $$;

create or replace trigger _720_settle_alignment after update of title, prose, lifecycle on doco.nodes
  for each row when (new.node_type = 'reference' and old.lifecycle <> 'retired'
                     and ((new.title, new.prose) is distinct from (old.title, old.prose) or new.lifecycle = 'retired'))
  execute function doco.tg_nodes__settle_alignment();
