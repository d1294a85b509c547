-- Functions the console reads (docs/console.md): one record's chain, checked without scanning every
-- chain as doco.verify_chains() does, so the record page can show it on every view.

create or replace function doco.verify_node_chain(p_node_id text) returns table (version integer, problem text)
language sql stable as $$
  with nv as (
    select v, lag(v.hash) over w as expected_prev, row_number() over w as expected_version
      from doco.node_versions v
     where v.node_id = p_node_id
    window w as (order by v.version)
  ), broken as (
    select (v).version as version,
           case when (v).version <> expected_version then 'version number out of sequence'
                when (v).prev_hash is distinct from expected_prev then 'prev_hash does not match the previous version'
                else 'hash does not match the version''s content' end as problem
      from nv
     where (v).version <> expected_version or (v).prev_hash is distinct from expected_prev
        or (v).hash <> doco.chain_hash((v).prev_hash, doco.node_version_doc(v))
    union all
    select n.version, 'record differs from its latest version'
      from doco.nodes n
      left join doco.node_versions v on v.node_id = n.id and v.version = n.version
     where n.id = p_node_id
       and (v.node_id is null
            or doco.node_as_version(n) is distinct from v
            or exists (select 1 from doco.node_versions later where later.node_id = n.id and later.version > n.version))
  )
  select version, problem from broken order by version, problem
$$;
comment on function doco.verify_node_chain(text) is 'Recomputes one record''s hash chain; one row per broken link. No rows: intact.';
