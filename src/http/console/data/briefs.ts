// What the briefs pages read besides the stored brief: who asked for it.
import type { Sql } from '../../../db/connect.js';

/** The title of the principal that asked for a brief, or null (a brief asked with no principal). */
export async function briefAsker(sql: Sql, briefId: string): Promise<string | null> {
  const [asker] = await sql<{ title: string }[]>`
    select p.title from doco.briefs b join doco.nodes p on p.id = b.principal_id where b.id = ${briefId}`;
  return asker?.title ?? null;
}
