// A fingerprint of everything a request could change: one hash per table of Doco's schema and of
// graphile-worker's queue, so a refused request can be shown to have changed nothing at all.
// Left out: when a token was last used (every authenticated request notes it) and the console's
// cookie key (made on the first console request of a database).
import type { TestDb } from './db.js';

const SKIPPED = new Set(['console_keys', 'tokens']);

export async function stateDigest(t: TestDb): Promise<Record<string, string>> {
  const tables = await t.sql<{ name: string }[]>`
    select table_name as name from information_schema.tables
     where table_schema = 'doco' and table_type = 'BASE TABLE' order by table_name`;
  const parts = tables
    .filter(({ name }) => !SKIPPED.has(name))
    .map(
      ({ name }) => `select '${name}' as name, md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as hash from doco.${name} x`,
    );
  parts.push(
    `select 'tokens', md5(coalesce(string_agg(concat_ws(',', id, workspace_id, principal_id, scope, label, revoked_at), '|' order by id), '')) from doco.tokens`,
    `select 'jobs', md5(coalesce(string_agg(concat_ws(',', id, task_id, payload::text, key), '|' order by id), '')) from graphile_worker._private_jobs`,
  );
  const rows = await t.sql.unsafe<{ name: string; hash: string }[]>(parts.join(' union all '));
  return Object.fromEntries(rows.map((r) => [r.name, r.hash]));
}
