-- Id generation in SQL, so a psql write can mint ids of the same form as the app (`<type>_<ULID>`).

create or replace function doco.new_ulid() returns text
language plpgsql volatile as $$
declare
  alphabet constant text := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  ms bigint := floor(extract(epoch from clock_timestamp()) * 1000);
  rnd bytea := substring(decode(replace(gen_random_uuid()::text, '-', ''), 'hex') from 1 for 10);
  out text := '';
  i int;
  bits numeric := 0;
begin
  for i in reverse 9..0 loop
    out := out || substr(alphabet, ((ms >> (i * 5)) & 31)::int + 1, 1);
  end loop;
  for i in 0..9 loop
    bits := bits * 256 + get_byte(rnd, i);
  end loop;
  for i in reverse 15..0 loop
    out := out || substr(alphabet, (floor(bits / (32::numeric ^ i)) % 32)::int + 1, 1);
  end loop;
  return out;
end $$;
comment on function doco.new_ulid() is 'A ULID (48-bit millisecond time + 80 random bits, Crockford base32).';

create or replace function doco.new_id(p_prefix text) returns text
language sql volatile as $$ select p_prefix || '_' || doco.new_ulid() $$;
comment on function doco.new_id(text) is 'An id of the form <prefix>_<ULID>, e.g. doco.new_id(''rule'').';
