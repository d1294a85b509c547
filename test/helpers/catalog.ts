// A snapshot of what sql/ and migrations/ define in schema doco, as plain rows that compare
// with toEqual: functions (with the md5 of their full definition), triggers, views, indexes,
// constraints, columns and comments. Two snapshots are equal only when the schema is.
import type postgres from 'postgres';

export async function catalogSnapshot(sql: postgres.Sql) {
  const [functions, triggers, views, indexes, constraints, columns, comments] = await Promise.all([
    sql`select p.proname as name, pg_get_function_identity_arguments(p.oid) as args,
               md5(pg_get_functiondef(p.oid)) as def_md5
        from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname = 'doco' and p.prokind in ('f', 'p')
        order by 1, 2`,
    sql`select c.relname as "table", t.tgname as name, t.tgenabled as enabled, pg_get_triggerdef(t.oid) as def
        from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'doco' and not t.tgisinternal
        order by 1, 2`,
    sql`select c.relname as name, c.relkind as kind, md5(pg_get_viewdef(c.oid)) as def_md5
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'doco' and c.relkind in ('v', 'm')
        order by 1`,
    sql`select tablename as "table", indexname as name, indexdef as def from pg_indexes where schemaname = 'doco' order by 1, 2`,
    sql`select c.relname as "table", k.conname as name, pg_get_constraintdef(k.oid) as def
        from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'doco'
        order by 1, 2`,
    sql`select table_name as "table", column_name as name, data_type as type, column_default as "default", is_nullable as nullable
        from information_schema.columns where table_schema = 'doco'
        order by 1, ordinal_position`,
    sql`select d.classoid::regclass::text as catalog, coalesce(p.proname, c.relname) as object, d.objsubid as sub, d.description
        from pg_description d
        left join pg_proc p on d.classoid = 'pg_proc'::regclass and p.oid = d.objoid
        left join pg_class c on d.classoid = 'pg_class'::regclass and c.oid = d.objoid
        join pg_namespace n on n.oid = coalesce(p.pronamespace, c.relnamespace)
        where n.nspname = 'doco'
        order by 1, 2, 3`,
  ]);
  return { functions, triggers, views, indexes, constraints, columns, comments };
}
