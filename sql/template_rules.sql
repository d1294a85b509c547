-- A collection's template rules, enforced on every write of a record's content, so a psql insert
-- obeys them as the API does: the record types the template allows, and the fields its
-- `required_fields` policies name. The API checks the same rules first (src/graph/policies.ts),
-- to answer with verdicts; this is the guard for every other writer. Judge policies need a model
-- and stay in the app.
--
-- SQLSTATEs raised here: DC006 (a template rule is broken).

-- Blank as JavaScript's String.prototype.trim() sees it, so both checks agree on "present".
create or replace function doco.is_blank(p_text text) returns boolean
language sql immutable as $$
  select p_text is null
      or p_text ~ '^[[:space:]\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]*$'
$$;

-- A required field is present when it is not missing, not null, not a blank string and not an
-- empty array. `title` and `prose` are the columns; `body.x.y` (or `x.y`) is a path into body.
create or replace function doco.record_field_present(p_title text, p_prose text, p_body jsonb, p_field text) returns boolean
language plpgsql immutable as $$
declare
  v jsonb;
begin
  if p_field = 'title' then return not doco.is_blank(p_title); end if;
  if p_field = 'prose' then return not doco.is_blank(p_prose); end if;
  v := p_body #> string_to_array(regexp_replace(p_field, '^body\.', ''), '.');
  return case jsonb_typeof(v)
    when 'string' then not doco.is_blank(v #>> '{}')
    when 'array' then jsonb_array_length(v) > 0
    when 'null' then false
    else v is not null
  end;
end $$;
comment on function doco.record_field_present(text, text, jsonb, text) is
  'Whether a required_fields policy finds this field in a record: title, prose, or a body path.';

create or replace function doco.tg_nodes__check_template() returns trigger
language plpgsql volatile as $$
declare
  v_slug text;
  v_template text;
  v_allowed text[];
  v_policies jsonb;
  v_policy jsonb;
  v_missing text[];
begin
  if tg_op = 'UPDATE'
     and (new.collection_id, new.title, new.prose, new.body)
         is not distinct from (old.collection_id, old.title, old.prose, old.body) then
    return new; -- a lifecycle move or a PageRank refresh: the content was checked when written
  end if;
  select c.slug, t.slug, t.allowed_types, t.policies into v_slug, v_template, v_allowed, v_policies
    from doco.collections c join doco.templates t on t.slug = c.template
   where c.id = new.collection_id;
  if not found then
    return new; -- the collection's foreign key refuses the row
  end if;
  if not new.node_type = any(v_allowed) then
    raise exception 'blocked by policy allowed-types: collection % (template %) accepts %, not %',
      v_slug, v_template, array_to_string(v_allowed, ', '), new.node_type
      using errcode = 'DC006';
  end if;
  for v_policy in
    select p from jsonb_array_elements(v_policies) as p
     where p->>'kind' = 'required_fields'
       and (jsonb_typeof(p->'node_types') is distinct from 'array' or p->'node_types' ? new.node_type)
  loop
    v_missing := array(
      select f from jsonb_array_elements_text(v_policy->'fields') as f
       where not doco.record_field_present(new.title, new.prose, new.body, f));
    if cardinality(v_missing) > 0 then
      raise exception 'blocked by policy %: a % in % needs %',
        v_policy->>'id', new.node_type, v_slug, array_to_string(v_missing, ', ')
        using errcode = 'DC006';
    end if;
  end loop;
  return new;
end $$;
comment on function doco.tg_nodes__check_template() is
  'Refuses a record its collection''s template does not allow, or one missing a required field (DC006).';

create or replace trigger _150_check_template before insert or update on doco.nodes
  for each row execute function doco.tg_nodes__check_template();
