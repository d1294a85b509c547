// What the search page reads besides the search itself: the newest records of one type (a type
// chosen on the overview, with no query).
import type { Sql } from '../../../db/connect.js';

export interface LatestRecord {
  id: string;
  title: string;
  lifecycle: string;
  collection: string;
}

export function newestOfType(sql: Sql, workspaceId: string, nodeType: string, limit = 25): Promise<LatestRecord[]> {
  return sql<LatestRecord[]>`
    select n.id, n.title, n.lifecycle, c.slug as collection from doco.nodes n join doco.collections c on c.id = n.collection_id
     where n.workspace_id = ${workspaceId} and n.node_type = ${nodeType} order by n.updated_at desc limit ${limit}`;
}
