-- The glossary from records: a reference in a collection made from the `glossary` template
-- defines the term named by its title (definition: its prose). Kept by trigger, so the brief's
-- glossary retriever sees a term as soon as the record is written, and loses it on retire.
-- Terms can also be written to doco.glossary directly, pointing at any records.

create or replace function doco.tg_nodes__sync_glossary() returns trigger
language plpgsql volatile as $$
declare
  v_template text;
begin
  select template into v_template from doco.collections where id = new.collection_id;
  -- Leaving: an old term this record defined (retired, renamed, or moved out of the glossary).
  if tg_op = 'UPDATE' then
    update doco.glossary set node_ids = array_remove(node_ids, old.id)
     where workspace_id = old.workspace_id and lower(term) = lower(old.title) and old.id = any(node_ids)
       and (new.lifecycle = 'retired' or lower(new.title) <> lower(old.title) or v_template <> 'glossary');
    delete from doco.glossary where workspace_id = old.workspace_id and node_ids = '{}';
  end if;
  if v_template = 'glossary' and new.node_type = 'reference' and new.lifecycle = 'active' then
    insert into doco.glossary (id, workspace_id, term, definition, node_ids)
    values (doco.new_id('term'), new.workspace_id, new.title, new.prose, array[new.id])
    on conflict (workspace_id, lower(term)) do update
      set definition = excluded.definition,
          node_ids = (select array_agg(distinct x) from unnest(doco.glossary.node_ids || excluded.node_ids) as x);
  end if;
  return null;
end $$;

create or replace trigger _750_sync_glossary after insert or update of title, prose, lifecycle, collection_id on doco.nodes
  for each row execute function doco.tg_nodes__sync_glossary();
