-- Which connector last wrote an item (src/connectors/items.ts): a connector retires only items it
-- wrote. Drive's changes feed covers the whole account, so a second Drive connector in a workspace
-- saw the first one's files as out of its folders and retired their records, for good (a hostile
-- review). Items written before this are credited where the workspace has one connector of their
-- kind; the rest stay unknown (null), which any connector of the kind may retire, as before.
alter table doco.connector_items add column connector_id text references doco.connectors(id) on delete set null;
comment on column doco.connector_items.connector_id is 'The connector that last wrote the item (null: unknown, or since removed): only it retires the item.';

update doco.connector_items i
   set connector_id = c.id
  from doco.connectors c
 where c.workspace_id = i.workspace_id and c.kind = i.kind
   and (select count(*) from doco.connectors c2 where c2.workspace_id = i.workspace_id and c2.kind = i.kind) = 1;
